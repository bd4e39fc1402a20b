"""Every page's chrome (base.html) is rendered once per language and viewer class, and nothing of one viewer
reaches another: each page carries its own CSRF token, name, path and nonce (issue 40)."""

from __future__ import annotations

import functools
import re

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import CookieStorage
from django.template import Context, Engine, TemplateSyntaxError, engines
from django.template.defaulttags import URLNode
from django.test import Client, override_settings
from django.urls import reverse, set_script_prefix
from django.utils import translation

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

# The chrome's own links (base.html and the language switch), none of them in a page's content.
CHROME_LINKS = {"manifest", "service_worker", "live_events", "logout", "language_choose", "todo_count"}


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def tokens(page: str) -> set[str]:
    return set(re.findall(r'(?:csrfmiddlewaretoken" value="|"X-CSRFToken": ")([^"]+)"', page))


def next_path(page: str) -> str:
    """Where the language switch comes back to."""
    switch = page[page.index('class="language-switch"') :]
    return re.search(r'name="next" value="([^"]*)"', switch).group(1)


@pytest.fixture
def chrome_links(monkeypatch):
    """The names of the chrome's {% url %} tags rendered from now on."""
    rendered = []
    render = URLNode.render

    def counted(self, context):
        name = self.view_name.resolve(context)
        if name in CHROME_LINKS:
            rendered.append(name)
        return render(self, context)

    monkeypatch.setattr(URLNode, "render", counted)
    return rendered


def test_nothing_of_one_viewer_reaches_another():
    ann = UserFactory(username="ann-the-first")
    bob = UserFactory(username="bob-the-second")
    boss = UserFactory(username="the-boss", is_superuser=True, is_staff=True)
    UserFactory(username="someone")  # someone can sign in: the anonymous home page is not the first-run setup
    pages = {
        "ann": signed_in(ann).get("/?show=all").content.decode(),
        "bob": signed_in(bob).get(reverse("player_list")).content.decode(),
        "boss": signed_in(boss).get(reverse("todo")).content.decode(),
        "anonymous": Client().get(reverse("login") + "?next=/todo/").content.decode(),
    }
    for who, page in pages.items():
        own = tokens(page)
        assert len(own) == 1, who  # the sign-out form, the htmx header and the language switch: one token
        for other, other_page in pages.items():
            if other != who:
                assert not own & tokens(other_page), (who, other)
    assert 'data-user="ann-the-first"' in pages["ann"] and 'data-user="bob-the-second"' in pages["bob"]
    assert 'data-user=""' in pages["anonymous"]
    assert all("ann-the-first" not in pages[who] for who in ("bob", "boss", "anonymous"))
    # Each page comes back to itself; a page's own "next" is not echoed.
    assert [next_path(pages[who]) for who in pages] == ["/?show=all", "/players/", "/todo/", "/login/"]
    # Each class its own navigation: the superuser's settings, the member's sign-out, the visitor's sign-in.
    assert reverse("site_settings") in pages["boss"] and reverse("site_settings") not in pages["ann"]
    assert "sign-out" in pages["bob"] and "sign-out" not in pages["anonymous"]
    assert f'href="{reverse("login")}"' in pages["anonymous"] and f'href="{reverse("login")}"' not in pages["bob"]
    # htmx (with this request's CSP nonce) only for someone signed in.
    assert "htmx-2" not in pages["anonymous"] and all("htmx-2" in pages[who] for who in ("ann", "bob", "boss"))
    nonces = {who: re.search(r'nonce="([^"]+)"', pages[who]).group(1) for who in ("ann", "bob", "boss")}
    assert len(set(nonces.values())) == 3


def test_the_chrome_is_rendered_once_per_language_and_viewer_class(chrome_links):
    ann, bob = UserFactory(), UserFactory()
    first = signed_in(ann).get(reverse("home"))
    assert first.status_code == 200 and chrome_links  # rendered for this language and class
    chrome_links.clear()
    page = signed_in(bob).get(reverse("player_list")).content.decode()
    assert chrome_links == []  # the same for Bob: kept
    assert reverse("todo_count") in page and reverse("logout") in page
    german = signed_in(bob).get(reverse("player_list"), HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert chrome_links  # a new language: rendered for it
    assert '<html lang="de">' in german and '<option value="de" lang="de" selected>' in german
    assert '<option value="en-gb" lang="en-gb" selected>' in page


def test_a_views_own_flag_is_not_kept_with_the_chrome():
    client = signed_in(UserFactory())
    assert "data-offline-page" not in client.get(reverse("home")).content.decode()
    assert "data-offline-page" in client.get(reverse("offline_waiting")).content.decode()


@pytest.mark.parametrize(
    "source",
    [
        "{% once_per_language %}{% csrf_token %}{% end_once_per_language %}",
        "{% once_per_language %}{{ user.get_username }}{% end_once_per_language %}",
        "{% once_per_language %}{{ request.path }}{% end_once_per_language %}",
        "{% once_per_language %}{% if user.is_authenticated %}in{% endif %}{% end_once_per_language %}",
        "{% once_per_language viewer %}{% for x in xs %}{% each_request %}{{ x }}{% end_each_request %}{% endfor %}"
        "{% end_once_per_language %}",
        "{% once_per_language %}{% block a %}{% endblock %}{% end_once_per_language %}",
    ],
)
def test_what_differs_per_request_is_refused_outside_each_request(source):
    engine = Engine(libraries={"rendered_once": "ginleague.templatetags.rendered_once"})
    with pytest.raises(TemplateSyntaxError):
        engine.from_string("{% load rendered_once %}" + source)


def test_each_request_parts_are_rendered_in_place_every_time():
    engine = Engine(libraries={"rendered_once": "ginleague.templatetags.rendered_once"})
    template = engine.from_string(
        "{% load rendered_once %}{% once_per_language viewer %}<{% each_request %}{{ name }}{% end_each_request %}|"
        "{% if user.is_authenticated %}in:{% each_request %}{{ token }}{% end_each_request %}{% endif %}>"
        "{% end_once_per_language %}"
    )

    class Viewer:
        is_authenticated, is_superuser = True, False

    assert template.render(Context({"name": "a&b", "user": Viewer(), "token": "t1"})) == "<a&amp;b|in:t1>"
    assert template.render(Context({"name": "c", "user": Viewer(), "token": "t2"})) == "<c|in:t2>"
    assert template.render(Context({"name": "d", "user": None, "token": "t3"})) == "<d|>"


@functools.cache
def _templates():
    """The tags of base.html, and the templates they stand for included: one of each, so that the tags keep what
    they keep from one rendering to the next, as in base.html."""
    engine = engines["django"]
    return (
        engine.from_string("{% load chrome %}{% messages_box %}|{% language_switch %}"),
        engine.from_string('{% include "_messages.html" %}|{% include "_language_switch.html" %}'),
    )


def _with_and_without_tags(context: dict, request=None) -> tuple[str, str]:
    """The footer and the messages' box through the tags of base.html, and through including their templates."""
    tags, included = _templates()
    return tags.render(context, request), included.render(context, request)


@pytest.mark.parametrize(
    "address", ["/players/", "/players/?next=/todo/", "/login/?a=1&b=%3Cx%3E", "/players/?next=&next=/x"]
)
def test_the_chromes_tags_write_what_including_their_templates_wrote(rf, address):
    request = rf.get(address)
    for language in ("en-gb", "de", "fr", "en-gb"):
        with translation.override(language):
            for token in ("t0k3n-one", "t0k3n-two", ""):  # each request its own token (or none: no field)
                tags, included = _with_and_without_tags({"csrf_token": token}, request)
                assert tags == included
                assert (f'value="{token}"' in tags) == bool(token)
            tags, included = _with_and_without_tags({"csrf_token": "t"})  # a page drawn without a request
            assert tags == included and 'name="next" value=""' in tags


def test_the_language_switch_is_kept_per_language_and_script_prefix(rf):
    request = rf.get("/players/")
    seen = set()
    for language, prefix in (("en-gb", "/"), ("de", "/"), ("en-gb", "/under/"), ("de", "/under/"), ("en-gb", "/")):
        set_script_prefix(prefix)
        try:
            with translation.override(language):
                tags, included = _with_and_without_tags({"csrf_token": "t"}, request)
        finally:
            set_script_prefix("/")
        assert tags == included
        seen.add(tags)
    assert len(seen) == 4  # each language and prefix its own switch
    # A changed setting (the languages offered) is shown at once.
    with override_settings(LANGUAGES=[("en-gb", "English"), ("nl", "Nederlands")]):
        tags, included = _with_and_without_tags({"csrf_token": "t"}, request)
    assert tags == included and "Nederlands" in tags and "Deutsch" not in tags


def test_the_messages_box_shows_a_message_and_an_htmx_swap(rf):
    shown = [Message(constants.ERROR, "The game is <over>")]
    for context in ({"messages": shown}, {"messages": [], "oob": True}, {"messages": shown, "oob": True}, {}):
        tags, included = _with_and_without_tags({"csrf_token": "t", **context}, rf.get("/"))
        assert tags == included
    tags, _ = _with_and_without_tags({"csrf_token": "t", "messages": shown}, rf.get("/"))
    assert "The game is &lt;over&gt;" in tags


def test_a_page_shows_the_message_left_for_it_once(rf):
    client = signed_in(UserFactory())
    client.cookies["messages"] = CookieStorage(rf.get("/"))._encode([Message(constants.ERROR, "Refused: <why>")])
    page = client.get(reverse("player_list")).content.decode()
    assert '<ul class="messages" role="status"><li class="error">Refused: &lt;why&gt;</li></ul>' in page
    assert '<div id="messages"></div>' in client.get(reverse("player_list")).content.decode()  # said once
