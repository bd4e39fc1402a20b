"""Serializers of the league endpoints (clubs, seasons, fixtures, standings).

Thin like the rest of the API: they shape JSON and check types; players.clubs
and scoring.league.services decide what is allowed, and scoring.league.standings ranks.
"""

from __future__ import annotations

from django.utils.functional import lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ginleague import numbers
from players.clubs import club_role
from players.models import Club, Membership, Player
from scoring.api.serializers import PlayerRefSerializer, RulesField, TextField
from scoring.league.selectors import round_ends_at
from scoring.league.standings import RANKING_CRITERIA
from scoring.models import FactChange, Fixture, Game, LeagueStatus, Season, SeasonFormat


def _ranking_help() -> str:
    # The schema's words (English); built when read, so labels marked for translation are not fixed at import.
    criteria = ", ".join(f"{key} ({label})" for key, label in RANKING_CRITERIA.items())
    return f"Ranking criteria in order, from: {criteria}"


RANKING_HELP = lazy(_ranking_help, str)()


# --- clubs -------------------------------------------------------------------------------------------


class ClubSerializer(serializers.ModelSerializer):
    my_role = serializers.SerializerMethodField()

    class Meta:
        model = Club
        fields = ["id", "name", "slug", "is_public", "my_role", "created_at"]
        read_only_fields = fields

    @extend_schema_field(
        {
            "type": "string",
            "nullable": True,
            "description": "The caller's role in the club (owner, admin or player), or null for an outsider.",
        }
    )
    def get_my_role(self, club: Club) -> str | None:
        if hasattr(club, "my_role"):  # annotated by players.clubs.clubs_visible_to
            return club.my_role
        request = self.context.get("request")
        return club_role(getattr(request, "user", None), club)


class ClubWriteSerializer(serializers.Serializer):
    name = TextField(max_length=100)
    is_public = serializers.BooleanField(
        default=True, help_text="Anyone may see a public club, its seasons and standings; a private one only members."
    )


class MembershipSerializer(serializers.ModelSerializer):
    player = PlayerRefSerializer(read_only=True)
    has_account = serializers.SerializerMethodField()

    class Meta:
        model = Membership
        fields = ["id", "player", "role", "has_account", "joined_at"]
        read_only_fields = fields

    def get_has_account(self, membership: Membership) -> bool:
        return membership.player.user_id is not None


# --- seasons -----------------------------------------------------------------------------------------


class SeasonSerializer(serializers.ModelSerializer):
    rules = RulesField(read_only=True)
    ranking = serializers.ListField(child=TextField(), read_only=True)
    players = PlayerRefSerializer(many=True, read_only=True)

    class Meta:
        model = Season
        fields = [
            "id",
            "club",
            "name",
            "format",
            "preset",
            "rules",
            "ranking",
            "starts_on",
            "ends_on",
            "players",
            "swiss_rounds",
            "round_minutes",
            "points_per_win",
            "created_at",
        ]
        read_only_fields = fields


class RankingField(serializers.ListField):
    child = serializers.ChoiceField(choices=list(RANKING_CRITERIA))

    def __init__(self, **kwargs):
        kwargs.setdefault("min_length", 1)
        kwargs.setdefault("max_length", len(RANKING_CRITERIA))
        kwargs.setdefault("help_text", RANKING_HELP)
        super().__init__(**kwargs)


class SeasonCreateSerializer(serializers.Serializer):
    name = TextField(max_length=100)
    players = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), many=True,
        help_text="The players (ids), all members of the club (a Swiss night: those checked in at once; may be empty).",
    )
    rules = RulesField(required=False, default=dict)
    format = serializers.ChoiceField(choices=SeasonFormat.choices, default=SeasonFormat.SINGLE)
    ranking = RankingField(required=False)
    starts_on = serializers.DateField(required=False, allow_null=True, default=None)
    ends_on = serializers.DateField(required=False, allow_null=True, default=None)
    swiss_rounds = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1,
        help_text="A Swiss night: how many rounds (null: as many as the organiser starts).",
    )
    round_minutes = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1,
        help_text="A Swiss night: null plays each game to the target; minutes make each round timed.",
    )
    points_per_win = serializers.ChoiceField(
        choices=[1, 3], default=1, help_text="A Swiss night: match points for a win (and a bye), 1 or 3."
    )


class SeasonUpdateSerializer(serializers.Serializer):
    rules = RulesField(required=False, help_text="New rules; refused once any game of the season exists.")
    ranking = RankingField(required=False)


class CheckInSerializer(serializers.Serializer):
    player = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all(), help_text="A member of the club.")
    here = serializers.BooleanField(
        default=True, help_text="true checks the player in; false checks them out (drops out after this round)."
    )
    fixed_table = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=numbers.SMALLINT,
        help_text="A table this player always sits at (accessibility; organisers only); null leaves it as it was.",
    )


class SwissEntrySerializer(serializers.Serializer):
    player = PlayerRefSerializer(read_only=True)
    present = serializers.BooleanField(read_only=True)
    dropped_after_round = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="The last round played by a player who dropped out."
    )
    fixed_table = serializers.IntegerField(read_only=True, allow_null=True)


class PairSerializer(serializers.Serializer):
    first_round = serializers.ChoiceField(
        choices=["rating", "random"], default="rating",
        help_text="Round 1 only: ordered by the club's ratings (Elo), or drawn at random.",
    )


class SwapSerializer(serializers.Serializer):
    one = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all(), help_text="A player of the draft round.")
    two = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), help_text="Another player of it (either may be the bye)."
    )


class TablePairingSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    one = serializers.IntegerField(help_text="The higher-ranked player's id.")
    two = serializers.IntegerField()


class SwissRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    published = serializers.BooleanField(help_text="false: a draft only the organisers see.")
    started_at = serializers.DateTimeField(allow_null=True, help_text="When it was published (a timed round's clock).")
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="A timed round: when its time is up (the server's clock); else null."
    )
    pairings = TablePairingSerializer(many=True)
    bye = serializers.IntegerField(allow_null=True, help_text="The player with the bye (one match point), or null.")
    rematches = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()), help_text="Pairs who would meet again."
    )
    swap_created_rematch = serializers.BooleanField(
        required=False, help_text="Answering a swap: whether that swap made a pair meet again."
    )

    def to_representation(self, instance):
        data = instance.pairing
        body = {
            "number": instance.number,
            "published": instance.published,
            "started_at": instance.started_at,
            "ends_at": round_ends_at(instance.season, instance),
            "pairings": [{"table": t, "one": one, "two": two} for t, one, two in sorted(data["pairings"])],
            "bye": data["bye"],
            "rematches": data["rematches"],
        }
        if hasattr(instance, "swap_created_rematch"):
            body["swap_created_rematch"] = instance.swap_created_rematch
        return super().to_representation(body)


class RoomTimeSerializer(serializers.Serializer):
    games = serializers.ListField(child=serializers.IntegerField(), help_text="The games time was called on.")


class OpenGameSerializer(serializers.Serializer):
    player_one = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    player_two = serializers.PrimaryKeyRelatedField(queryset=Player.objects.all())
    first_dealer = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), required=False, allow_null=True, help_text="Default: player_two."
    )


# --- fixtures ----------------------------------------------------------------------------------------


class FixtureGameSerializer(serializers.ModelSerializer):
    class Meta:
        model = Game
        fields = ["id", "over", "winner", "margin", "league_status"]
        read_only_fields = fields


class FixtureSerializer(serializers.ModelSerializer):
    home = PlayerRefSerializer(read_only=True)
    away = PlayerRefSerializer(read_only=True)
    game = serializers.SerializerMethodField(help_text="The fixture's game once started, else null.")

    class Meta:
        model = Fixture
        fields = ["id", "season", "round", "table", "home", "away", "game"]
        read_only_fields = fields

    @extend_schema_field(FixtureGameSerializer(allow_null=True))
    def get_game(self, fixture: Fixture):
        game = getattr(fixture, "game", None)
        return FixtureGameSerializer(game).data if game is not None else None


class FixtureStartSerializer(serializers.Serializer):
    first_dealer = serializers.PrimaryKeyRelatedField(
        queryset=Player.objects.all(), required=False, allow_null=True,
        help_text="Either player of the fixture. Left out (or null): drawn at random, as cutting the deck would.",
    )


# --- confirmation and audit --------------------------------------------------------------------------


class ConfirmSerializer(serializers.Serializer):
    comment = TextField(required=False, allow_blank=True, max_length=2000, default="")


class VoidSerializer(serializers.Serializer):
    reason = TextField(
        required=False,
        allow_blank=True,
        max_length=2000,
        help_text="Why the finished result is voided (kept in the fixture's history); required.",
    )


class DisputeSerializer(serializers.Serializer):
    comment = TextField(max_length=2000, help_text="What is wrong with the result, for the club's admins.")


class FactChangeSerializer(serializers.ModelSerializer):
    actor = serializers.SerializerMethodField()

    class Meta:
        model = FactChange
        fields = ["id", "action", "hand_number", "what", "before", "after", "comment", "actor", "at"]
        read_only_fields = fields

    def get_actor(self, change: FactChange) -> str | None:
        return change.actor.get_username() if change.actor_id else None


# --- standings ---------------------------------------------------------------------------------------


class CriterionSerializer(serializers.Serializer):
    key = TextField()
    label = TextField()


class StandingsRowSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    tied = serializers.BooleanField(help_text="Level with another player on every criterion.")
    player = serializers.SerializerMethodField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    lost = serializers.IntegerField()
    drawn = serializers.IntegerField()
    net = serializers.IntegerField()
    avg_margin = serializers.FloatField()
    hands_won = serializers.IntegerField()
    gins = serializers.IntegerField()
    undercuts_given = serializers.IntegerField()
    undercuts_received = serializers.IntegerField()
    match_points = serializers.IntegerField(help_text="A Swiss night: games won plus byes (0 in other seasons).")
    buchholz = serializers.IntegerField(
        help_text="A Swiss night: the match points of the opponents played (a bye adds nothing)."
    )
    byes = serializers.IntegerField(help_text="A Swiss night: byes had (one match point each, no net points).")
    decided_by = TextField(help_text="The criterion that put this player below the one above.")
    ahead_by = TextField(
        help_text='The criterion that put this player above the next one ("" for the last, or when level with it).'
    )
    ahead_by_words = TextField(
        help_text='The same in words, as the season page shows it: "on head-to-head", "on net points", "level".'
    )

    @extend_schema_field(PlayerRefSerializer)
    def get_player(self, row) -> dict:
        return {"id": row.player_id, "name": row.name}


class ProvisionalGameSerializer(serializers.ModelSerializer):
    player_one = PlayerRefSerializer(read_only=True)
    player_two = PlayerRefSerializer(read_only=True)
    winner = PlayerRefSerializer(read_only=True, allow_null=True)
    league_status = serializers.ChoiceField(choices=LeagueStatus.choices, read_only=True)

    class Meta:
        model = Game
        fields = ["id", "fixture", "player_one", "player_two", "winner", "margin", "league_status", "finished_at"]
        read_only_fields = fields


class StandingsSerializer(serializers.Serializer):
    season = serializers.IntegerField()
    ranking = CriterionSerializer(many=True)
    rows = StandingsRowSerializer(many=True, help_text="Confirmed results only.")
    provisional = ProvisionalGameSerializer(
        many=True, help_text="Finished games not yet confirmed (or disputed): not counted above."
    )


# --- ratings and hand history ------------------------------------------------------------------------


class RatingPointSerializer(serializers.Serializer):
    game = serializers.IntegerField(source="key", help_text="The confirmed game (id) that moved the rating.")
    rating = serializers.FloatField(help_text="The rating after that game.")
    change = serializers.FloatField()


class ClubRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Club
        fields = ["id", "name", "slug"]
        read_only_fields = fields


class PlayerRatingSerializer(serializers.Serializer):
    """A player's Elo rating in one club, from its confirmed results, and how it got there."""

    club = ClubRefSerializer()
    rating = serializers.FloatField()
    games = serializers.IntegerField(help_text="Confirmed games rated.")
    history = RatingPointSerializer(many=True, help_text="Oldest first.")


class ClubRatingSerializer(serializers.Serializer):
    """One member's Elo rating in the club."""

    position = serializers.IntegerField()
    player = PlayerRefSerializer()
    rating = serializers.FloatField()
    games = serializers.IntegerField(help_text="Confirmed games rated.")


class HistoryGameSerializer(serializers.ModelSerializer):
    player_one = PlayerRefSerializer(read_only=True)
    player_two = PlayerRefSerializer(read_only=True)
    league_status = serializers.ChoiceField(
        choices=[("", "Friendly"), *LeagueStatus.choices], read_only=True, help_text="Empty for a friendly game."
    )

    class Meta:
        model = Game
        fields = ["id", "name", "player_one", "player_two", "season", "league_status", "created_at"]
        read_only_fields = fields


class HistoryHandSerializer(serializers.Serializer):
    """One hand of the history: its game, the facts and the engine's figures."""

    id = serializers.IntegerField()
    game = HistoryGameSerializer()
    number = serializers.IntegerField()
    ending = TextField()
    result = TextField()
    by = PlayerRefSerializer(allow_null=True)
    winner = PlayerRefSerializer(allow_null=True)
    dealer = PlayerRefSerializer()
    knocker_deadwood = serializers.IntegerField(allow_null=True)
    defender_deadwood = serializers.IntegerField(allow_null=True)
    upcard = TextField()
    points = serializers.IntegerField()
    boxes = serializers.IntegerField()
    doubled = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class HistoryPageSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The next page, or null on the last one.")
    previous = serializers.URLField(allow_null=True)
    results = HistoryHandSerializer(many=True)
