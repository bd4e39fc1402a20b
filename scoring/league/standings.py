"""Season standings: aggregated in the database, ranked in pure Python.

``season_standings`` runs a fixed number of queries whatever the club's
size: the figures are summed by the database from the standings lines (two
per counted game, rewritten by the services with the game's derived figures;
a few thousand rows where the hands are hundreds of thousands), grouped by
player and by pair of players, never with a query per player. ``rank`` orders the rows by the
season's ranking criteria and tie-breakers and touches no database.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db.models import Count, F, Max, Prefetch, Q, Sum
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from scoring import changes
from scoring.engine.bracket import Bracket, TieGame, bracket
from scoring.models import (
    Fixture,
    Game,
    GameScore,
    LeagueStatus,
    Season,
    SeasonFormat,
    Seed,
    StandingLine,
    StandingTotal,
)
from scoring.prepared import Prepared
from scoring.selectors import is_overdue, overdue_q

__all__ = ["is_overdue", "overdue_q"]  # the due-date rule lives with the to-do (scoring.selectors)

RANKING_CRITERIA = {
    "match_points": gettext_lazy("Match points (a win or a bye: 1, or 3 where the night says so)"),
    "buchholz": gettext_lazy("Buchholz (the opponents' match points)"),
    "wins": gettext_lazy("Games won"),
    "net": gettext_lazy("Net points"),
    "head_to_head": gettext_lazy("Head-to-head (games between the tied players)"),
    "avg_margin": gettext_lazy("Average margin"),
    "hands_won": gettext_lazy("Hands won"),
    "gins": pgettext_lazy("gin scoring: hands won by going gin", "Gins"),
    "fewest_undercuts": gettext_lazy("Fewest undercuts received"),
}
DEFAULT_RANKING = ["wins", "net", "head_to_head"]
# A Swiss night ranks by match points first (its pairing does), then by its tie-breakers.
SWISS_TIE_BREAKERS = ["buchholz", "net", "head_to_head", "gins"]
# What a standings line says put the player above the next line ("Ann ... on head-to-head").
AHEAD_BY_WORDS = {
    "match_points": gettext_lazy("on match points"),
    "buchholz": gettext_lazy("on Buchholz"),
    "wins": gettext_lazy("on games won"),
    "net": gettext_lazy("on net points"),
    "head_to_head": gettext_lazy("on head-to-head"),
    "avg_margin": gettext_lazy("on average margin"),
    "hands_won": gettext_lazy("on hands won"),
    "gins": pgettext_lazy("gin scoring: ahead on hands won by going gin", "on gins"),
    "fewest_undercuts": gettext_lazy("on fewer undercuts received"),
}


@dataclass
class Row:
    """One player's line of the standings (confirmed results only)."""

    player_id: int
    name: str
    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    net: int = 0
    hands_won: int = 0
    gins: int = 0
    undercuts_given: int = 0
    undercuts_received: int = 0
    # A Swiss night: byes had, match points (wins + byes) and Buchholz (opponents' match points).
    byes: int = 0
    match_points: int = 0
    buchholz: int = 0
    position: int = 0
    tied: bool = False
    decided_by: str = ""  # the criterion that separated this player from the one above
    ahead_by: str = ""  # the criterion that put this player above the next line ("" last, or level with it)
    level_with_next: bool = False  # shares the next line's position: no criterion separates them

    @property
    def avg_margin(self) -> float:
        return self.net / self.played if self.played else 0.0

    @property
    def ahead_by_words(self) -> str:
        """What put this player above the next line, in words: "on head-to-head", "level", or "" (the last)."""
        if self.level_with_next:
            return pgettext("standings: shares the next line's position", "level")
        return str(AHEAD_BY_WORDS.get(self.ahead_by, ""))


@dataclass(frozen=True)
class PairResult:
    """Games between two players (from ``a``'s side)."""

    a: int
    b: int
    wins_a: int
    wins_b: int
    net_a: int


@dataclass
class Standings:
    rows: list[Row]
    ranking: list[str]
    provisional: list = field(default_factory=list)  # Game objects, over but not confirmed


# --- ranking (pure) ----------------------------------------------------------------------------------


def _head_to_head(group: Sequence[Row], pairs: dict[tuple[int, int], PairResult]) -> dict[int, tuple[int, int]]:
    """Within ``group``: (wins, net) of each player over games among the group only."""
    ids = [row.player_id for row in group]
    score = {player: [0, 0] for player in ids}
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            result = pairs.get((a, b))
            if result is None:
                continue
            score[a][0] += result.wins_a
            score[b][0] += result.wins_b
            score[a][1] += result.net_a
            score[b][1] -= result.net_a
    return {player: (wins, net) for player, (wins, net) in score.items()}


_ROW_FIGURE = {
    "match_points": "match_points",
    "buchholz": "buchholz",
    "wins": "won",
    "net": "net",
    "avg_margin": "avg_margin",
    "hands_won": "hands_won",
    "gins": "gins",
}


def _key(row: Row, criterion: str, h2h: dict[int, tuple[int, int]] | None):
    if criterion == "head_to_head":
        return h2h[row.player_id]
    if criterion == "fewest_undercuts":
        return -row.undercuts_received
    return getattr(row, _ROW_FIGURE[criterion])


def _rank_group(group: list[Row], criteria: Sequence[str], pairs: dict[tuple[int, int], PairResult]) -> list[list[Row]]:
    """Split ``group`` into ordered tiers of players the criteria cannot separate.

    Every row of a tier below the group's first gets ``decided_by``: the criterion that put its tier
    below the one above. The later criteria may put any of the tier's rows first, so each carries it
    (the group's first tier keeps what an earlier criterion said of it; ``rank`` clears it from a row
    level with the row above).
    """
    if len(group) < 2 or not criteria:
        return [sorted(group, key=lambda row: row.name.lower())]
    criterion, rest = criteria[0], criteria[1:]
    h2h = _head_to_head(group, pairs) if criterion == "head_to_head" else None
    keyed = sorted(group, key=lambda row: _key(row, criterion, h2h), reverse=True)
    tiers: list[list[Row]] = []
    previous = object()
    for row in keyed:
        key = _key(row, criterion, h2h)
        if key != previous:
            tiers.append([])
            previous = key
        tiers[-1].append(row)
    for tier in tiers[1:]:
        for row in tier:
            row.decided_by = criterion
    ordered: list[list[Row]] = []
    for tier in tiers:
        if len(tier) == 1:
            ordered.append(tier)
        elif criterion == "head_to_head" and len(tier) < len(group):
            # Fewer players still level: head-to-head again, over the games among them only.
            ordered.extend(_rank_group(tier, criteria, pairs))
        else:
            ordered.extend(_rank_group(tier, rest, pairs))
    return ordered


def rank(rows: Sequence[Row], criteria: Sequence[str], pairs: Sequence[PairResult] = ()) -> list[Row]:
    """Order ``rows`` by the criteria in turn; players still level share a position.

    Head-to-head is computed among the players tied at that point only (their
    wins in games against each other, then their net points in those games),
    and recomputed for any smaller group still tied after it.

    Each row gets ``decided_by`` (what put it below the row above) and ``ahead_by`` (what put it
    above the next row; ``level_with_next`` when it shares the next row's position), so the pages
    and the API say why without working it out again.
    """
    for criterion in criteria:
        if criterion not in RANKING_CRITERIA:
            raise ValueError(f"unknown ranking criterion {criterion!r}")
    by_pair: dict[tuple[int, int], PairResult] = {}
    for pair in pairs:
        for a, b, wins_a, wins_b, net_a in (
            (pair.a, pair.b, pair.wins_a, pair.wins_b, pair.net_a),
            (pair.b, pair.a, pair.wins_b, pair.wins_a, -pair.net_a),
        ):
            old = by_pair.get((a, b))
            if old:
                wins_a, wins_b, net_a = old.wins_a + wins_a, old.wins_b + wins_b, old.net_a + net_a
            by_pair[(a, b)] = PairResult(a, b, wins_a, wins_b, net_a)
    for row in rows:
        row.decided_by = ""
    result: list[Row] = []
    for tier in _rank_group(list(rows), list(criteria), by_pair):
        position = len(result) + 1
        for row in tier:
            row.position = position
            row.tied = len(tier) > 1
            result.append(row)
    if not result:  # a Swiss night nobody has checked in to yet
        return result
    result[0].decided_by = ""
    for above, row in zip(result, result[1:], strict=False):
        if row.position == above.position:
            row.decided_by = ""  # level with the row above: nothing put it below
    for row, below in zip(result, [*result[1:], None], strict=True):
        row.level_with_next = below is not None and below.position == row.position
        row.ahead_by = below.decided_by if below is not None and not row.level_with_next else ""
    return result


# --- the selector ------------------------------------------------------------------------------------


def _counted_lines(season):
    """The standings lines that count in ``season`` (every confirmed, finished game has two; a
    round robin + playoffs counts its fixtures only: a playoff game is a knockout tie)."""
    lines = StandingLine.objects.filter(season_id=season.pk).order_by()
    return lines.filter(fixture=True) if season.format == SeasonFormat.PLAYOFFS else lines


def _level_before_head_to_head(rows: Sequence[Row], ranking: Sequence[str]) -> list[int]:
    """The players level with another on every criterion before head-to-head (none without it)."""
    if "head_to_head" not in ranking:
        return []
    before = ranking[: list(ranking).index("head_to_head")]
    groups: dict[tuple, list[int]] = {}
    for row in rows:
        groups.setdefault(tuple(_key(row, criterion, None) for criterion in before), []).append(row.player_id)
    return [player for group in groups.values() if len(group) > 1 for player in group]


def season_standings(season, *, provisional: bool = True) -> Standings:
    """The standings of ``season`` (confirmed results) plus its provisional games (none read without
    ``provisional``).

    At most four queries whatever the number of players or games: entrants,
    figures by player (a season total or two per player), results by pair (of the
    players head-to-head may separate, from the standings lines: two per counted
    game), both kept by the services, and the provisional games.
    """
    rows = {
        player_id: Row(player_id=player_id, name=name)
        for player_id, name in season.players.order_by().values_list("pk", "name")
    }
    lines = _counted_lines(season)
    totals = StandingTotal.objects.filter(season_id=season.pk).order_by()
    if season.format == SeasonFormat.PLAYOFFS:
        totals = totals.filter(fixture=True)
    by_player = totals.values("player_id").annotate(
        played=Sum("played"),
        won=Sum("won"),
        lost=Sum("lost"),
        drawn=Sum("drawn"),
        net=Sum("net"),
        hands_won=Sum("hands_won"),
        gins=Sum("gins"),
        undercuts_given=Sum("undercuts_given"),
        undercuts_received=Sum("undercuts_received"),
    )
    for figures in by_player:
        row = rows.get(figures.pop("player_id"))
        if row is None:  # played in the season but since taken off its list
            continue
        for name, value in figures.items():
            setattr(row, name, value)
    if season.format == SeasonFormat.SWISS:
        _swiss_figures(season, rows, lines)
    ranking = season.ranking or DEFAULT_RANKING
    # Results by pair of players, each pair once (from the lower id's side), for head-to-head: only
    # between players the criteria before it leave level, the only ones it can separate.
    tied = _level_before_head_to_head(list(rows.values()), ranking)
    pairs = (
        [
            PairResult(*pair)
            for pair in lines.filter(player_id__lt=F("opponent_id"), player_id__in=tied, opponent_id__in=tied)
            .values("player_id", "opponent_id")
            .annotate(wins=Sum("won"), losses=Sum("lost"), net=Sum("net"))
            .values_list("player_id", "opponent_id", "wins", "losses", "net")
        ]
        if tied
        else []
    )

    games = provisional_games(season) if provisional else []
    return Standings(rows=rank(list(rows.values()), ranking, pairs), ranking=list(ranking), provisional=games)


def _swiss_figures(season, rows: dict[int, Row], lines) -> None:
    """A Swiss night's match points (confirmed wins, and one for each bye) and Buchholz: the sum of the
    match points of the opponents actually played (a bye adds nothing; docs/league.md)."""
    from_byes = (
        season.swiss_rounds_played.filter(published=True, bye__isnull=False).order_by().values_list("bye_id", flat=True)
    )
    for player_id in from_byes:
        if player_id in rows:
            rows[player_id].byes += 1
    for row in rows.values():
        row.match_points = (row.won + row.byes) * season.points_per_win
    for player_id, opponent_id in lines.values_list("player_id", "opponent_id"):
        if player_id in rows and opponent_id in rows:
            rows[player_id].buchholz += rows[opponent_id].match_points


def provisional_games(season) -> list:
    """The season's finished games not (yet) confirmed: awaiting confirmation or disputed (one query)."""
    return list(
        Game.objects.filter(season_id=season.pk)
        .filter(Q(over=True) & ~Q(league_status=LeagueStatus.CONFIRMED))
        .select_related("player_one", "player_two", "winner", "fixture")
        .order_by("-finished_at", "-pk")
    )


@dataclass
class LeftOpen:
    """What closing a season would leave behind (the organiser sees it before closing)."""

    unplayed: list  # Fixture with no game: closing marks it not played
    unconfirmed: list  # Game over, provisional or disputed: left out of the final standings unless confirmed
    in_play: list  # Game not over: closed unfinished

    @property
    def nothing(self) -> bool:
        return not (self.unplayed or self.unconfirmed or self.in_play)


def season_left_open(season) -> LeftOpen:
    """The season's fixtures not played, results not confirmed and games in play (two queries)."""
    unplayed = list(
        Fixture.objects.filter(season_id=season.pk, game__isnull=True)
        .select_related("home", "away")
        .order_by("round", "pk")
    )
    games = list(
        Game.objects.filter(season_id=season.pk)
        .exclude(over=True, league_status=LeagueStatus.CONFIRMED)
        .select_related("player_one", "player_two", "winner", "fixture")
        .order_by("fixture__round", "pk")
    )
    return LeftOpen(
        unplayed=unplayed,
        unconfirmed=[game for game in games if game.over],
        in_play=[game for game in games if not game.over],
    )


# --- cached standings and the wall screen's board ---------------------------------------------------


@dataclass
class WallBoard:
    version: str
    standings: object  # scoring.league.standings.Standings
    playing: list  # Game with scores prefetched, in play now
    recent: list  # Game, the latest finished


def season_wall(
    season, *, playing_limit: int = 12, recent_limit: int = 8, version: str | None = None, confirmed: str | None = None
) -> WallBoard:
    """What the wall screen shows, in a fixed number of queries (the version first, so a change
    made while the rest is read is seen again by the screen; ``version`` and ``confirmed``: the season's
    versions when the caller has just read them)."""
    version = version or changes.season_version(season.pk)
    standings = cached_standings(season, confirmed=confirmed)
    playing = list(
        Game.objects.filter(season=season, over=False)
        .select_related("player_one", "player_two")
        .prefetch_related(Prefetch("scores", queryset=GameScore.objects.order_by("number")))
        .order_by("-updated_at", "-pk")[:playing_limit]
    )
    recent = list(
        Game.objects.filter(season=season, over=True)
        .select_related("player_one", "player_two", "winner")
        .order_by("-finished_at", "-pk")[:recent_limit]
    )
    return WallBoard(version=version, standings=standings, playing=playing, recent=recent)


def _confirmed_figures(season_id: int):
    """The season's confirmed results' figures: a row (season_id, count, latest update, latest confirmation,
    sum of changes), or none."""
    confirmed = Game.objects.filter(season_id=season_id, league_status=LeagueStatus.CONFIRMED)
    return changes.figures_per_season(
        confirmed, n=Count("*"), u=Max("updated_at"), c=Max("confirmed_at"), s=Sum("change_count")
    )


def _entrant_figures(season_id: int):
    """The season's entrants' figures: a row (season_id, count, sum of the players' ids), or none."""
    entrants = Season.players.through.objects.filter(season_id=season_id)
    return changes.figures_per_season(entrants, n=Count("*"), s=Sum("player_id"))


# Asked on every fetch of the season page's standings and the wall's board (the key of their renders):
# statements built once per database.
_CONFIRMED_FIGURES = Prepared(Game, _confirmed_figures, season_id=int)
_ENTRANT_FIGURES = Prepared(Season.players.through, _entrant_figures, season_id=int)


def confirmed_version(season) -> str:
    """Changes whenever a confirmed result of the season changes (or the season's entrants or ranking do)."""
    results = changes.by_season(_CONFIRMED_FIGURES(season_id=season.pk), changes.NO_GAMES)[season.pk]
    return _confirmed_version_of(season, results)


def _confirmed_version_of(season, results: tuple) -> str:
    """``confirmed_version`` of ``season`` from its confirmed results' figures, read by the caller."""
    player_count, player_ids = changes.by_season(_ENTRANT_FIGURES(season_id=season.pk), (0, 0))[season.pk]
    # One player taken off and another put on: the sum of their ids moves.
    entrants = f"{player_count}.{player_ids or 0}"
    ranking = ",".join(season.ranking or [])
    if season.format == SeasonFormat.SWISS:  # a round published with a bye moves a match point
        byes = (
            season.swiss_rounds_played.filter(published=True)
            .order_by()
            .aggregate(count=Count("bye_id"), ids=Sum("bye_id"))
        )
        ranking += f".byes{byes['count']}.{byes['ids'] or 0}"
    return f"{changes.version_text(*results)}.{entrants}.{ranking}"


def _games_and_confirmed_figures(season_id: int):
    """The figures of the season's games and of its confirmed results in one pass: a row (season_id, count,
    latest update, latest confirmation, sum of changes, then the same of the confirmed results), or none."""
    confirmed = Q(league_status=LeagueStatus.CONFIRMED)
    return changes.figures_per_season(
        Game.objects.filter(season_id=season_id),
        n=Count("*"),
        u=Max("updated_at"),
        c=Max("confirmed_at"),
        s=Sum("change_count"),
        # Counting a column of the versions' index (never null): the pass reads that index alone.
        confirmed_n=Count("league_status", filter=confirmed),
        confirmed_u=Max("updated_at", filter=confirmed),
        confirmed_c=Max("confirmed_at", filter=confirmed),
        confirmed_s=Sum("change_count", filter=confirmed),
    )


_GAMES_AND_CONFIRMED_FIGURES = Prepared(Game, _games_and_confirmed_figures, season_id=int)


def season_versions_now(season) -> tuple[str, str]:
    """``changes.season_version`` and ``confirmed_version`` of ``season``, its games read once for both: each
    was a pass over all of a season's games, ~30 ms each for the scale bench's 100,000 (a live part's key,
    asked on every fetch of the season page's standings and the wall's board)."""
    figures = changes.by_season(_GAMES_AND_CONFIRMED_FIGURES(season_id=season.pk), changes.NO_GAMES * 2)
    games, results = figures[season.pk][:4], figures[season.pk][4:]
    return changes.season_version_of(season.pk, games), _confirmed_version_of(season, results)


def cached_standings(season, *, confirmed: str | None = None):
    """``season_standings``, computed once per change of the confirmed results (per server process;
    ``confirmed``: the season's ``confirmed_version`` when the caller has just read it).

    The standings count confirmed results only, so hands saved in games still
    in play (most changes on a club night) do not recompute them. They are kept
    without the provisional games, which move with every result that finishes:
    ``current_standings`` reads them afresh, the wall does not show them.
    """
    born = changes.version_text(0, season.created_at, None)  # a season id the database re-used is another season
    key = f"ginleague:standings:{season.pk}:{born}:{confirmed or confirmed_version(season)}"
    standings = cache.get(key)
    if standings is None:
        standings = season_standings(season, provisional=False)
        cache.set(key, standings, 24 * 3600)
    return standings


def current_standings(season, *, confirmed: str | None = None):
    """The standings as the season page shows them: the confirmed figures from ``cached_standings``
    (two queries when cached) and the provisional results read now (one more query), so a game
    finishing or being disputed shows at once without recomputing the standings."""
    return dataclasses.replace(cached_standings(season, confirmed=confirmed), provisional=provisional_games(season))


# --- the knockout bracket ----------------------------------------------------------------------------


@dataclass
class Knockout:
    """A season's knockout as its pages show it: the derived bracket, names, and the games under way."""

    bracket: Bracket | None  # None until the knockout is seeded (playoffs before the round robin ends)
    names: dict[int, str]
    pending: dict[frozenset, Game]  # a tie's game in play or awaiting confirmation, by pair of player ids
    games: dict[int, Game]  # the confirmed games of the bracket, by id


def knockout_games(season):
    """The season's knockout games: all of a cup's, the playoffs' (games without a fixture)."""
    games = Game.objects.filter(season_id=season.pk)
    return games.filter(fixture__isnull=True) if season.format == SeasonFormat.PLAYOFFS else games


def season_knockout(season) -> Knockout:
    """The bracket of ``season`` from its seeds and confirmed knockout games (three queries)."""
    seeds = list(Seed.objects.filter(season=season).select_related("player").order_by("seed"))
    games = list(
        knockout_games(season).select_related("player_one", "player_two", "winner").order_by("finished_at", "pk")
    )
    names = {seed.player_id: seed.player.name for seed in seeds}
    if len(seeds) < 2:
        return Knockout(bracket=None, names=names, pending={}, games={})
    confirmed = [game for game in games if game.over and game.league_status == LeagueStatus.CONFIRMED]
    derived = bracket(
        [seed.player_id for seed in seeds],
        [TieGame(game.pk, game.player_one_id, game.player_two_id, game.winner_id) for game in confirmed],
        best_of=season.best_of,
    )
    pending = {
        frozenset((game.player_one_id, game.player_two_id)): game
        for game in games
        if game.league_status != LeagueStatus.CONFIRMED
    }
    return Knockout(bracket=derived, names=names, pending=pending, games={game.pk: game for game in confirmed})
