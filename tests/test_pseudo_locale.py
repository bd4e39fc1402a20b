"""Nothing a person reads is left unmarked (issue 31): every page of the site map under a pseudo-translation.

Every translated string comes out wrapped in ⟪ ⟫ (a DjangoTranslation whose gettext/ngettext wrap what
they return, put in place of English's, plus pgettext/npgettext, which Django builds on gettext). Each
page's visible text (text outside <script>/<style>, and the title, aria-label, placeholder and alt
attributes and the value of input buttons) loses its marked parts and the names people typed (players,
clubs, seasons, accounts); any English word left was not marked. The failure lists them page by page: the
worklist. Every named URL of the site is either rendered here or excused with its reason, so a new page
cannot be missed. E-mails (subject and body) are checked the same way.
"""

from __future__ import annotations

import datetime
import re
from collections import defaultdict
from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import translation
from django.utils.translation import trans_real

from players import clubs
from players.models import Club, Player
from scoring import notify, services
from scoring.league import night
from scoring.league import services as league
from scoring.models import Season, SeasonFormat
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.league_setup import make_club, play

pytestmark = pytest.mark.django_db

OPEN, CLOSE = "⟪", "⟫"
PSEUDO_LANGUAGE = "en-gb"  # English is the default: every request without Accept-Language gets the pseudo one

# Words that are never translated: the brand, file formats and names of things, the languages' own names.
NOT_ENGLISH = {
    "GinLeague", "API", "JSON", "CSV", "Elo", "HTML", "URL", "OpenAPI", "JavaScript",
    "English", "Español", "Deutsch", "Français", "Português", "Brasil",
}  # fmt: skip

# Named URLs not rendered here, and why (everything else must be).
EXCUSED = {
    "live_events": "an event stream for scripts, no text",
    "league:wall_events": "an event stream for scripts, no text",
    "javascript_catalog": "the script strings themselves (tests/test_translations.py checks them)",
    "manifest": "the app manifest: the brand and a description (checked in the JSON, not a page)",
    "service_worker": "a script",
    "setup": "only before any account exists",
    "logout": "POST only, redirects",
    "language_choose": "POST only, redirects",
    "todo_count": "a number for the header",
    "hand_submit": "POST only (the scoresheet's form)",
    "hand_preview": "a fragment of the scoresheet, rendered on it",
    "hand_cards": "a fragment of the scoresheet, rendered on it",
    "hand_undo": "POST only",
    "hand_edit_preview": "a fragment of the hand edit page",
    "hand_remove": "POST only",
    "board_submit": "POST only (a partnership sheet's board forms)",
    "board_preview": "a fragment of a partnership sheet, rendered on it",
    "play_again": "POST only",
    "game_time": "POST only",
    "rules_check": "a fragment of the new game page",
    "league:game_confirm": "POST only",
    "league:game_dispute": "POST only",
    "league:member_add": "POST only",
    "league:member_role": "POST only",
    "league:invitation_create": "POST only",
    "league:season_close": "POST only",
    "league:playoffs_start": "POST only",
    "league:night_check_in": "POST only",
    "league:night_check_in_last": "POST only",
    "league:night_pair": "POST only",
    "league:night_swap": "POST only",
    "league:night_publish": "POST only",
    "league:night_time": "POST only",
    "league:tie_game_start": "POST only",
    "league:open_game_start": "POST only",
    "league:fixture_start": "POST only",
    "league:season_ranking": "a fragment of the season page",
    "league:season_due": "a fragment of the season page",
    "stats:standings_csv": "a file format (CSV keys)",
    "stats:season_games_json": "JSON for scripts",
    "stats:club_hands_csv": "a file format (CSV keys)",
    "stats:club_games_json": "JSON for scripts",
    "stats:player_hands_csv": "a file format (CSV keys)",
    "stats:player_games_json": "JSON for scripts",
    "stats:game_progress": "a fragment of the scoresheet (its chart)",
}
EXCUSED_NAMESPACES = {
    "admin": "Django's admin, translated by Django",
    "api": "JSON; its message fields follow Accept-Language (tests of the API)",
}


class PseudoTranslation(trans_real.DjangoTranslation):
    """English, with every translated string wrapped in ⟪ ⟫."""

    def gettext(self, message):
        result = super().gettext(message)
        return result if trans_real.CONTEXT_SEPARATOR in result else wrap(result)

    def ngettext(self, singular, plural, number):
        result = super().ngettext(singular, plural, number)
        return result if trans_real.CONTEXT_SEPARATOR in result else wrap(result)


def wrap(text: str) -> str:
    return text if text.startswith(OPEN) and text.endswith(CLOSE) else f"{OPEN}{text}{CLOSE}"


@pytest.fixture
def pseudo(monkeypatch):
    """Every English answer (pages, e-mail) through the pseudo-translation, for this test only."""
    monkeypatch.setitem(trans_real._translations, PSEUDO_LANGUAGE, PseudoTranslation(PSEUDO_LANGUAGE))
    # pgettext/npgettext look for the context in gettext's result (untranslated: the context is still in it)
    # and then return the message as it was: wrap it. Django's module functions are bound on first use.
    for name in ("pgettext", "npgettext"):
        # Bound first: Django's dispatcher binds on first use, and bound here to the patched function
        # it would keep it after the test (every later test in this process would see markers).
        getattr(translation._trans, name)
        original = getattr(trans_real, name)
        patched = (lambda original: lambda *args: wrap(original(*args)))(original)
        monkeypatch.setattr(trans_real, name, patched)
        monkeypatch.setattr(translation._trans, name, patched)
    monkeypatch.setattr(trans_real, "_default", None)
    translation.activate(PSEUDO_LANGUAGE)
    yield
    translation.deactivate()


class VisibleText(HTMLParser):
    """The words a person sees or hears on a page: text outside script, style and code (machine text: an
    HTTP header to send), and the read-out attributes."""

    SPOKEN = ("title", "aria-label", "placeholder", "alt")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "code"):
            self.hidden += 1
        found = dict(attrs)
        self.parts += [found[name] for name in self.SPOKEN if found.get(name)]
        if tag == "input" and found.get("type") in ("submit", "button", "reset") and found.get("value"):
            self.parts.append(found["value"])

    def handle_endtag(self, tag):
        if tag in ("script", "style", "code") and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def typed_names() -> list[str]:
    """What people typed: left as they typed it, in any language. Longest first (a name inside another)."""
    names = {*Player.objects.values_list("name", flat=True), *Club.objects.values_list("name", flat=True)}
    names |= set(Club.objects.values_list("slug", flat=True))  # made from a typed name
    names |= {
        *Season.objects.values_list("name", flat=True),
        *get_user_model().objects.values_list("username", flat=True),
    }
    return sorted((name for name in names if name), key=len, reverse=True)


def unmarked_words(text: str, names: list[str]) -> list[str]:
    previous = None
    while previous != text:  # marked parts may hold marked parts (a translated word in a translated sentence)
        previous, text = text, re.sub(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}", " ", text)
    text = re.sub(r"https?://\S+", " ", text)  # links (an invitation's token)
    for name in names:
        text = text.replace(name, " ")
    words = re.findall(r"[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*", text)
    return [word for word in words if len(word) > 1 and word not in NOT_ENGLISH]


def page_words(html: str, names: list[str]) -> list[str]:
    parser = VisibleText()
    parser.feed(html)
    return unmarked_words(" ".join(parser.parts), names)


def site_map():
    """(label, client, url, status) for every page, with the rows they need: each kind of game, season and person."""
    owner = UserFactory(username="owner-of-it-all", is_superuser=True, is_staff=True)
    cast = make_club(name="Thursday Gin")
    for user in (cast.owner, cast.admin, cast.player, cast.rival):
        user.email = f"{user.username}@example.org"
        user.save(update_fields=["email"])
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)

    # The kitchen table: a game with hands of every ending, and a finished one.
    ann_user = UserFactory(username="ann")
    ann, bob = PlayerFactory(name="Ann", user=ann_user), PlayerFactory(name="Bob")
    game = make_game(
        player_one=ann,
        player_two=bob,
        first_dealer=bob,
        created_by=ann_user,
        hands=[
            {"ending": "knock", "by": ann.pk, "knocker_deadwood": 4, "defender_deadwood": 14},
            {"ending": "knock", "by": bob.pk, "knocker_deadwood": 9, "defender_deadwood": 5},  # an undercut
            {"ending": "gin", "by": ann.pk, "defender_deadwood": 30},
        ],
    )
    finished = make_game(
        player_one=ann,
        player_two=bob,
        created_by=ann_user,
        hands=[{"ending": "gin", "by": ann.pk, "defender_deadwood": 90}],
    )
    # A partnership game (issue 41): Ann & Cy against Bob & Dee, one deal settled and one waiting for a board.
    cy, dee = PlayerFactory(name="Cy"), PlayerFactory(name="Dee")
    partners = services.game_create(
        player_one=ann, player_two=bob, player_three=cy, player_four=dee, first_dealer=bob,
        rules={"preset": "partnership"}, created_by=ann_user,
    )  # fmt: skip
    for board, by in ((1, ann), (2, dee), (2, cy)):
        services.board_record(game=partners, board=board, ending="knock", by=by, knocker_deadwood=3,
                              defender_deadwood=15)  # fmt: skip

    # The league: an open season with a result to confirm, a round robin, a Swiss night, a cup.
    open_season = league.season_create(
        club=cast.club, name="Spring", players=[pat, quinn, cast.guest], format=SeasonFormat.OPEN, created_by=cast.owner
    )
    to_confirm = play(
        league.open_game_start(season=open_season, player_one=pat, player_two=quinn, started_by=cast.owner), pat
    )
    robin = league.season_create(
        club=cast.club, name="Robin", players=[pat, quinn, cast.guest], format=SeasonFormat.SINGLE,
        starts_on=datetime.date(2026, 1, 1), ends_on=datetime.date(2026, 2, 1), created_by=cast.owner,
    )  # fmt: skip
    swiss = league.season_create(
        club=cast.club, name="Friday", players=[], format=SeasonFormat.SWISS, created_by=cast.owner, round_minutes=50
    )
    for player in (pat, quinn, cast.guest, cast.player_of(cast.admin), cast.player_of(cast.owner)):
        night.check_in(season=swiss, player=player, checked_in_by=cast.owner)
    night.round_pair(season=swiss, paired_by=cast.owner)
    night.round_publish(season=swiss, published_by=cast.owner)
    extra = [clubs.member_add_guest(club=cast.club, name=name, added_by=cast.owner).player for name in ("Eve", "Fay")]
    cup = league.season_create(
        club=cast.club, name="Cup", players=[pat, quinn, cast.player_of(cast.admin), *extra],
        format=SeasonFormat.KNOCKOUT, created_by=cast.owner,
    )  # fmt: skip
    invitation = clubs.invitation_create(club=cast.club, created_by=cast.owner)

    anonymous, organiser, player, superuser, scorer = Client(), Client(), Client(), Client(), Client()
    organiser.force_login(cast.owner)
    player.force_login(cast.rival)
    superuser.force_login(owner)
    scorer.force_login(ann_user)
    slug = cast.club.slug
    pages = [
        ("start page", scorer, reverse("home"), 200),
        ("start page, signed out", anonymous, reverse("home"), 200),
        ("new game", scorer, reverse("game_new"), 200),
        ("scoresheet", scorer, reverse("game", args=[game.pk]), 200),
        ("scoresheet, finished", scorer, reverse("game", args=[finished.pk]), 200),
        ("scoresheet, signed out", anonymous, reverse("game", args=[game.pk]), 200),
        ("hand edit", scorer, reverse("hand_edit", args=[game.pk, 1]), 200),
        ("partnership sheet", scorer, reverse("game", args=[partners.pk]), 200),
        ("partnership board edit", scorer, reverse("hand_edit", args=[partners.pk, 1]) + "?board=2", 200),
        ("game history", scorer, reverse("game_history", args=[game.pk]), 200),
        ("needs you", player, reverse("todo"), 200),
        ("waiting (offline)", scorer, reverse("offline_waiting"), 200),
        ("players", anonymous, reverse("player_list"), 200),
        ("player merge", superuser, reverse("player_merge"), 200),
        ("player", anonymous, reverse("stats:player", args=[ann.pk]), 200),
        ("profile", anonymous, reverse("stats:profile", args=[ann.pk]), 200),
        ("player's hands", anonymous, reverse("stats:player_hands", args=[ann.pk]), 200),
        ("partnership sheet, printable", anonymous, reverse("stats:game_print", args=[partners.pk]), 200),
        ("club's hands", anonymous, reverse("stats:club_hands", args=[slug]), 200),
        ("clubs", organiser, reverse("league:clubs"), 200),
        ("club", organiser, reverse("league:club", args=[slug]), 200),
        ("club, signed out", anonymous, reverse("league:club", args=[slug]), 200),
        ("invitation", player, reverse("league:invitation", args=[invitation.token]), 200),
        ("new season", organiser, reverse("league:season_new", args=[slug]), 200),
        ("open season", organiser, reverse("league:season", args=[slug, open_season.pk]), 200),
        ("round robin", anonymous, reverse("league:season", args=[slug, robin.pk]), 200),
        ("Swiss night season", organiser, reverse("league:season", args=[slug, swiss.pk]), 200),
        ("Swiss night", organiser, reverse("league:night", args=[slug, swiss.pk]), 200),
        ("wall", anonymous, reverse("league:wall", args=[slug, open_season.pk]), 200),
        ("season standings", anonymous, reverse("league:season_standings", args=[slug, robin.pk]), 200),
        ("wall board", anonymous, reverse("league:wall_board", args=[slug, open_season.pk]), 200),
        ("wall, Swiss night", anonymous, reverse("league:wall", args=[slug, swiss.pk]), 200),
        ("print sheet", anonymous, reverse("league:season_print", args=[slug, robin.pk]), 200),
        ("bracket", organiser, reverse("league:bracket", args=[slug, cup.pk]), 200),
        ("bracket board", anonymous, reverse("league:bracket_board", args=[slug, cup.pk]), 200),
        ("league game", player, reverse("league:game", args=[to_confirm.pk]), 200),
        ("account", player, reverse("account"), 200),
        ("sign in", anonymous, reverse("login"), 200),
        ("sign up", anonymous, reverse("signup"), 200),
        ("site settings", superuser, reverse("site_settings"), 200),
        ("API docs", anonymous, reverse("api:docs"), 200),
        ("404", anonymous, "/no-such-page/", 404),
        ("403", player, reverse("site_settings"), 403),
    ]
    return pages, (to_confirm, robin, cast)


def test_every_word_on_every_page_and_e_mail_is_marked_for_translation(
    pseudo, mailoutbox, django_capture_on_commit_callbacks
):
    pages, (to_confirm, robin, cast) = site_map()
    names = typed_names()
    leftovers: dict[str, list[str]] = defaultdict(list)
    rendered: set[str] = set()
    for label, client, url, status in pages:
        response = client.get(url)
        assert response.status_code == status, f"{label}: {url} answered {response.status_code}"
        if status == 200:
            rendered.add(response.resolver_match.view_name)
        leftovers[label] = page_words(response.content.decode(), names)

    # The error pages a test client cannot easily reach: the form that expired (CSRF), the server's error.
    from ginleague import errors

    request = RequestFactory().post("/")
    leftovers["403 (form expired)"] = page_words(errors.csrf_failure(request).content.decode(), names)
    leftovers["500"] = page_words(errors.server_error(RequestFactory().get("/")).content.decode(), names)

    # E-mails: a result to confirm, a dispute, a fixture due, an invitation.
    notify.send_game_finished(game_id=to_confirm.pk)
    with django_capture_on_commit_callbacks(execute=True):
        league.game_dispute(game=to_confirm, disputed_by=cast.rival, comment="that was 14")
        clubs.invitation_create(club=cast.club, created_by=cast.owner, email="new@example.org")
    notify.fixture_reminders(today=datetime.date(2026, 3, 1))
    assert {message.body.splitlines()[0] for message in mailoutbox}  # some e-mail went
    for message in mailoutbox:
        leftovers[f"e-mail: {message.subject}"] = unmarked_words(f"{message.subject}\n{message.body}", names)

    missing = {
        name
        for name in named_urls()
        if name not in rendered and name not in EXCUSED and name.split(":")[0] not in EXCUSED_NAMESPACES
    }
    assert not missing, f"named URLs neither rendered here nor excused (add them to site_map or EXCUSED): {missing}"
    worklist = {label: words for label, words in leftovers.items() if words}
    count = sum(len(words) for words in worklist.values())
    assert not worklist, f"{count} unmarked English words on {len(worklist)} pages/e-mails:\n" + "\n".join(
        f"- {label}: {' '.join(sorted(set(words)))}" for label, words in worklist.items()
    )


def named_urls() -> set[str]:
    found = set()

    def walk(patterns, namespace):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, entry.namespace or namespace)
            elif isinstance(entry, URLPattern) and entry.name:
                found.add(f"{namespace}:{entry.name}" if namespace else entry.name)

    walk(get_resolver().url_patterns, None)
    return found


def test_the_pseudo_translation_marks_what_is_marked_and_leaves_the_rest(pseudo):
    from django.template import Context, Template

    html = Template(
        '{% load i18n %}<p title="{% translate "Score" %}">{% translate "New game" %} Unmarked'
        "{% blocktranslate count counter=2 %}{{ counter }} hand{% plural %}{{ counter }} hands{% endblocktranslate %}"
        ' {% translate "Box" context "gin" %} Ann</p>'
    ).render(Context())
    assert page_words(html, ["Ann"]) == ["Unmarked"]
    assert f"{OPEN}2 hands{CLOSE}" in html and f"{OPEN}Box{CLOSE}" in html and f'title="{OPEN}Score{CLOSE}"' in html
