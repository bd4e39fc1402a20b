from django.contrib import admin

from scoring.models import (
    Deal,
    FactChange,
    Fixture,
    Game,
    GameScore,
    Hand,
    IdempotentRequest,
    Season,
    SeasonResults,
    Seed,
    StandingLine,
    StandingTotal,
    SwissEntry,
    SwissRound,
)


class ShownOnlyAdmin(admin.ModelAdmin):
    """Rows shown here, never added, changed or deleted: they change only through the services, which keep
    what follows from them (scores, standings, counted results, the audit trail, live pages) in step."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class HandInline(admin.TabularInline):
    model = Hand
    extra = 0
    fields = ["number", "ending", "by", "knocker_deadwood", "defender_deadwood", "upcard", "result", "winner", "points"]
    readonly_fields = fields  # facts change only through the services, which recompute
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False


class GameScoreInline(admin.TabularInline):
    model = GameScore
    extra = 0
    can_delete = False
    readonly_fields = [field.name for field in GameScore._meta.fields]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(ShownOnlyAdmin):
    """Games are shown here, never written: a game is started, corrected, confirmed and deleted through the
    services, which score it again, keep the audit trail, move its season's standings and counted results
    (what cached standings and ratings follow) and tell the live pages. A save here would do none of that."""

    list_display = ["__str__", "preset", "over", "winner", "margin", "hand_count", "created_at"]
    list_filter = ["over", "preset"]
    search_fields = ["player_one__name", "player_two__name", "name"]
    list_select_related = ["player_one", "player_two", "winner"]
    readonly_fields = ["over", "winner", "margin", "next_dealer", "hand_count", "finished_at", "rules", "preset"]
    raw_id_fields = ["player_one", "player_two", "first_dealer", "created_by"]
    inlines = [GameScoreInline, HandInline]


@admin.register(Hand)
class HandAdmin(ShownOnlyAdmin):
    """A hand is recorded, corrected and removed through the services, which score its game again."""

    list_display = ["__str__", "ending", "by", "knocker_deadwood", "defender_deadwood", "result", "winner", "points"]
    list_filter = ["result"]
    list_select_related = ["game__player_one", "game__player_two", "by", "winner"]
    readonly_fields = [field.name for field in Hand._meta.fields]


@admin.register(GameScore)
class GameScoreAdmin(ShownOnlyAdmin):
    list_display = ["__str__", "over", "winner", "player_one_final", "player_two_final", "margin"]
    list_select_related = ["game__player_one", "game__player_two", "winner"]
    readonly_fields = [field.name for field in GameScore._meta.fields]


@admin.register(Deal)
class DealAdmin(ShownOnlyAdmin):
    """A partnership game's deals: derived by the engine, so read only."""

    list_display = ["__str__", "settled", "winner", "points", "dealer"]
    list_select_related = ["game__player_one", "game__player_two", "winner", "dealer"]
    readonly_fields = [field.name for field in Deal._meta.fields]


@admin.register(IdempotentRequest)
class IdempotentRequestAdmin(admin.ModelAdmin):
    list_display = ["__str__", "user", "response_status", "created_at"]
    list_select_related = ["user"]
    readonly_fields = [field.name for field in IdempotentRequest._meta.fields]


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ["name", "club", "preset", "format", "starts_on", "ends_on"]
    list_filter = ["format", "preset"]
    list_select_related = ["club"]
    search_fields = ["name", "club__name"]
    # Rules are fixed once play starts: they change only through scoring.league.season_set_rules.
    readonly_fields = ["rules", "preset"]
    raw_id_fields = ["club", "created_by"]
    filter_horizontal = ["players"]


@admin.register(Fixture)
class FixtureAdmin(admin.ModelAdmin):
    list_display = ["__str__", "season", "round"]
    list_select_related = ["season", "home", "away"]
    raw_id_fields = ["season", "home", "away"]


@admin.register(FactChange)
class FactChangeAdmin(ShownOnlyAdmin):
    """The audit trail is append-only: readable here, never edited."""

    list_display = ["game", "action", "what", "before", "after", "actor", "at"]
    list_filter = ["action"]
    list_select_related = ["game__player_one", "game__player_two", "actor"]
    readonly_fields = [field.name for field in FactChange._meta.fields]


@admin.register(Seed)
class SeedAdmin(admin.ModelAdmin):
    list_display = ["season", "seed", "player"]
    list_select_related = ["season", "player"]
    raw_id_fields = ["season", "player"]


@admin.register(SwissEntry)
class SwissEntryAdmin(admin.ModelAdmin):
    """A Swiss night's check-in (written by scoring.league.night.check_in and check_out)."""

    list_display = ["season", "player", "present", "dropped_after_round", "fixed_table"]
    list_select_related = ["season", "player"]
    raw_id_fields = ["season", "player"]


@admin.register(SwissRound)
class SwissRoundAdmin(admin.ModelAdmin):
    """A Swiss night's rounds: the pairing is the engine's (scoring.league.night), read-only here."""

    list_display = ["season", "number", "published", "started_at", "bye"]
    list_select_related = ["season", "bye"]
    raw_id_fields = ["season", "bye"]
    readonly_fields = ["pairing"]


class DerivedAdmin(ShownOnlyAdmin):
    """Figures the services derive from the facts (rewritten with every counted change; rebuilt by
    `manage.py rebuild_standings`): shown, never edited here."""


@admin.register(StandingLine)
class StandingLineAdmin(DerivedAdmin):
    list_display = ["game", "season", "player", "opponent", "won", "lost", "net", "hands_won", "gins"]
    list_select_related = ["game", "season", "player", "opponent"]
    list_filter = ["season"]


@admin.register(StandingTotal)
class StandingTotalAdmin(DerivedAdmin):
    list_display = ["season", "player", "fixture", "played", "won", "lost"]
    list_select_related = ["season", "player"]
    list_filter = ["season"]


@admin.register(SeasonResults)
class SeasonResultsAdmin(DerivedAdmin):
    list_display = ["season", "changes"]
    list_select_related = ["season__club"]
