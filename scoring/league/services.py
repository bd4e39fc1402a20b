"""League writes: seasons, fixtures, starting games, confirmation and disputes.

Like scoring/services.py, every write is a small function with keyword-only
arguments that runs in one transaction. Games are created and scored by the
services (so every derived figure is the engine's); this module only links
them to a season and tracks their league status.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from players.models import Club, Membership, Player
from players.services import clean_name
from scoring import notify, permissions, services
from scoring.audit import audit_record
from scoring.changes import notify_change
from scoring.engine.bracket import round_name
from scoring.engine.overrides import read_rules
from scoring.engine.ratings import RatedGame, elo_ratings
from scoring.engine.round_robin import round_robin
from scoring.engine.rules import RuleError, check_two_players
from scoring.engine.score import HandFacts
from scoring.league.standings import (
    DEFAULT_RANKING,
    RANKING_CRITERIA,
    SWISS_TIE_BREAKERS,
    season_knockout,
    season_standings,
)
from scoring.models import FactChange, Fixture, Game, LeagueStatus, Season, SeasonFormat, Seed, SwissEntry
from scoring.permissions import refuse_closed_season

SWISS_ONLY_CRITERIA = ("match_points", "buchholz")

# --- seasons -----------------------------------------------------------------------------------------


def _resolved_rules(rules: Any) -> dict:
    try:
        resolved = read_rules(rules)
        check_two_players(resolved)  # a season's games are played by two
        return resolved.as_dict()
    except RuleError as error:
        raise ValidationError({error.field: [error.message]}) from None


def _clean_ranking(ranking: Iterable[str] | None, format: str = SeasonFormat.SINGLE) -> list[str]:
    """The ranking criteria checked. A Swiss night ranks by match points first (its pairing does): the
    criteria given are its tie-breakers (by default Buchholz, net points, head-to-head, gins); match
    points and Buchholz rank a Swiss night only."""
    swiss = format == SeasonFormat.SWISS
    cleaned: list[str] = ["match_points"] if swiss else []
    for criterion in ranking or (SWISS_TIE_BREAKERS if swiss else DEFAULT_RANKING):
        if not criterion:
            continue
        if criterion not in RANKING_CRITERIA:
            raise ValidationError({"ranking": _("Unknown ranking criterion %(criterion)r.") % {"criterion": criterion}})
        if criterion in SWISS_ONLY_CRITERIA and not swiss:
            raise ValidationError(
                {"ranking": _("%(criterion)s ranks a Swiss night only.") % {"criterion": RANKING_CRITERIA[criterion]}}
            )
        if criterion == "match_points" and swiss:
            continue  # already first
        if criterion in cleaned:
            raise ValidationError(
                {"ranking": _("%(criterion)s is listed twice.") % {"criterion": RANKING_CRITERIA[criterion]}}
            )
        cleaned.append(criterion)
    if not cleaned:
        raise ValidationError({"ranking": _("Choose at least one ranking criterion.")})
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
    best_of: int = 1,
    playoff_size: int | None = None,
    seeded_from: Season | None = None,
    swiss_rounds: int | None = None,
    round_minutes: int | None = None,
    points_per_win: int = 1,
) -> Season:
    """A season for some of the club's members; a round robin gets its fixtures at once (due dates
    spread over the season's dates), a knockout cup its seeds (by ``seeded_from``'s final standings,
    else by the club's ratings).

    A Swiss night plays ``swiss_rounds`` rounds (None: as many as the organiser starts), each game to
    the target or, given ``round_minutes``, a timed round; a win (or a bye) is worth ``points_per_win``
    match points (1 or 3). Its field is whoever checks in on the night:
    ``players`` may be empty, and those given are checked in at once."""
    cleaned_name = clean_name(name)
    if not cleaned_name:
        raise ValidationError({"name": _("Enter the season's name.")})
    if format not in SeasonFormat.values:
        raise ValidationError(
            {"format": _("Format must be one of %(formats)s.") % {"formats": ", ".join(SeasonFormat.values)}}
        )
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError({"ends_on": _("The season cannot end before it starts.")})
    entrants = list({player.pk: player for player in players}.values())
    if len(entrants) < 2 and format != SeasonFormat.SWISS:
        raise ValidationError({"players": _("A season needs at least two players.")})
    members = set(Membership.objects.filter(club=club, player__in=entrants).values_list("player_id", flat=True))
    outsiders = [player.name for player in entrants if player.pk not in members]
    if outsiders:
        raise ValidationError(
            {"players": _("Not members of %(club)s: %(names)s.") % {"club": club.name, "names": ", ".join(outsiders)}}
        )
    if best_of not in (1, 3, 5, 7, 9):
        raise ValidationError({"best_of": _("A tie is best of 1, 3, 5, 7 or 9 games.")})
    if format == SeasonFormat.PLAYOFFS:
        if not playoff_size or not 2 <= playoff_size <= len(entrants):
            raise ValidationError(
                {
                    "playoff_size": _("Say how many players go into the playoffs: 2 to %(most)s.")
                    % {"most": len(entrants)}
                }
            )
    else:
        playoff_size = None
    swiss_rounds, round_minutes = _clean_swiss(format, swiss_rounds, round_minutes)
    if points_per_win not in (1, 3):
        raise ValidationError(
            {"points_per_win": _("A win is worth 1 or 3 match points, not %(points)s.") % {"points": points_per_win}}
        )
    if seeded_from is not None and (seeded_from.club_id != club.pk or seeded_from.closed_at is None):
        raise ValidationError({"seeded_from": _("Seed from a closed season of this club.")})
    resolved = _resolved_rules(rules)
    with transaction.atomic():
        season = Season.objects.create(
            club=club,
            name=cleaned_name[:100],
            preset=resolved["preset"],
            rules=resolved,
            format=format,
            ranking=_clean_ranking(ranking, format),
            starts_on=starts_on,
            ends_on=ends_on,
            created_by=created_by,
            best_of=best_of,
            playoff_size=playoff_size,
            swiss_rounds=swiss_rounds,
            round_minutes=round_minutes,
            points_per_win=points_per_win,
        )
        season.players.set(entrants)
        if format == SeasonFormat.SWISS:  # those ticked are here already: paired from round 1
            SwissEntry.objects.bulk_create(SwissEntry(season=season, player=player) for player in entrants)
        if season.is_round_robin:
            entrants.sort(key=lambda player: player.name.lower())
            rounds = round_robin(entrants, double=format == SeasonFormat.DOUBLE)
            due = due_dates(len(rounds), starts_on, ends_on)
            Fixture.objects.bulk_create(
                Fixture(season=season, round=number, home=home, away=away, due_on=due[number - 1])
                for number, pairs in enumerate(rounds, 1)
                for home, away in pairs
            )
        if format == SeasonFormat.KNOCKOUT:
            _seed(season, knockout_seeding(club=club, players=entrants, seeded_from=seeded_from))
    return season


MAX_SWISS_ROUNDS = 15
MAX_ROUND_MINUTES = 240


def _clean_swiss(format: str, swiss_rounds: int | None, round_minutes: int | None) -> tuple[int | None, int | None]:
    """A Swiss night's number of rounds and round length, checked; other formats have neither."""
    if format != SeasonFormat.SWISS:
        return None, None
    if swiss_rounds is not None and not 1 <= swiss_rounds <= MAX_SWISS_ROUNDS:
        raise ValidationError(
            {
                "swiss_rounds": _("A Swiss night plays 1 to %(most)s rounds (or leave it open).")
                % {"most": MAX_SWISS_ROUNDS}
            }
        )
    if round_minutes is not None and not 5 <= round_minutes <= MAX_ROUND_MINUTES:
        raise ValidationError(
            {
                "round_minutes": _("A timed round lasts 5 to %(most)s minutes (or none: to the target).")
                % {"most": MAX_ROUND_MINUTES}
            }
        )
    return swiss_rounds, round_minutes


def due_dates(rounds: int, starts_on: datetime.date | None, ends_on: datetime.date | None) -> list:
    """Each round's due date, spread evenly so that the last round is due when the season ends
    (every round due on ``ends_on`` when the season has no start; none without an end)."""
    if ends_on is None:
        return [None] * rounds
    if starts_on is None:
        return [ends_on] * rounds
    days = (ends_on - starts_on).days
    return [starts_on + datetime.timedelta(days=days * number // rounds) for number in range(1, rounds + 1)]


def _seed(season: Season, players: Sequence[Player]) -> None:
    Seed.objects.bulk_create(Seed(season=season, player=player, seed=n) for n, player in enumerate(players, 1))


def club_ratings(club: Club) -> dict[int, float]:
    """Each player's current Elo rating from the club's confirmed results (absent: never rated)."""
    rows = (
        Game.objects.filter(season__club=club, league_status=LeagueStatus.CONFIRMED, over=True, winner__isnull=False)
        .order_by("finished_at", "pk")
        .values_list("pk", "winner_id", "player_one_id", "player_two_id")
    )
    return elo_ratings(
        RatedGame(key=pk, winner=winner, loser=two if winner == one else one) for pk, winner, one, two in rows
    ).current


def knockout_seeding(*, club: Club, players: Sequence[Player], seeded_from: Season | None = None) -> list[Player]:
    """``players`` best first: by their place in ``seeded_from``'s final standings if given (those not
    in it after), then by the club's Elo rating from its confirmed results, then by name."""
    ratings = club_ratings(club)
    places: dict[int, int] = {}
    if seeded_from is not None:
        places = {row.player_id: row.position for row in season_standings(seeded_from).rows}
    unplaced = len(players) + len(places) + 1
    return sorted(
        players,
        key=lambda player: (places.get(player.pk, unplaced), -ratings.get(player.pk, 0.0), player.name.lower()),
    )


def fixtures_set_due(*, season: Season, round: int, due_on: datetime.date | None) -> int:
    """Set (or clear) the due date of every fixture of one round; returns how many fixtures changed."""
    with transaction.atomic():
        _refuse_closed(season, lock=True)
        if season.ends_on and due_on and due_on > season.ends_on:
            raise ValidationError(
                {
                    "due_on": _("The season ends on %(date)s; set a date before then.")
                    % {"date": date_format(season.ends_on, "SHORT_DATE_FORMAT")}
                }
            )
        changed = Fixture.objects.filter(season=season, round=round).update(due_on=due_on)
        if not changed:
            raise ValidationError(
                {"round": _("%(season)s has no round %(round)s.") % {"season": season.name, "round": round}}
            )
    return changed


def _refuse_closed(season: Season | int | None, *, lock: bool = False) -> None:
    """The closed-season guard (``permissions.refuse_closed_season``), which every write here passes through."""
    season_id = season.pk if isinstance(season, Season) else season
    refuse_closed_season(season_id=season_id, lock=lock)


def season_open_check(*, season: Season) -> None:
    """Refuse (ValidationError, "This season is closed: …") any write to a closed season: pages and the
    API ask this before they ask who is writing, so the refusal says the real reason."""
    _refuse_closed(season)


def season_close(*, season: Season, closed_by) -> Season:
    """End the season for good: no new games, every result locked, the champion named.

    What it leaves behind (``standings.season_left_open``, shown to the organiser first) stays as
    it is, and so: a fixture never started is not played; a result not confirmed (provisional or
    disputed) is left out of the final standings, which count confirmed results only; a game in
    play is closed unfinished (no hand can be added any more) and counts for nobody.
    The champion is ``season_champion``'s.
    """
    with transaction.atomic():
        _refuse_closed(season, lock=True)
        locked = Season.objects.get(pk=season.pk)
        # Every writer of one of its games holds that game's lock and then asks the guard: taking them
        # all here lets the writes in flight finish first, and every later one sees the season closed.
        list(Game.objects.select_for_update().filter(season=locked).values_list("pk", flat=True))
        champion_id = season_champion(locked)
        locked.closed_at = timezone.now()
        locked.closed_by = closed_by
        locked.champion_id = champion_id
        locked.save(update_fields=["closed_at", "closed_by", "champion"])
    season.closed_at, season.closed_by, season.champion_id = locked.closed_at, locked.closed_by, locked.champion_id
    return season


def season_champion(season: Season) -> int | None:
    """The id of the player closing ``season`` now would name champion: the knockout's winner (a cup,
    or the playoffs), else the player alone at the top of the standings (None if the top is shared,
    nobody has played, or the knockout is not finished)."""
    if season.has_knockout:
        derived = season_knockout(season).bracket
        return derived.champion if derived else None
    rows = season_standings(season).rows
    top = rows[0] if rows and rows[0].played else None
    return top.player_id if top and not top.tied else None


def playoffs_start(*, season: Season, started_by) -> list[Seed]:
    """Round robin + playoffs: seed the top ``playoff_size`` of the standings into the knockout,
    once every fixture's result is confirmed."""
    with transaction.atomic():
        _refuse_closed(season, lock=True)
        locked = Season.objects.get(pk=season.pk)
        if locked.format != SeasonFormat.PLAYOFFS:
            raise ValidationError({"season": _("Only a round robin + playoffs season has playoffs.")})
        if locked.seeds.exists():
            raise ValidationError({"season": _("The playoffs have already started.")})
        open_fixtures = (
            Fixture.objects.filter(season=locked)
            .exclude(game__league_status=LeagueStatus.CONFIRMED, game__over=True)
            .count()
        )
        if open_fixtures:
            raise ValidationError(
                {
                    "season": ngettext(
                        "%(count)s fixture still to be played and confirmed before the playoffs.",
                        "%(count)s fixtures still to be played and confirmed before the playoffs.",
                        open_fixtures,
                    )
                    % {"count": open_fixtures}
                }
            )
        rows = season_standings(locked).rows[: locked.playoff_size]
        players = {player.pk: player for player in locked.players.filter(pk__in=[row.player_id for row in rows])}
        _seed(locked, [players[row.player_id] for row in rows])
    return list(Seed.objects.filter(season=season).select_related("player"))


def knockout_game_start(
    *, season: Season, player_one: Player, player_two: Player, started_by, first_dealer: Player | None = None
) -> Game:
    """The next game of a knockout tie: the two must meet now in the derived bracket, with no game
    of theirs still in play or awaiting confirmation."""
    season_open_check(season=season)
    if not season.has_knockout:
        raise ValidationError({"season": _("This season has no knockout.")})
    knockout = season_knockout(season)
    tie = knockout.bracket.tie_of(player_one.pk, player_two.pk) if knockout.bracket else None
    if tie is None or not tie.ready:
        raise ValidationError(
            {
                "player_two": _("%(one)s and %(two)s do not meet in the knockout now.")
                % {"one": player_one.name, "two": player_two.name}
            }
        )
    if frozenset((player_one.pk, player_two.pk)) in knockout.pending:
        raise ValidationError(
            {"player_two": _("Their last game is still in play or awaiting confirmation; finish that first.")}
        )
    with transaction.atomic():
        _refuse_closed(season, lock=True)
        return _season_game_create(
            season=season,
            player_one=player_one,
            player_two=player_two,
            first_dealer=first_dealer or player_two,
            started_by=started_by,
            name=f"{season.name}, {round_name(tie.round, len(knockout.bracket.rounds)).lower()}",
        )


def season_set_rules(*, season: Season, rules: Any) -> Season:
    """Change a season's rule set; refused once the season is closed or any game of it exists."""
    resolved = _resolved_rules(rules)
    with transaction.atomic():
        _refuse_closed(season, lock=True)
        locked = Season.objects.get(pk=season.pk)
        if locked.games.exists():
            raise ValidationError({"rules": _("Play has started: the season's rules are fixed.")})
        locked.rules = resolved
        locked.preset = resolved["preset"]
        locked.save(update_fields=["rules", "preset"])
    season.rules, season.preset = resolved, resolved["preset"]
    return season


def season_set_ranking(*, season: Season, ranking: Iterable[str]) -> Season:
    """Change the order of the ranking criteria (the standings follow it); refused once the season is
    closed, since it would reorder the final standings."""
    with transaction.atomic():
        _refuse_closed(season, lock=True)
        season.ranking = _clean_ranking(ranking, season.format)
        season.save(update_fields=["ranking"])
    return season


# --- games -------------------------------------------------------------------------------------------


def _season_game_create(
    *,
    season: Season,
    player_one: Player,
    player_two: Player,
    first_dealer: Player,
    started_by,
    name: str,
    fixture: Fixture | None = None,
) -> Game:
    """A new game of ``season`` (and of ``fixture``), in play under the season's rules; in the caller's transaction."""
    game = services.game_create(
        player_one=player_one,
        player_two=player_two,
        first_dealer=first_dealer,
        rules=season.rules,
        created_by=started_by,
        name=name,
    )
    game.season, game.fixture, game.league_status = season, fixture, LeagueStatus.PLAYING
    # Written with the change counted and announced: on PostgreSQL the season's wall screens and pages
    # hear of the new game when this commits, instead of at their hub's next look (up to SAFETY_SECONDS).
    notify_change(game=game, save=("season", "fixture", "league_status"))
    return game


def fixture_start(*, fixture: Fixture, started_by, first_dealer: Player | None = None) -> Game:
    """Start the fixture's game under the season's rules (once).

    ``first_dealer`` is either player, chosen at the table; None draws for it (either player, at
    random, as cutting the deck would), so neither side of the fixture always deals first.
    """
    with transaction.atomic():
        locked = Fixture.objects.select_for_update().select_related("season", "home", "away").get(pk=fixture.pk)
        _refuse_closed(locked.season_id, lock=True)
        fixture_start_check(fixture=locked)
        dealer = first_dealer or draw_for_deal(locked.home, locked.away)
        if dealer.pk not in (locked.home_id, locked.away_id):
            raise ValidationError({"first_dealer": _("The first dealer must be one of the two players.")})
        return _season_game_create(
            season=locked.season,
            fixture=locked,
            player_one=locked.home,
            player_two=locked.away,
            first_dealer=dealer,
            started_by=started_by,
            name=f"{locked.season.name}, round {locked.round}",
        )


def draw_for_deal(one: Player, two: Player) -> Player:
    """The first dealer when the players leave it to chance: either of them, at random."""
    return random.choice((one, two))


def fixture_start_check(*, fixture: Fixture) -> None:
    """Refuse (ValidationError saying why) a fixture whose game cannot be started now, whoever asks:
    its season is closed, or its game has already been started."""
    _refuse_closed(fixture.season_id)
    if Game.objects.filter(fixture=fixture).exists():
        raise ValidationError({"fixture": _("This fixture's game has already been started.")})


def open_game_start(
    *, season: Season, player_one: Player, player_two: Player, started_by, first_dealer: Player | None = None
) -> Game:
    """Open play: any two of the season's players record a game."""
    season_open_check(season=season)
    if season.format != SeasonFormat.OPEN:
        raise ValidationError({"season": _("This season plays fixtures; start the fixture's game instead.")})
    entrants = set(season.players.filter(pk__in=[player_one.pk, player_two.pk]).values_list("pk", flat=True))
    for field, player in (("player_one", player_one), ("player_two", player_two)):
        if player.pk not in entrants:
            raise ValidationError(
                {field: _("%(player)s is not playing in %(season)s.") % {"player": player.name, "season": season.name}}
            )
    with transaction.atomic():
        _refuse_closed(season, lock=True)
        return _season_game_create(
            season=season,
            player_one=player_one,
            player_two=player_two,
            first_dealer=first_dealer or player_two,
            started_by=started_by,
            name=season.name,
        )


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
    with transaction.atomic():  # a refused hand rolls the new game back too
        _refuse_closed(season, lock=True)
        game = _season_game_create(
            season=season,
            fixture=fixture,
            player_one=player_one,
            player_two=player_two,
            first_dealer=first_dealer,
            started_by=started_by,
            name=f"{season.name}, round {fixture.round}" if fixture else season.name,
        )
        services.hands_store(game=game, hands=hands, recorded_by=started_by)
    return game


def game_confirm_check(*, game: Game) -> None:
    """Refuse (ValidationError saying why) a result that cannot be confirmed now, whoever asks: not a
    league game, its season closed, not over yet, already confirmed. Pages and the API ask this before
    they ask who is confirming; ``game_confirm`` asks it again of the locked row."""
    if game.season_id is None:
        raise ValidationError({"game": _("Only a league game is confirmed.")})
    _refuse_closed(game.season_id)
    if not game.over:
        raise ValidationError({"game": _("The game is not over yet; it can be confirmed when it is.")})
    if game.league_status == LeagueStatus.CONFIRMED:
        raise ValidationError({"game": _("This result is already confirmed.")})


def game_confirm(*, game: Game, confirmed_by, comment: str = "") -> Game:
    """The result stands: it counts in the standings from now on."""
    with transaction.atomic():
        locked = Game.objects.select_for_update(of=("self",)).select_related("season").get(pk=game.pk)
        game_confirm_check(game=locked)
        # Who, asked of the locked row: a change of the hands a moment ago is judged as it now is.
        refusal = confirmed_by is not None and permissions.confirm_refusal(confirmed_by, locked)
        if refusal:
            raise PermissionDenied(refusal)
        before = LeagueStatus(locked.league_status)
        locked.league_status = LeagueStatus.CONFIRMED
        locked.confirmed_by = confirmed_by
        locked.confirmed_at = timezone.now()
        locked.save(update_fields=["league_status", "confirmed_by", "confirmed_at"])
        by_a_player = permissions.confirmed_by_a_player(locked)  # the owner alone, playing a guest
        services.standing_lines_write(game=locked)  # the result counts in the standings from now on
        notify_change(game=locked)  # wall screens hear of it when this transaction commits
        winner = _winner_name(locked)
        audit_record(
            game=locked,
            actor=confirmed_by,
            action=FactChange.Action.CONFIRMED,
            what=gettext_lazy("Result"),
            before=lambda: str(before.label),
            after=lambda: _result_words(locked, winner)
            + (_(" (confirmed by a player of the game)") if by_a_player else ""),
            comment=comment,
        )
    game.league_status, game.confirmed_by, game.confirmed_at = (
        locked.league_status,
        locked.confirmed_by,
        locked.confirmed_at,
    )
    return game


def game_dispute_check(*, game: Game) -> None:
    """Refuse (ValidationError saying why) a result that cannot be disputed now, whoever asks: not a
    league game, its season closed, not over yet, no longer provisional."""
    if game.season_id is None:
        raise ValidationError({"game": _("Only a league game is disputed.")})
    _refuse_closed(game.season_id)
    if not game.over:
        raise ValidationError({"game": _("The game is not over yet; a result is disputed when it is.")})
    if game.league_status != LeagueStatus.PLAYING:
        raise ValidationError({"game": _("Only a provisional league result can be disputed.")})


def game_dispute(*, game: Game, disputed_by, comment: str) -> Game:
    """The opponent does not agree: the game goes to the club's admins."""
    comment = (comment or "").strip()
    with transaction.atomic():
        locked = Game.objects.select_for_update(of=("self",)).select_related("season").get(pk=game.pk)
        game_dispute_check(game=locked)  # the state first, then what was sent
        if not comment:
            raise ValidationError({"comment": _("Say what is wrong with the result, for the club's admins.")})
        locked.league_status = LeagueStatus.DISPUTED
        locked.save(update_fields=["league_status", "updated_at"])  # moves the season's version: pages redraw
        services.standing_lines_write(game=locked)  # a disputed result does not count (no lines)
        notify_change(game=locked)
        winner = _winner_name(locked)
        audit_record(
            game=locked,
            actor=disputed_by,
            action=FactChange.Action.DISPUTED,
            what=gettext_lazy("Result"),
            before=lambda: _result_words(locked, winner),
            after=lambda: str(LeagueStatus.DISPUTED.label).lower(),
            comment=comment[:2000],
        )
        notify.game_disputed(game=locked, disputed_by=disputed_by, comment=comment[:2000])  # once this commits
    game.league_status = locked.league_status
    return game


def game_void(*, game: Game, voided_by, reason: str) -> None:
    """An organiser who did not play voids a finished league result: the game is deleted (its result no
    longer counts, the fixture is open again) and its history, with a line saying who voided it and why,
    stays with the fixture. A player never erases a result (``permissions.delete_refusal``)."""
    reason = (reason or "").strip()
    with transaction.atomic():
        locked = (
            Game.objects.select_for_update(of=("self",))
            .select_related("season", "player_one", "player_two")
            .get(pk=game.pk)
        )
        _refuse_closed(locked.season_id)
        refusal = permissions.delete_refusal(voided_by, locked)
        if refusal:
            raise PermissionDenied(refusal)
        if not permissions.is_void_not_delete(locked):
            raise ValidationError({"game": _("Only a finished league result is voided; this game is not over.")})
        if not reason:
            raise ValidationError(
                {"reason": _("Say why the result is voided: the reason stays in the fixture's history.")}
            )
        winner = _winner_name(locked)
        audit_record(
            game=locked,
            actor=voided_by,
            action=FactChange.Action.VOIDED,
            what=lambda: _("%(one)s v %(two)s") % {"one": locked.player_one.name, "two": locked.player_two.name},
            before=lambda: _result_words(locked, winner),
            after=gettext_lazy("voided: the game is deleted and the fixture can be played again"),
            comment=reason[:2000],
        )
        notify_change(game=locked)  # live pages of the game and its season hear of it when this commits
        FactChange.objects.filter(game=locked).update(game=None, fixture=locked.fixture_id)
        services.game_delete(game=locked)


def fixture_history(*, fixture_id: int):
    """The lines of a fixture's voided games, oldest first (the games themselves are gone)."""
    return FactChange.objects.filter(fixture_id=fixture_id, game__isnull=True).select_related("actor").order_by(
        "at", "pk"
    )


def _winner_name(game: Game) -> str:
    return Player.objects.only("name").get(pk=game.winner_id).name if game.winner_id else ""


def _result_words(game: Game, winner: str) -> str:
    """A result in a few words for the history, in the active language: "Ann won by 120", "level"."""
    if not game.over:
        return pgettext("a game's history: a result", "in play")
    if not winner:
        return pgettext("a game's history: a result", "level")
    return _("%(winner)s won by %(margin)s") % {"winner": winner, "margin": game.margin}
