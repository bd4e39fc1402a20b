"""Player statistics, head-to-head, ratings and score progress.

Selectors (functions taking a player, club or game) sum in the database with
conditional aggregation and run a fixed number of queries whatever the size
of the club; the pure functions below them (streaks, head-to-head rows, the
nemesis, running totals) touch no database and are tested on small cases.

Which games anyone may see: friendly games (no season), games of public
clubs' seasons, and games of the clubs the viewer belongs to
(``visible_games``). Every selector here starts from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.db.models import Avg, Count, Q, QuerySet

from players.models import Club, Membership, Player
from scoring import changes
from scoring.engine.partnership import board_pairs
from scoring.engine.ratings import RatedGame, Ratings, elo_ratings
from scoring.engine.rules import resolve_rules
from scoring.engine.score import running_columns
from scoring.models import Deal, Game, Hand, LeagueStatus
from scoring.permissions import member_club_ids, visible_game_q
from scoring.selectors import pair_totals, plays_q

# --- who may see what --------------------------------------------------------------------------------


def visible_games(user) -> QuerySet[Game]:
    """Friendly games, public clubs' league games, and league games of the viewer's own clubs."""
    return Game.objects.filter(visible_game_q(user))


def games_of(player_id: int) -> Q:
    """Two-handed games ``player_id`` played (a partnership game's figures are the sides': ``partnership_stats``)."""
    return (Q(player_one_id=player_id) | Q(player_two_id=player_id)) & Q(player_three__isnull=True)


def partnership_games_of(player_id: int) -> Q:
    """Partnership games ``player_id`` played, in any of the four seats."""
    return Q(player_three__isnull=False) & plays_q(player_id)


# --- pure figures ------------------------------------------------------------------------------------


def rate(part: int, whole: int) -> float | None:
    """``part / whole`` or None when there is nothing to divide by."""
    return part / whole if whole else None


def longest_streak(winners: Iterable[int | None], player_id: int) -> int:
    """The most games won in a row, given each game's winner in the order played."""
    best = run = 0
    for winner in winners:
        run = run + 1 if winner == player_id else 0
        best = max(best, run)
    return best


@dataclass(frozen=True)
class PairFigures:
    """Over games between ``one`` and ``two`` (database-summed), from ``one``'s side."""

    one: int
    two: int
    one_name: str
    two_name: str
    played: int
    wins_one: int
    wins_two: int
    net_one: int


@dataclass
class HeadToHead:
    opponent_id: int
    opponent: str
    played: int = 0
    won: int = 0
    lost: int = 0
    net: int = 0  # points: the player's margins won minus margins lost

    @property
    def drawn(self) -> int:
        return self.played - self.won - self.lost


def head_to_head_rows(pairs: Iterable[PairFigures], player_id: int) -> list[HeadToHead]:
    """One row per opponent of ``player_id``: most games played first, then by name."""
    rows: dict[int, HeadToHead] = {}
    for pair in pairs:
        if pair.one == player_id:
            opponent, name, won, lost, net = pair.two, pair.two_name, pair.wins_one, pair.wins_two, pair.net_one
        elif pair.two == player_id:
            opponent, name, won, lost, net = pair.one, pair.one_name, pair.wins_two, pair.wins_one, -pair.net_one
        else:
            continue
        row = rows.setdefault(opponent, HeadToHead(opponent_id=opponent, opponent=name))
        row.played += pair.played
        row.won += won
        row.lost += lost
        row.net += net
    return sorted(rows.values(), key=lambda row: (-row.played, row.opponent.lower()))


def nemesis(rows: Sequence[HeadToHead]) -> HeadToHead | None:
    """The opponent who beats the player most: among those with more wins than losses against
    the player, the most wins over them, then the most points taken, then by name."""
    rivals = [row for row in rows if row.lost > row.won]
    if not rivals:
        return None
    return min(rivals, key=lambda row: (-row.lost, row.net, row.opponent.lower()))


# --- a player's profile ------------------------------------------------------------------------------


@dataclass
class PlayerStats:
    games: int = 0
    wins: int = 0
    losses: int = 0
    hands: int = 0
    hands_won: int = 0
    gins: int = 0
    knocks: int = 0
    knocks_won: int = 0
    knocks_undercut: int = 0
    opponent_knocks: int = 0
    undercuts_made: int = 0
    avg_knock_deadwood: float | None = None
    biggest_hand: Hand | None = None
    longest_streak: int = 0
    head_to_head: list[HeadToHead] = field(default_factory=list)

    @property
    def win_rate(self) -> float | None:
        return rate(self.wins, self.games)

    @property
    def gin_rate(self) -> float | None:
        """Of the hands the player won, those won by going gin (or big gin)."""
        return rate(self.gins, self.hands_won)

    @property
    def undercut_rate(self) -> float | None:
        """The other player's knocks this player undercut."""
        return rate(self.undercuts_made, self.opponent_knocks)

    @property
    def knock_success(self) -> float | None:
        """The player's own knocks that scored for them (not undercut)."""
        return rate(self.knocks_won, self.knocks)

    @property
    def nemesis(self) -> HeadToHead | None:
        return nemesis(self.head_to_head)


def pair_figures(games: QuerySet[Game]) -> list[PairFigures]:
    """Over games grouped by (player_one, player_two), summed by the database (one query)."""
    rows = pair_totals(games.filter(over=True), "player_one__name", "player_two__name")
    return [
        PairFigures(
            row["player_one_id"],
            row["player_two_id"],
            row["player_one__name"],
            row["player_two__name"],
            row["played"],
            row["wins_one"],
            row["wins_two"],
            row["net_one"] or 0,
        )
        for row in rows
    ]


def player_stats(player: Player, *, viewer) -> PlayerStats:
    """Everything the profile shows about ``player``'s visible games: four queries."""
    pid = player.pk
    games = visible_games(viewer).filter(games_of(pid))
    stats = PlayerStats()

    # 1. Head-to-head (and so games, wins, losses), grouped by pair in the database.
    stats.head_to_head = head_to_head_rows(pair_figures(games), pid)
    stats.games = sum(row.played for row in stats.head_to_head)
    stats.wins = sum(row.won for row in stats.head_to_head)
    stats.losses = sum(row.lost for row in stats.head_to_head)

    # 2. Hand figures, one conditional aggregate over every hand of those games.
    mine = Q(by_id=pid)
    figures = Hand.objects.filter(game__in=games.values("pk")).aggregate(
        hands=Count("pk"),
        hands_won=Count("pk", filter=Q(winner_id=pid)),
        gins=Count("pk", filter=mine & Q(result__in=("gin", "big_gin"))),
        knocks=Count("pk", filter=mine & Q(ending="knock")),
        knocks_won=Count("pk", filter=mine & Q(ending="knock", result="knock")),
        knocks_undercut=Count("pk", filter=mine & Q(result="undercut")),
        opponent_knocks=Count("pk", filter=Q(ending="knock") & ~mine),
        undercuts_made=Count("pk", filter=Q(result="undercut", winner_id=pid)),
        avg_knock_deadwood=Avg("knocker_deadwood", filter=mine & Q(ending="knock")),
    )
    for name, value in figures.items():
        setattr(stats, name, value if value is not None else getattr(stats, name))

    # 3. The biggest hand the player won, with its game.
    stats.biggest_hand = (
        Hand.objects.filter(game__in=games.values("pk"), winner_id=pid)
        .select_related("game", "game__player_one", "game__player_two")
        .order_by("-points", "game_id", "number")
        .first()
    )

    # 4. The winners of the over games in the order they finished, for the streak.
    winners = games.filter(over=True).order_by("finished_at", "pk").values_list("winner_id", flat=True)
    stats.longest_streak = longest_streak(winners, pid)
    return stats


def recent_games(player: Player, *, viewer, limit: int = 10) -> list[Game]:
    return list(
        visible_games(viewer)
        .filter(games_of(player.pk))
        .select_related("player_one", "player_two", "winner", "season", "season__club")
        .order_by("-created_at", "-pk")[:limit]
    )


# --- partnership games ------------------------------------------------------------------------------


@dataclass
class PartnerRow:
    """A player's partnership games with one partner: games, deals and games won together."""

    partner_id: int
    partner: str
    games: int = 0
    wins: int = 0
    deals: int = 0  # settled deals played together
    deals_won: int = 0


@dataclass
class SideRow:
    """A player's side record against one opposing side (two players, whichever seats they took)."""

    opponents: tuple[int, int]
    name: str  # "Bob & Dan"
    played: int = 0  # finished games
    won: int = 0
    lost: int = 0


@dataclass
class PartnershipStats:
    """A player's partnership games (four players, two sides), counted apart from two-handed ones."""

    games: int = 0
    finished: int = 0
    wins: int = 0
    deals: int = 0
    deals_won: int = 0
    boards: int = 0  # boards the player played (one each deal)
    boards_won: int = 0
    partners: list[PartnerRow] = field(default_factory=list)
    sides: list[SideRow] = field(default_factory=list)


def partnership_stats(player: Player, *, viewer) -> PartnershipStats:
    """The player's visible partnership games summed: wins, deals won with each partner, boards played and
    won (the engine's board pairs say which board was theirs), and side records against each opposing side.
    Three queries whatever the number of games."""
    pid = player.pk
    games = list(
        visible_games(viewer)
        .filter(partnership_games_of(pid))
        .select_related("player_one", "player_two", "player_three", "player_four")
        .order_by("pk")
    )
    stats = PartnershipStats(games=len(games))
    if not games:
        return stats
    ids = [game.pk for game in games]
    deals: dict[int, list[tuple[int | None, bool]]] = {}
    for game_id, winner_id, settled in Deal.objects.filter(game_id__in=ids).values_list(
        "game_id", "winner_id", "settled"
    ):
        deals.setdefault(game_id, []).append((winner_id, settled))
    boards: dict[int, list[tuple[int, int, int | None]]] = {}
    for game_id, number, board, winner_id in Hand.objects.filter(game_id__in=ids).values_list(
        "game_id", "number", "board", "winner_id"
    ):
        boards.setdefault(game_id, []).append((number, board, winner_id))
    partners: dict[int, PartnerRow] = {}
    sides: dict[frozenset[int], SideRow] = {}
    for game in games:
        seats = (game.player_one, game.player_two, game.player_three, game.player_four)
        index = next(i for i, seat in enumerate(seats) if seat.pk == pid)
        partner, first = seats[(index + 2) % 4], seats[index % 2]  # side one: seats 0 & 2; side two: 1 & 3
        others = (seats[(index + 1) % 4], seats[(index + 3) % 4])
        partner_row = partners.setdefault(partner.pk, PartnerRow(partner.pk, partner.name))
        partner_row.games += 1
        for winner_id, settled in deals.get(game.pk, []):
            if settled:
                stats.deals += 1
                partner_row.deals += 1
                if winner_id == first.pk:
                    stats.deals_won += 1
                    partner_row.deals_won += 1
        pairs = {}
        for number, board, winner_id in boards.get(game.pk, []):
            if number not in pairs:
                pairs[number] = board_pairs(game.rule_set, game.player_ids, number)
            if pid in pairs[number][board - 1]:
                stats.boards += 1
                stats.boards_won += winner_id == pid
        if game.over:
            stats.finished += 1
            won = game.winner_id == first.pk
            stats.wins += won
            partner_row.wins += won
            side = sides.setdefault(
                frozenset(other.pk for other in others),
                SideRow((others[0].pk, others[1].pk), f"{others[0].name} & {others[1].name}"),
            )
            side.played += 1
            side.won += won
            side.lost += not won
    stats.partners = sorted(partners.values(), key=lambda row: (-row.games, row.partner.lower()))
    stats.sides = sorted(sides.values(), key=lambda row: (-row.played, row.name.lower()))
    return stats


# --- ratings -----------------------------------------------------------------------------------------


def rated_games(rows: Iterable[tuple[int, int, int, int]]) -> list[RatedGame]:
    """(game id, winner, player one, player two) rows -> RatedGame (the loser is the other player)."""
    return [RatedGame(key=pk, winner=winner, loser=two if winner == one else one) for pk, winner, one, two in rows]


def _confirmed(clubs_q: Q) -> QuerySet[Game]:
    """Confirmed, over league games with a winner, oldest result first (the order ratings move in)."""
    return Game.objects.filter(clubs_q, league_status=LeagueStatus.CONFIRMED, over=True, winner__isnull=False).order_by(
        "finished_at", "pk"
    )


def club_ratings(club: Club) -> Ratings:
    """Elo ratings of the club's members from its confirmed games, in the order they finished (one query).

    Computed from the results every time, so correcting a past game (which the
    services recompute in its transaction) moves every later rating with it.
    """
    rows = _confirmed(Q(season__club=club)).values_list("pk", "winner_id", "player_one_id", "player_two_id")
    return elo_ratings(rated_games(rows))


_RATINGS: dict[int, tuple[str, Ratings]] = {}  # club id -> (version, ratings), this process only


def cached_club_ratings(clubs: Sequence[Club]) -> list[Ratings]:
    """``club_ratings`` of each club, computed once per change of its confirmed results (per process).

    One query for every club's version (``changes.club_results_versions``: a row per season, counted up
    in the transaction of every change of its counted results, whichever process made it); one more for
    the clubs whose results changed. Kept in this process's memory (not a pickling cache: a big club's
    history is tens of thousands of points).
    """

    if not clubs:
        return []
    wanted = changes.club_results_versions(club.pk for club in clubs)
    missing = [pk for pk, version in wanted.items() if _RATINGS.get(pk, (None,))[0] != version]
    if missing:
        by_club: dict[int, list[tuple]] = {pk: [] for pk in missing}
        rows = _confirmed(Q(season__club_id__in=missing)).values_list(
            "season__club_id", "pk", "winner_id", "player_one_id", "player_two_id"
        )
        for club_id, *row in rows:
            by_club[club_id].append(tuple(row))
        for pk, games in by_club.items():
            _RATINGS[pk] = (wanted[pk], elo_ratings(rated_games(games)))
    return [_RATINGS[club.pk][1] for club in clubs]


@dataclass
class ClubRating:
    club: Club
    rating: float
    games: int
    history: list  # RatingPoint, oldest first


def player_ratings(player: Player, *, viewer) -> list[ClubRating]:
    """The player's Elo rating and its history in each visible club they belong to (three queries;
    a fourth when a club's ratings must be computed again)."""
    member_of = Membership.objects.filter(player=player).values("club_id")
    clubs = list(
        Club.objects.filter(pk__in=member_of)
        .filter(Q(is_public=True) | Q(pk__in=member_club_ids(viewer)))
        .order_by("name")
    )
    if not clubs:
        return []
    result = []
    for club, ratings in zip(clubs, cached_club_ratings(clubs), strict=True):
        history = ratings.history.get(player.pk, [])
        result.append(ClubRating(club=club, rating=ratings.rating(player.pk), games=len(history), history=history))
    return result


# --- a game's progress -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    number: int  # the game of the sitting (1-3 for Hollywood)
    totals: dict[int, list[int]]  # player id -> hand points after hand 0, 1, 2, ...


def running_points(hands: Sequence[tuple[int | None, int, Sequence[int]]], players: Sequence[int], games: int):
    """Each game's running hand points per player, from the engine's per-hand (winner, points, games)."""
    rows = running_columns(players, games, hands)  # the engine's running totals, as on the sheet
    return [
        Progress(number, {player: [0, *(row[number - 1][player] for row in rows)] for player in players})
        for number in range(1, games + 1)
    ]


def game_progress(game: Game) -> list[Progress]:
    """Running hand points of each game of the sitting, from the stored (engine-derived) hands."""
    hands = game.hands.order_by("number").values_list("winner_id", "points", "scored_in")
    games = resolve_rules(game.rules).games_per_session
    return running_points(list(hands), (game.player_one_id, game.player_two_id), games)
