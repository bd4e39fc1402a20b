"""Stored facts and the figures the engine derives from them.

Facts (who, ending, deadwood, upcard, cards) are written by the service
functions only. Derived figures (marked below) are rewritten by
``scoring.services.game_recompute`` in the same transaction as any change
of a fact; nothing patches them incrementally.
"""

from functools import cached_property

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from players.models import Player
from scoring.engine.rules import RuleSet, resolve_rules
from scoring.engine.score import MAX_DEADWOOD


class Ending(models.TextChoices):
    KNOCK = "knock", pgettext_lazy("gin scoring: how a hand ends", "Knock")
    GIN = "gin", pgettext_lazy("gin scoring: how a hand ends", "Gin")
    BIG_GIN = "big_gin", pgettext_lazy("gin scoring: how a hand ends", "Big gin")
    DEAD = "dead", pgettext_lazy("gin scoring: how a hand ends", "Dead hand")


# What who went out did, said after their name on a hand's row ("Ann knock", "Anna hat geklopft", "Ana cerró"):
# the scoresheet, its offline copy and the hand lists (Hand.row_ending). A dead hand has no name before it.
ROW_ENDINGS = {
    "knock": pgettext_lazy("gin scoring: on a hand's row, after the name of who went out", "knock"),
    "gin": pgettext_lazy("gin scoring: on a hand's row, after the name of who went out", "gin"),
    "big_gin": pgettext_lazy("gin scoring: on a hand's row, after the name of who went out", "big gin"),
}


class Result(models.TextChoices):
    KNOCK = "knock", pgettext_lazy("gin scoring: how a hand ends", "Knock")
    UNDERCUT = "undercut", pgettext_lazy("gin scoring: how a hand ends", "Undercut")
    GIN = "gin", pgettext_lazy("gin scoring: how a hand ends", "Gin")
    BIG_GIN = "big_gin", pgettext_lazy("gin scoring: how a hand ends", "Big gin")
    DEAD = "dead", pgettext_lazy("gin scoring: how a hand ends", "Dead hand")


class LeagueStatus(models.TextChoices):
    """Where a league game stands; a friendly game has none ("")."""

    PLAYING = "playing", _("Provisional")  # in play, or over and awaiting the opponent's confirmation
    CONFIRMED = "confirmed", _("Confirmed")
    DISPUTED = "disputed", _("Disputed")


class Game(models.Model):
    """One sitting: a single game, a Hollywood sitting of three games, or a partnership game of four players.

    A partnership game (docs/rules.md, "Partnership gin") sets ``player_three`` and ``player_four``: side one
    is player_one & player_three, side two player_two & player_four. Its figures are the sides': the
    GameScore's player_one_* are side one's, player_two_* side two's, and ``winner`` and ``next_dealer``
    name a side by its first-seated player (player_one or player_two).
    """

    player_one = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_two = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    # Partnership games only (both set, or neither).
    player_three = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    player_four = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    first_dealer = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    preset = models.CharField(max_length=20)
    # Every rule value, resolved when the game was created.
    rules = models.JSONField()
    name = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    # How many changes of this game were committed (scoring.changes.notify_change adds one inside each
    # writing transaction): what live pages' versions are made of, in commit order whatever the clocks.
    change_count = models.PositiveBigIntegerField(default=0, editable=False)
    # A fact, like the hands: time was called when this many hands were recorded (docs/rules.md,
    # "A game ended by time"); null: it was not.
    time_called_after = models.PositiveIntegerField(null=True, blank=True)

    # Derived by the engine.
    over = models.BooleanField(default=False)
    finished_at = models.DateTimeField(null=True, blank=True)
    winner = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    margin = models.IntegerField(null=True, blank=True)
    next_dealer = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    hand_count = models.PositiveIntegerField(default=0)

    # League play (all empty for a friendly game). See scoring/league.py.
    season = models.ForeignKey("Season", null=True, blank=True, on_delete=models.PROTECT, related_name="games")
    fixture = models.OneToOneField("Fixture", null=True, blank=True, on_delete=models.PROTECT, related_name="game")
    league_status = models.CharField(max_length=12, choices=LeagueStatus.choices, blank=True, default="")
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    # The player (their account) who last changed the hands once the game was over: the result then
    # waits for the other player, or an organiser who did not play (scoring.permissions).
    result_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["player_one", "-created_at"]),
            models.Index(fields=["player_two", "-created_at"]),
            models.Index(fields=["over", "-created_at"]),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(player_one=F("player_two")), name="game_two_different_players"),
            models.CheckConstraint(
                condition=Q(first_dealer=F("player_one"))
                | Q(first_dealer=F("player_two"))
                | Q(first_dealer=F("player_three"))
                | Q(first_dealer=F("player_four")),
                name="game_first_dealer_is_a_player",
            ),
            models.CheckConstraint(
                condition=Q(player_three__isnull=True, player_four__isnull=True)
                | Q(player_three__isnull=False, player_four__isnull=False),
                name="game_partners_both_or_neither",
            ),
            models.CheckConstraint(
                condition=Q(player_three__isnull=True)
                | (
                    ~Q(player_three=F("player_one"))
                    & ~Q(player_three=F("player_two"))
                    & ~Q(player_three=F("player_four"))
                    & ~Q(player_four=F("player_one"))
                    & ~Q(player_four=F("player_two"))
                ),
                name="game_four_different_players",
            ),
            models.CheckConstraint(
                condition=Q(winner__isnull=True) | Q(winner=F("player_one")) | Q(winner=F("player_two")),
                name="game_winner_is_a_player",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_one} v {self.player_two} ({self.created_at:%Y-%m-%d})"

    @property
    def players(self) -> tuple[Player, Player]:
        return (self.player_one, self.player_two)

    @property
    def is_partnership(self) -> bool:
        """Four players in two sides, two boards a deal (no query: the partners' ids are on the row)."""
        return self.player_three_id is not None

    @property
    def player_ids(self) -> tuple[int, ...]:
        """Every player's id in seating order: two, or four (side one is the 1st and 3rd, side two the 2nd and 4th)."""
        if self.is_partnership:
            return (self.player_one_id, self.player_two_id, self.player_three_id, self.player_four_id)
        return (self.player_one_id, self.player_two_id)

    @property
    def is_hollywood(self) -> bool:
        return bool(self.rules.get("hollywood"))

    @cached_property
    def rule_set(self) -> RuleSet:
        """The game's rules, resolved once per loaded object (every reader of one request shares it)."""
        return resolve_rules(self.rules)


class GameScore(models.Model):
    """The derived score of one game of a sitting (games 1-3 for Hollywood)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="scores")
    number = models.PositiveSmallIntegerField()
    player_one_hand_points = models.IntegerField(default=0)
    player_two_hand_points = models.IntegerField(default=0)
    player_one_boxes = models.IntegerField(default=0)
    player_two_boxes = models.IntegerField(default=0)
    over = models.BooleanField(default=False)
    winner = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    player_one_final = models.IntegerField(null=True, blank=True)
    player_two_final = models.IntegerField(null=True, blank=True)
    margin = models.IntegerField(null=True, blank=True)
    closed_by_hand = models.PositiveIntegerField(null=True, blank=True)
    by_time = models.BooleanField(default=False)  # ended because time was called, not on the target

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="gamescore_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1, number__lte=3), name="gamescore_number_1_to_3"),
            models.CheckConstraint(
                condition=Q(player_one_hand_points__gte=0, player_two_hand_points__gte=0),
                name="gamescore_points_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} game {self.number}"


# The texts a hand's ``scored_in`` holds ("[1]", "[2, 3]", ...): few, each read back as a fresh list of its numbers.
_GAME_NUMBERS: dict[str, tuple[int, ...]] = {}
_GAME_NUMBERS_KEPT = 64


class GameNumbersField(models.JSONField):
    """A JSON list of game numbers (``Hand.scored_in``), read back through the few texts it ever holds instead of
    parsing each row's: every hand POST reads every hand of its game, and this parsing was a sixth of that read.
    Stored and migrated as a plain JSONField."""

    def from_db_value(self, value, expression, connection):
        if type(value) is str:
            numbers = _GAME_NUMBERS.get(value)
            if numbers is not None:
                return list(numbers)  # a list of its own, as parsing gives
        parsed = super().from_db_value(value, expression, connection)
        if (
            type(value) is str
            and type(parsed) is list
            and all(type(number) is int for number in parsed)
            and len(_GAME_NUMBERS) < _GAME_NUMBERS_KEPT
        ):
            _GAME_NUMBERS[value] = tuple(parsed)
        return parsed

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs


class Hand(models.Model):
    """One hand: the facts the players recorded, in order, plus derived figures.

    In a partnership game a Hand is one board of a deal: ``number`` is the deal's number and ``board``
    1 or 2; its derived figures are the board's own, as a two-handed hand's (the deal's are a Deal's).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands")
    number = models.PositiveIntegerField()
    board = models.PositiveSmallIntegerField(null=True, blank=True)  # partnership: 1 or 2; else null
    # Facts.
    ending = models.CharField(max_length=10, choices=Ending.choices)
    by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    knocker_deadwood = models.PositiveSmallIntegerField(null=True, blank=True)
    defender_deadwood = models.PositiveSmallIntegerField(null=True, blank=True)
    upcard = models.CharField(max_length=3, blank=True)
    cards = models.JSONField(null=True, blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # Derived by the engine.
    dealer = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    result = models.CharField(max_length=10, choices=Result.choices)
    winner = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    points = models.PositiveIntegerField(default=0)
    boxes = models.PositiveSmallIntegerField(default=0)
    doubled = models.BooleanField(default=False)
    scored_in = GameNumbersField(default=list, blank=True)  # game numbers that received the points

    class Meta:
        ordering = ["game", "number"]
        indexes = [
            models.Index(fields=["winner", "result"]),
            # A profile's biggest hand: the player's won hands, biggest first, read in order until one is of a
            # game the viewer may see (the first, nearly always) instead of every won hand joined and sorted.
            models.Index(fields=["winner", "-points", "game", "number"], name="hand_winner_biggest"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "number"], condition=Q(board__isnull=True), name="hand_number_unique_per_game"
            ),
            models.UniqueConstraint(
                fields=["game", "number", "board"], condition=Q(board__isnull=False), name="hand_board_unique_per_deal"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="hand_number_from_1"),
            models.CheckConstraint(condition=Q(board__isnull=True) | Q(board__in=[1, 2]), name="hand_board_1_or_2"),
            models.CheckConstraint(
                condition=Q(knocker_deadwood__isnull=True) | Q(knocker_deadwood__gte=1, knocker_deadwood__lte=10),
                name="hand_knocker_deadwood_1_to_10",
            ),
            models.CheckConstraint(
                condition=Q(defender_deadwood__isnull=True)
                | Q(defender_deadwood__gte=0, defender_deadwood__lte=MAX_DEADWOOD),
                name="hand_defender_deadwood_0_to_98",
            ),
            models.CheckConstraint(
                condition=Q(ending="dead", by__isnull=True) | (~Q(ending="dead") & Q(by__isnull=False)),
                name="hand_by_given_unless_dead",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} hand {self.number}"

    @classmethod
    def from_db(cls, db, field_names, values, *, fetch_mode=None):
        """A hand read from its row: its columns set straight on it, as Model.__init__ would set them.

        Every scoresheet and every save reads all of a game's hands (60 on a long sitting, twice on a save);
        Model.__init__'s per-field work was a tenth of those requests. ``field_names`` are the columns' attribute
        names (a deferred column is simply not set: reading it loads it, as Django's own deferred fields do).
        With a pre_init or post_init listener for hands, Django's own path (which sends them).
        """
        # No receiver at all (the usual case) answers at once; asking has_listeners per row was an eighth of the read.
        if (pre_init.receivers or post_init.receivers) and (
            pre_init.has_listeners(cls) or post_init.has_listeners(cls)
        ):
            return super().from_db(db, field_names, values, fetch_mode=fetch_mode)
        hand = cls.__new__(cls)
        state = hand._state = ModelState()
        state.adding = False
        state.db = db
        if fetch_mode is not None:
            state.fetch_mode = fetch_mode
        hand.__dict__.update(zip(field_names, values, strict=True))
        return hand

    @property
    def row_ending(self) -> str:
        """What who went out did, as a hand's row says it after their name ("knock"; "hat geklopft")."""
        return str(ROW_ENDINGS.get(self.ending, self.get_ending_display()))


class Deal(models.Model):
    """A partnership game's deal: what its two boards gave the sides (derived, like GameScore).

    Rewritten by ``scoring.services.game_recompute`` from the engine in the transaction of every change
    of the game's boards. A side is named by its first-seated player: player_one (side one: player_one &
    player_three) or player_two (side two: player_two & player_four).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    dealer = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")  # the side that dealt both boards
    winner = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    points = models.PositiveIntegerField(default=0)  # the difference the winning side scored (0 when tied)
    settled = models.BooleanField(default=False)  # both boards are in (a settled deal without winner: tied)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="deal_number_unique_per_game"),
            models.CheckConstraint(condition=Q(number__gte=1), name="deal_number_from_1"),
        ]

    def __str__(self) -> str:
        return f"{self.game} deal {self.number}"


class IdempotentRequest(models.Model):
    """A write the API already performed, keyed by the client's Idempotency-Key.

    A retry with the same key and body gets the stored response instead of a
    second write; the same key with a different body is refused.
    """

    key = models.CharField(max_length=200)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    request_hash = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user")]

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}]"


class SeasonFormat(models.TextChoices):
    SINGLE = "single", _("Round robin (everyone plays everyone once)")
    DOUBLE = "double", _("Double round robin (home and away)")
    OPEN = "open", _("Open play (any two players may record a game)")
    KNOCKOUT = "knockout", _("Knockout cup (seeded draw, byes for an odd field)")
    PLAYOFFS = "playoffs", _("Round robin + playoffs (the top players into a knockout)")
    SWISS = "swiss", _("Swiss night (rounds paired on the night among those present)")


class Season(models.Model):
    """A club's league season: its players, rule set, format and ranking rule."""

    club = models.ForeignKey("players.Club", on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=100)
    preset = models.CharField(max_length=20)
    # Every rule value, resolved with scoring.engine.rules.resolve_rules; fixed once play starts.
    rules = models.JSONField()
    format = models.CharField(max_length=10, choices=SeasonFormat.choices, default=SeasonFormat.SINGLE)
    # Ordered ranking criteria, e.g. ["wins", "net", "head_to_head"] (see scoring/standings.py).
    ranking = models.JSONField(default=list)
    starts_on = models.DateField(null=True, blank=True)
    ends_on = models.DateField(null=True, blank=True)
    players = models.ManyToManyField(Player, related_name="seasons", blank=True)
    # Knockout ties (a knockout cup, or the playoffs): a tie is won by the first to win best_of // 2 + 1 games.
    best_of = models.PositiveSmallIntegerField(default=1)
    # Round robin + playoffs: how many of the final standings go into the knockout.
    playoff_size = models.PositiveSmallIntegerField(null=True, blank=True)
    # A Swiss night: how many rounds (null: as many as the organiser starts), and how a round ends
    # (null: each game to the target; minutes: a timed round, time called for the room at its end).
    swiss_rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    round_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    # A Swiss night's match points for a win (and a bye): 1 (win 1, loss 0), or 3 as some clubs count.
    points_per_win = models.PositiveSmallIntegerField(
        default=1, choices=[(1, _("1 (win 1, loss 0)")), (3, _("3 (win 3, loss 0)"))]
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Closing a season locks its results for good (see scoring/league/services.py season_close).
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    champion = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["club", "-created_at"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="season_name_not_empty"),
            models.CheckConstraint(
                condition=Q(starts_on__isnull=True) | Q(ends_on__isnull=True) | Q(ends_on__gte=F("starts_on")),
                name="season_ends_after_it_starts",
            ),
            models.CheckConstraint(
                condition=Q(best_of__gte=1, best_of__lte=9) & ~Q(best_of__in=[2, 4, 6, 8]), name="season_best_of_odd"
            ),
            models.CheckConstraint(
                condition=Q(swiss_rounds__isnull=True) | Q(swiss_rounds__gte=1), name="season_swiss_rounds_from_1"
            ),
            models.CheckConstraint(
                condition=Q(round_minutes__isnull=True) | Q(round_minutes__gte=1), name="season_round_minutes_from_1"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.name}"

    @property
    def is_round_robin(self) -> bool:
        return self.format in (SeasonFormat.SINGLE, SeasonFormat.DOUBLE, SeasonFormat.PLAYOFFS)

    @property
    def has_knockout(self) -> bool:
        return self.format in (SeasonFormat.KNOCKOUT, SeasonFormat.PLAYOFFS)

    @property
    def is_swiss(self) -> bool:
        return self.format == SeasonFormat.SWISS

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None


class Seed(models.Model):
    """An entrant of a season's knockout and their seed (1 = the best). The bracket is derived from
    these and the games played (scoring/engine/bracket.py); nothing else about it is stored."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="seeds")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    seed = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["season", "seed"]
        constraints = [
            models.UniqueConstraint(fields=["season", "seed"], name="seed_number_once_per_season"),
            models.UniqueConstraint(fields=["season", "player"], name="seed_player_once_per_season"),
            models.CheckConstraint(condition=Q(seed__gte=1), name="seed_from_1"),
        ]

    def __str__(self) -> str:
        return f"{self.season}: {self.seed}. {self.player}"


class Fixture(models.Model):
    """One scheduled meeting of a round-robin season."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="fixtures")
    round = models.PositiveSmallIntegerField()
    home = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    away = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    due_on = models.DateField(null=True, blank=True)  # play by this day (optional)
    table = models.PositiveSmallIntegerField(null=True, blank=True)  # a Swiss night's table number
    # The day its players were last e-mailed that it is due (send_reminders: at most once a day).
    reminded_on = models.DateField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["season", "round", "pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(home=F("away")), name="fixture_two_different_players"),
            models.UniqueConstraint(fields=["season", "round", "home"], name="fixture_home_once_per_round"),
            models.UniqueConstraint(fields=["season", "round", "away"], name="fixture_away_once_per_round"),
        ]

    def __str__(self) -> str:
        return f"Round {self.round}: {self.home} v {self.away}"


class FactChange(models.Model):
    """The audit trail of a game: who changed what, when, before -> after.

    Written by the service functions in the same transaction as the change.
    """

    class Action(models.TextChoices):
        HAND_ADDED = "hand_added", _("Hand added after confirmation")
        HAND_EDITED = "hand_edited", _("Hand corrected")
        HAND_REMOVED = "hand_removed", _("Hand removed")
        CONFIRMED = "confirmed", _("Result confirmed")
        DISPUTED = "disputed", _("Result disputed")
        PLAYER_MERGED = "player_merged", _("Player records merged")
        VERSION_SET_ASIDE = "version_set_aside", _("Version not kept (two phones recorded the hand)")
        REOPENED = "reopened", _("Result provisional again (a player changed it)")
        TIME_CALLED = "time_called", _("Time called")
        TIME_WITHDRAWN = "time_withdrawn", _("Time call withdrawn")
        VOIDED = "voided", _("Result voided by an organiser")

    # A voided game's lines stay with its fixture (game null, fixture set): the fixture's history.
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="fact_changes")
    fixture = models.ForeignKey("Fixture", null=True, blank=True, on_delete=models.CASCADE, related_name="fact_changes")
    action = models.CharField(max_length=20, choices=Action.choices)
    hand_number = models.PositiveIntegerField(null=True, blank=True)
    what = models.CharField(max_length=100, blank=True)
    before = models.CharField(max_length=200, blank=True)
    after = models.CharField(max_length=200, blank=True)
    comment = models.TextField(blank=True)
    # The line as each shipped language says it ({"de": [what, before, after, comment], ...}), written with it
    # (scoring/audit.py): the columns above keep the default language's words (English), which readers of
    # another language, the API and older entries fall back to.
    words = models.JSONField(default=dict, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["game", "at", "pk"]

    def __str__(self) -> str:
        return f"{self.game_id}: {self.get_action_display()} {self.what}"

    @property
    def said(self) -> dict[str, str]:
        """The line in the reader's (active) language where it was written in it, else as stored."""
        line = self.words.get(translation.get_language() or "") or [self.what, self.before, self.after, self.comment]
        return dict(zip(("what", "before", "after", "comment"), line, strict=True))


class StandingLine(models.Model):
    """One player's side of one confirmed, finished league game: the figures the standings sum.

    Derived: rewritten whole for a game (its two lines deleted and inserted) by
    ``scoring.services.standing_lines_write`` in the same transaction as any change
    of the game's figures or league status; a game that does not count has none.
    ``manage.py rebuild_standings`` writes them all again from the games and hands.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="standing_lines")
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    opponent = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    # A round robin + playoffs counts its fixtures only (a playoff game is a knockout tie).
    fixture = models.BooleanField()
    won = models.PositiveSmallIntegerField()
    lost = models.PositiveSmallIntegerField()
    drawn = models.PositiveSmallIntegerField()
    net = models.IntegerField()
    hands_won = models.PositiveIntegerField()
    gins = models.PositiveIntegerField()
    undercuts_given = models.PositiveIntegerField()
    undercuts_received = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["season", "player"])]
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="standingline_player_once_per_game"),
            models.CheckConstraint(condition=~Q(player=F("opponent")), name="standingline_two_different_players"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}: player {self.player_id}"


class StandingTotal(models.Model):
    """One player's standings lines of one season summed (split by ``fixture``, as the lines are).

    Derived: rewritten for the two players of a game from their lines whenever the game's lines
    are (``scoring.services.standing_lines_write``), so a standings view sums a row per player.
    """

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    fixture = models.BooleanField()
    played = models.PositiveIntegerField()
    won = models.PositiveIntegerField()
    lost = models.PositiveIntegerField()
    drawn = models.PositiveIntegerField()
    net = models.IntegerField()
    hands_won = models.PositiveIntegerField()
    gins = models.PositiveIntegerField()
    undercuts_given = models.PositiveIntegerField()
    undercuts_received = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["season", "player", "fixture"], name="standingtotal_once_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.season_id}: player {self.player_id}"


class SeasonResults(models.Model):
    """How many times the counted results of a season (its confirmed, finished games) changed.

    Derived: one more in the transaction of every rewrite of the season's standings totals
    (``scoring.services.standing_totals_write``: a result confirmed, reopened, corrected, voided or
    deleted, a player merged), so a reader learns whether a club's ratings moved from a row per season
    instead of a pass over every game (``scoring.changes.club_results_versions``).
    """

    season = models.OneToOneField(Season, primary_key=True, on_delete=models.CASCADE, related_name="results")
    changes = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.season_id}: {self.changes} changes"


class SwissEntry(models.Model):
    """A player of a Swiss night: checked in (present), dropped out after a round, a fixed table.

    The night pairs the players present; one who drops out keeps the games played (they count
    in the standings) and is not paired again. ``dropped_after_round`` is the last round they played.
    """

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="swiss_entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    present = models.BooleanField(default=True)
    dropped_after_round = models.PositiveSmallIntegerField(null=True, blank=True)
    # A table this player always sits at (accessibility); the pairing keeps it when it can.
    fixed_table = models.PositiveSmallIntegerField(null=True, blank=True)
    checked_in_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["season", "player__name"]
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="swissentry_player_once_per_night"),
            models.CheckConstraint(
                condition=Q(fixed_table__isnull=True) | Q(fixed_table__gte=1), name="swissentry_table_from_1"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.season}: {self.player}"


class SwissRound(models.Model):
    """One round of a Swiss night: its pairing while the organiser looks at it (a draft), then published.

    ``pairing`` is the engine's round as JSON (``scoring.league.night``): pairings by table, the bye,
    the order it was paired by. Publishing creates the round's fixtures and stores the bye here;
    ``started_at`` is when it was published, from which a timed round's clock runs.
    """

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="swiss_rounds_played")
    number = models.PositiveSmallIntegerField()
    pairing = models.JSONField()
    first_round = models.CharField(max_length=10, blank=True)  # round 1: "rating" or "random"
    published = models.BooleanField(default=False)
    started_at = models.DateTimeField(null=True, blank=True)
    bye = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    time_called_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["season", "number"]
        constraints = [
            models.UniqueConstraint(fields=["season", "number"], name="swissround_number_once_per_night"),
            models.CheckConstraint(condition=Q(number__gte=1), name="swissround_number_from_1"),
        ]

    def __str__(self) -> str:
        return f"{self.season}: round {self.number}"
