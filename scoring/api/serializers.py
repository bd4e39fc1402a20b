"""Thin serializers: they shape JSON and check types; the services and the
engine decide what is allowed, and nothing here computes a score."""

from __future__ import annotations

from datetime import datetime, tzinfo

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import DateTimeField

from players.models import Player
from scoring.api.json_text import find_nul
from scoring.models import Deal, Ending, Game, GameScore, Hand, LeagueStatus, Result
from scoring.permissions import can_edit_game
from scoring.services import SCORE_FIGURES


class TextField(serializers.CharField):
    """DRF's CharField taking only a JSON string: DRF's own makes a number text (5 -> "5", 1e999999 -> "inf").

    Its ``max_length`` is the schema's ``maxLength``: the length of the text sent. DRF measured it after trimming
    the spaces (and control characters) around it, so it took 101 characters sent where the schema says 100."""

    default_error_messages = {"not_text": gettext_lazy("Must be text (a JSON string in quotes), not a number.")}

    def to_internal_value(self, data):
        if isinstance(data, int | float) and not isinstance(data, bool):
            self.fail("not_text")
        if isinstance(data, str) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


@extend_schema_field({"description": "The dealt cards as entered (any JSON), or null.", "nullable": True})
class CardsField(serializers.JSONField):
    def to_internal_value(self, data):
        data = super().to_internal_value(data)
        if find_nul(data) is not None:
            raise serializers.ValidationError(_("Cards may not contain the NUL character."))
        return data


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": True,
        "description": 'A preset name plus any overrides, e.g. {"preset": "standard", "undercut_bonus": 20}. '
        'Values are read as on the pages (scoring/engine/overrides.py): "off" turns a bonus off, "yes"/"no" answer '
        "a yes-or-no rule.",
        "example": {"preset": "standard"},
    }
)
class RulesField(serializers.JSONField):
    pass


class PlayerSerializer(serializers.ModelSerializer):
    # Declared, not generated from the model: DRF's generated CharField would take a number as a name.
    name = TextField(max_length=Player._meta.get_field("name").max_length)
    has_account = serializers.SerializerMethodField()

    class Meta:
        model = Player
        fields = ["id", "name", "has_account", "created_at"]
        read_only_fields = ["id", "has_account", "created_at"]
        # The declared name has no uniqueness validator: the same name (any case) = the same player, not an error.

    def get_has_account(self, player: Player) -> bool:
        return player.user_id is not None


# The serializers a hand's answer is made of write their JSON directly (``to_representation``):
# DRF builds a ModelSerializer's fields anew for every instance, which cost about a third of
# a hand POST. Their declared fields still describe the API (the schema is made from them), and
# tests/test_api_representation.py checks that each direct answer equals DRF's own rendering.
_DATETIME = DateTimeField()


def _when(value: datetime | None, zone: tzinfo) -> str | None:
    """A date and time as DRF writes it (ISO 8601 in the current time zone ``zone``, "Z" for UTC).

    Stored times are aware: converted and written here directly (DRF's field looks up its format and
    time zone for every value, a few percent of a long game's answer; the caller looks the zone up once
    an answer, a thread-local read that was half of writing each time); anything else goes to DRF."""
    if value is None:
        return None
    if value.tzinfo is None or not settings.USE_TZ:
        return _DATETIME.to_representation(value)
    text = value.astimezone(zone).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


class PlayerRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "name"]

    def to_representation(self, player: Player) -> dict:
        return {"id": player.pk, "name": player.name}


def _player_ref(player: Player | None) -> dict | None:
    return None if player is None else {"id": player.pk, "name": player.name}


class GameScoreSerializer(serializers.ModelSerializer):
    class Meta:
        model = GameScore
        fields = ["number", *SCORE_FIGURES]

    def to_representation(self, score: GameScore) -> dict:
        data = {"number": score.number}
        for figure in SCORE_FIGURES:
            data[figure] = getattr(score, figure if figure != "winner" else "winner_id")
        return data


def hand_facts_data(hand: Hand) -> dict:
    """A stored hand's recorded facts as the API names them (what a partial correction starts from)."""
    return {
        "ending": hand.ending,
        "by": hand.by_id,
        "knocker_deadwood": hand.knocker_deadwood,
        "defender_deadwood": hand.defender_deadwood,
        "upcard": hand.upcard,
        "cards": hand.cards,
    }


class HandSerializer(serializers.ModelSerializer):
    """A stored hand: the facts recorded, then the figures the engine derived. In a partnership game a
    hand is one board of a deal: ``number`` is the deal, ``board`` 1 or 2, and its figures are the board's."""

    result = serializers.ChoiceField(choices=Result.choices, read_only=True)
    board = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="A partnership game's board (1 or 2) of deal `number`; null for a game of two players.",
    )
    scored_in = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    cards = CardsField(read_only=True)

    class Meta:
        model = Hand
        fields = [
            "id",
            "number",
            "board",
            "ending",
            "by",
            "knocker_deadwood",
            "defender_deadwood",
            "upcard",
            "cards",
            "dealer",
            "result",
            "winner",
            "points",
            "boxes",
            "doubled",
            "scored_in",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def to_representation(self, hand: Hand) -> dict:
        return _hand_data(hand, timezone.get_current_timezone())


def _hand_data(hand: Hand, zone: tzinfo) -> dict:
    """A stored hand as HandSerializer writes it, its times in ``zone``."""
    return {
        "id": hand.pk,
        "number": hand.number,
        "board": hand.board,
        **hand_facts_data(hand),
        "dealer": hand.dealer_id,
        "result": hand.result,
        "winner": hand.winner_id,
        "points": hand.points,
        "boxes": hand.boxes,
        "doubled": hand.doubled,
        "scored_in": [int(number) for number in hand.scored_in],
        "created_at": _when(hand.created_at, zone),
        "updated_at": _when(hand.updated_at, zone),
    }


class DealSerializer(serializers.ModelSerializer):
    """A partnership deal's result: a side is named by its first-seated player (player_one: player_one &
    player_three; player_two: player_two & player_four)."""

    class Meta:
        model = Deal
        fields = ["number", "dealer", "winner", "points", "settled"]
        read_only_fields = fields
        extra_kwargs = {
            "dealer": {"help_text": "The side that dealt both boards, by its first-seated player's id."},
            "winner": {"help_text": "The side that won the deal, by its first-seated player's id; null while a "
                       "board is missing, or for a tied deal (settled)."},
            "points": {"help_text": "What the winning side scored: its boards' points minus the other side's."},
            "settled": {"help_text": "Both boards are in."},
        }

    def to_representation(self, deal: Deal) -> dict:
        return {
            "number": deal.number,
            "dealer": deal.dealer_id,
            "winner": deal.winner_id,
            "points": deal.points,
            "settled": deal.settled,
        }


def _deals(game: Game) -> list[dict]:
    """A partnership game's deals (none for a game of two: no query)."""
    if not game.is_partnership:
        return []
    serializer = DealSerializer()
    return [serializer.to_representation(deal) for deal in game.deals.all()]


class GameSerializer(serializers.ModelSerializer):
    player_one = PlayerRefSerializer(read_only=True)
    player_two = PlayerRefSerializer(read_only=True)
    player_three = PlayerRefSerializer(
        read_only=True,
        allow_null=True,
        help_text="A partnership game (four players): player_one's partner; null for a game of two. In a "
        "partnership game `scores`' player_one_* figures are the side player_one & player_three's, player_two_* "
        "the side player_two & player_four's, and `winner` and `next_dealer` name a side by its first-seated player.",
    )
    player_four = PlayerRefSerializer(
        read_only=True, allow_null=True, help_text="A partnership game: player_two's partner; null for a game of two."
    )
    first_dealer = PlayerRefSerializer(read_only=True)
    winner = PlayerRefSerializer(read_only=True, allow_null=True)
    next_dealer = PlayerRefSerializer(read_only=True, allow_null=True)
    rules = RulesField(read_only=True)
    scores = GameScoreSerializer(many=True, read_only=True)
    can_edit = serializers.SerializerMethodField()
    league_status = serializers.ChoiceField(
        choices=[("", "Friendly"), *LeagueStatus.choices],
        read_only=True,
        help_text="A league game: playing (provisional), confirmed (counts in the standings) or disputed; "
        "empty for a friendly game.",
    )

    class Meta:
        model = Game
        fields = [
            "id",
            "name",
            "source",
            "player_one",
            "player_two",
            "player_three",
            "player_four",
            "first_dealer",
            "preset",
            "rules",
            "over",
            "finished_at",
            "winner",
            "margin",
            "next_dealer",
            "hand_count",
            "time_called_after",
            "scores",
            "can_edit",
            "season",
            "fixture",
            "league_status",
            "confirmed_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "season": {"help_text": "The league season (id) this game counts in; null for a friendly game."},
            "fixture": {"help_text": "The season's fixture (id) this game plays; null otherwise."},
            "time_called_after": {
                "help_text": "Time was called when this many hands were recorded: the next hand is the last "
                "unless the players are level after it (docs/rules.md, \"A game ended by time\"); null: not called."
            },
        }

    def get_can_edit(self, game: Game) -> bool:
        """Whether the user making this request may record or correct hands."""
        request = self.context.get("request")
        return can_edit_game(getattr(request, "user", None), game)

    def to_representation(self, game: Game) -> dict:
        return self._game_data(game, timezone.get_current_timezone())

    def _game_data(self, game: Game, zone: tzinfo) -> dict:
        score = GameScoreSerializer()
        return {
            "id": game.pk,
            "name": game.name,
            "source": game.source,
            "player_one": _player_ref(game.player_one),
            "player_two": _player_ref(game.player_two),
            "player_three": _player_ref(game.player_three) if game.is_partnership else None,
            "player_four": _player_ref(game.player_four) if game.is_partnership else None,
            "first_dealer": _player_ref(game.first_dealer),
            "preset": game.preset,
            "rules": game.rules,
            "over": game.over,
            "finished_at": _when(game.finished_at, zone),
            "winner": _player_ref(game.winner),
            "margin": game.margin,
            "next_dealer": _player_ref(game.next_dealer),
            "hand_count": game.hand_count,
            "time_called_after": game.time_called_after,
            "scores": [score.to_representation(row) for row in game.scores.all()],
            "can_edit": self.get_can_edit(game),
            "season": game.season_id,
            "fixture": game.fixture_id,
            "league_status": game.league_status,
            "confirmed_at": _when(game.confirmed_at, zone),
            "created_at": _when(game.created_at, zone),
            "updated_at": _when(game.updated_at, zone),
        }


class GameDetailSerializer(GameSerializer):
    hands = HandSerializer(many=True, read_only=True)
    deals = DealSerializer(
        many=True,
        read_only=True,
        help_text="A partnership game's deals, in order (each deal's two boards are in `hands`); empty for a "
        "game of two.",
    )

    class Meta(GameSerializer.Meta):
        fields = [*GameSerializer.Meta.fields, "hands", "deals"]
        read_only_fields = fields

    def to_representation(self, game: Game) -> dict:
        zone = timezone.get_current_timezone()
        return {
            **self._game_data(game, zone),
            "hands": [_hand_data(row, zone) for row in game.hands.all()],
            "deals": _deals(game),
        }


class GameCreateSerializer(serializers.Serializer):
    player_one = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    player_two = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    player_three = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(),
        required=False,
        allow_null=True,
        default=None,
        help_text="A partnership game (rules `{\"preset\": \"partnership\"}`): player_one's partner. Sides are "
        "player_one & player_three against player_two & player_four.",
    )
    player_four = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(),
        required=False,
        allow_null=True,
        default=None,
        help_text="A partnership game: player_two's partner.",
    )
    first_dealer = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    rules = RulesField(required=False, default=dict)
    name = TextField(max_length=200, required=False, allow_blank=True, default="")
    source = TextField(max_length=200, required=False, allow_blank=True, default="")


class HandWriteSerializer(serializers.Serializer):
    """The facts of one hand. Ranges and combinations are checked by the rules engine."""

    ending = serializers.ChoiceField(choices=Ending.choices)
    by = serializers.IntegerField(
        required=False, allow_null=True, help_text="The id of the player who went out (null for a dead hand)."
    )
    knocker_deadwood = serializers.IntegerField(required=False, allow_null=True)
    defender_deadwood = serializers.IntegerField(required=False, allow_null=True)
    upcard = TextField(
        required=False, allow_null=True, allow_blank=True, max_length=3, help_text="Rank then suit, e.g. 7S or 10H."
    )
    cards = CardsField(required=False, allow_null=True)


class HandEditSerializer(HandWriteSerializer):
    reason = TextField(
        required=False,
        allow_blank=True,
        max_length=500,
        write_only=True,
        help_text="Why the hand is corrected (kept in the game's audit trail).",
    )


class HandRecordSerializer(HandWriteSerializer):
    number = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="The hand number the client believes it is recording; if another device got there first "
        "the request is refused with 409 and nothing is stored. A partnership board: the deal's number.",
    )
    board = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="A partnership game only: the board (1 or 2) this hand was played on. Either board of the open "
        "deal may come first; the deal settles when its second board arrives, and the next deal's boards wait "
        "for both (409 naming `number` otherwise, as for a board already recorded).",
    )


_ENDINGS = frozenset(Ending.values)
_WHOLE_OR_NULL = ("by", "knocker_deadwood", "defender_deadwood", "board")
_UPCARD_LENGTH = HandWriteSerializer._declared_fields["upcard"].max_length


def plain_hand_record(data) -> dict | None:
    """The facts of a hand POST's body as ``HandRecordSerializer`` validates them, for a body that is plainly
    valid (an ending named, whole numbers, an upcard of up to three letters, no cards); None for any other
    body, which the serializer then takes or refuses itself.

    A hand POST's body is nearly always plain: the serializer's fields, copied for every instance, cost more
    than the rest of the check (issue 40). tests/test_api_hand_body.py compares the two on many bodies.
    """
    if type(data) is not dict or type(data.get("ending")) is not str or data["ending"] not in _ENDINGS:
        return None
    facts = {"ending": data["ending"]}
    for name in _WHOLE_OR_NULL:
        if name in data:
            value = data[name]
            if value is not None and type(value) is not int:
                return None
            facts[name] = value
    if "number" in data:
        number = data["number"]
        if type(number) is not int or number < 1:
            return None
        facts["number"] = number
    if "upcard" in data:
        upcard = data["upcard"]
        if upcard is not None:
            if type(upcard) is not str or not upcard.isascii() or "\x00" in upcard:
                return None
            if len(upcard) > _UPCARD_LENGTH:  # measured as sent, as TextField measures it
                return None
            upcard = upcard.strip()  # as DRF's CharField trims it
        facts["upcard"] = upcard
    if data.get("cards", None) is not None:
        return None
    if "cards" in data:
        facts["cards"] = None
    return facts


class ChangeSerializer(serializers.Serializer):
    what = TextField()
    before = TextField()
    after = TextField()


class HandRecordedSerializer(serializers.Serializer):
    hand = HandSerializer()
    game = GameDetailSerializer()


class HandEditedSerializer(serializers.Serializer):
    hand = HandSerializer()
    game = GameDetailSerializer()
    changes = ChangeSerializer(many=True)


class HandRemoveSerializer(serializers.Serializer):
    reason = TextField(
        required=False,
        allow_blank=True,
        max_length=500,
        help_text="Why the hand is removed (kept in the game's audit trail); required when the game is a "
        "confirmed league result. Send it as the `reason` query parameter or in a JSON body.",
    )


class HandRemovedSerializer(serializers.Serializer):
    game = GameDetailSerializer()
    changes = ChangeSerializer(many=True)


class TokenSerializer(serializers.Serializer):
    token = TextField(help_text="Send as `Authorization: Token <token>`.")
    created = serializers.DateTimeField()


class ProblemSerializer(serializers.Serializer):
    """Every refusal that is not a serializer's field map has this shape."""

    field = TextField(allow_null=True, help_text="The field (or header) at fault, or null.")
    message = TextField()
    hand = serializers.IntegerField(allow_null=True, help_text="The hand number at fault, or null.")
    board = serializers.IntegerField(
        required=False,
        help_text="A partnership game's board (1 or 2) of deal `hand` at fault; absent when no one board is.",
    )


class RecordErrorDetailSerializer(serializers.Serializer):
    hand = serializers.IntegerField(allow_null=True)
    board = serializers.IntegerField(
        allow_null=True,
        required=False,
        help_text="A partnership record only (four players, docs/game-record.md): the board (1 or 2) of deal "
        "`hand` at fault, null for the deal or the record as a whole. Absent for a record of two players.",
    )
    field = TextField()


class RecordErrorSerializer(serializers.Serializer):
    """The shape `scoresheet --json` prints for an invalid record."""

    error = RecordErrorDetailSerializer()
    message = TextField()

