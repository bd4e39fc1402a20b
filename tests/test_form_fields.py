"""The hand forms' radio rows and deadwood boxes, written in Python (scoring/templatetags/form_fields.py), are
what their templates wrote, to the character: the templates they replaced are kept here and both are rendered
for fields blank, chosen, refused, labelled otherwise and prefixed, in two languages."""

from __future__ import annotations

import pytest
from django.http import QueryDict
from django.template import engines
from django.utils.translation import override

from scoring.engine.card_facts import ALL_CARDS
from scoring.engine.rules import resolve_rules
from scoring.forms import BoardForm, HandForm, NewGameForm
from tests.factories import PlayerFactory, make_game

pytestmark = pytest.mark.django_db

# templates/scoring/_choices.html and _number.html as they were, included as `{% include ... with field=... %}`.
CHOICES = """{% with name=field.html_name value=field.value|stringformat:"s" %}<fieldset class="picks\
{% if css %} {{ css }}{% endif %}{% if field.errors %} has-error{% endif %}">
  <legend>{{ legend|default:field.label }}</legend>
  <div class="pick-row">{% for choice, label in field.field.choices %}<label class="pick" \
for="{{ field.auto_id }}_{{ forloop.counter0 }}"><input type="radio" name="{{ name }}" value="{{ choice }}" \
id="{{ field.auto_id }}_{{ forloop.counter0 }}"{% if field.field.required %} required{% endif %}\
{% if choice|stringformat:"s" == value %} checked{% endif %}><span>{{ label }}</span></label>{% endfor %}</div>
  {% for error in field.errors %}<p class="error" role="alert">{{ error }}</p>{% endfor %}
</fieldset>{% endwith %}
"""
NUMBER = """{% load i18n %}<div class="field{% if css %} {{ css }}{% endif %}\
{% if field.errors %} has-error{% endif %}">
  <label for="{{ field.auto_id }}">{{ field.label }}</label>
  <input type="text" name="{{ field.html_name }}" id="{{ field.auto_id }}" inputmode="numeric" pattern="[0-9]*" \
title="{{ field.field.error_messages.invalid }}" autocomplete="off" value="{{ field.value|default_if_none:'' }}"\
{% if field.help_text or from_cards %} aria-describedby="{{ field.auto_id }}_helptext"{% endif %}\
{% if field.errors %} aria-invalid="true"{% endif %}>
  {% if from_cards %}<small class="help" id="{{ field.auto_id }}_helptext">{% translate "best play from the cards; \
change it if play differed" %}</small>{% elif field.help_text %}<small class="help" id="{{ field.auto_id }}_helptext">\
{{ field.help_text }}</small>{% endif %}
  {% for error in field.errors %}<p class="error" role="alert">{{ error }}</p>{% endfor %}
</div>
"""


def both(tag: str, old: str, **context) -> tuple[str, str]:
    """(the tag's HTML, the old template's) for the same context."""
    engine = engines["django"]
    written = engine.from_string("{% load form_fields %}" + tag).render(context)
    return written, engine.from_string(old).render(context)


@pytest.fixture
def game():
    ann, bob = PlayerFactory(name='Ann <&> "O\'Hara"'), PlayerFactory(name="Bob")
    return make_game(player_one=ann, player_two=bob, rules={"preset": "oklahoma"})


def hand_forms(game):
    rules = resolve_rules(game.rules)
    blank = HandForm(game=game, rules=rules, initial={"expected_number": 1})
    chosen = HandForm(
        QueryDict(f"ending=knock&by={game.player_two_id}&upcard_rank=Q&upcard_suit=H&knocker_deadwood=4"),
        game=game,
        rules=rules,
    )
    refused = HandForm(QueryDict("ending=nope&by=x&upcard_rank=Q&knocker_deadwood=four"), game=game, rules=rules)
    refused.add_refusal("defender_deadwood", "too <many>")
    board = BoardForm(
        QueryDict("ending=gin&board=2&defender_deadwood=12"),
        game=game,
        rules=rules,
        pair=(game.player_two, game.player_one),
        auto_id="id_b2_%s",
    )
    for form in (blank, chosen, refused, board):
        form.is_valid()
    return blank, chosen, refused, board


@pytest.mark.parametrize("language", ["en", "de"])
def test_picks_write_what_the_template_wrote(game, language):
    with override(language):
        forms = hand_forms(game)
        new_game = NewGameForm(QueryDict("first_dealer=two&partner_opponents=fixed"))
        new_game.is_valid()
        cases = [(form, name) for form in forms for name in ("ending", "by", "upcard_rank", "upcard_suit")]
        cases += [(new_game, "first_dealer"), (new_game, "partner_opponents"), (NewGameForm(), "first_dealer")]
        checked = 0
        for form, name in cases:
            for css, legend in (("endings", ""), ("ranks", "Rank <r>"), ("", "")):
                field = form[name]
                tag = "{% picks field css legend %}" if legend else "{% picks field css %}"
                written, old = both(tag, CHOICES, field=field, css=css, **({"legend": legend} if legend else {}))
                assert written == old, (name, css, legend)
                checked += " checked" in written
        assert checked  # the chosen values were among the cases


@pytest.mark.parametrize("language", ["en", "de"])
def test_number_boxes_write_what_the_template_wrote(game, language):
    with override(language):
        for form in hand_forms(game):
            for name in ("knocker_deadwood", "defender_deadwood"):
                for css, from_cards in (("knocker", False), ("defender", True), ("", False)):
                    field = form[name]
                    tag = "{% number_box field css from_cards %}"
                    written, old = both(tag, NUMBER, field=field, css=css, from_cards=from_cards)
                    assert written == old, (name, css, from_cards)
                    written, old = both("{% number_box field css %}", NUMBER, field=form[name], css=css)
                    assert written == old, (name, css)


def test_each_hand_form_has_its_own_card_boxes_over_the_same_52_cards(game):
    """A hand form's card fields share the 52 choices with every other form's, but not their widgets: what one
    form sets on its card boxes never shows on another's."""
    rules = resolve_rules(game.rules)
    one, two = HandForm(game=game, rules=rules), HandForm(game=game, rules=rules)
    one.fields["cards_one"].widget.attrs["data-mine"] = "yes"
    assert "data-mine" not in two.fields["cards_one"].widget.attrs
    assert "data-mine" not in HandForm.base_fields["cards_one"].widget.attrs
    for name in ("cards_one", "cards_two"):
        field = two.fields[name]
        assert [code for code, _label in field.widget.choices] == list(ALL_CARDS) == [code for code, _ in field.choices]
    picked = HandForm(
        QueryDict(f"ending=gin&by={game.player_one_id}&defender_deadwood=3&cards_one=AS&cards_one=XX"),
        game=game,
        rules=rules,
    )
    assert not picked.is_valid()
    assert "cards_one" in picked.errors
