"""Every write to games and hands goes through these functions.

Each one changes facts and then recomputes all derived figures from all the
facts with the engine, inside one transaction: a refused change leaves the
database exactly as it was.
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.apps import apps as django_apps
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext, pgettext_lazy

from players.models import Player
from players.services import player_get_or_create
from scoring import notify, writes
from scoring.audit import audit_hand_edit, audit_record, game_names, hand_fact_words, hand_summary, outcome_words
from scoring.changes import count_results_change, notify_change
from scoring.engine.card_facts import CardFactError, check_facts
from scoring.engine.overrides import read_rules
from scoring.engine.partnership import PartnershipResult, score_partnership
from scoring.engine.record import GameRecord, PartnershipRecord, RecordError, score_record
from scoring.engine.rules import RuleError, RuleSet, check_two_players
from scoring.engine.score import HandError, HandFacts, HandResult, SessionResult, board_place, score_session
from scoring.models import Deal, FactChange, Game, GameScore, Hand, LeagueStatus, StandingLine
from scoring.permissions import (
    CLOSED_SEASON,
    may_record_for,
    plays_in,
    record_owner_message,
    refuse_closed_season,
)
from scoring.selectors import HAND_ORDER, game_and_hands_for_update, game_for_update, hand_facts, keep_scored

FACT_FIELDS = ("ending", "by", "knocker_deadwood", "defender_deadwood", "upcard")
CONFIRMED_NEEDS_REASON = gettext_lazy("This result was confirmed: say why you correct it (kept in the game's history).")


class HandRefused(ValidationError):
    """A hand (or game) the rules refuse; ``hand`` and ``field`` say where.

    ``message_text`` stands alone (the API's ``message``); ``detail_text`` is what a form says after the
    field's label: the engine's words for that when it has them (``HandError.detail``), else the message."""

    def __init__(
        self,
        *,
        field: str,
        message: str,
        hand: int | None = None,
        detail: str | None = None,
        board: int | None = None,
    ):
        message = str(message)  # a lazy translation in the active language, now (it is sent, and stored for replays)
        super().__init__({field: [message]})
        self.hand = hand
        self.board = board  # a partnership board (1 or 2); None for a two-handed hand or a deal as a whole
        self.field = field
        self.message_text = message
        self.detail_text = str(detail) if detail is not None else message


class HandConflict(HandRefused):
    """Someone else recorded this hand number a moment ago."""


@dataclass(frozen=True)
class Change:
    """How one hand's or game's derived figures moved after a correction."""

    what: str
    before: str
    after: str


def _rules_of(game: Game) -> RuleSet:
    return game.rule_set  # resolved once per loaded game (Game.rule_set)


_facts_of = hand_facts  # one mapping from stored hand to engine facts (scoring.selectors)


def _score(game: Game, facts: list[HandFacts]) -> SessionResult:
    try:
        return score_session(
            _rules_of(game),
            (game.player_one_id, game.player_two_id),
            game.first_dealer_id,
            facts,
            game.time_called_after,
        )
    except HandError as error:
        raise HandRefused(field=error.field, message=error.message, hand=error.hand, detail=error.detail) from None


def _score_boards(game: Game, rows: Sequence[tuple[int, int | None, HandFacts]]) -> PartnershipResult:
    """Score a partnership game's boards, each (deal number, board, facts), with the engine (HandRefused
    names the deal as ``hand``, the board and the field)."""
    deals: list[list[HandFacts | None]] = []
    for number, board, facts in rows:
        while len(deals) < number:
            deals.append([None, None])
        deals[number - 1][(board or 1) - 1] = facts
    try:
        return score_partnership(_rules_of(game), game.player_ids, game.first_dealer_id, deals)
    except HandError as error:
        raise HandRefused(
            field=error.field, message=error.message, hand=error.hand, detail=error.detail, board=error.board
        ) from None


def _scored(
    game: Game, rows: Sequence[tuple[int, int | None, HandFacts]]
) -> tuple[SessionResult | PartnershipResult, list[HandResult]]:
    """Score ``rows`` (number, board, facts: a game's hands in order, boards by deal then board) and
    return the result and each row's own figures, in the rows' order: the one scoring of any game."""
    if not game.is_partnership:
        result = _score(game, [facts for _number, _board, facts in rows])
        return result, list(result.hands)
    partnership = _score_boards(game, rows)
    return partnership, [partnership.deals[number - 1].boards[board - 1] for number, board, _facts in rows]


def _rows(hands: Sequence[Hand]) -> list[tuple[int, int | None, HandFacts]]:
    return [(hand.number, hand.board, _facts_of(hand)) for hand in hands]


def _side_keys(game: Game, result: SessionResult | PartnershipResult) -> dict[int, Any]:
    """How the engine keys the figures of the game's two sides: by player (two-handed), or by side, the
    tuple of its two players (partnership), whose first-seated player (player_one, player_two) names it."""
    if isinstance(result, PartnershipResult):
        return {side[0]: side for side in result.sides}
    return {game.player_one_id: game.player_one_id, game.player_two_id: game.player_two_id}


def _first_seated(value: Any) -> int | None:
    """A side (a tuple of two player ids) as its first-seated player; a player id as itself."""
    return value[0] if isinstance(value, tuple) else value


def _lock(game: Game | int, check: Callable[[Game], None] | None = None) -> Game:
    """Serialise writers on one game (row lock on PostgreSQL; SQLite locks the file).

    Every change of a game's hands comes through here, so this is where a closed season refuses them
    (after ``check``, the caller's may-see and may-write, asked of the locked row: the API's asks the
    closed season first, then the person). ``game`` may be
    an id alone: the game is read once, here, with its players, either way.
    """
    return _checked(game, game_for_update(pk=game if isinstance(game, int) else game.pk), check)


def _checked(game: Game | int, locked: Game, check: Callable[[Game], None] | None) -> Game:
    """``_lock``'s work once the locked row is read: the partners, ``check``, the closed season, the rules."""
    if locked.is_partnership:  # the partners, in one read (the locked read brings the first two)
        partners = Player.objects.in_bulk([locked.player_three_id, locked.player_four_id])
        locked.player_three, locked.player_four = partners[locked.player_three_id], partners[locked.player_four_id]
    if check is not None:
        check(locked)
    try:
        refuse_closed_season(season_id=locked.season_id)
    except ValidationError:  # hand writes refuse as HandRefused (field and hand, as the pages expect)
        raise HandRefused(field="season", message=CLOSED_SEASON) from None
    if isinstance(game, Game) and locked.rules == game.rules:  # rules are fixed once play starts
        locked.rule_set = game.rule_set  # keep the set already resolved
    return locked


def _result_changed(game: Game, actor, *, was_over: bool) -> None:
    """After a change of ``game``'s hands (in its transaction, after ``game_recompute``): a change by one of
    its players once the league game was over makes its result theirs, waiting for the other player (or an
    organiser who did not play), and withdraws any confirmation or dispute (#30, #29).

    A hand that ends again a game whose result a player reopened counts as a change too.
    """
    if game.season_id is None or not plays_in(actor, game):
        return
    if not (was_over or (game.over and game.result_changed_by_id is not None)):
        return  # still in play: the players are at the table together
    fields, previous = ["result_changed_by"], game.result_changed_by_id
    game.result_changed_by = actor
    reopened = game.league_status in (LeagueStatus.CONFIRMED, LeagueStatus.DISPUTED)
    if reopened:
        before = LeagueStatus(game.league_status)
        game.league_status, game.confirmed_by, game.confirmed_at = LeagueStatus.PLAYING, None, None
        fields += ["league_status", "confirmed_by", "confirmed_at"]
    game.save(update_fields=fields)
    if reopened:
        standing_lines_write(game=game)  # a provisional result does not count
        audit_record(
            game=game,
            actor=actor,
            action=FactChange.Action.REOPENED,
            what=gettext_lazy("Result"),
            before=lambda: str(before.label),
            after=gettext_lazy("provisional: changed by a player, waiting for confirmation again"),
        )
    if game.over and was_over and (reopened or previous != actor.pk):  # (a game just over is e-mailed about anyway)
        notify.game_finished(game=game)  # whoever confirms it now is e-mailed, once this commits


def _describe_hand(hand: Hand | HandResult, names: dict[int, str]) -> str:
    winner = hand.winner_id if isinstance(hand, Hand) else hand.winner
    return outcome_words(hand.result, names.get(winner), hand.points)


def _final_words(pair: tuple[int | None, int | None]) -> str:
    """A game's final score as a correction reports it: "150\u201382", or "open" while it is not over."""
    return pgettext("a final score not reached yet", "open") if pair == (None, None) else f"{pair[0]}\u2013{pair[1]}"


# A hand's figures the engine derives, as Hand model attributes (``derived_hand_values`` gives them in this order).
DERIVED_HAND_FIELDS = ("dealer_id", "result", "winner_id", "points", "boxes", "doubled", "scored_in")
_stored_figures = operator.attrgetter(*DERIVED_HAND_FIELDS)  # a stored hand's, as one tuple


def derived_hand_values(derived: HandResult) -> tuple:
    """The engine's figures for one hand, in the order of DERIVED_HAND_FIELDS."""
    return (
        derived.dealer,
        derived.result,
        derived.winner,
        derived.points,
        derived.boxes,
        derived.doubled,
        list(derived.games),
    )


def derived_hand_fields(derived: HandResult) -> dict[str, Any]:
    """The engine's figures for one hand, as Hand model fields."""
    return dict(zip(DERIVED_HAND_FIELDS, derived_hand_values(derived), strict=True))


# A game's own figures, rewritten by game_recompute from the engine's result.
GAME_FIGURES = ("over", "winner", "margin", "next_dealer", "hand_count", "finished_at", "updated_at")


def game_recompute(
    *,
    game: Game,
    hands: list[Hand] | None = None,
    result: SessionResult | PartnershipResult | None = None,
    report: bool = True,
) -> list[Change]:
    """Rewrite every derived figure of ``game`` from its facts; return what moved.

    Must run inside the caller's transaction (all callers hold the game lock).
    ``hands`` lets a caller that already loaded every hand, in order, skip the reload,
    and ``result`` (the engine's scoring of exactly those hands) the second scoring.
    ``report=False`` (a hand appended: nothing before it moves) skips reading the
    stored scores to say what moved: every score row is written in one upsert.
    Afterwards ``game`` holds its hands and scores as if prefetched, and its
    players, so the answer to the write needs no second read.

    A partnership game's boards get their board's figures, its deals (Deal rows) the deals', and its
    GameScore the sides' (player_one_* side one's); ``result`` is then the engine's PartnershipResult.
    """
    if hands is None:
        hands = list(game.hands.order_by(*HAND_ORDER))
    if result is None:
        result, per_hand = _scored(game, _rows(hands))
    elif isinstance(result, PartnershipResult):
        per_hand = [result.deals[hand.number - 1].boards[hand.board - 1] for hand in hands]
    else:
        per_hand = list(result.hands)
    names = game_names(game)
    changes: list[Change] = []
    changed_hands = []
    for hand, derived in zip(hands, per_hand, strict=True):
        values = derived_hand_values(derived)
        if _stored_figures(hand) != values:  # compared as one tuple: most hands have not moved
            if hand.result:  # a hand that existed before (not the one just added)
                before = _describe_hand(hand, names)
                after = _describe_hand(derived, names)
                if before != after:
                    place = board_place(hand.number, hand.board)
                    changes.append(Change(_("Hand %(number)s") % {"number": place}, before, after))
            for name, value in zip(DERIVED_HAND_FIELDS, values, strict=True):
                setattr(hand, name, value)
            changed_hands.append(hand)
    if changed_hands:
        Hand.objects.bulk_update(changed_hands, list(DERIVED_HAND_FIELDS))

    if isinstance(result, PartnershipResult):
        changes += _deals_write(game, result, names, report=report)
    keys = _side_keys(game, result)
    one, two = keys[game.player_one_id], keys[game.player_two_id]
    existing = {score.number: score for score in game.scores.all()} if report else {}
    scores, changed_scores = [], []
    for derived in result.games:
        score = existing.get(derived.number) or GameScore(game=game, number=derived.number)
        scores.append(score)
        before_final = (score.player_one_final, score.player_two_final) if score.pk else None
        before_row = _score_row(score) if score.pk else None
        score.player_one_hand_points = derived.hand_points[one]
        score.player_two_hand_points = derived.hand_points[two]
        score.player_one_boxes = derived.boxes[one]
        score.player_two_boxes = derived.boxes[two]
        score.over = derived.over
        score.winner_id = _first_seated(derived.winner)
        score.player_one_final = derived.final[one] if derived.over else None
        score.player_two_final = derived.final[two] if derived.over else None
        score.margin = derived.margin
        score.closed_by_hand = derived.closed_by_hand
        score.by_time = derived.by_time
        if _score_row(score) != before_row:  # most hands leave the closed games untouched
            changed_scores.append(score)
        after_final = (score.player_one_final, score.player_two_final)
        if before_final is not None and before_final != after_final and before_final != (None, None):
            if len(result.games) > 1:
                label = _("Game %(number)s final") % {"number": derived.number}
            else:
                label = _("Final score")
            changes.append(Change(label, _final_words(before_final), _final_words(after_final)))
    if changed_scores:  # one statement for every row (Hollywood has three)
        writes.upsert(changed_scores, unique_fields=["game", "number"], update_fields=SCORE_FIGURES)

    just_finished = result.over and not game.over
    game.over = result.over
    game.winner_id = _first_seated(result.winner)
    game.margin = result.margin
    game.next_dealer_id = _first_seated(result.next_dealer)
    game.hand_count = len(hands)
    if result.over and game.finished_at is None:
        game.finished_at = timezone.now()
    elif not result.over:
        game.finished_at = None
    # Written with the change's count, in one UPDATE; wall screens hear of it when this transaction commits.
    notify_change(game=game, save=GAME_FIGURES)
    if game.season_id is not None and game.league_status == LeagueStatus.CONFIRMED:  # a counted result moved
        standing_lines_write(game=game, hands=hands)
    if just_finished and game.season_id is not None and game.league_status == "playing":
        notify.game_finished(game=game)  # the other player is e-mailed to confirm, once this commits
    _keep_loaded(game, hands=hands, scores=sorted(scores, key=lambda score: score.number), result=result)
    return changes


DEAL_FIGURES = ["dealer", "winner", "points", "settled"]


def _deals_write(game: Game, result: PartnershipResult, names: dict[int, str], *, report: bool) -> list[Change]:
    """Rewrite a partnership game's Deal rows from the engine's deals (only those that moved); return
    the settled deals whose outcome a correction changed (with ``report``). ``report=False`` (a board
    appended: only the last deal can move) writes that deal without reading the others. Afterwards
    ``game.deals.all()`` answers without a query, as a prefetch would."""
    if report:
        existing = {deal.number: deal for deal in Deal.objects.filter(game_id=game.pk)}
        moved = result.deals
    else:
        existing, moved = {}, result.deals[-1:]
    changes, changed = [], []
    for derived in moved:
        deal = existing.pop(derived.number, None) or Deal(game_id=game.pk, number=derived.number)
        before = (deal.dealer_id, deal.winner_id, deal.points, deal.settled) if deal.pk else None
        after = (derived.dealer[0], _first_seated(derived.winner), derived.points, derived.settled)
        if before == after:
            continue
        if report and before is not None and before[3] and derived.settled:
            was, now = _deal_words(game, before[1], before[2], names), _deal_words(game, after[1], after[2], names)
            if was != now:
                changes.append(Change(_("Deal %(number)s") % {"number": derived.number}, was, now))
        deal.dealer_id, deal.winner_id, deal.points, deal.settled = after
        changed.append(deal)
    if changed:
        writes.upsert(changed, unique_fields=["game", "number"], update_fields=DEAL_FIGURES)
    if existing:  # deals no board is in any more (a deal's last board removed)
        Deal.objects.filter(game_id=game.pk, number__in=list(existing)).delete()
    loaded = game.deals.all()
    loaded._result_cache = [
        Deal(
            game_id=game.pk,
            number=deal.number,
            dealer_id=deal.dealer[0],
            winner_id=_first_seated(deal.winner),
            points=deal.points,
            settled=deal.settled,
        )
        for deal in result.deals
    ]
    loaded._prefetch_done = True
    game.__dict__.setdefault("_prefetched_objects_cache", {})["deals"] = loaded
    return changes


def side_name(game: Game, first_seated: int, names: dict[int, str]) -> str:
    """A side in words: its two players' names joined as a record joins them ("Ann & Cat")."""
    partner = game.player_three_id if first_seated == game.player_one_id else game.player_four_id
    return f"{names[first_seated]} & {names[partner]}"


def _deal_words(game: Game, winner: int | None, points: int, names: dict[int, str]) -> str:
    """A settled deal's outcome in a few words: "Ann & Cat 28", or "tied"."""
    if winner is None:
        return pgettext("a partnership deal's outcome: neither side scores", "tied")
    # Translators: a partnership deal's outcome, e.g. "Ann & Cat 28": the side that won it and its points.
    return _("%(side)s %(points)s") % {"side": side_name(game, winner, names), "points": points}


def _standing_lines(game: Game, hands: Sequence[Hand]) -> list[StandingLine]:
    """The two lines of ``game`` from its derived figures and its hands' (none unless it counts)."""
    if game.season_id is None or game.league_status != LeagueStatus.CONFIRMED or not game.over:
        return []
    lines = []
    for player, opponent in ((game.player_one_id, game.player_two_id), (game.player_two_id, game.player_one_id)):
        won = [hand for hand in hands if hand.winner_id == player]
        lines.append(
            StandingLine(
                game_id=game.pk,
                season_id=game.season_id,
                player_id=player,
                opponent_id=opponent,
                fixture=game.fixture_id is not None,
                won=int(game.winner_id == player),
                lost=int(game.winner_id == opponent),
                drawn=int(game.winner_id is None),
                net=(game.margin or 0) * (1 if game.winner_id == player else -1 if game.winner_id == opponent else 0),
                hands_won=len(won),
                gins=sum(1 for hand in won if hand.result in ("gin", "big_gin")),
                undercuts_given=sum(1 for hand in won if hand.result == "undercut"),
                undercuts_received=sum(1 for hand in hands if hand.result == "undercut" and hand.by_id == player),
            )
        )
    return lines


def standing_lines_write(*, game: Game, hands: Sequence[Hand] | None = None) -> None:
    """Rewrite the standings lines of ``game`` (delete, then insert what its figures say now).

    Called in the transaction of every change of a league game's derived figures or status;
    ``hands`` (every hand with its derived figures) saves reading them again.
    """
    if hands is None:
        hands = list(Hand.objects.filter(game_id=game.pk).only("winner_id", "result", "by_id"))
    removed = StandingLine.objects.filter(game_id=game.pk).delete()[0]
    lines = _standing_lines(game, hands)
    if not removed and not lines:  # it did not count and does not: its season's totals and results stand
        return
    StandingLine.objects.bulk_create(lines)
    if game.season_id is not None:
        standing_totals_write(season_id=game.season_id, player_ids=(game.player_one_id, game.player_two_id))


LINE_FIGURES = ("won", "lost", "drawn", "net", "hands_won", "gins", "undercuts_given", "undercuts_received")


def standing_totals_write(*, season_id: int, player_ids=None, apps=None) -> None:
    """Rewrite the season totals of ``player_ids`` (all the season's players if None) from their lines.

    Every change of the season's counted results comes here in its transaction, and so counts one more
    change of them (``changes.count_results_change``: the version its club's ratings are cached by).
    Not for a migration's historical models (``apps``), which come before that count.
    """
    models = apps or django_apps
    line_model, total_model = models.get_model("scoring", "StandingLine"), models.get_model("scoring", "StandingTotal")
    lines, totals = line_model.objects.filter(season_id=season_id), total_model.objects.filter(season_id=season_id)
    if player_ids is not None:
        lines, totals = lines.filter(player_id__in=player_ids), totals.filter(player_id__in=player_ids)
    totals.delete()
    summed = (
        lines.order_by()
        .values("player_id", "fixture")
        .annotate(played=Count("pk"), **{f"total_{name}": Sum(name) for name in LINE_FIGURES})
    )
    total_model.objects.bulk_create(
        total_model(
            season_id=season_id,
            player_id=row["player_id"],
            fixture=row["fixture"],
            played=row["played"],
            **{name: row[f"total_{name}"] for name in LINE_FIGURES},
        )
        for row in summed
    )
    if apps is None:
        count_results_change(season_id=season_id)


def standing_lines_rebuild(*, apps=None, batch: int = 2000, totals: bool = True) -> int:
    """Every standings line again from scratch, from the stored games and hands; returns how many.

    The hand figures are counted by the database here (not from loaded hands as
    ``standing_lines_write`` does), so comparing the two checks one with the other.
    ``apps``: a migration's historical models (the data migrations run this too; ``totals=False``
    before the season totals' table exists).
    """
    models = apps or django_apps
    game_model, hand_model, line_model = (
        models.get_model("scoring", name) for name in ("Game", "Hand", "StandingLine")
    )
    with transaction.atomic():
        line_model.objects.all().delete()
        counted = game_model.objects.filter(
            season__isnull=False, league_status=LeagueStatus.CONFIRMED, over=True
        ).order_by("pk")
        ids = list(counted.values_list("pk", flat=True))
        written = 0
        for start in range(0, len(ids), batch):
            chunk = ids[start : start + batch]
            hands = hand_model.objects.filter(game_id__in=chunk).order_by()
            won = {
                (row["game_id"], row["winner_id"]): row
                for row in hands.values("game_id", "winner_id").annotate(
                    hands_won=Count("pk"),
                    gins=Count("pk", filter=Q(result__in=("gin", "big_gin"))),
                    undercuts=Count("pk", filter=Q(result="undercut")),
                )
            }
            received = {
                (row["game_id"], row["by_id"]): row["received"]
                for row in hands.filter(result="undercut").values("game_id", "by_id").annotate(received=Count("pk"))
            }
            lines = []
            games = counted.filter(pk__in=chunk).values(
                "pk", "season_id", "player_one_id", "player_two_id", "winner_id", "margin", "fixture_id"
            )
            for game in games:
                one, two, winner = game["player_one_id"], game["player_two_id"], game["winner_id"]
                for player, opponent in ((one, two), (two, one)):
                    figures = won.get((game["pk"], player), {})
                    sign = 1 if winner == player else -1 if winner == opponent else 0
                    lines.append(
                        line_model(
                            game_id=game["pk"],
                            season_id=game["season_id"],
                            player_id=player,
                            opponent_id=opponent,
                            fixture=game["fixture_id"] is not None,
                            won=int(winner == player),
                            lost=int(winner == opponent),
                            drawn=int(winner is None),
                            net=(game["margin"] or 0) * sign,
                            hands_won=figures.get("hands_won", 0),
                            gins=figures.get("gins", 0),
                            undercuts_given=figures.get("undercuts", 0),
                            undercuts_received=received.get((game["pk"], player), 0),
                        )
                    )
            line_model.objects.bulk_create(lines, batch_size=5000)
            written += len(lines)
        if not totals:
            return written
        models.get_model("scoring", "StandingTotal").objects.all().delete()
        for season_id in counted.values_list("season_id", flat=True).distinct().order_by("season_id"):
            standing_totals_write(season_id=season_id, apps=apps)
    return written


SCORE_FIGURES = [
    "player_one_hand_points",
    "player_two_hand_points",
    "player_one_boxes",
    "player_two_boxes",
    "over",
    "winner",
    "player_one_final",
    "player_two_final",
    "margin",
    "closed_by_hand",
    "by_time",
]


def _keep_loaded(
    game: Game, *, hands: list[Hand], scores: list[GameScore], result: SessionResult | PartnershipResult
) -> None:
    """Leave on ``game`` what was just written, as a prefetch would (``game.hands.all()``
    and ``game.scores.all()`` answer without a query), the engine's scoring of those hands
    (``selectors.game_session`` answers with it instead of scoring them again), and its players by id."""
    cache = game.__dict__.setdefault("_prefetched_objects_cache", {})
    for name, rows in (("hands", hands), ("scores", scores)):
        cache.pop(name, None)
        loaded = getattr(game, name).all()  # Django's own prefetch fills a queryset's cache the same way
        loaded._result_cache = list(rows)
        loaded._prefetch_done = True
        cache[name] = loaded
    keep_scored(game, result)
    players = {game.player_one_id: game.player_one, game.player_two_id: game.player_two}
    if game.is_partnership:
        players.update({game.player_three_id: game.player_three, game.player_four_id: game.player_four})
    for name in ("first_dealer", "winner", "next_dealer"):
        setattr(game, name, players.get(getattr(game, f"{name}_id")))


def _score_row(score: GameScore) -> tuple:
    return tuple(getattr(score, field.attname) for field in GameScore._meta.concrete_fields)


def game_create(
    *,
    player_one: Player,
    player_two: Player,
    first_dealer: Player,
    rules: dict[str, Any] | RuleSet | None = None,
    created_by=None,
    name: str = "",
    source: str = "",
    player_three: Player | None = None,
    player_four: Player | None = None,
) -> Game:
    """Start a sitting between two different players under a validated rule set, or a partnership game
    (the ``partnership`` preset) of four: player_one & player_three against player_two & player_four."""
    try:
        resolved = read_rules(rules)
        if player_three is None and player_four is None:  # two players: the rules must be for two
            check_two_players(resolved)
    except RuleError as error:
        raise HandRefused(field=error.field, message=error.message, detail=error.detail) from None
    seats = [("player_one", player_one), ("player_two", player_two)]
    if resolved.partnership:
        for field, player in (("player_three", player_three), ("player_four", player_four)):
            if player is None:
                raise HandRefused(field=field, message=_("A partnership game needs four players: two on each side."))
        seats += [("player_three", player_three), ("player_four", player_four)]
    elif player_three is not None or player_four is not None:
        field = "player_three" if player_three is not None else "player_four"
        raise HandRefused(
            field=field,
            message=_("These rules are for two players: choose the partnership preset for a game of four."),
        )
    for index, (field, player) in enumerate(seats):
        if any(player.pk == other.pk for _field, other in seats[:index]):
            if len(seats) == 2:
                raise HandRefused(field=field, message=_("A game needs two different players."))
            raise HandRefused(field=field, message=_("A partnership game needs four different players."))
    if first_dealer.pk not in [player.pk for _field, player in seats]:
        if len(seats) == 2:
            raise HandRefused(field="first_dealer", message=_("The first dealer must be one of the two players."))
        raise HandRefused(field="first_dealer", message=_("The first dealer must be one of the four players."))
    for field, player in seats:
        if not may_record_for(created_by, player):  # nobody puts games on a stranger's record
            raise HandRefused(field=field, message=record_owner_message(player))
    with transaction.atomic():
        game = Game.objects.create(
            player_one=player_one,
            player_two=player_two,
            player_three=player_three if resolved.partnership else None,
            player_four=player_four if resolved.partnership else None,
            first_dealer=first_dealer,
            preset=resolved.preset,
            rules=resolved.as_dict(),
            created_by=created_by,
            name=name[:200],
            source=source[:200],
            next_dealer=first_dealer,
        )
        game_recompute(game=game)
    return game


def _clean_facts(
    game: Game,
    *,
    ending: str,
    by: Player | int | None,
    knocker_deadwood: int | None,
    defender_deadwood: int | None,
    upcard: str | None,
) -> dict[str, Any]:
    by_id = by.pk if isinstance(by, Player) else by
    if by_id is not None and by_id not in game.player_ids:
        if game.is_partnership:  # the engine says who plays on which board
            raise HandRefused(field="by", message=_("Who went out must be one of the four players."))
        raise HandRefused(field="by", message=_("Who went out must be one of the two players."))
    if ending in ("gin", "big_gin") and knocker_deadwood == 0:
        knocker_deadwood = None  # a gin's own deadwood is 0 by definition
    return {
        "ending": ending,
        "by_id": by_id,
        "knocker_deadwood": knocker_deadwood,
        "defender_deadwood": defender_deadwood,
        "upcard": (upcard or "").strip().upper(),
    }


def _facts_from(values: dict[str, Any]) -> HandFacts:
    return HandFacts(
        ending=values["ending"],
        by=values["by_id"],
        knocker_deadwood=values["knocker_deadwood"],
        defender_deadwood=values["defender_deadwood"],
        upcard=values["upcard"] or None,
    )


def _checked_cards(game: Game, values: dict[str, Any], cards: Any, *, number: int) -> dict | None:
    """The ``cards`` fact checked against the hand's other facts (engine.card_facts), tidied; None if not given."""
    try:
        return check_facts(_rules_of(game), _facts_from(values), cards)
    except CardFactError as error:
        raise HandRefused(field=error.field, message=error.message, hand=number) from None


def hand_preview(
    *,
    game: Game,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    cards: Any = None,
) -> HandResult:
    """What the next hand would score, without storing anything (refused as ``hand_record`` would refuse it)."""
    _refuse_partnership(game)
    values = _clean_facts(
        game,
        ending=ending,
        by=by,
        knocker_deadwood=knocker_deadwood,
        defender_deadwood=defender_deadwood,
        upcard=upcard,
    )
    if "hands" in getattr(game, "_prefetched_objects_cache", {}):  # the page loaded them already
        stored = sorted(game.hands.all(), key=lambda hand: hand.number)
    else:
        stored = list(game.hands.order_by("number"))
    facts = [_facts_of(hand) for hand in stored]
    result = _score(game, [*facts, _facts_from(values)]).hands[-1]
    _checked_cards(game, values, cards, number=len(stored) + 1)
    return result


def _not_next(expected_number: int, number: int) -> str:
    """Why hand ``expected_number`` is refused when the sheet's next hand is ``number``."""
    recorded = number - 1
    # Translators: how many hands the sheet has, put into "The sheet has %(count)s, ..." below.
    some = ngettext("%(count)s hand", "%(count)s hands", recorded) % {"count": recorded}
    count = some if recorded else _("no hands")
    if 1 <= expected_number < number:  # usually the other phone's copy of the same hand
        return _("Hand %(number)s was already recorded; the sheet now has %(count)s.") % {
            "number": expected_number,
            "count": count,
        }
    # A device that missed a deletion made elsewhere still counts the deleted hand (or a made-up number).
    return _("The sheet has %(count)s, so the next is hand %(next)s, not %(number)s: check the sheet as it is now.") % {
        "count": count,
        "next": number,
        "number": expected_number,
    }


def hand_record(
    *,
    game: Game | int,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    cards: Any = None,
    recorded_by=None,
    expected_number: int | None = None,
    savepoint: bool = True,
    check: Callable[[Game], None] | None = None,
) -> Hand:
    """Append the next hand. ``expected_number`` guards against two phones racing.

    The hand's ``game`` is the game as written, holding its hands, scores and
    players (``game_recompute``): an answer built from it reads nothing again.

    ``game`` may be the game's id: it is then read once, under the lock (Game.DoesNotExist if there
    is none). ``check`` (who may write: raise to refuse) is asked of the locked row before anything
    is written or scored, so a game confirmed or closed a moment earlier is judged as it now is (the
    hands come with the locked row, in the same round trip on PostgreSQL, and are not shown to a refusal).

    ``savepoint=False``: the caller's transaction (if any) rolls back whole on a
    refusal (the API's Idempotency-Key claim does), so joining it needs no savepoint.
    """
    try:
        with transaction.atomic(savepoint=savepoint):
            # As _lock, with the hands read in the same round trip (PostgreSQL).
            pk = game if isinstance(game, int) else game.pk
            locked, hands = game_and_hands_for_update(pk=pk, next_number=expected_number)
            locked = _checked(game, locked, check)
            _refuse_partnership(locked)
            was_over = locked.over
            # hand_count is derived under this lock like every figure: a second phone's copy of
            # the hand is refused on it (and was not sent the hands).
            number = locked.hand_count + 1
            if expected_number is not None and expected_number != number:
                raise HandConflict(field="number", hand=expected_number, message=_not_next(expected_number, number))
            number = len(hands) + 1
            values = _clean_facts(
                locked,
                ending=ending,
                by=by,
                knocker_deadwood=knocker_deadwood,
                defender_deadwood=defender_deadwood,
                upcard=upcard,
            )
            # Validate before writing so a refused hand never touches the table.
            result = _score(locked, [*map(_facts_of, hands), _facts_from(values)])
            derived = result.hands[-1]
            cards = _checked_cards(locked, values, cards, number=number)
            with writes.together():  # the hand, the scores and the game's figures: one round trip (PostgreSQL)
                hand = writes.insert(
                    Hand(
                        game=locked,
                        number=number,
                        cards=cards,
                        recorded_by=recorded_by,
                        **derived_hand_fields(derived),
                        **values,
                    )
                )
                game_recompute(game=locked, hands=[*hands, hand], result=result, report=False)
            if locked.league_status == "confirmed":  # a hand added to a confirmed league result
                names = game_names(locked)
                audit_record(
                    game=locked,
                    actor=recorded_by,
                    action="hand_added",
                    hand_number=number,
                    what=lambda: _("Hand %(number)s") % {"number": number},
                    before="\u2014",
                    after=lambda: hand_summary(hand_fact_words(hand, names)),
                )
            _result_changed(locked, recorded_by, was_over=was_over)
    except IntegrityError:
        raise HandConflict(
            field="number", message=_("Another device recorded a hand at the same moment; reload and try again.")
        ) from None
    if isinstance(game, Game):
        _refresh(game, locked)
    return hand


def open_deal(hands: Sequence[Hand]) -> tuple[int, frozenset[int]]:
    """The deal a partnership game's boards are recorded for now, and which of its boards are in: the last
    deal while one of its boards waits, else the next (``hands``: every board, by deal then board)."""
    if not hands:
        return 1, frozenset()
    last = max(hand.number for hand in hands)
    boards = frozenset(hand.board for hand in hands if hand.number == last)
    if len(boards) < 2:
        return last, boards
    return last + 1, frozenset()


def _board_deal(hands: Sequence[Hand], deal: int | None, board: int) -> int:
    """The deal number board ``board`` is recorded under; HandConflict (409, naming ``number``) for a board
    already in (usually the other phone's copy) or a deal that cannot be played yet.

    The two boards of a deal finish at different moments and either may come first; the next deal
    cannot start before both are in, because which side deals it depends on this deal's result.
    """
    current, present = open_deal(hands)
    number = current if deal is None else deal
    if number < current or number == current and board in present:
        raise HandConflict(
            field="number",
            hand=number,
            board=board,
            message=_("Hand %(place)s was already recorded: check the sheet as it is now.")
            % {"place": board_place(number, board)},
        )
    if number > current:
        if present:
            message = _(
                "Hand %(number)s cannot start before both boards of hand %(current)s are in: "
                "which side deals it depends on that hand."
            ) % {"number": number, "current": current}
        else:
            message = _("The next hand is hand %(current)s, not %(number)s: check the sheet as it is now.") % {
                "current": current,
                "number": number,
            }
        raise HandConflict(field="number", hand=number, board=board, message=message)
    return number


def _board_values(game: Game, *, number: int, board: int, **facts: Any) -> dict[str, Any]:
    """A board's facts cleaned as a hand's are, a refusal naming the deal and the board."""
    if board not in (1, 2):
        raise HandRefused(field="board", hand=number, message=_("A deal has two boards: board 1 or board 2."))
    try:
        return _clean_facts(game, **facts)
    except HandRefused as refusal:
        raise HandRefused(
            field=refusal.field, message=refusal.message_text, hand=number, board=board, detail=refusal.detail_text
        ) from None


def _board_cards(game: Game, values: dict[str, Any], cards: Any, *, number: int, board: int) -> dict | None:
    try:
        return _checked_cards(game, values, cards, number=number)
    except HandRefused as refusal:
        raise HandRefused(field=refusal.field, message=refusal.message_text, hand=number, board=board) from None


def _refuse_partnership(game: Game) -> None:
    if game.is_partnership:
        raise HandRefused(
            field="board", message=_("This is a partnership game: say which board (1 or 2) the hand was played on.")
        )


def _refuse_two_handed(game: Game) -> None:
    if not game.is_partnership:
        raise HandRefused(field="board", message=_("This game has two players and no boards: record its hands."))


@dataclass(frozen=True)
class _ScoredBoard:
    number: int  # the deal the board belongs to
    values: dict[str, Any]  # its cleaned facts, as stored
    cards: dict | None
    result: SessionResult | PartnershipResult  # the whole game scored with it
    per_hand: list[HandResult]


def _board_scored(
    game: Game, stored: list[Hand], *, deal: int | None, board: int, cards: Any, **facts: Any
) -> _ScoredBoard:
    """A new board checked and scored against the boards stored: what ``board_preview`` says and
    ``board_record`` writes, refused the same way by both (deal, facts, then cards)."""
    number = _board_deal(stored, deal, board)
    values = _board_values(game, number=number, board=board, **facts)
    result, per_hand = _scored(game, [*_rows(stored), (number, board, _facts_from(values))])
    checked_cards = _board_cards(game, values, cards, number=number, board=board)
    return _ScoredBoard(number=number, values=values, cards=checked_cards, result=result, per_hand=per_hand)


def board_preview(
    *,
    game: Game,
    board: int,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    cards: Any = None,
    deal: int | None = None,
) -> HandResult:
    """What a partnership board would score, without storing anything (refused as ``board_record`` would)."""
    _refuse_two_handed(game)
    if "hands" in getattr(game, "_prefetched_objects_cache", {}):  # the page loaded them already
        stored = sorted(game.hands.all(), key=lambda hand: (hand.number, hand.board or 0))
    else:
        stored = list(game.hands.order_by(*HAND_ORDER))
    scored = _board_scored(
        game,
        stored,
        deal=deal,
        board=board,
        cards=cards,
        ending=ending,
        by=by,
        knocker_deadwood=knocker_deadwood,
        defender_deadwood=defender_deadwood,
        upcard=upcard,
    )
    return scored.per_hand[-1]


def board_record(
    *,
    game: Game | int,
    board: int,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    cards: Any = None,
    recorded_by=None,
    deal: int | None = None,
    savepoint: bool = True,
    check: Callable[[Game], None] | None = None,
) -> Hand:
    """Record one board of a partnership game: a Hand with ``number`` the deal and ``board`` 1 or 2.

    ``deal`` is the deal the phone thinks it records (as ``hand_record``'s ``expected_number``): a board
    already in, or a deal that cannot be played yet, is refused (HandConflict naming ``number``); None
    records the open deal. The deal settles when its second board arrives. ``game``, ``check`` and
    ``savepoint`` as for ``hand_record``; the Hand's ``game`` is the game as written.
    """
    try:
        with transaction.atomic(savepoint=savepoint):
            # As _lock, with the boards read in the same round trip (PostgreSQL).
            locked, hands = game_and_hands_for_update(pk=game if isinstance(game, int) else game.pk)
            locked = _checked(game, locked, check)
            _refuse_two_handed(locked)
            was_over = locked.over
            # Validate before writing so a refused board never touches the table.
            scored = _board_scored(
                locked,
                hands,
                deal=deal,
                board=board,
                cards=cards,
                ending=ending,
                by=by,
                knocker_deadwood=knocker_deadwood,
                defender_deadwood=defender_deadwood,
                upcard=upcard,
            )
            with writes.together():  # the board, the deal, the scores and the game's figures: one round trip
                hand = writes.insert(
                    Hand(
                        game=locked,
                        number=scored.number,
                        board=board,
                        cards=scored.cards,
                        recorded_by=recorded_by,
                        **derived_hand_fields(scored.per_hand[-1]),
                        **scored.values,
                    )
                )
                every = sorted([*hands, hand], key=lambda stored: (stored.number, stored.board))
                game_recompute(game=locked, hands=every, result=scored.result, report=False)
            _result_changed(locked, recorded_by, was_over=was_over)
    except IntegrityError:
        raise HandConflict(
            field="number",
            hand=deal,
            board=board,
            message=_("Another device recorded this board at the same moment; reload and try again."),
        ) from None
    if isinstance(game, Game):
        _refresh(game, locked)
    return hand


def _refresh(game: Game, fresh: Game) -> None:
    """Bring the caller's game object up to date with what was just saved."""
    for name in ("over", "winner_id", "margin", "next_dealer_id", "hand_count", "finished_at", "updated_at"):
        setattr(game, name, getattr(fresh, name))
    for cache in ("_prefetched_objects_cache",):
        game.__dict__.pop(cache, None)


def _hand_values(game: Game, hand: Hand, **facts: Any) -> dict[str, Any]:
    """A stored hand's corrected facts, cleaned (a board's refusal names its deal and board)."""
    if hand.board is None:
        return _clean_facts(game, **facts)
    return _board_values(game, number=hand.number, board=hand.board, **facts)


def _hand_cards(game: Game, hand: Hand, values: dict[str, Any], cards: Any) -> dict | None:
    if hand.board is None:
        return _checked_cards(game, values, cards, number=hand.number)
    return _board_cards(game, values, cards, number=hand.number, board=hand.board)


def hand_edit(
    *,
    hand: Hand,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    cards: Any = None,
    edited_by=None,
    reason: str = "",
) -> list[Change]:
    """Correct the facts of any hand; every later figure is recomputed.

    Refused (and nothing saved) if the corrected sheet breaks the rules
    anywhere, e.g. the game would now end before a later hand. ``reason`` goes
    in the audit trail; correcting a confirmed league result needs one.
    """
    reason = reason.strip()
    with transaction.atomic():
        game = _lock(hand.game)
        if game.league_status == "confirmed" and not reason:
            raise HandRefused(field="reason", hand=hand.number, message=CONFIRMED_NEEDS_REASON)
        was_over = game.over
        stored = Hand.objects.select_for_update().get(pk=hand.pk, game=game)
        values = _hand_values(
            game,
            stored,
            ending=ending,
            by=by,
            knocker_deadwood=knocker_deadwood,
            defender_deadwood=defender_deadwood,
            upcard=upcard,
        )
        as_it_was = copy.copy(stored)  # the trail says both versions (in every language)
        for name, value in values.items():
            setattr(stored, name, value)
        rows = [
            (other.number, other.board, _facts_from(values) if other.pk == stored.pk else _facts_of(other))
            for other in game.hands.order_by(*HAND_ORDER)
        ]
        _scored(game, rows)  # refuse before writing anything
        stored.cards = _hand_cards(game, stored, values, cards)
        stored.save()
        changes = game_recompute(game=game)
        audit_hand_edit(
            game=game,
            number=stored.number,
            board=stored.board,
            before=as_it_was,
            after=stored,
            names=game_names(game),
            actor=edited_by,
            comment=reason,
        )
        _result_changed(game, edited_by, was_over=was_over)
    _refresh(hand.game, game)
    return changes


def hand_edit_preview(
    *,
    hand: Hand,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    cards: Any = None,
) -> tuple[HandResult, list[Change]]:
    """What correcting ``hand`` would score, and every total and later hand it would move; nothing is stored."""
    game = hand.game
    values = _hand_values(
        game,
        hand,
        ending=ending,
        by=by,
        knocker_deadwood=knocker_deadwood,
        defender_deadwood=defender_deadwood,
        upcard=upcard,
    )
    if game.is_partnership:
        return _board_edit_preview(game, hand, values, cards)
    hands = list(game.hands.order_by("number"))
    before = _score(game, [_facts_of(other) for other in hands])
    after = _score(game, [_facts_from(values) if other.pk == hand.pk else _facts_of(other) for other in hands])
    _checked_cards(game, values, cards, number=hand.number)
    names = {game.player_one_id: game.player_one.name, game.player_two_id: game.player_two.name}
    changes = []
    for other, old, new in zip(hands, before.hands, after.hands, strict=True):
        if other.pk == hand.pk:
            continue
        if _describe_hand(old, names) != _describe_hand(new, names):
            what = _("Hand %(number)s") % {"number": other.number}
            changes.append(Change(what, _describe_hand(old, names), _describe_hand(new, names)))
        if old.dealer != new.dealer:  # the loser (or winner) of an earlier hand deals a later one
            what = _("Hand %(number)s dealer") % {"number": other.number}
            changes.append(Change(what, names[old.dealer], names[new.dealer]))
    hollywood = len(after.games) > 1
    for old, new in zip(before.games, after.games, strict=True):
        for pk, name in names.items():
            label = _("%(name)s, game %(number)s") % {"name": name, "number": new.number} if hollywood else name
            if old.hand_points[pk] != new.hand_points[pk]:
                changes.append(Change(label, str(old.hand_points[pk]), str(new.hand_points[pk])))
            if old.boxes[pk] != new.boxes[pk]:
                # Translators: a correction changes a player's boxes ("Ann, boxes" or "Ann, game 2, boxes").
                what = _("%(player)s, boxes") % {"player": label}
                changes.append(Change(what, str(old.boxes[pk]), str(new.boxes[pk])))
    if not (before.over or after.over) and before.next_dealer != after.next_dealer:
        changes.append(Change(_("Deals next"), names[before.next_dealer], names[after.next_dealer]))
    if (before.over, before.winner) != (after.over, after.winner):

        def outcome(result: SessionResult) -> str:
            if not result.over:
                return _("not over")
            return (
                _("%(name)s wins") % {"name": names[result.winner]}
                if result.winner
                else pgettext("a game's outcome: neither player wins", "level")
            )

        changes.append(Change(_("Game"), outcome(before), outcome(after)))
    index = next(i for i, other in enumerate(hands) if other.pk == hand.pk)
    return after.hands[index], changes


def _board_edit_preview(game: Game, hand: Hand, values: dict[str, Any], cards: Any) -> tuple[HandResult, list[Change]]:
    """``hand_edit_preview`` of a partnership board: the board's new figures, and every other board, deal,
    side total, box count, next dealing side and outcome the correction would move."""
    hands = list(game.hands.order_by(*HAND_ORDER))
    before, _old = _scored(game, _rows(hands))
    after, new_boards = _scored(
        game,
        [
            (other.number, other.board, _facts_from(values) if other.pk == hand.pk else _facts_of(other))
            for other in hands
        ],
    )
    _board_cards(game, values, cards, number=hand.number, board=hand.board)
    names = game_names(game)

    def side(value: Any) -> str:
        return side_name(game, value[0], names)

    changes = []
    for old_deal, new_deal in zip(before.deals, after.deals, strict=True):
        for number, (old, new) in enumerate(zip(old_deal.boards, new_deal.boards, strict=True), start=1):
            if old is None or (old_deal.number, number) == (hand.number, hand.board):
                continue
            if _describe_hand(old, names) != _describe_hand(new, names):
                what = _("Hand %(number)s") % {"number": board_place(old_deal.number, number)}
                changes.append(Change(what, _describe_hand(old, names), _describe_hand(new, names)))
        if old_deal.dealer != new_deal.dealer:  # the side that lost (or won) an earlier deal deals a later one
            what = _("Hand %(number)s dealer") % {"number": old_deal.number}
            changes.append(Change(what, side(old_deal.dealer), side(new_deal.dealer)))
        if new_deal.settled and (old_deal.winner, old_deal.points) != (new_deal.winner, new_deal.points):
            was = _deal_words(game, _first_seated(old_deal.winner), old_deal.points, names)
            now = _deal_words(game, _first_seated(new_deal.winner), new_deal.points, names)
            changes.append(Change(_("Deal %(number)s") % {"number": old_deal.number}, was, now))
    for key in after.sides:
        if before.game.hand_points[key] != after.game.hand_points[key]:
            changes.append(Change(side(key), str(before.game.hand_points[key]), str(after.game.hand_points[key])))
        if before.game.boxes[key] != after.game.boxes[key]:
            what = _("%(player)s, boxes") % {"player": side(key)}
            changes.append(Change(what, str(before.game.boxes[key]), str(after.game.boxes[key])))
    if not (before.over or after.over) and before.next_dealer != after.next_dealer:
        changes.append(Change(_("Deals next"), side(before.next_dealer), side(after.next_dealer)))
    if (before.over, before.winner) != (after.over, after.winner):

        def outcome(result: PartnershipResult) -> str:
            if not result.over:
                return _("not over")
            return _("%(name)s wins") % {"name": side(result.winner)}

        changes.append(Change(_("Game"), outcome(before), outcome(after)))
    index = next(i for i, other in enumerate(hands) if other.pk == hand.pk)
    return new_boards[index], changes


def _remove(game: Game, hand: Hand, *, actor=None, reason: str = "") -> list[Change]:
    # Removing a hand corrects the result as much as editing one: the same rule as hand_edit.
    reason = reason.strip()
    if game.league_status == "confirmed" and not reason:
        raise HandRefused(field="reason", hand=hand.number, message=CONFIRMED_NEEDS_REASON)
    was_over = game.over
    names = game_names(game)
    audit_record(
        game=game,
        actor=actor,
        action="hand_removed",
        hand_number=hand.number,
        what=lambda: _("Hand %(number)s") % {"number": board_place(hand.number, hand.board)},
        before=lambda: hand_summary(hand_fact_words(hand, names)),
        after=gettext_lazy("removed"),
        comment=reason,
    )
    if game.is_partnership:
        return _board_remove(game, hand, actor=actor, was_over=was_over)
    later = list(game.hands.filter(number__gt=hand.number).order_by("number"))
    remaining = [_facts_of(other) for other in game.hands.order_by("number") if other.pk != hand.pk]
    called = game.time_called_after
    if called is not None and hand.number <= called:  # one hand fewer was recorded when time was called
        game.time_called_after = called - 1
    _score(game, remaining)  # e.g. removing a hand may not be refused, but check anyway
    if game.time_called_after != called:
        game.save(update_fields=["time_called_after"])
    hand.delete()
    # One row at a time, lowest first, so (game, number) stays unique throughout.
    for other in later:
        other.number -= 1
        other.save(update_fields=["number"])
    changes = game_recompute(game=game)
    _result_changed(game, actor, was_over=was_over)
    return changes


def _board_remove(game: Game, hand: Hand, *, actor, was_over: bool) -> list[Change]:
    """Remove one board of a partnership deal. A deal left with no board goes, and later deals move up
    one; a deal left with one board before a later deal is refused by the engine (naming the deal and
    ``boards``): correct that board instead."""
    hands = list(game.hands.order_by(*HAND_ORDER))
    alone = not any(other.number == hand.number and other.pk != hand.pk for other in hands)
    remaining = [
        (other.number - (1 if alone and other.number > hand.number else 0), other.board, _facts_of(other))
        for other in hands
        if other.pk != hand.pk
    ]
    _scored(game, remaining)  # refuse before writing anything
    hand.delete()
    if alone:  # one row at a time, lowest first, so (game, number, board) stays unique throughout
        for other in hands:
            if other.number > hand.number:
                other.number -= 1
                other.save(update_fields=["number"])
    changes = game_recompute(game=game)
    _result_changed(game, actor, was_over=was_over)
    return changes


def hand_remove(*, hand: Hand, removed_by=None, reason: str = "") -> list[Change]:
    """Remove any hand; later hands move up one and everything is recomputed.

    ``reason`` goes in the audit trail; removing a hand from a confirmed league result needs one.
    """
    with transaction.atomic():
        game = _lock(hand.game)
        stored = Hand.objects.get(pk=hand.pk, game=game)
        changes = _remove(game, stored, actor=removed_by, reason=reason)
    _refresh(hand.game, game)
    return changes


def hand_remove_last(*, game: Game, removed_by=None, reason: str = "") -> Hand | None:
    """Undo: remove the last hand recorded (a reason as for hand_remove). Returns the removed hand (unsaved copy)."""
    with transaction.atomic():
        locked = _lock(game)
        last = locked.hands.order_by("-number", "-pk").first()  # a partnership game: the board recorded last
        if last is None:
            raise HandRefused(field="number", message=_("There is no hand to undo."))
        _remove(locked, last, actor=removed_by, reason=reason)
    _refresh(game, locked)
    return last


def time_call_refusal(game: Game) -> str:
    """Why time cannot be called on ``game`` now ("" when it can): the one rule the page and the API ask."""
    if game.time_called_after is not None:
        return ngettext(
            "Time was already called on this game, after %(count)s hand.",
            "Time was already called on this game, after %(count)s hands.",
            game.time_called_after,
        ) % {"count": game.time_called_after}
    if game.over:
        return _("This game is already over: there is no time to call.")
    if game.rule_set.hollywood:
        return _("A Hollywood sitting is not ended by time: time cannot be called.")
    if game.is_partnership:
        return _("A partnership game is not ended by time: time cannot be called.")
    return ""


def game_call_time(*, game: Game | int, called_by=None, check: Callable[[Game], None] | None = None) -> Game:
    """Call time on an open game: the hand in progress (the one after the hands recorded now) is its
    last unless the players are level after it (docs/rules.md, "A game ended by time").

    Refused, naming ``time_called_after``, on a game already over, one whose time was already called,
    and a Hollywood sitting. ``check`` (who may: raise to refuse) is asked of the locked row first.
    Returns the game as written.
    """
    with transaction.atomic():
        locked = _lock(game, check)
        if refusal := time_call_refusal(locked):
            raise HandRefused(field="time_called_after", message=refusal)
        locked.time_called_after = locked.hand_count
        hands = list(locked.hands.order_by("number"))
        result = _score(locked, [_facts_of(hand) for hand in hands])  # the engine refuses a Hollywood sitting
        locked.save(update_fields=["time_called_after", "updated_at"])
        game_recompute(game=locked, hands=hands, result=result, report=False)
        audit_record(
            game=locked,
            actor=called_by,
            action=FactChange.Action.TIME_CALLED,
            what=pgettext_lazy("a game's history: the time call", "Time"),
            before="\u2014",
            after=lambda count=locked.time_called_after: (
                ngettext(
                    "called after %(count)s hand: the next hand is the last unless level",
                    "called after %(count)s hands: the next hand is the last unless level",
                    count,
                )
                % {"count": count}
            ),
        )
    if isinstance(game, Game):
        game.time_called_after = locked.time_called_after
        _refresh(game, locked)
    return locked


def time_withdraw_refusal(game: Game) -> str:
    """Why a time call cannot be withdrawn now ("" when it can): only while the game it ends is open."""
    if game.time_called_after is None:
        return _("Time was not called on this game.")
    if game.over:
        return _("This game is over: undo its last hand first, then withdraw the time call.")
    return ""


def game_time_withdraw(*, game: Game | int, withdrawn_by=None, check: Callable[[Game], None] | None = None) -> Game:
    """Take back a time call pressed by mistake, while the game is still open; the history keeps both lines."""
    with transaction.atomic():
        locked = _lock(game, check)
        if refusal := time_withdraw_refusal(locked):
            raise HandRefused(field="time_called_after", message=refusal)
        called = locked.time_called_after
        locked.time_called_after = None
        locked.save(update_fields=["time_called_after", "updated_at"])
        game_recompute(game=locked, report=False)
        audit_record(
            game=locked,
            actor=withdrawn_by,
            action=FactChange.Action.TIME_WITHDRAWN,
            what=pgettext_lazy("a game's history: the time call", "Time"),
            before=lambda: (
                ngettext("called after %(count)s hand", "called after %(count)s hands", called) % {"count": called}
            ),
            after=gettext_lazy("not called: the game goes on to the target"),
        )
    if isinstance(game, Game):
        game.time_called_after = None
        _refresh(game, locked)
    return locked


def game_delete(*, game: Game) -> None:
    with transaction.atomic():
        stored = Game.objects.select_for_update().get(pk=game.pk)  # its players as stored (a merge moves them)
        refuse_closed_season(season_id=stored.season_id)  # the game's lock is enough: season_close waits for it
        counted = stored.standing_lines.exists()
        game.delete()
        if counted:  # its lines went with it: the two players' season totals without them
            standing_totals_write(season_id=stored.season_id, player_ids=(stored.player_one_id, stored.player_two_id))


def game_import(*, record: GameRecord, created_by=None) -> Game:
    """Store a parsed game record, all or nothing (RecordError names hand and field)."""
    score_record(record)  # every rule checked, by name, before anything is written
    if isinstance(record, PartnershipRecord):
        return _partnership_import(record, created_by=created_by)
    with transaction.atomic():
        try:
            players = [player_get_or_create(name=name, created_by=created_by) for name in record.players]
        except ValidationError as error:
            raise RecordError(None, "players", " ".join(error.messages)) from None
        by_name = dict(zip(record.players, players, strict=True))
        try:
            game = game_create(
                player_one=players[0],
                player_two=players[1],
                first_dealer=by_name[record.first_dealer],
                rules=record.rules,
                created_by=created_by,
                name=record.name,
                source=record.source,
            )
        except HandRefused as refusal:  # a record answers in the record's terms: its `players`
            raise RecordError(None, "players", refusal.message_text) from None
        if record.time_called_after is not None:  # a fact of the game, like its hands
            game.time_called_after = record.time_called_after
            game.save(update_fields=["time_called_after"])
        hands_store(
            game=game,
            hands=[replace(fact, by=by_name[fact.by].pk if fact.by else None) for fact in record.hands],
            cards=record.cards,
            recorded_by=created_by,
        )
    return game


def _partnership_import(record: PartnershipRecord, *, created_by=None) -> Game:
    """Store a parsed partnership record (already scored): its four players, then every deal's two boards."""
    with transaction.atomic():
        try:
            players = [player_get_or_create(name=name, created_by=created_by) for name in record.players]
        except ValidationError as error:
            raise RecordError(None, "players", " ".join(error.messages), partnership=True) from None
        by_name = dict(zip(record.players, players, strict=True))
        try:
            game = game_create(
                player_one=players[0],
                player_two=players[1],
                player_three=players[2],
                player_four=players[3],
                first_dealer=by_name[record.first_dealer],
                rules=record.rules,
                created_by=created_by,
                name=record.name,
                source=record.source,
            )
        except HandRefused as refusal:  # a record answers in the record's terms: its `players`
            raise RecordError(None, "players", refusal.message_text, partnership=True) from None
        boards_store(
            game=game,
            deals=[
                tuple(replace(facts, by=by_name[facts.by].pk if facts.by else None) for facts in deal)
                for deal in record.deals
            ],
            cards=record.cards,
            recorded_by=created_by,
        )
    return game


def boards_store(
    *,
    game: Game,
    deals: Sequence[Sequence[HandFacts]],
    cards: Sequence[Sequence[Any]] | None = None,
    recorded_by=None,
) -> None:
    """Store a partnership game's whole sheet (imports, seeding) on a game that has none yet: each deal's
    two boards as HandFacts whose ``by`` is a player's primary key, each cleaned as a board sent to the API
    is; the whole sheet is refused (HandRefused naming the deal, the board and the field) if any board
    breaks the rules. Run inside the caller's transaction."""
    _refuse_two_handed(game)
    rows, values = [], []
    for number, deal in enumerate(deals, start=1):
        for board, fact in enumerate(deal, start=1):
            value = _board_values(
                game,
                number=number,
                board=board,
                ending=fact.ending,
                by=fact.by,
                knocker_deadwood=fact.knocker_deadwood,
                defender_deadwood=fact.defender_deadwood,
                upcard=fact.upcard,
            )
            rows.append((number, board, _facts_from(value)))
            values.append(value)
    _result, derived = _scored(game, rows)
    dealt = [board_cards for deal in cards for board_cards in deal] if cards is not None else [None] * len(rows)
    Hand.objects.bulk_create(
        Hand(
            game=game,
            number=number,
            board=board,
            cards=_board_cards(game, value, board_cards, number=number, board=board),
            recorded_by=recorded_by,
            **derived_hand_fields(result),
            **value,
        )
        for (number, board, _facts), value, result, board_cards in zip(rows, values, derived, dealt, strict=True)
    )
    game_recompute(game=game)  # the engine has the last word on every figure


def hands_store(
    *, game: Game, hands: Sequence[HandFacts], cards: Sequence[Any] | None = None, recorded_by=None
) -> None:
    """Store a whole sheet of hands on a game that has none yet (imports, seeding): the one hand-import path.

    ``hands`` are HandFacts whose ``by`` is a player's primary key. Each hand is cleaned as a hand typed
    on the page or sent to the API is, and the whole sheet is refused (HandRefused naming the hand and
    field, nothing stored) if any hand breaks the game's rules. Run inside the caller's transaction.
    """
    values = []
    for number, fact in enumerate(hands, start=1):
        try:
            values.append(
                _clean_facts(
                    game,
                    ending=fact.ending,
                    by=fact.by,
                    knocker_deadwood=fact.knocker_deadwood,
                    defender_deadwood=fact.defender_deadwood,
                    upcard=fact.upcard,
                )
            )
        except HandRefused as refusal:  # name the hand, as the engine does
            raise HandRefused(
                field=refusal.field, message=refusal.message_text, hand=number, detail=refusal.detail_text
            ) from None
    derived = _score(game, [_facts_from(value) for value in values]).hands
    dealt = list(cards) if cards is not None else [None] * len(values)
    Hand.objects.bulk_create(
        Hand(
            game=game,
            number=number,
            cards=_checked_cards(game, value, hand_cards, number=number),
            recorded_by=recorded_by,
            **derived_hand_fields(result),
            **value,
        )
        for number, (value, result, hand_cards) in enumerate(zip(values, derived, dealt, strict=True), start=1)
    )
    game_recompute(game=game)  # the engine has the last word on every figure


def hand_version_set_aside(
    *,
    hand: Hand,
    ending: str,
    by: Player | int | None = None,
    knocker_deadwood: int | None = None,
    defender_deadwood: int | None = None,
    upcard: str | None = None,
    actor=None,
) -> None:
    """Two phones recorded the same hand and the players kept the stored one: the other version
    changes no figure, but is kept in the game's audit trail so that nothing scored is lost."""
    with transaction.atomic():
        game = _lock(hand.game)
        stored = Hand.objects.get(pk=hand.pk, game=game)
        values = _clean_facts(
            game,
            ending=ending,
            by=by,
            knocker_deadwood=knocker_deadwood,
            defender_deadwood=defender_deadwood,
            upcard=upcard,
        )
        other = Hand(**values)
        names = game_names(game)
        audit_record(
            game=game,
            actor=actor,
            action="version_set_aside",
            hand_number=stored.number,
            what=lambda: _("Hand %(number)s") % {"number": stored.number},
            before=lambda: hand_summary(hand_fact_words(stored, names)),
            after=lambda: hand_summary(hand_fact_words(other, names)),
            comment=gettext_lazy(
                "Two phones recorded this hand; the players kept the version stored first (before), "
                "not this one (after)."
            ),
        )
        _result_changed(game, actor, was_over=game.over)
        game.save(update_fields=["updated_at"])  # the sheet's history changed: open sheets redraw
        notify_change(game=game)
