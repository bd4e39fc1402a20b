"""Reads that join: each selector owns its select_related/prefetch_related."""

import datetime
import weakref
from dataclasses import dataclass
from functools import cache, cached_property

from django.contrib.auth import get_user_model
from django.db import connections, router
from django.db.models import (
    Case,
    Count,
    F,
    Field,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.sql import Query
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from players.models import MANAGER_ROLES, Invitation, Membership, Player
from scoring import writes
from scoring.engine.partnership import PartnershipResult, board_pairs, score_partnership
from scoring.engine.record import evaluate, hand_to_record
from scoring.engine.rules import RuleSet, resolve_rules
from scoring.engine.score import HandFacts, SessionResult, facts_at_once, score_session
from scoring.models import Fixture, Game, GameScore, Hand, LeagueStatus, Season
from scoring.permissions import asked_to_confirm_q, played_by_q, visible_game_q
from scoring.prepared import Prepared

GAME_PLAYERS = ("player_one", "player_two", "player_three", "player_four", "first_dealer", "winner", "next_dealer")
HAND_ORDER = ("number", "board")  # a partnership game's boards by deal, then board (board is null otherwise)


def game_list(*, player=None, viewer=None, of_user=None, scores: bool = True) -> QuerySet[Game]:
    """Games, in progress first, newest first, with their players and (unless ``scores`` is False) scores.

    With ``viewer``, only the games that user may see (private clubs' games only for members);
    with ``of_user``, only that user's own games (they play in them or started them).
    """
    games = Game.objects.select_related(*GAME_PLAYERS)
    if scores:  # each Hollywood board's figures; a list that shows none skips the second statement
        games = games.prefetch_related(
            Prefetch("scores", queryset=GameScore.objects.select_related("winner").order_by("number"))
        )
    if player is not None:
        games = games.filter(plays_q(player))
    if viewer is not None:
        games = games.filter(visible_game_q(viewer))
    if of_user is not None:
        games = games.filter(Q(created_by=of_user) | played_by_q(of_user))
    return games.order_by("over", "-created_at")


@dataclass(frozen=True)
class Seated:
    """A player of a listed game or a recent sitting: who, by id and name."""

    pk: int
    name: str


SEATS = ("player_one", "player_two", "player_three", "player_four")
_LISTED = ("pk", "over", "created_at", "rules", "margin", "hand_count", "winner_id")


def _own_games(user_id: int, limit: int = 50):
    """The statement behind ``own_games``: the games the account started or its player plays in
    (``played_by_q``), and the players' names as subqueries. Joining the players for their names made a
    nine-table join that PostgreSQL took 30-70 ms to plan on every visit at 100,000 games, and whose plan
    walked a club's whole history for a member with a few hundred games."""
    user = get_user_model()(pk=user_id)
    mine = Q(created_by_id=user_id) | played_by_q(user_id)
    named = (*SEATS, "winner", "next_dealer")
    names = {f"{seat}_name": Subquery(Player.objects.filter(pk=OuterRef(seat)).values("name")) for seat in named}
    games = Game.objects.filter(visible_game_q(user)).filter(mine).annotate(**names)
    return games.order_by(*game_list(scores=False).query.order_by).values_list(
        *_LISTED, *SEATS, *(f"{seat}_name" for seat in SEATS), "winner_name", "next_dealer", "next_dealer_name"
    )[:limit]


_OWN_GAMES = Prepared(Game, _own_games, user_id=int)


@dataclass(frozen=True, slots=True)
class ListedGame:
    """A game as a list of games shows it (scoring/game_list_html.py): a Game's attributes of that, and no more."""

    pk: int
    over: bool
    created_at: datetime.datetime
    rules: dict
    margin: int | None
    hand_count: int
    winner_id: int | None
    player_one: Seated
    player_two: Seated
    player_three: Seated | None
    player_four: Seated | None
    winner: Seated | None
    next_dealer: Seated | None

    @property
    def player_one_id(self) -> int:
        return self.player_one.pk

    @property
    def player_three_id(self) -> int | None:
        return self.player_three.pk if self.player_three else None


def own_games(user) -> list[ListedGame]:
    """The latest 50 games ``user`` plays in or started, of clubs they may see (their home page, every
    visit: the SQL is built once, scoring/prepared.py); ``game_list`` says the order. One statement, read
    as rows: the list shows each game's players and result, not its boards, and a Game with seven players
    made from every column cost more than the read."""
    games = []
    for pk, over, created_at, rules, margin, hand_count, winner_id, *seated in _OWN_GAMES(user_id=user.pk):
        ids, names = seated[:4], seated[4:8]
        winner_name, dealer_id, dealer_name = seated[8:]
        one, two, three, four = (
            None if id_ is None else Seated(pk=id_, name=name) for id_, name in zip(ids, names, strict=True)
        )
        games.append(
            ListedGame(
                pk=pk,
                over=over,
                created_at=created_at,
                rules=rules,
                margin=margin,
                hand_count=hand_count,
                winner_id=winner_id,
                player_one=one,
                player_two=two,
                player_three=three,
                player_four=four,
                winner=None if winner_id is None else Seated(pk=winner_id, name=winner_name),
                next_dealer=None if dealer_id is None else Seated(pk=dealer_id, name=dealer_name),
            )
        )
    return games


def _recent_sittings(user_id: int, limit: int = 30):
    games = Game.objects.filter(Q(created_by_id=user_id) | played_by_q(user_id)).order_by("-created_at")
    return games.values_list("pk", "preset", "rules", *SEATS, *(f"{seat}__name" for seat in SEATS))[:limit]


_RECENT_SITTINGS = Prepared(Game, _recent_sittings, user_id=int)


@dataclass
class Sitting:
    """A recent game as the new-game page offers it again: its id, rules and players (seats as a Game names them)."""

    pk: int
    preset: str
    rules: dict
    player_one: Seated
    player_two: Seated
    player_three: Seated | None
    player_four: Seated | None

    @property
    def player_three_id(self) -> int | None:
        return self.player_three.pk if self.player_three else None

    @cached_property
    def rule_set(self) -> RuleSet:
        return resolve_rules(self.rules)


def recent_sittings(user, limit: int = 5) -> list[Sitting]:
    """The latest sittings ``user`` started or plays in, one per set of players, newest first (the new-game
    page's "play again"), from their 30 latest games in one statement built once. Rows, not models: a Game
    and its players made from every column and join cost more than the read."""
    seen, sittings = set(), []
    for pk, preset, rules, *seated in _RECENT_SITTINGS(user_id=user.pk):
        ids, names = seated[:4], seated[4:]
        players = frozenset(ids)
        if players in seen:
            continue
        seen.add(players)
        one, two, three, four = (
            None if id_ is None else Seated(pk=id_, name=name) for id_, name in zip(ids, names, strict=True)
        )
        sittings.append(
            Sitting(pk, preset, rules, player_one=one, player_two=two, player_three=three, player_four=four)
        )
        if len(sittings) == limit:
            break
    return sittings


_PLAYER_NAMES = Prepared(Player, lambda: Player.objects.order_by("name").values_list("name", flat=True)[:300])


def player_names() -> list[str]:
    """Players' names A to Z (the first 300): what the new-game form's name boxes suggest."""
    return _PLAYER_NAMES()


def game_detail(*, pk: int) -> Game:
    """One game with everything its scoresheet shows, in a fixed number of queries."""
    return (
        Game.objects.select_related(*GAME_PLAYERS)
        .prefetch_related(
            Prefetch("scores", queryset=GameScore.objects.select_related("winner").order_by("number")),
            Prefetch("hands", queryset=Hand.objects.select_related("by", "winner", "dealer").order_by(*HAND_ORDER)),
        )
        .get(pk=pk)
    )


def game_hands(*, pk: int) -> tuple[Game, QuerySet[Hand]]:
    """A game without its hands (and its club, for who may see it), and its hands in order, to page through."""
    game = Game.objects.select_related("season__club").get(pk=pk)
    return game, Hand.objects.filter(game=game).order_by(*HAND_ORDER)


def games_for_export() -> QuerySet[Game]:
    return (
        Game.objects.select_related("player_one", "player_two", "player_three", "player_four", "first_dealer")
        .prefetch_related(Prefetch("hands", queryset=Hand.objects.select_related("by").order_by(*HAND_ORDER)))
        .order_by("created_at", "pk")
    )


def game_record(game: Game) -> dict:
    """A stored game as a JSON game record (facts, then the computed ``expect``).

    ``game`` should come from ``games_for_export`` or ``game_detail`` so the
    hands and players are already loaded.
    """
    rules = resolve_rules(game.rules)
    if game.is_partnership:
        return _partnership_record(game, rules)
    record = {
        "name": game.name or f"{game.player_one.name} v {game.player_two.name}",
        "source": game.source or f"GinLeague game {game.pk}",
        "rules": rules.as_dict(),
        "players": [game.player_one.name, game.player_two.name],
        "first_dealer": game.first_dealer.name,
        "hands": [
            hand_to_record(
                HandFacts(
                    ending=hand.ending,
                    by=hand.by.name if hand.by else None,
                    knocker_deadwood=hand.knocker_deadwood,
                    defender_deadwood=hand.defender_deadwood,
                    upcard=hand.upcard or None,
                ),
                hand.cards,
            )
            for hand in game.hands.all()
        ],
    }
    if game.time_called_after is not None:  # docs/game-record.md: written only where time was called
        record["time_called_after"] = game.time_called_after
    record["expect"] = evaluate(record)
    return record


def _board_entry(hand: Hand) -> dict:
    return hand_to_record(
        HandFacts(
            ending=hand.ending,
            by=hand.by.name if hand.by else None,
            knocker_deadwood=hand.knocker_deadwood,
            defender_deadwood=hand.defender_deadwood,
            upcard=hand.upcard or None,
        ),
        hand.cards,
    )


def _partnership_record(game: Game, rules: RuleSet) -> dict:
    """A stored partnership game as a record (docs/game-record.md, "Partnership records"): a deal whose
    second board is not in yet is left out, as a record holds whole deals only."""
    players = [game.player_one, game.player_two, game.player_three, game.player_four]
    deals: dict[int, list[Hand]] = {}
    for hand in game.hands.all():
        deals.setdefault(hand.number, []).append(hand)
    record = {
        "name": game.name or f"{players[0].name} & {players[2].name} v {players[1].name} & {players[3].name}",
        "source": game.source or f"GinLeague game {game.pk}",
        "rules": rules.as_dict(),
        "players": [player.name for player in players],
        "first_dealer": game.first_dealer.name,
        "hands": [
            {"boards": [_board_entry(hand) for hand in sorted(boards, key=lambda hand: hand.board)]}
            for _number, boards in sorted(deals.items())
            if len(boards) == 2
        ],
    }
    record["expect"] = evaluate(record)
    return record


def game_for_sheet(*, pk: int, hands: bool = True) -> Game:
    """One game and its hands' facts, for pages that score them with the engine (2 queries).

    Lighter than game_detail: no GameScore rows and no player joins per hand
    (the page names players from the game's two). ``cards`` is loaded: the sheet
    shows the melds of hands entered card by card. Every scoresheet and hand form asks it: both
    statements are built once per database (scoring/prepared.py); the hands come as ``game.hands.all()``.
    ``hands=False``: the game and its two players alone (a save reads the hands again under its lock).
    """
    found = _SHEET_GAME(pk=pk)
    if not found:
        raise Game.DoesNotExist(f"No game with id {pk!r}.")
    game = found[0]
    return with_hands(game) if hands else game


def with_hands(game: Game) -> Game:
    """``game`` holding its hands (``game.hands.all()``, in order), read in one statement built once unless it
    holds them already."""
    if "hands" in getattr(game, "_prefetched_objects_cache", {}):
        return game
    hands = game.hands.all()
    hands._result_cache = _SHEET_HANDS(game_id=game.pk)
    hands._prefetch_done = True
    for hand in hands._result_cache:  # each hand's game is this one, as a prefetch sets it
        Hand.game.field.set_cached_value(hand, game)
    game.__dict__.setdefault("_prefetched_objects_cache", {})["hands"] = hands
    return game


_SHEET_GAME = Prepared(Game, lambda pk: Game.objects.select_related("player_one", "player_two").filter(pk=pk), pk=int)
_SHEET_HANDS = Prepared(
    Hand,
    lambda game_id: Hand.objects.filter(game_id=game_id).defer("created_at", "updated_at").order_by(*HAND_ORDER),
    game_id=int,
)


def plays_q(player, prefix: str = "") -> Q:
    """Games ``player`` (a Player or its id) plays in: in either seat of two, or any of a partnership's four."""
    return (
        Q(**{f"{prefix}player_one": player})
        | Q(**{f"{prefix}player_two": player})
        | Q(**{f"{prefix}player_three": player})
        | Q(**{f"{prefix}player_four": player})
    )


# --- a partnership game's sheet -----------------------------------------------------------------


@dataclass(frozen=True)
class SheetSide:
    """One side of a partnership game: named in stored figures by its first-seated player (player_one or
    player_two), with its partner (player_three or player_four)."""

    first: Player
    partner: Player
    points: int  # deal points so far (toward the target)
    boxes: int  # deals won
    needs: int  # points still needed to reach the target (0 once reached)

    @property
    def players(self) -> tuple[Player, Player]:
        return (self.first, self.partner)

    @property
    def name(self) -> str:
        return f"{self.first.name} & {self.partner.name}"


@dataclass(frozen=True)
class SheetBoard:
    """One board of a deal: who plays whom on it, who deals it, and its stored hand (None while it waits)."""

    board: int
    players: tuple[Player, Player]  # (side one's player, side two's player) on this board
    dealer: Player
    hand: Hand | None  # facts and the board's own figures (result, winner, points, doubled)


@dataclass(frozen=True)
class SheetDeal:
    number: int
    dealer: SheetSide  # the side that deals both boards
    boards: tuple[SheetBoard, SheetBoard]
    settled: bool  # both boards are in
    winner: SheetSide | None  # None: tied (when settled) or still waiting for a board
    points: int  # what the winning side scored: the difference of the two boards (0 when tied)

    @property
    def waiting(self) -> tuple[int, ...]:
        """The boards of this deal still to record."""
        return tuple(board.board for board in self.boards if board.hand is None)


@dataclass(frozen=True)
class PartnershipSheet:
    """What a partnership game's sheet shows (``partnership_sheet``)."""

    game: Game
    result: PartnershipResult  # the engine's scoring of the stored boards
    sides: tuple[SheetSide, SheetSide]  # side one (player_one & player_three), side two
    deals: tuple[SheetDeal, ...]  # every deal with a board in; then, while the game is open, the open deal
    open_deal: SheetDeal | None  # the deal boards are recorded for now (None once the game is over)
    next_dealer: SheetSide | None  # the side that deals the next deal (None once over)
    over: bool
    winner: SheetSide | None
    margin: int | None
    final: dict[int, int] | None  # each side's final score once over, keyed by its first-seated player's id


def board_players(hand: Hand, game: Game | None = None) -> tuple | None:
    """The two players who sat at a partnership board (who went out is one of them); None for a hand of two.

    ``game`` is the hand's game when the caller holds it already; otherwise the hand's is read (select_related
    its four players when reading many hands).
    """
    if hand.board is None:
        return None
    game = game or hand.game
    quartet = (game.player_one, game.player_two, game.player_three, game.player_four)
    return board_pairs(game.rule_set, quartet, hand.number)[hand.board - 1]


def partnership_game(*, pk: int) -> Game:
    """A partnership game with its four players and its boards in order (2 queries), for ``partnership_sheet``."""
    return (
        Game.objects.select_related(*GAME_PLAYERS)
        .prefetch_related(Prefetch("hands", queryset=Hand.objects.select_related("by", "winner").order_by(*HAND_ORDER)))
        .get(pk=pk)
    )


def partnership_sheet(game: Game) -> PartnershipSheet:
    """The sheet of a partnership game (``game`` from ``partnership_game`` or ``game_detail``): each deal's two
    boards (who plays whom, who deals, the stored hand), its result once both boards are in, each side's
    points, boxes and what it still needs, the next dealing side and the open deal. Scored by the engine
    from the stored facts (no query beyond the game's own)."""
    rules = game.rule_set
    players = {player.pk: player for player in (game.player_one, game.player_two, game.player_three, game.player_four)}
    hands = list(game.hands.all())
    deals_facts: list[list[HandFacts | None]] = []
    stored: dict[tuple[int, int], Hand] = {}
    for hand in hands:
        while len(deals_facts) < hand.number:
            deals_facts.append([None, None])
        deals_facts[hand.number - 1][hand.board - 1] = hand_facts(hand)
        stored[(hand.number, hand.board)] = hand
    result = score_partnership(rules, game.player_ids, game.first_dealer_id, deals_facts)
    game_result = result.game
    sides = tuple(
        SheetSide(
            first=players[side[0]],
            partner=players[side[1]],
            points=game_result.hand_points[side],
            boxes=game_result.boxes[side],
            needs=max(0, rules.target - game_result.hand_points[side]),
        )
        for side in result.sides
    )
    by_first = {side.first.pk: side for side in sides}

    def sheet_deal(number: int, dealer: tuple[int, int], deal=None) -> SheetDeal:
        boards = []
        for board, pair in enumerate(board_pairs(rules, game.player_ids, number), start=1):
            dealt_by = pair[0] if pair[0] in dealer else pair[1]
            boards.append(
                SheetBoard(board, (players[pair[0]], players[pair[1]]), players[dealt_by], stored.get((number, board)))
            )
        return SheetDeal(
            number=number,
            dealer=by_first[dealer[0]],
            boards=(boards[0], boards[1]),
            settled=deal is not None and deal.settled,
            winner=by_first[deal.winner[0]] if deal is not None and deal.winner else None,
            points=deal.points if deal is not None else 0,
        )

    deals = [sheet_deal(deal.number, deal.dealer, deal) for deal in result.deals]
    open_deal = None
    if not result.over:
        if deals and not deals[-1].settled:
            open_deal = deals[-1]
        else:
            open_deal = sheet_deal(len(deals) + 1, result.next_dealer)
            deals.append(open_deal)
    return PartnershipSheet(
        game=game,
        result=result,
        sides=(sides[0], sides[1]),
        deals=tuple(deals),
        open_deal=open_deal,
        next_dealer=by_first[result.next_dealer[0]] if result.next_dealer else None,
        over=result.over,
        winner=by_first[result.winner[0]] if result.winner else None,
        margin=result.margin,
        final={side[0]: points for side, points in game_result.final.items()} if game_result.final else None,
    )


def hands_in_order(game: Game) -> list[Hand]:
    """A game's hands in order (a partnership game's boards by deal, then board), every field, each holding
    ``game`` as its game: what a hand written next is scored after. Every hand POST reads them under the game's
    lock; the statement is built once per database (scoring/prepared.py), not compiled on each write."""
    hands = _GAME_HANDS(game_id=game.pk)
    for hand in hands:  # as the related manager's read sets it
        Hand.game.field.set_cached_value(hand, game)
    return hands


_GAME_HANDS = Prepared(Hand, lambda game_id: Hand.objects.filter(game_id=game_id).order_by(*HAND_ORDER), game_id=int)


def game_for_update(*, pk: int) -> Game:
    """The game ``pk`` and its two players, its row locked until the transaction ends (Game.DoesNotExist
    if there is none). The lock serialises writers on one game on PostgreSQL; SQLite has no row locks
    (a writer holds the whole file) and reads it plainly.

    Every hand written, and every second phone's copy refused, starts here. The ORM rebuilt this join's
    SQL on each call, about a tenth of a hand POST's server time; the statement is built once per
    database from the models' own fields, and the row becomes models with their database converters,
    as Django's ``RawQuerySet`` does.
    """
    return _locked_read(pk, hands=False)[0]


def game_and_hands_for_update(*, pk: int, next_number: int | None = None) -> tuple[Game, list[Hand] | None]:
    """``game_for_update(pk=pk)`` and the game's hands in order (as ``hands_in_order``); with ``next_number``,
    the hands only if it is the number of the game's next hand (the locked row's count), else None (a second
    phone's copy of a hand, refused on that count: its hands are not made into models).

    On PostgreSQL both statements go in one round trip, the hands' after the lock's: a statement's
    snapshot is taken when it starts, so the hands are read as the lock holder sees them (one statement
    joining them to the locked row would read them as they were before a writer it waited for committed).
    """
    return _locked_read(pk, hands=True, next_number=next_number)


def _locked_read(pk: int, *, hands: bool, next_number: int | None = None) -> tuple[Game, list[Hand] | None]:
    alias = router.db_for_write(Game)
    connection = connections[alias]
    if not connection.in_atomic_block:  # as the ORM's select_for_update refuses
        raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    if not isinstance(pk, int) or not low <= pk <= high:  # past any id column: no such game
        raise Game.DoesNotExist(f"No game with id {pk!r}.")
    sql, columns = _game_for_update_statement(alias)
    together = hands and writes.sends_statements_together(connection)
    if together:
        read, read_params = _GAME_HANDS.statement_with(alias, game_id=pk)  # pk is in range: never None
        game_rows, hand_rows = writes.sent_together(connection, [(sql, [pk]), (read.sql, read_params)])
        row = game_rows[0] if game_rows else None
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, [pk])
            row = cursor.fetchone()
    if row is None:
        raise Game.DoesNotExist(f"No game with id {pk}.")
    converters = _LOCKED_READ_CONVERTERS.get(connection)
    if converters is None:  # asked of every column once per connection (a third of this read, each time)
        compiler = connection.ops.compiler("SQLCompiler")(Query(Game), connection, alias)
        expressions = [field.get_col(field.model._meta.db_table) for _, field in columns]
        converters = _LOCKED_READ_CONVERTERS[connection] = list(compiler.get_converters(expressions).items())
    if converters:
        row = list(row)
        for position, (functions, expression) in converters:  # as SQLCompiler.apply_converters does
            for function in functions:
                row[position] = function(row[position], expression, connection)
    game_fields, player_fields = Game._meta.concrete_fields, Player._meta.concrete_fields
    game_end, one_end = len(game_fields), len(game_fields) + len(player_fields)
    game = Game.from_db(alias, [field.attname for field in game_fields], row[:game_end])
    player_names = [field.attname for field in player_fields]
    game.player_one = Player.from_db(alias, player_names, row[game_end:one_end])
    game.player_two = Player.from_db(alias, player_names, row[one_end:])
    if not hands or (next_number is not None and next_number != game.hand_count + 1):
        return game, None
    if together:
        read_hands = _GAME_HANDS.made(connection, alias, read, read_params, hand_rows)
        for hand in read_hands:  # as hands_in_order does
            Hand.game.field.set_cached_value(hand, game)
        return game, read_hands
    return game, hands_in_order(game)


# Per connection: the backend's converters are its own bound methods, and a server thread has its own connection.
_LOCKED_READ_CONVERTERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@cache
def _game_for_update_statement(alias: str) -> tuple[str, list[tuple[str, Field]]]:
    """The locked read's SQL for one database, and its columns as (table alias, field), in order."""
    connection = connections[alias]
    quote = connection.ops.quote_name
    columns = [
        *(("locked_game", field) for field in Game._meta.concrete_fields),
        *(("player_one", field) for field in Player._meta.concrete_fields),
        *(("player_two", field) for field in Player._meta.concrete_fields),
    ]
    players, player_id = quote(Player._meta.db_table), quote(Player._meta.pk.column)
    # Names from the models, quoted; the id is a parameter.
    selected = ", ".join(f"{table}.{quote(field.column)}" for table, field in columns)
    sql = (
        f"SELECT {selected}"  # noqa: S608
        f" FROM {quote(Game._meta.db_table)} locked_game"
        f" INNER JOIN {players} player_one"
        f" ON player_one.{player_id} = locked_game.{quote(Game._meta.get_field('player_one').column)}"
        f" INNER JOIN {players} player_two"
        f" ON player_two.{player_id} = locked_game.{quote(Game._meta.get_field('player_two').column)}"
        f" WHERE locked_game.{quote(Game._meta.pk.column)} = %s"
    )
    if connection.features.has_select_for_update:
        # Only the game's row: a merge locks the players, then their games.
        of = ("locked_game",) if connection.features.has_select_for_update_of else ()
        sql += " " + connection.ops.for_update_sql(of=of)
    return sql, columns


def hand_facts(hand: Hand) -> HandFacts:
    """A stored hand's facts, as the engine takes them (players keyed by id)."""
    return facts_at_once(hand.ending, hand.by_id, hand.knocker_deadwood, hand.defender_deadwood, hand.upcard or None)


def keep_scored(game: Game, result) -> None:
    """Remember on ``game`` the engine's scoring of the hands it holds now (a write has just scored them):
    ``game_session`` answers with it, as long as those loaded hands are the ones it holds."""
    game.__dict__["_scored"] = (game.hands.all()._result_cache, result)


def game_session(game: Game, rules: RuleSet | None = None) -> tuple[list[Hand], SessionResult]:
    """The game's hands (prefetched by ``game_for_sheet``) and the engine's scoring of them (once: the
    answer to a write reuses the write's own scoring, ``keep_scored``)."""
    loaded = with_hands(game).hands.all()
    hands = list(loaded)
    scored, result = game.__dict__.get("_scored", (None, None))
    same_hands = scored is not None and scored is loaded._result_cache
    if same_hands and isinstance(result, SessionResult) and (rules is None or rules == game.rule_set):
        return hands, result
    result = score_session(
        rules or game.rule_set,
        (game.player_one_id, game.player_two_id),
        game.first_dealer_id,
        [hand_facts(hand) for hand in hands],
        game.time_called_after,
    )
    return hands, result


def pair_totals(games: QuerySet[Game], *extra_values: str) -> QuerySet:
    """Games grouped by (player_one, player_two): played, each side's wins and
    player_one's net margin, summed by the database (one query)."""
    return (
        games.order_by()
        .values("player_one_id", "player_two_id", *extra_values)
        .annotate(
            played=Count("pk"),
            wins_one=Count("pk", filter=Q(winner_id=F("player_one_id"))),
            wins_two=Count("pk", filter=Q(winner_id=F("player_two_id"))),
            net_one=Sum(
                Case(
                    When(winner_id=F("player_one_id"), then=F("margin")),
                    When(winner_id=F("player_two_id"), then=-F("margin")),
                    default=Value(0),
                    output_field=IntegerField(),
                )
            ),
        )
    )


# --- what needs a user: the to-do list and its count ------------------------------------------------


def overdue_q(today) -> Q:
    """Fixtures past their due date whose game is not finished (of seasons still open)."""
    return Q(due_on__lt=today, season__closed_at__isnull=True) & (Q(game__isnull=True) | Q(game__over=False))


def is_overdue(fixture, today, *, season_closed: bool = False) -> bool:
    """``overdue_q`` for one fixture already loaded with its game (no query)."""
    if season_closed or fixture.due_on is None or fixture.due_on >= today:
        return False
    return not (hasattr(fixture, "game") and fixture.game.over)


DUE_SOON_DAYS = 7  # a fixture shows in the to-do from a week before its due date


@dataclass
class Todo:
    """What needs ``user`` now (see ``todo_for``)."""

    to_confirm: list  # Game: finished provisional league results waiting for the user (permissions.asked_to_confirm_q)
    disputed: list  # Game: disputed results of theirs, and of the clubs they run
    due: list  # Fixture: their fixtures not played, due within a week or overdue (``overdue`` set)
    invitations: list  # Invitation: opened by them (this session) and not yet accepted

    @property
    def count(self) -> int:
        return len(self.to_confirm) + len(self.disputed) + len(self.due) + len(self.invitations)


def todo_season_ids(user) -> list[int]:
    """The open seasons whose changes can move ``user``'s to-do list (their clubs' seasons): what a
    live "Needs you" count follows. Empty for anonymous."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    clubs = Membership.objects.filter(player__user=user).values("club_id")
    return list(Season.objects.filter(club_id__in=clubs, closed_at__isnull=True).values_list("pk", flat=True))


def games_in_play(club, *, limit: int = 30) -> list[Game]:
    """The club's league games not over yet (open seasons), the latest changed first: its page's "Playing now"."""
    return list(
        Game.objects.filter(season__club=club, season__closed_at__isnull=True, over=False)
        .select_related("player_one", "player_two", "season")
        .order_by("-updated_at", "-pk")[:limit]
    )


def open_season_ids(club) -> list[int]:
    """The club's seasons still open: what its page's games in play follow."""
    return list(Season.objects.filter(club=club, closed_at__isnull=True).values_list("pk", flat=True))


def _todo_games(user_id: int):
    """Finished league results of open seasons waiting for the user, and disputed ones of theirs or of
    the clubs they run (built once per database: ``_TODO_GAMES``)."""
    user = get_user_model()(pk=user_id)
    mine = Q(player_one__user=user) | Q(player_two__user=user)  # league games have two players
    managed = Membership.objects.filter(player__user=user, role__in=MANAGER_ROLES).values("club_id")
    return (
        Game.objects.filter(season__isnull=False, season__closed_at__isnull=True, over=True)
        .filter(
            asked_to_confirm_q(user)
            | (Q(league_status=LeagueStatus.DISPUTED) & (mine | Q(season__club_id__in=managed)))
        )
        .select_related("player_one", "player_two", "winner", "season", "season__club")
        .order_by("finished_at", "pk")
    )


def _todo_fixtures(user_id: int, due_by: datetime.date):
    """The user's fixtures of open seasons not played yet and due by ``due_by`` (``_TODO_FIXTURES``)."""
    return (
        Fixture.objects.filter(Q(home__user_id=user_id) | Q(away__user_id=user_id))
        .filter(season__closed_at__isnull=True, due_on__lte=due_by)
        .filter(Q(game__isnull=True) | Q(game__over=False))
        .select_related("home", "away", "season", "season__club", "game")
        .order_by("due_on", "round", "pk")
    )


# Every signed-in page's "Needs you" asks these two: their SQL is built once (scoring/prepared.py).
_TODO_GAMES = Prepared(Game, _todo_games, user_id=int)
_TODO_FIXTURES = Prepared(Fixture, _todo_fixtures, user_id=int, due_by=datetime.date)


def todo_for(user, *, invitation_tokens=(), today=None) -> Todo:
    """The to-do list of ``user`` in at most three queries, whatever the number of clubs and seasons:
    league games (to confirm, disputed), fixtures due, invitations (only when there are tokens)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return Todo([], [], [], [])
    today = today or timezone.localdate()
    games = _TODO_GAMES(user_id=user.pk)
    due = _TODO_FIXTURES(user_id=user.pk, due_by=today + datetime.timedelta(days=DUE_SOON_DAYS))
    for fixture in due:
        fixture.overdue = is_overdue(fixture, today)
    invitations = []
    if invitation_tokens:
        invitations = list(
            Invitation.objects.filter(token__in=list(invitation_tokens), accepted_at__isnull=True)
            .exclude(club__memberships__player__user=user, player__isnull=True)
            .select_related("club")
        )
    return Todo(
        to_confirm=[game for game in games if game.league_status == LeagueStatus.PLAYING],
        disputed=[game for game in games if game.league_status == LeagueStatus.DISPUTED],
        due=due,
        invitations=invitations,
    )
