"""League services: round robin, seasons, confirmation, disputes, corrections, standings, ranking."""

import itertools
from collections import Counter

import pytest
from django.core.exceptions import ValidationError

from players import clubs
from players.models import Membership, Player
from scoring import permissions, services
from scoring.engine.round_robin import round_robin
from scoring.league import services as league
from scoring.league.standings import PairResult, Row, rank, season_standings
from scoring.models import FactChange, Fixture, Game, LeagueStatus, SeasonFormat
from scoring.permissions import can_edit_game
from tests.league_setup import make_club, make_user, play, start_and_finish

# --- round robin -------------------------------------------------------------------------------------


@pytest.mark.parametrize("count", range(2, 11))
@pytest.mark.parametrize("double", [False, True])
def test_round_robin_every_pair_meets_and_nobody_plays_twice_in_a_round(count, double):
    players = [f"p{i}" for i in range(count)]
    rounds = round_robin(players, double=double)

    meetings = Counter(frozenset(pair) for pairs in rounds for pair in pairs)
    expected_pairs = {frozenset(pair) for pair in itertools.combinations(players, 2)}
    assert set(meetings) == expected_pairs
    assert set(meetings.values()) == {2 if double else 1}
    for pairs in rounds:
        seen = [player for pair in pairs for player in pair]
        assert len(seen) == len(set(seen)), f"someone plays twice in {pairs}"
    # The fewest rounds possible: n-1 for an even field, n (one sits out each round) for an odd one.
    per_leg = count - 1 if count % 2 == 0 else count
    assert len(rounds) == per_leg * (2 if double else 1)
    if double:  # the second half is the first with home and away swapped
        home_away = Counter(pair for pairs in rounds for pair in pairs)
        assert all(home_away[(a, b)] == 1 and home_away[(b, a)] == 1 for a, b in itertools.combinations(players, 2))


def test_round_robin_refuses_a_player_listed_twice():
    with pytest.raises(ValueError):
        round_robin(["a", "b", "a"])


@pytest.mark.django_db
def test_season_creates_stored_fixtures_for_its_players():
    cast = make_club()
    entrants = [cast.player_of(user) for user in (cast.owner, cast.player, cast.rival)]
    entrants.append(cast.guest)
    season = league.season_create(
        club=cast.club, name="Autumn", players=entrants, format=SeasonFormat.DOUBLE, created_by=cast.owner
    )
    fixtures = list(season.fixtures.all())
    assert Counter(frozenset((f.home_id, f.away_id)) for f in fixtures) == {
        frozenset((a.pk, b.pk)): 2 for a, b in itertools.combinations(entrants, 2)
    }
    by_round = {}
    for fixture in fixtures:
        by_round.setdefault(fixture.round, []).extend([fixture.home_id, fixture.away_id])
    assert all(len(ids) == len(set(ids)) for ids in by_round.values())


@pytest.mark.django_db
def test_season_refuses_bad_rules_naming_the_field_and_saves_nothing():
    cast = make_club()
    players = [cast.player_of(cast.player), cast.player_of(cast.rival)]
    with pytest.raises(ValidationError) as refused:
        league.season_create(club=cast.club, name="Bad", players=players, rules={"preset": "standard", "target": 0})
    assert "target" in refused.value.message_dict
    assert not cast.club.seasons.exists()


@pytest.mark.django_db
def test_season_refuses_players_who_are_not_members():
    cast = make_club()
    stranger = Player.objects.create(name="Stranger")
    with pytest.raises(ValidationError) as refused:
        league.season_create(club=cast.club, name="S", players=[cast.player_of(cast.player), stranger])
    assert "Stranger" in refused.value.message_dict["players"][0]


@pytest.mark.django_db
def test_season_rules_are_fixed_once_play_starts():
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="S", players=[pat, quinn], rules={"preset": "classic"})
    assert season.rules["gin_bonus"] == 20  # stored resolved
    league.season_set_rules(season=season, rules={"preset": "standard", "target": 150})
    season.refresh_from_db()
    assert season.rules["target"] == 150
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    assert game.rules["target"] == 150  # the game plays the season's rules
    with pytest.raises(ValidationError):
        league.season_set_rules(season=season, rules={"preset": "standard"})
    season.refresh_from_db()
    assert season.rules["target"] == 150


# --- confirmation and disputes -----------------------------------------------------------------------


@pytest.fixture
def duel(db):
    """A club and a season where Pat (account) meets Quinn (account) once."""
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn], created_by=cast.owner)
    return cast, season, season.fixtures.get(), pat, quinn


def test_opponent_confirms_and_the_result_counts_at_once(duel):
    cast, season, fixture, pat, quinn = duel
    game = league.fixture_start(fixture=fixture, started_by=cast.player)
    assert (game.season, game.fixture, game.league_status) == (season, fixture, LeagueStatus.PLAYING)
    play(game, pat, recorded_by=cast.player)

    standings = season_standings(season)
    assert [row.played for row in standings.rows] == [0, 0]  # provisional: not counted yet
    assert [g.pk for g in standings.provisional] == [game.pk]

    assert not permissions.can_confirm(cast.player, game, cast.club)  # not your own game
    assert not permissions.can_confirm(cast.outsider, game, cast.club)
    assert permissions.can_confirm(cast.rival, game, cast.club)
    league.game_confirm(game=game, confirmed_by=cast.rival)

    standings = season_standings(season)
    top = standings.rows[0]
    assert (top.name, top.played, top.won, top.net) == (pat.name, 1, 1, game.margin)
    assert standings.rows[1].net == -game.margin
    assert standings.provisional == []
    entry = FactChange.objects.get(game=game)
    assert (entry.action, entry.actor) == (FactChange.Action.CONFIRMED, cast.rival)


def test_a_game_in_play_cannot_be_confirmed(duel):
    cast, season, fixture, pat, quinn = duel
    game = league.fixture_start(fixture=fixture, started_by=cast.player)
    services.hand_record(game=game, ending="knock", by=pat, knocker_deadwood=5, defender_deadwood=20)
    assert not permissions.can_confirm(cast.rival, game, cast.club)
    with pytest.raises(ValidationError):
        league.game_confirm(game=game, confirmed_by=cast.rival)


def test_dispute_goes_to_the_admins_who_correct_and_confirm(duel):
    cast, season, fixture, pat, quinn = duel
    game = start_and_finish(fixture, pat, started_by=cast.player)
    with pytest.raises(ValidationError) as refused:
        league.game_dispute(game=game, disputed_by=cast.rival, comment="  ")
    assert "comment" in refused.value.message_dict
    league.game_dispute(game=game, disputed_by=cast.rival, comment="Quinn went gin in hand 1, not Pat")
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.DISPUTED
    assert season_standings(season).rows[0].played == 0
    assert [g.pk for g in season_standings(season).provisional] == [game.pk]
    # Disputed: the players may no longer change it, nor confirm it; the admins may.
    assert not can_edit_game(cast.player, game)
    assert not permissions.can_confirm(cast.rival, game, cast.club)
    assert can_edit_game(cast.admin, game)
    services.hand_edit(hand=game.hands.get(), ending="gin", by=quinn, defender_deadwood=80, edited_by=cast.admin)
    league.game_confirm(game=game, confirmed_by=cast.admin, comment="Checked with both")
    top = season_standings(season).rows[0]
    assert (top.name, top.won) == (quinn.name, 1)
    actions = list(FactChange.objects.filter(game=game).values_list("action", flat=True))
    assert actions == ["disputed", "hand_edited", "confirmed"]


def test_guest_game_is_confirmed_by_an_admin(db):
    cast = make_club()
    pat = cast.player_of(cast.player)
    season = league.season_create(club=cast.club, name="S", players=[pat, cast.guest])
    game = start_and_finish(season.fixtures.get(), cast.guest, started_by=cast.player)
    assert not permissions.can_confirm(cast.player, game, cast.club)
    assert permissions.can_confirm(cast.admin, game, cast.club)
    assert permissions.can_confirm(cast.owner, game, cast.club)
    league.game_confirm(game=game, confirmed_by=cast.admin)
    assert season_standings(season).rows[0].name == cast.guest.name


# --- corrections -------------------------------------------------------------------------------------


def test_correction_after_confirmation_changes_the_standings_and_is_audited(duel):
    cast, season, fixture, pat, quinn = duel
    game = start_and_finish(fixture, pat, started_by=cast.player, confirm_by=cast.rival)
    pat_margin = game.margin
    rows = {row.name: row for row in season_standings(season).rows}
    assert (rows[pat.name].won, rows[quinn.name].won) == (1, 0)

    # After confirmation only the club's admins may change the game.
    assert not can_edit_game(cast.player, game)
    assert not can_edit_game(cast.rival, game)
    assert can_edit_game(cast.admin, game) and can_edit_game(cast.owner, game)

    hand = game.hands.get()
    services.hand_edit(
        hand=hand, ending="gin", by=quinn, defender_deadwood=90, edited_by=cast.admin, reason="Scored the wrong way"
    )
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.CONFIRMED and game.winner == quinn
    rows = {row.name: row for row in season_standings(season).rows}
    assert (rows[pat.name].won, rows[quinn.name].won) == (0, 1)
    assert rows[quinn.name].net == game.margin and game.margin != pat_margin
    assert rows[quinn.name].gins == 1 and rows[pat.name].gins == 0

    edits = {entry.what: entry for entry in FactChange.objects.filter(game=game, action="hand_edited")}
    assert set(edits) == {"Hand 1 went out", "Hand 1 other player's deadwood"}
    assert (edits["Hand 1 went out"].before, edits["Hand 1 went out"].after) == (pat.name, quinn.name)
    deadwood = edits["Hand 1 other player's deadwood"]
    assert (deadwood.before, deadwood.after) == ("80", "90")
    assert all(entry.actor == cast.admin and entry.comment == "Scored the wrong way" for entry in edits.values())


def test_hand_removed_and_added_after_confirmation_are_audited(duel):
    cast, season, fixture, pat, quinn = duel
    game = league.fixture_start(fixture=fixture, started_by=cast.player)
    services.hand_record(game=game, ending="knock", by=quinn, knocker_deadwood=2, defender_deadwood=30)
    play(game, pat)
    league.game_confirm(game=game, confirmed_by=cast.rival)
    services.hand_remove(hand=game.hands.get(number=2), removed_by=cast.admin, reason="Misread the cards")
    game.refresh_from_db()
    assert not game.over
    assert season_standings(season).rows[0].played == 0  # an open game does not count
    services.hand_record(game=game, ending="gin", by=quinn, defender_deadwood=80, recorded_by=cast.admin)
    entries = list(FactChange.objects.filter(game=game).order_by("pk"))
    assert [entry.action for entry in entries] == ["confirmed", "hand_removed", "hand_added"]
    removed, added = entries[1], entries[2]
    assert removed.hand_number == 2 and pat.name in removed.before and removed.after == "removed"
    assert removed.comment == "Misread the cards" and removed.actor == cast.admin
    assert added.hand_number == 2 and quinn.name in added.after and added.actor == cast.admin
    top = season_standings(season).rows[0]
    assert (top.name, top.won) == (quinn.name, 1)


def test_friendly_games_keep_the_old_edit_rights(db):
    from tests.factories import make_game

    creator = make_user("kitchen")
    game = make_game(created_by=creator, hands=[])
    assert game.season is None and game.league_status == ""
    assert can_edit_game(creator, game)
    assert not can_edit_game(make_user("nosy"), game)


# --- standings ---------------------------------------------------------------------------------------


def test_standings_figures_come_from_the_engines_columns(db):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(
        club=cast.club, name="S", players=[pat, quinn, cast.guest], format=SeasonFormat.OPEN
    )
    one = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.player)
    services.hand_record(game=one, ending="knock", by=quinn, knocker_deadwood=9, defender_deadwood=5)  # undercut
    services.hand_record(game=one, ending="dead")
    play(one, pat)
    league.game_confirm(game=one, confirmed_by=cast.rival)
    two = league.open_game_start(season=season, player_one=quinn, player_two=cast.guest, started_by=cast.rival)
    play(two, quinn)
    league.game_confirm(game=two, confirmed_by=cast.admin)
    three = league.open_game_start(season=season, player_one=pat, player_two=cast.guest, started_by=cast.player)
    play(three, cast.guest)  # provisional: not counted

    rows = {row.name: row for row in season_standings(season).rows}
    assert (rows[pat.name].played, rows[pat.name].won, rows[pat.name].lost) == (1, 1, 0)
    assert (rows[quinn.name].played, rows[quinn.name].won, rows[quinn.name].lost) == (2, 1, 1)
    assert rows[quinn.name].net == two.margin - one.margin
    assert rows[quinn.name].avg_margin == pytest.approx((two.margin - one.margin) / 2)
    assert rows[pat.name].hands_won == 2 and rows[pat.name].undercuts_given == 1 and rows[pat.name].gins == 1
    assert rows[quinn.name].undercuts_received == 1 and rows[quinn.name].hands_won == 1
    assert rows[cast.guest.name].played == 1 and rows[cast.guest.name].won == 0


def test_standings_use_a_fixed_number_of_queries(db, django_assert_max_num_queries):
    for size in (4, 10):
        cast = make_club(name=f"Club of {size}")
        extra = [clubs.member_add_guest(club=cast.club, name=f"Guest {size}-{i}").player for i in range(size - 4)]
        entrants = [*Player.objects.filter(memberships__club=cast.club).exclude(memberships__role="owner"), *extra]
        entrants = list({p.pk: p for p in entrants}.values())
        season = league.season_create(club=cast.club, name="S", players=entrants)
        for fixture in season.fixtures.all()[: size + 2]:
            start_and_finish(fixture, fixture.home, started_by=cast.admin, confirm_by=cast.owner)  # did not play
        with django_assert_max_num_queries(4):  # the pairs query only when head-to-head may decide
            standings = season_standings(season)
        assert sum(row.played for row in standings.rows) == 2 * (size + 2)


# --- ranking and tie-breakers ------------------------------------------------------------------------


def _row(pid, name, **figures):
    return Row(player_id=pid, name=name, **figures)


def test_ranking_follows_the_chosen_criteria_in_order():
    rows = [
        _row(1, "Ann", played=3, won=2, net=50),
        _row(2, "Bob", played=3, won=2, net=120),
        _row(3, "Cy", played=3, won=1, net=300),
    ]
    assert [r.name for r in rank(rows, ["wins", "net"])] == ["Bob", "Ann", "Cy"]
    assert [r.name for r in rank(rows, ["net", "wins"])] == ["Cy", "Bob", "Ann"]


def test_head_to_head_separates_players_level_on_wins():
    rows = [_row(1, "Ann", won=2, net=100), _row(2, "Bob", won=2, net=200), _row(3, "Cy", won=0, net=-300)]
    pairs = [PairResult(1, 2, wins_a=1, wins_b=0, net_a=40)]  # Ann beat Bob
    ranked = rank(rows, ["wins", "head_to_head", "net"], pairs)
    assert [r.name for r in ranked] == ["Ann", "Bob", "Cy"]
    assert ranked[1].decided_by == "head_to_head"
    # With net before head-to-head, Bob's better net wins instead.
    assert [r.name for r in rank(rows, ["wins", "net", "head_to_head"], pairs)] == ["Bob", "Ann", "Cy"]


def test_head_to_head_counts_only_games_among_the_tied_players():
    rows = [_row(1, "Ann", won=2), _row(2, "Bob", won=2), _row(3, "Cy", won=2), _row(4, "Dee", won=0)]
    pairs = [
        PairResult(1, 2, 1, 0, 10),  # Ann beat Bob
        PairResult(2, 3, 1, 0, 10),  # Bob beat Cy
        PairResult(3, 1, 1, 0, 10),  # Cy beat Ann: a circle, level on wins
        PairResult(4, 1, 0, 1, -500),  # games against Dee do not count among the three
    ]
    ranked = rank(rows, ["wins", "head_to_head"], pairs)
    assert [(r.position, r.tied) for r in ranked[:3]] == [(1, True), (1, True), (1, True)]
    assert ranked[3].name == "Dee" and ranked[3].position == 4
    # Break the circle on net among them: Bob won his head-to-head game by more.
    pairs[1] = PairResult(2, 3, 1, 0, 90)
    assert [r.name for r in rank(rows, ["wins", "head_to_head"], pairs)][:3] == ["Bob", "Ann", "Cy"]


def test_players_nothing_separates_share_a_position():
    rows = [_row(1, "Bea", won=1, net=10), _row(2, "Al", won=1, net=10), _row(3, "Cat", won=0)]
    ranked = rank(rows, ["wins", "net"])
    assert [(r.name, r.position, r.tied) for r in ranked] == [("Al", 1, True), ("Bea", 1, True), ("Cat", 3, False)]


def test_unknown_criterion_is_refused(db):
    with pytest.raises(ValueError):
        rank([], ["luck"])
    cast = make_club()
    with pytest.raises(ValidationError) as refused:
        league.season_create(
            club=cast.club, name="S", players=[cast.player_of(cast.player), cast.guest], ranking=["luck"]
        )
    assert "ranking" in refused.value.message_dict


def test_season_ranking_choice_changes_the_order_in_the_standings(db):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    owner = cast.player_of(cast.owner)
    season = league.season_create(
        club=cast.club, name="S", players=[pat, quinn, owner], format=SeasonFormat.OPEN,
        ranking=["wins", "head_to_head", "net"],
    )

    def game(a, b, winner, deadwood):
        g = league.open_game_start(season=season, player_one=a, player_two=b, started_by=cast.admin)
        play(g, winner, defender_deadwood=deadwood)
        league.game_confirm(game=g, confirmed_by=cast.admin)
        return g

    game(pat, quinn, pat, 76)  # Pat beats Quinn narrowly
    game(quinn, owner, quinn, 98)  # Quinn wins big against the owner
    game(owner, pat, owner, 76)  # ... and the owner beats Pat narrowly
    game(pat, owner, pat, 76)
    game(quinn, owner, quinn, 98)
    # Pat and Quinn have two wins each; Pat won their meeting, Quinn has the better net.
    rows = season_standings(season).rows
    assert [r.won for r in rows[:2]] == [2, 2]
    assert [r.name for r in rows[:2]] == [pat.name, quinn.name]
    league.season_set_ranking(season=season, ranking=["wins", "net"])
    assert [r.name for r in season_standings(season).rows[:2]] == [quinn.name, pat.name]


# --- clubs and invitations ---------------------------------------------------------------------------


def test_guest_claims_their_record_by_invitation(db):
    cast = make_club()
    pat = cast.player_of(cast.player)
    season = league.season_create(club=cast.club, name="S", players=[pat, cast.guest])
    game = start_and_finish(season.fixtures.get(), cast.guest, started_by=cast.player)
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.admin, player=cast.guest)
    gus = make_user("gus")
    clubs.invitation_accept(invitation=invitation, user=gus)
    cast.guest.refresh_from_db()
    assert cast.guest.user == gus
    assert clubs.club_role(gus, cast.club) == "player"
    assert permissions.can_confirm(gus, game, cast.club)  # now Gus can confirm his own game's result
    with pytest.raises(ValidationError):
        clubs.invitation_accept(invitation=invitation, user=make_user("late"))


def test_invitation_cannot_claim_a_record_for_someone_who_already_plays(db):
    cast = make_club()
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.admin, player=cast.guest)
    with pytest.raises(ValidationError) as refused:
        clubs.invitation_accept(invitation=invitation, user=cast.player)
    assert "player" in refused.value.message_dict
    cast.guest.refresh_from_db()
    assert cast.guest.user is None


def test_the_owner_cannot_be_demoted_and_roles_change(db):
    cast = make_club()
    owner_membership = Membership.objects.get(club=cast.club, player__user=cast.owner)
    with pytest.raises(ValidationError):
        clubs.member_set_role(membership=owner_membership, role="player")
    pat_membership = Membership.objects.get(club=cast.club, player__user=cast.player)
    assert not clubs.can_manage_club(type(cast.player).objects.get(pk=cast.player.pk), cast.club)
    clubs.member_set_role(membership=pat_membership, role="admin")
    assert clubs.can_manage_club(type(cast.player).objects.get(pk=cast.player.pk), cast.club)


def test_fixture_game_starts_only_once(duel):
    cast, season, fixture, pat, quinn = duel
    league.fixture_start(fixture=fixture, started_by=cast.player)
    with pytest.raises(ValidationError):
        league.fixture_start(fixture=fixture, started_by=cast.rival)
    assert Game.objects.filter(fixture=fixture).count() == 1
    assert Fixture.objects.get(pk=fixture.pk).game.season == season
