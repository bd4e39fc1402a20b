"""Every page's fixed cost stays small: "Needs you" and the home page's list build no SQL per request.

Building a join's queryset and compiling it cost the ORM more than running it: every signed-in page
paid ~13 ms for "Needs you" before showing anything (issue 40). Their statements are built once per
database (scoring/prepared.py); these tests count the compilations, not the time, and check that each
viewer still gets their own answer from the shared statement.
"""

from __future__ import annotations

import datetime

import pytest
from django.db.models.sql.compiler import SQLCompiler
from django.urls import reverse

from scoring import services
from scoring.league import services as league
from scoring.selectors import own_games, todo_for
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import make_club, play

pytestmark = pytest.mark.django_db


def test_needs_you_compiles_no_sql_once_built(compiled):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    season = league.season_create(club=cast.club, name="Spring", players=[pat, quinn], created_by=cast.owner)
    game = league.fixture_start(fixture=season.fixtures.get(), started_by=cast.player)
    play(game, pat, recorded_by=cast.player)
    todo_for(cast.owner)  # built (or already built by another test)
    compiled.clear()
    rival, player = todo_for(cast.rival), todo_for(cast.player)
    assert compiled == []
    # One statement, each viewer's own answer: Quinn confirms what Pat recorded; Pat waits.
    assert [g.pk for g in rival.to_confirm] == [game.pk] and rival.count == 1
    assert player.count == 0 and rival.to_confirm[0].season.club.pk == cast.club.pk  # joins loaded


def test_needs_you_follows_the_day_it_is_asked_on(compiled):
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    today = datetime.date.today()
    league.season_create(
        club=cast.club, name="Spring", players=[pat, quinn], starts_on=today,
        ends_on=today + datetime.timedelta(days=30), created_by=cast.owner,
    )  # fmt: skip
    todo_for(cast.player)
    compiled.clear()
    assert todo_for(cast.player, today=today).due == []  # due in 30 days: not yet
    later = todo_for(cast.player, today=today + datetime.timedelta(days=25))
    assert len(later.due) == 1 and not later.due[0].overdue
    assert todo_for(cast.player, today=today + datetime.timedelta(days=31)).due[0].overdue
    assert compiled == []


def test_a_prepared_read_asks_its_columns_converters_once(monkeypatch):
    """Converters (a date from SQLite's text, a boolean from 0/1) are kept with the statement, and still applied."""
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    today = datetime.date.today()
    league.season_create(
        club=cast.club, name="Spring", players=[pat, quinn], starts_on=today,
        ends_on=today + datetime.timedelta(days=3), created_by=cast.owner,
    )  # fmt: skip
    todo_for(cast.player)
    asked = []
    get_converters = SQLCompiler.get_converters

    def counted(self, expressions):
        asked.append(expressions)
        return get_converters(self, expressions)

    monkeypatch.setattr(SQLCompiler, "get_converters", counted)
    fixture = todo_for(cast.player, today=today).due[0]
    assert asked == []
    assert fixture.due_on == today + datetime.timedelta(days=3) and isinstance(fixture.due_on, datetime.date)
    assert fixture.season.closed_at is None and fixture.season.club.pk == cast.club.pk


def test_a_prepared_values_list_answers_what_its_queryset_does():
    """Rows of a values_list() (converted without a queryset once the converters are known) and a flat one's values
    are the queryset's own: an aware time, a JSON dict, a boolean, a name, a missing seat's None."""
    from scoring.models import Game
    from scoring.prepared import Prepared

    game = make_game(rules={"preset": "hollywood"}, hands=[{"ending": "dead"}])
    columns = ("pk", "over", "created_at", "rules", "player_one__name", "player_three", "winner__name")
    rows = Prepared(Game, lambda pk: Game.objects.filter(pk=pk).values_list(*columns), pk=int)
    names = Prepared(Game, lambda pk: Game.objects.filter(pk=pk).values_list("player_two__name", flat=True), pk=int)
    expected = list(Game.objects.filter(pk=game.pk).values_list(*columns))
    assert expected[0][3]["hollywood"] is True and expected[0][2].tzinfo is not None  # converted, not text
    for _ in range(2):  # the first read asks for the converters, the second uses them
        assert rows(pk=game.pk) == expected
        assert names(pk=game.pk) == [game.player_two.name]


def test_a_prepared_read_of_a_models_own_columns_answers_what_its_queryset_does():
    """Models of one model's own columns (made at once from the rows, once the converters are known) are the
    queryset's own: every field's value converted (an aware time, a JSON dict, a boolean), read from the database,
    saved again as an update; and an account read as the sign-in reads it."""
    from django.contrib.auth import get_user_model

    from ginleague.auth import _account_by_id
    from scoring.models import Game, Hand
    from scoring.prepared import Prepared

    game = make_game(rules={"preset": "hollywood"}, hands=[{"ending": "dead"}, {"ending": "dead"}])
    games = Prepared(Game, lambda pk: Game.objects.filter(pk=pk), pk=int)
    hands = Prepared(Hand, lambda game_id: Hand.objects.filter(game_id=game_id).order_by("number"), game_id=int)
    account = UserFactory(is_staff=True)

    def fields(model) -> dict:
        return {field.attname: getattr(model, field.attname) for field in type(model)._meta.concrete_fields}

    for _ in range(2):  # the first read asks for the converters, the second makes the models itself
        [read] = games(pk=game.pk)
        [expected] = Game.objects.filter(pk=game.pk)
        assert fields(read) == fields(expected) and read.rules["hollywood"] is True and read.created_at.tzinfo
        assert (read._state.db, read._state.adding) == ("default", False)
        assert [fields(hand) for hand in hands(game_id=game.pk)] == [
            fields(hand) for hand in Hand.objects.filter(game_id=game.pk).order_by("number")
        ]
        [user] = _account_by_id()(pk=account.pk)
        assert fields(user) == fields(get_user_model().objects.get(pk=account.pk)) and user.is_staff is True
    read.name = "Renamed"
    read.save(update_fields=["name"])
    assert Game.objects.get(pk=game.pk).name == "Renamed"


def test_the_home_page_list_compiles_nothing(client, compiled):
    cast = make_club()
    mine = make_game(player_one=cast.player_of(cast.player), created_by=cast.player)
    theirs = make_game(player_one=cast.player_of(cast.rival), created_by=cast.rival)
    own_games(cast.owner)
    compiled.clear()
    assert [game.pk for game in own_games(cast.player)] == [mine.pk]
    assert [game.pk for game in own_games(cast.rival)] == [theirs.pk]
    assert compiled == []  # the list shows no boards: no scores prefetched (compiled each time)
    cast.player.set_password("a long pass phrase")
    cast.player.save()
    client.force_login(cast.player)
    client.get(reverse("home"))  # every statement built (or already built by another test in this process)
    compiled.clear()
    page = client.get(reverse("home")).content.decode()
    assert reverse("game", args=[mine.pk]) in page and reverse("game", args=[theirs.pk]) not in page
    assert compiled == []  # the account (ginleague/auth.py) and the session (ginleague/sessions.py): built once


def test_the_home_page_list_has_the_games_played_in_any_seat_or_started_with_their_players():
    cast = make_club()
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    cat, dan, eve = (PlayerFactory(name=name) for name in ("Cat", "Dan", "Eve"))
    fourth = services.game_create(
        player_one=cat,
        player_two=dan,
        player_three=eve,
        player_four=pat,
        first_dealer=dan,
        rules={"preset": "partnership"},
    )
    second = make_game(
        player_one=quinn, player_two=pat, hands=[{"ending": "gin", "by": pat.pk, "defender_deadwood": 90}]
    )
    started = make_game(player_one=cat, player_two=dan, created_by=cast.player)
    make_game(player_one=quinn, player_two=eve)  # neither played nor started by Pat's account
    listed = own_games(cast.player)
    assert [game.pk for game in listed] == [started.pk, fourth.pk, second.pk]  # in play first, newest first
    assert [(game.player_one.name, game.player_two.name) for game in listed] == [("Cat", "Dan")] * 2 + [
        (quinn.name, pat.name)
    ]
    assert (listed[1].player_three.name, listed[1].player_four.name, listed[1].winner) == ("Eve", pat.name, None)
    assert (listed[2].winner.name, listed[2].next_dealer) == (pat.name, None)


# --- widgets: written in Python, exactly as Django's templates write them ---------------------------


@pytest.fixture
def widget_templates(monkeypatch):
    """The names of the widget templates Django's form renderer loads from now on."""
    from django.forms.renderers import EngineMixin

    loaded = []
    get_template = EngineMixin.get_template

    def counted(self, template_name):
        if template_name.startswith("django/forms/widgets/"):
            loaded.append(template_name)
        return get_template(self, template_name)

    monkeypatch.setattr(EngineMixin, "get_template", counted)
    return loaded


@pytest.fixture
def compared(monkeypatch):
    """Every widget the site's renderer writes is also rendered by Django's templates: they must agree."""
    from django.forms.renderers import DjangoTemplates

    from ginleague.forms import FastWidgets

    djangos = DjangoTemplates()
    ours = FastWidgets.render
    seen = []

    def both(self, template_name, context, request=None):
        written = ours(self, template_name, context, request)
        assert written == djangos.render(template_name, context, request), template_name
        seen.append(template_name)
        return written

    monkeypatch.setattr(FastWidgets, "render", both)
    return seen


def signed_in(client, user):
    user.set_password("a long pass phrase")  # someone can sign in: no first-run setup page
    user.save()
    client.force_login(user)
    return client


def test_the_new_game_form_renders_no_widget_template(client, widget_templates):
    cast = make_club()
    page = signed_in(client, cast.player).get(reverse("game_new"))
    assert page.status_code == 200 and 'name="player_one"' in page.content.decode()
    assert widget_templates == []


@pytest.mark.parametrize("language", ["en", "de"])
def test_written_widgets_are_djangos_to_the_character(client, compared, language):
    cast = make_club()
    signed_in(client, cast.owner)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = make_game(player_one=pat, player_two=quinn, created_by=cast.owner)
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    pages = [
        client.get(reverse("game_new"), **headers),
        # Refused, with what was typed echoed back (quotes, ampersands, a tag) and errors.
        client.post(
            reverse("game_new"),
            {"player_one": '<b>"Ann" & co</b>', "player_two": "", "target": "1,5", "preset": "nope"},
            **headers,
        ),
        client.get(reverse("game", args=[game.pk]), **headers),
        client.get(reverse("account"), **headers),
        client.get(reverse("league:club", args=[cast.club.slug]), **headers),
    ]
    assert all(page.status_code in (200, 422) for page in pages)
    assert {"django/forms/widgets/text.html", "django/forms/widgets/select.html"} <= set(compared)


def test_written_widgets_edge_cases_are_djangos():
    from django import forms
    from django.forms.renderers import DjangoTemplates
    from django.utils.safestring import mark_safe
    from django.utils.translation import gettext_lazy, override

    from ginleague.forms import FastWidgets

    cases = [
        (forms.TextInput(attrs={"placeholder": 'say "hi" & <go>', "required": True, "hidden": False}), "x<y"),
        (forms.TextInput(), None),
        (forms.TextInput(), mark_safe("<i>safe</i>")),
        (forms.NumberInput(attrs={"min": 0, "step": 0.5}), 2.5),
        (forms.CheckboxInput(), True),
        (forms.CheckboxInput(), False),
        (forms.HiddenInput(), 7),
        (forms.Select(choices=[(1, 1.5), ("", "---"), ("a&b", gettext_lazy("Name"))]), "a&b"),
        (forms.Select(choices=[("Group <1>", [(1, "one"), (2, "two")]), (3, "three")]), 2),
    ]
    for language in ("en", "de"):
        with override(language):
            for widget, value in cases:
                assert widget.render("f", value, renderer=FastWidgets()) == widget.render(
                    "f", value, renderer=DjangoTemplates()
                ), (widget, value)


def test_the_scoresheets_game_and_hands_compile_no_sql_once_built(compiled, django_assert_num_queries):
    from scoring.models import Game
    from scoring.selectors import game_for_sheet
    from tests.factories import PlayerFactory

    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="Bob")
    knock = {"ending": "knock", "knocker_deadwood": 4, "defender_deadwood": 22}
    game = make_game(player_one=ann, player_two=bob, hands=[{**knock, "by": ann}, {**knock, "by": bob}])
    other = make_game(player_one=bob, player_two=ann, hands=[{**knock, "by": ann}])
    game_for_sheet(pk=other.pk)
    compiled.clear()
    with django_assert_num_queries(2):
        sheet = game_for_sheet(pk=game.pk)
        hands = list(sheet.hands.all())
        assert [hand.number for hand in hands] == [1, 2] and hands[1].by_id == bob.pk
        assert sheet.player_one.name == "Ann" and all(hand.game is sheet for hand in hands)
    assert compiled == []
    for missing in (other.pk + 1000, 10**30):  # no such game, and an id past any id column
        with pytest.raises(Game.DoesNotExist):
            game_for_sheet(pk=missing)


def test_a_prepared_read_is_counted_as_a_query_and_its_errors_are_djangos(monkeypatch):
    """A prepared read runs the backend's cursor itself (scoring.prepared.fetch_all), yet is a query like any
    other: counted where queries are counted, and a database error raised as Django's (a lost connection is a
    503, ginleague/errors.py) with the connection marked for the end-of-request check."""
    from django.db import OperationalError, connection
    from django.test.utils import CaptureQueriesContext

    from scoring.models import Game
    from scoring.prepared import Prepared

    game = make_game(rules={"preset": "hollywood"})
    by_pk = Prepared(Game, lambda pk: Game.objects.filter(pk=pk).values_list("pk", flat=True), pk=int)
    assert by_pk(pk=game.pk) == [game.pk]  # not counted: the backend's cursor at once
    with CaptureQueriesContext(connection) as counted:
        assert by_pk(pk=game.pk) == [game.pk]
    assert len(counted.captured_queries) == 1 and str(game.pk) in counted.captured_queries[0]["sql"]

    class LostCursor:
        def execute(self, sql, params):
            raise connection.Database.OperationalError("server closed the connection unexpectedly")

        def close(self):
            raise connection.Database.InterfaceError("cursor already closed")

    closed = []  # later: the connection itself is gone, and a cursor cannot be made

    def create_cursor(name=None):
        if closed:
            raise connection.Database.OperationalError("the connection is closed")
        return LostCursor()

    monkeypatch.setattr(connection, "create_cursor", create_cursor)
    monkeypatch.setattr(connection, "errors_occurred", False)
    with pytest.raises(OperationalError, match="server closed") as raised:
        by_pk(pk=game.pk)
    assert isinstance(raised.value.__cause__, connection.Database.OperationalError)
    assert connection.errors_occurred is True

    # The connection was cut during a hand POST: the savepoint's rollback failed too, which leaves the
    # transaction broken. The next read is still the lost connection's error (a 503 that says so), as through
    # Django's cursor, not "an error occurred in the current transaction" (a 500: test_load_faults saw one).
    closed.append(True)
    connection.needs_rollback = True
    try:
        with pytest.raises(OperationalError, match="the connection is closed"):
            by_pk(pk=game.pk)
    finally:
        connection.needs_rollback = False


def test_a_prepared_reads_json_is_a_fresh_object_each_read():
    """A game's rules (an object of plain values) are decoded once per text and copied for each read
    (scoring.prepared._kept_json): a caller changing what it was given changes no later read's answer; an
    object holding more than plain values is decoded every time, as the field decodes it."""
    from scoring.models import Game
    from scoring.prepared import Prepared

    game = make_game(rules={"preset": "hollywood"})
    rules_of = Prepared(Game, lambda pk: Game.objects.filter(pk=pk).values_list("rules", flat=True), pk=int)
    expected = Game.objects.get(pk=game.pk).rules
    first = rules_of(pk=game.pk)[0]
    first["hollywood"] = "changed by a caller"
    again = rules_of(pk=game.pk)[0]
    assert again == expected and again is not first and again["hollywood"] is True

    Game.objects.filter(pk=game.pk).update(rules={"preset": "hollywood", "nested": {"a": [1, 2]}})
    nested = rules_of(pk=game.pk)[0]
    nested["nested"]["a"].append(3)
    assert rules_of(pk=game.pk)[0]["nested"] == {"a": [1, 2]}
