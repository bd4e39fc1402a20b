"""The new-game page's content, written in Python (scoring/new_game_html.py: the form's fields and the recent
games), reads character for character as the template engine wrote it: templates/scoring/game_new.html's
content as it was before issue 40, which included scoring/_field.html and _choices.html for each field, is
kept here as the reference and rendered with the page's own form. Blank, repeating the last game, from a
partnership game, refused with errors (typed text echoed back escaped), checked, in English and German.
(scoring/_choices.html, gone since, is tests/test_form_fields.py's CHOICES.)"""

from __future__ import annotations

import copy
import re

import pytest
from django.db.models import Q
from django.template import engines
from django.urls import reverse

from players.models import Player
from scoring.engine.rules import preset_label
from scoring.models import Game
from scoring.permissions import played_by_q
from scoring.views import _rules_summary, _sides_named
from tests.factories import PlayerFactory, UserFactory, make_game
from tests.test_form_fields import CHOICES

pytestmark = pytest.mark.django_db

# templates/scoring/game_new.html's form before issue 40 (the form's own overrides_open and override_fields
# are given by the test, as the form said them; `choices` is scoring/_choices.html as it was).
REFERENCE = """<h1>{% translate "New game" %}</h1>
{% if recent %}
<section class="recent" aria-label="{% translate 'Play again with recent opponents' %}">
  <h2>{% translate "Play again" %}</h2>
  <ul class="recent-list">
  {% for item in recent %}
    <li>
      <form method="post" action="{% url 'play_again' item.game.pk %}">{% csrf_token %}
        <button type="submit" class="chip">{% blocktranslate with one=item.sides.0 two=item.sides.1 %}{{ one }} v {{ two }}{% endblocktranslate %}
          <small>{{ item.preset_label }}{% for label, value in item.overrides %} · {{ label }}: {{ value }}{% endfor %}</small></button>
      </form>
      <a class="tweak" href="{% url 'game_new' %}?from={{ item.game.pk }}" aria-label="{% blocktranslate with one=item.sides.0 two=item.sides.1 %}Change the rules for {{ one }} v {{ two }}{% endblocktranslate %}">{% translate "change…" %}</a>
    </li>
  {% endfor %}
  </ul>
</section>
{% endif %}
<form class="new-game" method="post" action="{% url 'game_new' %}">
  {% csrf_token %}
  {% for error in form.non_field_errors %}<p class="error" role="alert">{{ error }}</p>{% endfor %}
  <datalist id="player-names">{% for name in player_names %}<option value="{{ name }}">{% endfor %}</datalist>
  <div class="pair">
    {% include "scoring/_field.html" with field=form.player_one %}
    {% include "scoring/_field.html" with field=form.player_two %}
  </div>
  <fieldset class="partnership-only">
    <legend>{% translate "Partnership gin: the other two players" %}</legend>
    <p class="help" id="sides-help">{% translate "Two sides: the first and third players against the second and fourth. Partners sit opposite each other; each plays one board against an opponent." %}</p>
    <div class="pair">
      {% include "scoring/_field.html" with field=form.player_three %}
      {% include "scoring/_field.html" with field=form.player_four %}
    </div>
    {% include choices with field=form.partner_opponents css="partner-pick" %}
  </fieldset>
  {% include choices with field=form.first_dealer css="dealer-pick" %}
  <div class="rules-pick" hx-post="{% url 'rules_check' %}" hx-trigger="change, input changed delay:400ms"
       hx-include="closest form" hx-target="#rules-summary" hx-swap="outerHTML">
    {% include "scoring/_field.html" with field=form.preset %}
    <div class="field check{% if form.hollywood.errors %} has-error{% endif %}">
      {{ form.hollywood }} <label for="{{ form.hollywood.id_for_label }}">{{ form.hollywood.label }}</label>
      <small class="help hollywood-note">{{ form.hollywood.help_text }}</small>
      {% for error in form.hollywood.errors %}<p class="error" role="alert">{{ error }}</p>{% endfor %}
    </div>
    <details class="overrides"{% if overrides_open %} open{% endif %}>
      <summary>{% translate "Change a rule (house rules)" %}</summary>
      <p class="help">{% translate "Leave a box empty to keep the preset's value." %}</p>
      <div class="override-grid">
      {% for field in override_fields %}{% include "scoring/_field.html" %}{% endfor %}
      </div>
    </details>
  </div>
  {% partialdef rules_summary inline %}
  <div id="rules-summary" class="rules-summary" aria-live="polite">
    {% for error in rule_errors %}<p class="error">{{ error }}</p>{% endfor %}
    {% if checked_rules %}
    <p class="these-rules"><strong>{% translate "These rules:" %}</strong> {{ checked_preset }}{% for label, value in checked_overrides %} · {{ label }}: {{ value }}{% endfor %}</p>
    <dl>{% for label, value in checked_rules %}<div><dt>{{ label }}</dt><dd>{{ value }}</dd></div>{% endfor %}</dl>
    {% endif %}
  </div>
  {% endpartialdef %}
  <div class="buttons">
    <button type="submit" name="action" value="start" class="primary">{% translate "Start the game" %}</button>
    <button type="submit" name="action" value="check" class="secondary">{% translate "Show the rules" %}</button>
  </div>
</form>"""  # noqa: E501 - the template's own lines


def the_form(page) -> str:
    """The page from its heading to the end of its form: the recent games and the form."""
    html = page.content.decode()
    start = html.index("<h1>")
    return html[start : html.index("</form>", html.index('<form class="new-game"')) + len("</form>")]


def recent_games(user) -> list[Game]:
    """The page's "play again" games as its view chose them before: of the user's 30 latest games (started or
    played), the latest of each set of players, five at most."""
    games = Game.objects.filter(Q(created_by=user) | played_by_q(user)).order_by("-created_at")[:30]
    seen, recent = set(), []
    for game in games:
        players = frozenset((game.player_one_id, game.player_two_id, game.player_three_id, game.player_four_id))
        if players not in seen and len(recent) < 5:
            seen.add(players)
            recent.append(game)
    return recent


def as_the_templates_wrote_it(page, user) -> str:
    """The reference rendered with the page's own form: each field its own copy, who deals first offered by
    the names typed (as the form's fields were before they were shared)."""
    form = page.context["form"]
    form.fields = copy.deepcopy(form.fields)
    form.fields["first_dealer"].choices = form.dealer_choices()
    form._bound_fields_cache = {}
    overrides = [form[name] for name in form.fields if name.startswith("rule_")]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)
    rules = form.cleaned_data.get("rules") if form.is_bound else None
    context = {
        "form": form,
        "recent": [
            {
                "game": game,
                "overrides": game.rule_set.describe_overrides(),
                "preset_label": preset_label(game.preset),
                "sides": _sides_named(game),
            }
            for game in recent_games(user)
        ],
        "choices": engines["django"].from_string(CHOICES),
        "csrf_token": token,
        "player_names": list(Player.objects.order_by("name").values_list("name", flat=True)[:300]),
        "override_fields": overrides,
        "overrides_open": any(field.value() not in (None, "") or field.errors for field in overrides),
        **_rules_summary(rules),
    }
    return engines["django"].from_string("{% load i18n %}" + REFERENCE).render(context)


@pytest.fixture
def scorer(client):
    user = UserFactory(username="scorer")
    client.force_login(user)
    return client, user


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_form_is_what_the_field_templates_wrote(scorer, language):
    client, user = scorer
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    new = reverse("game_new")
    ann, bob = PlayerFactory(name="Ann"), PlayerFactory(name="O'Brien & <b>Bob</b>")
    cat, dan = PlayerFactory(name="Cat"), PlayerFactory(name='Dan "the hand"')
    pages = {"blank": client.get(new, **headers)}
    references = {"blank": as_the_templates_wrote_it(pages["blank"], user)}  # before there are recent games
    partnership = services_partnership_game(user, ann, bob, cat, dan)
    make_game(player_one=ann, player_two=bob, created_by=user, rules={"preset": "hollywood"})
    house = {"preset": "standard", "target": 250, "big_gin_bonus": None, "shutout_mode": "double_total",
             "spade_double": True, "hollywood": True}  # fmt: skip
    make_game(player_one=bob, player_two=dan, created_by=user, rules=house)  # the last game
    pages["the last game's rules"] = client.get(new, **headers)
    pages["from a partnership game"] = client.get(f"{new}?from={partnership.pk}", **headers)
    posted = {
        "refused, typed text echoed": {"player_one": '<b>"Ann" & co</b>', "player_two": "", "preset": "nope"},
        "checked": {"player_one": "Ann", "player_two": "Bob", "preset": "standard", "first_dealer": "two",
                    "rule_target": "300", "rule_big_gin_bonus": "off", "rule_shutout_mode": "add", "action": "check"},
        "partnership refused": {"player_one": "Ann", "player_two": "Ann", "player_four": "ann", "preset": "partnership",
                                "first_dealer": "three", "partner_opponents": "alternate", "action": "start"},
        "two players, a third named, Hollywood ticked": {"player_one": "Ann", "player_two": "Bob",
                                                         "player_three": "Cat", "preset": "standard",
                                                         "first_dealer": "three", "hollywood": "on", "action": "start"},
        "overrides refused": {"player_one": "  Ann  ", "player_two": "Bob", "preset": "oklahoma", "first_dealer": "x",
                              "rule_undercut_on_tie": "maybe", "rule_big_gin_bonus": "xx", "rule_knock_limit": "-3",
                              "rule_target": "abc", "rule_next_dealer": "winner", "action": "check"},
    }  # fmt: skip
    for state, data in posted.items():
        pages[state] = client.post(new, data, **headers)
    assert [page.status_code for page in pages.values()] == [200, 200, 200, 422, 200, 422, 422, 422]
    for state, page in pages.items():
        assert the_form(page) == references.get(state, as_the_templates_wrote_it(page, user)), state
    # The states above show what they are about.
    assert 'value="&lt;b&gt;&quot;Ann&quot; &amp; co&lt;/b&gt;"' in the_form(pages["refused, typed text echoed"])
    assert '<details class="overrides" open>' in the_form(pages["the last game's rules"])
    assert '<option value="double_total" selected>' in the_form(pages["the last game's rules"])
    assert 'name="player_three" value="Cat"' in the_form(pages["from a partnership game"])
    assert "<span>O&#x27;Brien &amp; &lt;b&gt;Bob&lt;/b&gt;</span>" in the_form(pages["from a partnership game"])
    assert 'aria-invalid="true"' in the_form(pages["overrides refused"])
    assert 'id="id_hollywood" checked>' in the_form(pages["two players, a third named, Hollywood ticked"])
    assert 'class="chip">O&#x27;Brien &amp; &lt;b&gt;Bob&lt;/b&gt; ' in the_form(pages["checked"])  # the last game
    assert " · " in the_form(pages["checked"])  # its house rules named
    assert "<h2>" not in the_form(pages["blank"])  # no recent games yet
    # The title, and the words around the recent games, in the page's language (each kept per language).
    title = {"en": "<title>New game · GinLeague</title>", "de": "<title>Neue Partie · GinLeague</title>"}[language]
    assert all(title in page.content.decode() for page in pages.values())


def services_partnership_game(user, *players):
    from scoring import services

    one, two, three, four = players
    return services.game_create(
        player_one=one, player_two=two, player_three=three, player_four=four, first_dealer=two,
        rules={"preset": "partnership", "partner_opponents": "alternate"}, created_by=user,
    )  # fmt: skip


def test_play_again_offers_the_latest_game_of_each_set_of_players_five_at_most():
    from scoring.selectors import recent_sittings

    user, other = UserFactory(username="scorer"), UserFactory(username="other")
    me = PlayerFactory(name="Me")
    me.user = user
    me.save()
    names = [PlayerFactory(name=f"Rival {number} <&>") for number in range(7)]
    rivals = [0, 1, 2, 3, 4, 5, 4, 5]  # the two latest games repeat two earlier sets of players
    games = [make_game(player_one=names[rival], player_two=names[6], created_by=user) for rival in rivals]
    played = make_game(player_one=names[0], player_two=me)  # started by no account of theirs
    make_game(player_one=names[1], player_two=names[2], created_by=other)  # neither started nor played
    sittings = recent_sittings(user)
    assert [game.pk for game in sittings] == [game.pk for game in recent_games(user)]
    assert [game.pk for game in sittings] == [played.pk, games[7].pk, games[6].pk, games[3].pk, games[2].pk]
    assert (sittings[0].player_one.name, sittings[0].player_two.name) == ("Rival 0 <&>", "Me")
    assert sittings[1].rule_set.preset == "standard" and sittings[1].player_three is None


def test_an_unbound_forms_fields_are_kept_per_language_and_initial_values():
    """Every GET's form is written once per language and initial values: what is kept reads as the form written
    anew, whichever language and last game came before it."""
    from django.utils import translation

    from scoring.forms import NewGameForm
    from scoring.new_game_html import fields_written, new_game_fields

    initials = [
        {},
        {"preset": "hollywood", "hollywood": True},
        {"preset": "standard", "hollywood": True, "rule_target": 250, "rule_big_gin_bonus": "off",
         "rule_shutout_mode": "double_total", "rule_spade_double": "yes"},
        {"player_one": "O'Brien & <b>Bob</b>", "player_two": "Ann", "player_three": "Cat", "player_four": 'Dan "x"',
         "preset": "partnership", "hollywood": False, "partner_opponents": "alternate"},
        {"preset": "oklahoma", "hollywood": False},
    ]  # fmt: skip
    written = set()
    for language in ("en", "de", "en", "de"):
        with translation.override(language):
            for initial in initials:
                kept = new_game_fields(NewGameForm(initial=initial))
                assert kept == fields_written(NewGameForm(initial=initial)), (language, initial)
                written.add(tuple(kept.values()))
    assert len(written) == 2 * len(initials)  # each language and last game its own


def test_the_words_kept_per_language_follow_the_language_of_each_load(scorer):
    """The title and the words around the recent games (kept once per language) in each load's own language."""
    client, user = scorer
    make_game(player_one=PlayerFactory(name="Ann"), player_two=PlayerFactory(name="Bob"), created_by=user)
    said = {
        "en": ("<title>New game · GinLeague</title>", 'aria-label="Play again with recent opponents"'),
        "de": ("<title>Neue Partie · GinLeague</title>", 'aria-label="Noch einmal gegen letzte Gegner spielen"'),
    }
    for language in ("en", "de", "en", "de"):
        page = client.get(reverse("game_new"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        assert all(words in page for words in said[language]), language


def test_a_recent_games_rules_are_written_in_the_language_of_the_page_and_by_its_own_rules():
    """The words of a recent game's rules are kept per language, preset and rule set: each the words the rule
    set's own describe gives in the page's language, never another language's or another game's."""
    import re

    from django.utils import translation
    from django.utils.html import conditional_escape

    from scoring.engine.rules import resolve_rules
    from scoring.new_game_html import recent_items

    games = [
        ("standard", resolve_rules({"preset": "standard", "target": 250, "big_gin_bonus": None})),
        ("standard", resolve_rules({"preset": "standard"})),
        ("hollywood", resolve_rules({"preset": "hollywood"})),
        ("standard", resolve_rules({"preset": "standard", "target": 300})),
    ]
    written = {}
    for language in ("en", "de", "en"):
        with translation.override(language):
            items = [{"pk": pk, "sides": ("Ann", "Bob"), "preset": preset, "rule_set": rules}
                     for pk, (preset, rules) in enumerate(games, start=1)]  # fmt: skip
            html = recent_items(items, csrf_token="token")
            expected = [
                conditional_escape(preset_label(preset))
                + "".join(
                    f" · {conditional_escape(label)}: {conditional_escape(value)}"
                    for label, value in rules.describe_overrides()
                )  # fmt: skip
                for preset, rules in games
            ]
        assert re.findall(r"<small>(.*?)</small>", html) == expected
        written[language] = expected
    assert written["en"] != written["de"]
    assert len(set(written["en"])) == len(games)


def test_errors_of_no_field_are_written_as_the_template_loop_wrote_them():
    from django.template import engines

    from scoring.forms import NewGameForm
    from scoring.new_game_html import new_game_fields

    form = NewGameForm({"player_one": "Ann", "player_two": "Bob", "preset": "standard", "first_dealer": "one"})
    form.is_valid()
    form.add_error(None, 'Ann & <b>"Bob"</b> cannot play now')
    form.add_error(None, "A second one")
    loop = '{% for error in form.non_field_errors %}<p class="error" role="alert">{{ error }}</p>{% endfor %}'
    expected = engines["django"].from_string(loop).render({"form": form})
    assert new_game_fields(form)["non_field_errors"] == expected
    assert expected.count('role="alert"') == 2 and "&lt;b&gt;" in expected


def test_the_name_boxes_offer_a_player_added_since_the_last_visit(scorer):
    client, user = scorer
    PlayerFactory(name="Ann")
    first = client.get(reverse("game_new")).content.decode()
    assert '<option value="Ann">' in first and "Zed" not in first
    PlayerFactory(name='Zed "<z>"')
    again = client.get(reverse("game_new")).content.decode()
    offered = '<option value="Ann"><option value="Zed &quot;&lt;z&gt;&quot;">'
    assert f'<datalist id="player-names">{offered}</datalist>' in again
