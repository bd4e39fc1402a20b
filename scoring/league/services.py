"""League writes: seasons, fixtures, starting games, confirmation and disputes.

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

from players.models import Club, Membership, Player
from scoring import services
from scoring.audit import audit_record
from scoring.changes import notify_change
from scoring.engine.round_robin import round_robin
from scoring.engine.rules import RuleError, resolve_rules
from scoring.engine.score import HandError, HandFacts, score_session
from scoring.league.standings import DEFAULT_RANKING, RANKING_CRITERIA
from scoring.models import FactChange, Fixture, Game, Hand, LeagueStatus, Season, SeasonFormat

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
        notify_change(game=locked)  # wall screens hear of it when this transaction commits
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
        notify_change(game=locked)
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
