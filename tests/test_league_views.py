"""Club and league pages: who sees and does what, forms, and the standings page's query count."""

import pytest
from django.urls import reverse

from players import clubs
from players.models import Club, Membership, Player
from scoring.league import services as league
from scoring.models import FactChange, Game, LeagueStatus, Season
from tests.league_setup import make_club, make_user, play, start_and_finish

ROLES = ["owner", "admin", "player", "guest", "outsider", "anonymous"]


def _user(cast, role):
    """The account acting in ``role``. A guest has no account: they browse anonymously."""
    return {
        "owner": cast.owner,
        "admin": cast.admin,
        "player": cast.player,
        "guest": None,
        "outsider": cast.outsider,
        "anonymous": None,
    }[role]


def _client_for(client, cast, role):
    user = _user(cast, role)
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture(params=[True, False], ids=["public", "private"])
def league_club(request, db):
    """A club with a season Pat v Gus (the guest) v Quinn and one finished, provisional game."""
    cast = make_club(is_public=request.param)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn, cast.guest])
    fixture = season.fixtures.get(home__in=[pat, quinn], away__in=[pat, quinn])
    game = start_and_finish(fixture, pat, started_by=cast.player)
    return cast, season, game


# --- reading -----------------------------------------------------------------------------------------

READ_EXPECTED = {
    # role: (public club, private club)
    "owner": (200, 200),
    "admin": (200, 200),
    "player": (200, 200),
    "guest": (200, 404),
    "outsider": (200, 404),
    "anonymous": (200, 404),
}


@pytest.mark.parametrize("role", ROLES)
def test_who_sees_the_club_its_season_and_its_games(client, league_club, role):
    cast, season, game = league_club
    client = _client_for(client, cast, role)
    expected = READ_EXPECTED[role][0 if cast.club.is_public else 1]
    for url, shows in (
        (reverse("league:club", args=[cast.club.slug]), cast.guest.name),
        (reverse("league:season", args=[cast.club.slug, season.pk]), cast.guest.name),
        (reverse("league:game", args=[game.pk]), game.player_two.name),
    ):
        response = client.get(url)
        assert response.status_code == expected, url
        if expected == 200:
            assert shows in response.content.decode()
    listed = client.get(reverse("league:clubs")).content.decode()
    assert (cast.club.name in listed) == (expected == 200)


@pytest.mark.parametrize("role", ROLES)
def test_only_managers_see_the_admin_tools(client, league_club, role):
    cast, season, game = league_club
    response = _client_for(client, cast, role).get(reverse("league:club", args=[cast.club.slug]))
    if response.status_code == 404:
        return
    page = response.content.decode()
    manager = role in ("owner", "admin")
    assert ("Invite by link" in page) == manager
    assert (reverse("league:season_new", args=[cast.club.slug]) in page) == manager


# --- writing -----------------------------------------------------------------------------------------


def _write_expected(role, is_public, allowed):
    if role in ("guest", "anonymous"):
        return 302  # sent to the login page
    if role == "outsider" and not is_public:
        return 404
    return 302 if allowed else 403


@pytest.mark.parametrize("role", ROLES)
def test_who_adds_members_and_creates_seasons(client, league_club, role):
    cast, season, game = league_club
    client = _client_for(client, cast, role)
    allowed = role in ("owner", "admin")
    expected = _write_expected(role, cast.club.is_public, allowed)

    response = client.post(reverse("league:member_add", args=[cast.club.slug]), {"name": "Newcomer"})
    assert response.status_code == expected
    assert Membership.objects.filter(club=cast.club, player__name="Newcomer").exists() == allowed
    if role in ("guest", "anonymous"):
        assert "/login/" in response["Location"]

    players = list(season.players.values_list("pk", flat=True))
    response = client.post(
        reverse("league:season_new", args=[cast.club.slug]),
        {"name": "Summer", "format": "open", "preset": "standard", "players": players, "ranking_1": "wins"},
    )
    assert response.status_code == expected
    assert Season.objects.filter(club=cast.club, name="Summer").exists() == allowed


@pytest.mark.parametrize("role", ROLES)
def test_who_confirms_a_result(client, league_club, role):
    cast, season, game = league_club
    client = _client_for(client, cast, role)
    # Pat started and recorded the game; Quinn (the opponent) or an admin confirms.
    allowed = role in ("owner", "admin")
    expected = _write_expected(role, cast.club.is_public, allowed)
    response = client.post(reverse("league:game_confirm", args=[game.pk]))
    assert response.status_code == expected
    game.refresh_from_db()
    assert (game.league_status == LeagueStatus.CONFIRMED) == allowed


def test_the_opponent_confirms_and_the_player_who_recorded_cannot(client, league_club):
    cast, season, game = league_club
    client.force_login(cast.player)
    assert client.post(reverse("league:game_confirm", args=[game.pk])).status_code == 403
    page = client.get(reverse("league:game", args=[game.pk])).content.decode()
    assert "Confirm the result" not in page
    client.force_login(cast.rival)
    page = client.get(reverse("league:game", args=[game.pk])).content.decode()
    assert "Confirm the result" in page and "Dispute the result" in page
    response = client.post(reverse("league:game_confirm", args=[game.pk]), {"comment": "Well played"})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.CONFIRMED and game.confirmed_by == cast.rival
    page = client.get(reverse("league:game", args=[game.pk])).content.decode()
    assert "Well played" in page and "Result confirmed" in page
    standings = client.get(reverse("league:season", args=[cast.club.slug, season.pk])).content.decode()
    assert "None: every finished game is confirmed." in standings


def test_a_dispute_needs_a_comment_and_shows_on_the_page(client, league_club):
    cast, season, game = league_club
    client.force_login(cast.rival)
    response = client.post(reverse("league:game_dispute", args=[game.pk]), {"comment": ""})
    assert response.status_code == 400
    assert "Say what is wrong with the result" in response.content.decode()
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.PLAYING
    response = client.post(reverse("league:game_dispute", args=[game.pk]), {"comment": "Hand 1 was a knock"})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.league_status == LeagueStatus.DISPUTED
    page = client.get(reverse("league:game", args=[game.pk])).content.decode()
    assert "Hand 1 was a knock" in page and "Result disputed" in page
    standings = client.get(reverse("league:season", args=[cast.club.slug, season.pk])).content.decode()
    assert "disputed" in standings


def test_correction_on_the_scoresheet_is_refused_to_players_after_confirmation(client, league_club):
    cast, season, game = league_club
    league.game_confirm(game=game, confirmed_by=cast.rival)
    quinn = cast.player_of(cast.rival)
    edit = reverse("hand_edit", args=[game.pk, 1])
    client.force_login(cast.player)
    client.post(edit, {"ending": "gin", "by": quinn.pk, "defender_deadwood": 80})
    game.refresh_from_db()
    assert game.winner == cast.player_of(cast.player)  # unchanged
    assert not FactChange.objects.filter(game=game, action="hand_edited").exists()


def test_fixture_start_by_its_player_opens_the_scoresheet(client, db):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="S", players=[pat, quinn, cast.guest])
    fixture = season.fixtures.get(home__in=[quinn, cast.guest], away__in=[quinn, cast.guest])
    url = reverse("league:fixture_start", args=[cast.club.slug, season.pk, fixture.pk])
    client.force_login(cast.player)  # Pat does not play in this fixture
    assert client.post(url).status_code == 403
    client.force_login(cast.rival)
    response = client.post(url)
    game = Game.objects.get(fixture=fixture)
    assert response.status_code == 302 and response["Location"] == reverse("game", args=[game.pk])
    assert game.season == season and game.created_by == cast.rival


def test_season_form_names_a_bad_rule_and_keeps_what_was_typed(client, db):
    cast = make_club()
    client.force_login(cast.admin)
    players = [cast.player_of(cast.player).pk, cast.guest.pk]
    response = client.post(
        reverse("league:season_new", args=[cast.club.slug]),
        {"name": "Winter", "format": "single", "preset": "standard", "overrides": "target = 0",
         "players": players, "ranking_1": "wins"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "target must be between" in page and 'value="Winter"' in page
    assert not Season.objects.filter(name="Winter").exists()
    response = client.post(
        reverse("league:season_new", args=[cast.club.slug]),
        {"name": "Winter", "format": "single", "preset": "standard", "overrides": "target = 150",
         "players": players, "ranking_1": "wins", "ranking_2": "head_to_head"},
    )
    season = Season.objects.get(name="Winter")
    assert response.status_code == 302
    assert season.rules["target"] == 150 and season.ranking == ["wins", "head_to_head"]
    assert season.fixtures.count() == 1


@pytest.mark.parametrize("ticked", [str(10**23), "-9223372036854775809", "1e5", "abc"])
def test_season_form_refuses_a_player_id_no_club_can_have_and_names_the_field(client, db, ticked):
    cast = make_club()
    client.force_login(cast.admin)
    response = client.post(
        reverse("league:season_new", args=[cast.club.slug]),
        {"name": "Winter", "format": "single", "preset": "standard", "ranking_1": "wins",
         "players": [cast.guest.pk, ticked]},
    )  # fmt: skip
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == ["players"] and ticked in errors["players"][0]
    assert not Season.objects.filter(name="Winter").exists()


def test_club_creation_and_invitation_by_link(client, db):
    founder = make_user("founder")
    client.force_login(founder)
    response = client.post(reverse("league:clubs"), {"name": "Tuesday Gin", "is_public": ""})
    club = Club.objects.get(name="Tuesday Gin")
    assert response.status_code == 302 and not club.is_public
    assert clubs.club_role(founder, club) == "owner"
    client.post(reverse("league:member_add", args=[club.slug]), {"name": "Gwen"})
    gwen = Player.objects.get(name="Gwen")
    client.post(reverse("league:invitation_create", args=[club.slug]), {"role": "player", "player": gwen.pk})
    invitation = club.invitations.get()
    page = client.get(reverse("league:club", args=[club.slug])).content.decode()
    assert reverse("league:invitation", args=[invitation.token]) in page

    newcomer = make_user("gwen-account")
    client.force_login(newcomer)
    url = reverse("league:invitation", args=[invitation.token])
    assert "taking over the record of" in client.get(url).content.decode()
    assert client.post(url).status_code == 302
    gwen.refresh_from_db()
    assert gwen.user == newcomer
    assert client.get(reverse("league:club", args=[club.slug])).status_code == 200


# --- the standings page's query count ----------------------------------------------------------------


def _club_of_size(size: int, played: int):
    cast = make_club(name=f"Size {size}")
    extra = [clubs.member_add_guest(club=cast.club, name=f"Extra {size}-{i}").player for i in range(size - 3)]
    entrants = [cast.player_of(cast.player), cast.player_of(cast.rival), cast.guest, *extra]
    season = league.season_create(club=cast.club, name="League", players=entrants)
    fixtures = list(season.fixtures.all())
    for number, fixture in enumerate(fixtures[:played]):
        game = league.fixture_start(fixture=fixture, started_by=cast.admin)
        play(game, fixture.home if number % 3 else fixture.away)
        if number % 4:
            league.game_confirm(game=game, confirmed_by=cast.admin)
    league.fixture_start(fixture=fixtures[played], started_by=cast.admin)  # one in play
    return cast, season


@pytest.mark.parametrize("role", ["anonymous", "player"])
def test_standings_page_runs_a_fixed_number_of_queries(client, db, django_assert_max_num_queries, role):
    # The same for a small and a large club. The first view computes the standings (at most four queries:
    # the pairs only when players are level before head-to-head) and renders them; later views take the
    # rendered standings from the cache (their key: the season's version and its confirmed version,
    # two queries each: scoring.changes.figures_per_season) until a game of the season changes.
    computed, cached = {"anonymous": (13, 8), "player": (18, 13)}[role]
    for size, played in ((4, 3), (14, 30)):
        cast, season = _club_of_size(size, played)
        if role == "player":
            client.force_login(cast.player)
        url = reverse("league:season", args=[cast.club.slug, season.pk])
        for queries in (computed, cached):
            with django_assert_max_num_queries(queries):
                response = client.get(url)
            assert response.status_code == 200
            page = response.content.decode()
            assert page.count("<tr data-player=") == size
            assert page.count("awaiting confirmation") == len([n for n in range(played) if not n % 4])
