"""League play: seasons, fixtures, starting games, confirmation, disputes, the audit trail.

Like scoring/services.py, every write is a small function with keyword-only
arguments that runs in one transaction. Games are created and scored by the
services (so every derived figure is the engine's); this module only links
them to a season and tracks their league status.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from players.clubs import club_role, player_of
from players.models import MANAGER_ROLES, Club, Membership, Player
from scoring import live, services
from scoring.engine import HandError, HandFacts, score_session
from scoring.models import FactChange, Fixture, Game, Hand, LeagueStatus, Season, SeasonFormat
from scoring.rules import RuleError, resolve_rules
from scoring.standings import DEFAULT_RANKING, RANKING_CRITERIA

# --- round robin (pure) ------------------------------------------------------------------------------


def round_robin(players: Sequence[Any], *, double: bool = False) -> list[list[tuple[Any, Any]]]:
    """Rounds of (home, away) pairs by the circle method.

    Every pair meets once (twice with ``double``, home and away swapped in the
    second half) and nobody plays twice in a round; with an odd number of
    players one sits out each round.
    """
    entrants: list[Any] = list(players)
    if len(set(entrants)) != len(entrants):
        raise ValueError("a player is listed twice")
    if len(entrants) < 2:
        return []
    bye = object()
    if len(entrants) % 2:
        entrants.append(bye)
    count = len(entrants)
    rounds: list[list[tuple[Any, Any]]] = []
    circle = entrants[:]
    for number in range(count - 1):
        pairs = []
        for i in range(count // 2):
            home, away = circle[i], circle[count - 1 - i]
            if i == 0 and number % 2:  # the fixed player alternates home and away
                home, away = away, home
            if home is not bye and away is not bye:
                pairs.append((home, away))
        rounds.append(pairs)
        circle = [circle[0], circle[-1], *circle[1:-1]]  # rotate all but the first
    if double:
        rounds += [[(away, home) for home, away in pairs] for pairs in rounds]
    return rounds


# --- who may do what ---------------------------------------------------------------------------------


def club_of_game(game: Game) -> Club | None:
    if game.season_id is None:
        return None
    return Club.objects.filter(seasons=game.season_id).first()


def can_correct_game(user, game: Game) -> bool:
    """A confirmed (or disputed) league game: only its club's owner and admins."""
    club = club_of_game(game)
    return club is not None and club_role(user, club) in MANAGER_ROLES


def _user_player_id(user) -> int | None:
    player = player_of(user)
    return player.pk if player else None


def can_start_fixture(user, fixture: Fixture, club: Club) -> bool:
    """Either player of the fixture, or a club admin (for guests without a phone)."""
    if club_role(user, club) in MANAGER_ROLES:
        return True
    return _user_player_id(user) in (fixture.home_id, fixture.away_id) and club_role(user, club) is not None


def can_start_open_game(user, season: Season) -> bool:
    return club_role(user, season.club) is not None


def _is_opponent(user, game: Game) -> bool:
    """``user`` plays in ``game`` and is not the one who started it."""
    player_id = _user_player_id(user)
    if player_id is None or player_id not in (game.player_one_id, game.player_two_id):
        return False
    return game.created_by_id != user.pk


def can_confirm(user, game: Game, club: Club) -> bool:
    """The other player confirms an over, provisional game; an admin may confirm any over game."""
    if game.season_id is None or not game.over or game.league_status == LeagueStatus.CONFIRMED:
        return False
    if club_role(user, club) in MANAGER_ROLES:
        return True
    return game.league_status == LeagueStatus.PLAYING and _is_opponent(user, game)


def may_confirm(user, game: Game, club: Club) -> bool:
    """Whether ``user`` is someone who confirms this result at all (its state aside):
    a club admin, or the other player while the result is not disputed."""
    if club_role(user, club) in MANAGER_ROLES:
        return True
    return (
        _is_opponent(user, game)
        and club_role(user, club) is not None
        and game.league_status != LeagueStatus.DISPUTED
    )


def may_dispute(user, game: Game, club: Club) -> bool:
    """Whether ``user`` is someone who disputes this result at all: the other player, a member."""
    return _is_opponent(user, game) and club_role(user, club) is not None


def can_dispute(user, game: Game, club: Club) -> bool:
    return (
        game.season_id is not None
        and game.over
        and game.league_status == LeagueStatus.PLAYING
        and club_role(user, club) is not None
        and _is_opponent(user, game)
    )


# --- seasons -----------------------------------------------------------------------------------------


def _resolved_rules(rules: Any) -> dict:
    try:
        return resolve_rules(rules).as_dict()
    except RuleError as error:
        raise ValidationError({error.field: [error.message]}) from None


def _clean_ranking(ranking: Iterable[str] | None) -> list[str]:
    cleaned: list[str] = []
    for criterion in ranking or DEFAULT_RANKING:
        if not criterion:
            continue
        if criterion not in RANKING_CRITERIA:
            raise ValidationError({"ranking": f"Unknown ranking criterion {criterion!r}."})
        if criterion in cleaned:
            raise ValidationError({"ranking": f"{RANKING_CRITERIA[criterion]} is listed twice."})
        cleaned.append(criterion)
    if not cleaned:
        raise ValidationError({"ranking": "Choose at least one ranking criterion."})
    return cleaned


def season_create(
    *,
    club: Club,
    name: str,
    players: Iterable[Player],
    rules: Any = None,
    format: str = SeasonFormat.SINGLE,
    ranking: Iterable[str] | None = None,
    starts_on: datetime.date | None = None,
    ends_on: datetime.date | None = None,
    created_by=None,
) -> Season:
    """A season for some of the club's members; a round robin gets its fixtures at once."""
    cleaned_name = " ".join((name or "").split())
    if not cleaned_name:
        raise ValidationError({"name": "Enter the season's name."})
    if format not in SeasonFormat.values:
        raise ValidationError({"format": f"Format must be one of {', '.join(SeasonFormat.values)}."})
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError({"ends_on": "The season cannot end before it starts."})
    entrants = list({player.pk: player for player in players}.values())
    if len(entrants) < 2:
        raise ValidationError({"players": "A season needs at least two players."})
    members = set(
        Membership.objects.filter(club=club, player__in=entrants).values_list("player_id", flat=True)
    )
    outsiders = [player.name for player in entrants if player.pk not in members]
    if outsiders:
        raise ValidationError({"players": f"Not members of {club.name}: {', '.join(outsiders)}."})
    resolved = _resolved_rules(rules)
    with transaction.atomic():
        season = Season.objects.create(
            club=club,
            name=cleaned_name[:100],
            preset=resolved["preset"],
            rules=resolved,
            format=format,
            ranking=_clean_ranking(ranking),
            starts_on=starts_on,
            ends_on=ends_on,
            created_by=created_by,
        )
        season.players.set(entrants)
        if format != SeasonFormat.OPEN:
            entrants.sort(key=lambda player: player.name.lower())
            Fixture.objects.bulk_create(
                Fixture(season=season, round=number, home=home, away=away)
                for number, pairs in enumerate(round_robin(entrants, double=format == SeasonFormat.DOUBLE), 1)
                for home, away in pairs
            )
    return season


def season_has_started(season: Season) -> bool:
    return season.games.exists()


def season_set_rules(*, season: Season, rules: Any) -> Season:
    """Change a season's rule set; refused once any game of the season exists."""
    resolved = _resolved_rules(rules)
    with transaction.atomic():
        locked = Season.objects.select_for_update().get(pk=season.pk)
        if locked.games.exists():
            raise ValidationError({"rules": "Play has started: the season's rules are fixed."})
        locked.rules = resolved
        locked.preset = resolved["preset"]
        locked.save(update_fields=["rules", "preset"])
    season.rules, season.preset = resolved, resolved["preset"]
    return season


def season_set_ranking(*, season: Season, ranking: Iterable[str]) -> Season:
    season.ranking = _clean_ranking(ranking)
    season.save(update_fields=["ranking"])
    return season


# --- games -------------------------------------------------------------------------------------------


def fixture_start(*, fixture: Fixture, started_by, first_dealer: Player | None = None) -> Game:
    """Start the fixture's game under the season's rules (once)."""
    with transaction.atomic():
        locked = Fixture.objects.select_for_update().select_related("season", "home", "away").get(pk=fixture.pk)
        if Game.objects.filter(fixture=locked).exists():
            raise ValidationError({"fixture": "This fixture's game has already been started."})
        dealer = first_dealer or locked.away
        if dealer.pk not in (locked.home_id, locked.away_id):
            raise ValidationError({"first_dealer": "The first dealer must be one of the two players."})
        game = services.game_create(
            player_one=locked.home,
            player_two=locked.away,
            first_dealer=dealer,
            rules=locked.season.rules,
            created_by=started_by,
            name=f"{locked.season.name}, round {locked.round}",
        )
        game.season = locked.season
        game.fixture = locked
        game.league_status = LeagueStatus.PLAYING
        game.save(update_fields=["season", "fixture", "league_status"])
    return game


def open_game_start(
    *, season: Season, player_one: Player, player_two: Player, started_by, first_dealer: Player | None = None
) -> Game:
    """Open play: any two of the season's players record a game."""
    if season.format != SeasonFormat.OPEN:
        raise ValidationError({"season": "This season plays fixtures; start the fixture's game instead."})
    entrants = set(season.players.filter(pk__in=[player_one.pk, player_two.pk]).values_list("pk", flat=True))
    for field, player in (("player_one", player_one), ("player_two", player_two)):
        if player.pk not in entrants:
            raise ValidationError({field: f"{player.name} is not playing in {season.name}."})
    with transaction.atomic():
        game = services.game_create(
            player_one=player_one,
            player_two=player_two,
            first_dealer=first_dealer or player_two,
            rules=season.rules,
            created_by=started_by,
            name=season.name,
        )
        game.season = season
        game.league_status = LeagueStatus.PLAYING
        game.save(update_fields=["season", "league_status"])
    return game


def season_game_import(
    *,
    season: Season,
    player_one: Player,
    player_two: Player,
    first_dealer: Player,
    hands: Sequence[HandFacts],
    fixture: Fixture | None = None,
    started_by=None,
) -> Game:
    """Store a whole league game at once (seeding, imports): facts in, the engine's figures out.

    ``hands`` are HandFacts whose ``by`` is a player's primary key. Refused whole
    (HandRefused naming the hand and field) if any hand breaks the season's rules.
    """
    try:  # the engine's figures up front, so game_recompute below finds every hand already right
        derived = score_session(
            resolve_rules(season.rules), (player_one.pk, player_two.pk), first_dealer.pk, list(hands)
        ).hands
    except HandError as error:
        raise services.HandRefused(field=error.field, message=error.message, hand=error.hand) from None
    with transaction.atomic():
        game = services.game_create(
            player_one=player_one,
            player_two=player_two,
            first_dealer=first_dealer,
            rules=season.rules,
            created_by=started_by,
            name=f"{season.name}, round {fixture.round}" if fixture else season.name,
        )
        Hand.objects.bulk_create(
            Hand(
                game=game,
                number=number,
                ending=facts.ending,
                by_id=facts.by,
                knocker_deadwood=facts.knocker_deadwood if facts.ending == "knock" else None,
                defender_deadwood=facts.defender_deadwood,
                upcard=facts.upcard or "",
                recorded_by=started_by,
                **services.derived_hand_fields(result),
            )
            for number, (facts, result) in enumerate(zip(hands, derived, strict=True), start=1)
        )
        game.season, game.fixture, game.league_status = season, fixture, LeagueStatus.PLAYING
        game.save(update_fields=["season", "fixture", "league_status"])
        services.game_recompute(game=game)  # the engine has the last word on every figure
    return game


def game_confirm(*, game: Game, confirmed_by, comment: str = "") -> Game:
    """The result stands: it counts in the standings from now on."""
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        if locked.season_id is None:
            raise ValidationError({"game": "Only a league game is confirmed."})
        if not locked.over:
            raise ValidationError({"game": "The game is not over yet; it can be confirmed when it is."})
        if locked.league_status == LeagueStatus.CONFIRMED:
            raise ValidationError({"game": "This result is already confirmed."})
        before = locked.get_league_status_display()
        locked.league_status = LeagueStatus.CONFIRMED
        locked.confirmed_by = confirmed_by
        locked.confirmed_at = timezone.now()
        locked.save(update_fields=["league_status", "confirmed_by", "confirmed_at"])
        live.notify_change(game=locked)  # wall screens hear of it when this transaction commits
        audit_record(
            game=locked,
            actor=confirmed_by,
            action=FactChange.Action.CONFIRMED,
            what="Result",
            before=before,
            after=_result_words(locked),
            comment=comment,
        )
    game.league_status, game.confirmed_by, game.confirmed_at = (
        locked.league_status,
        locked.confirmed_by,
        locked.confirmed_at,
    )
    return game


def game_dispute(*, game: Game, disputed_by, comment: str) -> Game:
    """The opponent does not agree: the game goes to the club's admins."""
    comment = (comment or "").strip()
    if not comment:
        raise ValidationError({"comment": "Say what is wrong with the result, for the club's admins."})
    with transaction.atomic():
        locked = Game.objects.select_for_update().get(pk=game.pk)
        if locked.season_id is None or locked.league_status != LeagueStatus.PLAYING:
            raise ValidationError({"game": "Only a provisional league result can be disputed."})
        locked.league_status = LeagueStatus.DISPUTED
        locked.save(update_fields=["league_status"])
        live.notify_change(game=locked)
        audit_record(
            game=locked,
            actor=disputed_by,
            action=FactChange.Action.DISPUTED,
            what="Result",
            before=_result_words(locked),
            after="disputed",
            comment=comment[:2000],
        )
    game.league_status = locked.league_status
    return game


def _result_words(game: Game) -> str:
    if not game.over:
        return "in play"
    if game.winner_id is None:
        return "level"
    winner = Player.objects.only("name").get(pk=game.winner_id)
    return f"{winner.name} won by {game.margin}"


# --- audit trail -------------------------------------------------------------------------------------

FACT_LABELS = {
    "ending": "ending",
    "by": "went out",
    "knocker_deadwood": "knocker's deadwood",
    "defender_deadwood": "defender's deadwood",
    "upcard": "upcard",
}


def hand_fact_words(hand, names: dict[int, str]) -> dict[str, str]:
    """A hand's facts as words, one entry per fact field."""
    return {
        "ending": hand.get_ending_display() if hasattr(hand, "get_ending_display") else str(hand.ending),
        "by": names.get(hand.by_id, "") if hand.by_id else "",
        "knocker_deadwood": "" if hand.knocker_deadwood is None else str(hand.knocker_deadwood),
        "defender_deadwood": "" if hand.defender_deadwood is None else str(hand.defender_deadwood),
        "upcard": hand.upcard or "",
    }


def hand_summary(words: dict[str, str]) -> str:
    parts = [words["ending"]]
    if words["by"]:
        parts.append(f"by {words['by']}")
    if words["knocker_deadwood"]:
        parts.append(f"deadwood {words['knocker_deadwood']}")
    if words["defender_deadwood"]:
        parts.append(f"against {words['defender_deadwood']}")
    if words["upcard"]:
        parts.append(f"upcard {words['upcard']}")
    return " ".join(parts)


def audit_record(
    *,
    game: Game,
    actor,
    action: str,
    what: str = "",
    before: str = "",
    after: str = "",
    hand_number: int | None = None,
    comment: str = "",
) -> FactChange:
    """Keep one entry of the game's audit trail (call inside the change's transaction)."""
    return FactChange.objects.create(
        game=game,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        action=action,
        hand_number=hand_number,
        what=what[:100],
        before=before[:200],
        after=after[:200],
        comment=comment,
    )


def audit_hand_edit(*, game: Game, number: int, before: dict[str, str], after: dict[str, str], actor, comment=""):
    """One entry per fact that changed."""
    FactChange.objects.bulk_create(
        FactChange(
            game=game,
            actor=actor if getattr(actor, "is_authenticated", False) else None,
            action=FactChange.Action.HAND_EDITED,
            hand_number=number,
            what=f"Hand {number} {FACT_LABELS[field]}",
            before=before[field] or "\u2014",
            after=after[field] or "\u2014",
            comment=comment,
        )
        for field in FACT_LABELS
        if before[field] != after[field]
    )


def game_names(game: Game) -> dict[int, str]:
    return {game.player_one_id: game.player_one.name, game.player_two_id: game.player_two.name}


def game_audit_trail(game: Game):
    return FactChange.objects.filter(game=game).select_related("actor").order_by("at", "pk")
