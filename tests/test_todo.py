"""The to-do ("needs you"): what each player and admin is asked to do, in a fixed number of queries."""

import datetime

import pytest
from django.urls import reverse

from players import clubs
from scoring.league import services as league
from scoring.selectors import todo_for
from tests.league_setup import make_club, play

pytestmark = pytest.mark.django_db


def test_each_step_of_a_result_shows_in_the_right_to_do(django_assert_num_queries):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    today = datetime.date.today()
    season = league.season_create(
        club=cast.club,
        name="Spring",
        players=[pat, quinn],
        starts_on=today - datetime.timedelta(days=10),
        ends_on=today - datetime.timedelta(days=1),
        created_by=cast.owner,
    )
    fixture = season.fixtures.get()
    # Due (overdue, in fact) for both players; nothing for the admin.
    for user in (cast.player, cast.rival):
        todo = todo_for(user)
        assert [f.pk for f in todo.due] == [fixture.pk] and todo.due[0].overdue and todo.count == 1
    assert todo_for(cast.admin).count == 0

    game = league.fixture_start(fixture=fixture, started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    # Pat recorded it; Quinn confirms (or disputes). The fixture is no longer due.
    assert todo_for(cast.player).count == 0
    assert [g.pk for g in todo_for(cast.rival).to_confirm] == [game.pk]

    league.game_dispute(game=game, disputed_by=cast.rival, comment="I had 30, not 80")
    for user in (cast.player, cast.rival, cast.admin, cast.owner):
        assert [g.pk for g in todo_for(user).disputed] == [game.pk], user
    assert todo_for(cast.rival).to_confirm == []

    league.game_confirm(game=game, confirmed_by=cast.admin, comment="Checked the sheet")
    for user in (cast.player, cast.rival, cast.admin):
        assert todo_for(user).count == 0

    # Fixed number of queries, whatever is in it.
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.owner)
    with django_assert_num_queries(3):
        todo = todo_for(cast.outsider, invitation_tokens=[invitation.token])
    assert [i.pk for i in todo.invitations] == [invitation.pk]


def test_home_page_lists_it_and_the_navigation_counts_it(client):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn], created_by=cast.owner)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    cast.owner.set_password("a long pass phrase")  # someone can sign in: the home page is not the first-run setup
    cast.owner.save()
    client.force_login(cast.rival)
    home = client.get(reverse("home")).content.decode()
    assert "Needs you" in home and "Confirm the result" in home
    assert 'hx-get="/todo/count/"' in home
    count = client.get(reverse("todo_count")).content.decode()
    assert ">" in count and " 1<" in count
    client.force_login(cast.player)
    assert "nav-count" not in client.get(reverse("todo_count")).content.decode()
    assert "Nothing needs you" in client.get(reverse("todo")).content.decode()


def test_an_opened_invitation_waits_in_the_to_do_until_accepted(client):
    cast = make_club()
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.owner)
    client.force_login(cast.outsider)
    client.get(reverse("league:invitation", args=[invitation.token]))
    assert "Invitation to" in client.get(reverse("todo")).content.decode()
    client.post(reverse("league:invitation", args=[invitation.token]))
    assert "Invitation to" not in client.get(reverse("todo")).content.decode()


def _todo_section(page: str) -> str:
    return page[
        page.index('<section class="todo"') : page.index("</section>", page.index('<section class="todo"')) + 10
    ]


def test_the_home_pages_to_do_shows_each_change_on_the_next_load_and_nothing_in_each_language(client, rf):
    """The home page's to-do list with nothing in it is kept per language (it reads the same for everyone); one
    with something in it is written each time, and each change shows on the next load."""
    from django.template import engines
    from django.utils import translation

    from scoring.selectors import Todo

    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    cast.owner.set_password("a long pass phrase")  # someone can sign in: the home page is not the first-run setup
    cast.owner.save()
    client.force_login(cast.rival)
    partial = engines["django"].get_template("scoring/todo.html#list")
    for language in ("en", "de", "en", "de"):
        page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        with translation.override(language):
            nothing = partial.render({"todo": Todo([], [], [], [])}, rf.get("/"))
        assert _todo_section(page) == nothing.strip() and 'class="todo-none"' in nothing
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn], created_by=cast.owner)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    page = client.get(reverse("home")).content.decode()
    assert "Confirm the result" in _todo_section(page) and "todo-none" not in page
    league.game_confirm(game=game, confirmed_by=cast.rival, comment="")
    page = client.get(reverse("home")).content.decode()
    assert "Confirm the result" not in page and 'class="todo-none"' in _todo_section(page)
