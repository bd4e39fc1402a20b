"""Reads that join: each selector owns its select_related/prefetch_related."""

from django.db.models import Case, Count, F, IntegerField, Prefetch, Q, QuerySet, Sum, Value, When

from scoring.engine.record import evaluate, hand_to_record
from scoring.engine.rules import RuleSet, resolve_rules
from scoring.engine.score import HandFacts, SessionResult, score_session
from scoring.models import Game, GameScore, Hand
from scoring.permissions import visible_game_q

GAME_PLAYERS = ("player_one", "player_two", "first_dealer", "winner", "next_dealer")


def game_list(*, player=None, viewer=None) -> QuerySet[Game]:
    """Games, in progress first, newest first, with their players and scores.

    With ``viewer``, only the games that user may see (private clubs' games only for members).
    """
    games = Game.objects.select_related(*GAME_PLAYERS).prefetch_related(
        Prefetch("scores", queryset=GameScore.objects.select_related("winner").order_by("number"))
    )
    if player is not None:
            games = games.filter(Q(player_one=player) | Q(player_two=player))
    if viewer is not None:
            games = games.filter(visible_game_q(viewer))
    return games.order_by("over", "-created_at")


def game_detail(*, pk: int) -> Game:
    """One game with everything its scoresheet shows, in a fixed number of queries."""
    return (
        Game.objects.select_related(*GAME_PLAYERS)
        .prefetch_related(
            Prefetch("scores", queryset=GameScore.objects.select_related("winner").order_by("number")),
            Prefetch("hands", queryset=Hand.objects.select_related("by", "winner", "dealer").order_by("number")),
        )
        .get(pk=pk)
    )


def games_for_export() -> QuerySet[Game]:
    return Game.objects.select_related("player_one", "player_two", "first_dealer").prefetch_related(
        Prefetch("hands", queryset=Hand.objects.select_related("by").order_by("number"))
    ).order_by("created_at", "pk")


def game_record(game: Game) -> dict:
    """A stored game as a JSON game record (facts, then the computed ``expect``).

    ``game`` should come from ``games_for_export`` or ``game_detail`` so the
    hands and players are already loaded.
    """
    rules = resolve_rules(game.rules)
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
    record["expect"] = evaluate(record)
    return record


def hands_for_player(*, player, viewer, limit: int = 100) -> QuerySet[Hand]:
    """The latest hands of the player's games ``viewer`` may see, newest first."""
    games = Game.objects.filter(Q(player_one=player) | Q(player_two=player)).filter(visible_game_q(viewer))
    return (
        Hand.objects.filter(game__in=games.values("pk"))
        .select_related("game__player_one", "game__player_two", "by", "winner")
        .order_by("-game__created_at", "-number")[:limit]
    )


def game_for_sheet(*, pk: int) -> Game:
    """One game and its hands' facts, for pages that score them with the engine (2 queries).

    Lighter than game_detail: no GameScore rows and no player joins per hand
    (the page names players from the game's two). ``cards`` is loaded: the sheet
    shows the melds of hands entered card by card.
    """
    return (
        Game.objects.select_related("player_one", "player_two")
        .prefetch_related(
            Prefetch("hands", queryset=Hand.objects.defer("created_at", "updated_at").order_by("number"))
        )
        .get(pk=pk)
    )


def hand_facts(hand: Hand) -> HandFacts:
    """A stored hand's facts, as the engine takes them (players keyed by id)."""
    return HandFacts(
        ending=hand.ending,
        by=hand.by_id,
        knocker_deadwood=hand.knocker_deadwood,
        defender_deadwood=hand.defender_deadwood,
        upcard=hand.upcard or None,
    )


def game_session(game: Game, rules: RuleSet | None = None) -> tuple[list[Hand], SessionResult]:
    """The game's hands (prefetched by ``game_for_sheet``) and the engine's scoring of them."""
    hands = list(game.hands.all())
    result = score_session(
        rules or resolve_rules(game.rules),
        (game.player_one_id, game.player_two_id),
        game.first_dealer_id,
        [hand_facts(hand) for hand in hands],
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
