"""The new-game page's own HTML, written in Python: the form's fields and the recent games (issue 40).

The page included templates/scoring/_field.html (or a radio row) once per field and rendered 26 widgets
through Django's form machinery, and each recent game through two blocktranslates, two URLs and a CSRF
tag: ~7 ms a request, nearly all of it the same every time. Here the parts of a field that depend only on
the code and the language (its label, help text, attributes and choices) are written once per language
per process, and each request fills in its own values and errors; the page's words around them are
rendered once per language by the template ({% once_per_language %}). The HTML is character for
character what the templates wrote (tests/test_new_game_html.py renders both).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from functools import lru_cache
from weakref import WeakKeyDictionary

from django import forms
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import trans_real

from ginleague.forms import attrs_html
from scoring.engine.rules import RuleSet, preset_label
from scoring.forms import OVERRIDE_RULES, SEAT_LABELS, NewGameForm

OVERRIDES = tuple(f"rule_{name}" for name in OVERRIDE_RULES)
SEATS = ("player_one", "player_two", "player_three", "player_four")


@dataclass(frozen=True, slots=True)
class _Fixed:
    """A field's markup that is the same for every request in one language."""

    name: str
    id: str
    label: str  # escaped
    help: str  # escaped, "" without one
    attrs: str  # the widget's own attributes ("required" included), up to where a request's begin
    choices: tuple[tuple[str, str, str], ...]  # (value, value as written, label as written)
    blank: str = ""  # the whole field with no value and no error (templates/scoring/_field.html's layout)


def _written_choices(choices) -> tuple[tuple[str, str, str], ...]:
    return tuple((str(value), conditional_escape(value), conditional_escape(label)) for value, label in choices)


def _fixed(name: str, field: forms.Field) -> _Fixed:
    widget = field.widget
    attrs = dict(widget.attrs)
    # BoundField.build_widget_attrs: whether the field is required never depends on the value here.
    if widget.use_required_attribute(None) and field.required:
        attrs["required"] = True
    fixed = _Fixed(
        name=name,
        id=f"id_{name}",
        label=conditional_escape(field.label),
        help=conditional_escape(field.help_text) if field.help_text else "",
        attrs=attrs_html(attrs),
        choices=_written_choices(getattr(field, "choices", ())),
    )
    if isinstance(widget, forms.RadioSelect | forms.CheckboxInput):
        return fixed
    return replace(fixed, blank=_field(fixed, widget, None, []))


@dataclass(frozen=True, slots=True)
class _Words:
    """What the page writes that depends only on the code and the language."""

    fields: dict[str, _Fixed]
    versus: str  # "%(one)s v %(two)s"
    change_rules: str  # "Change the rules for %(one)s v %(two)s"
    change: str  # escaped
    # An unbound form's fields by its initial values (new_game_fields): the page as a GET offers it.
    unbound: dict = dataclass_field(default_factory=dict, compare=False)
    # A recent game's rules in words, escaped, by its preset and RuleSet (recent_items).
    rules: dict = dataclass_field(default_factory=dict, compare=False)


# Written once per language per process: one table per translation catalog (a language, or a test's
# stand-in for one), dropped with its catalog.
_WORDS: WeakKeyDictionary = WeakKeyDictionary()


def _words() -> _Words:
    catalog = trans_real.catalog()
    words = _WORDS.get(catalog)
    if words is None:
        fields = {name: _fixed(name, field) for name, field in NewGameForm().fields.items()}
        words = _WORDS[catalog] = _Words(
            fields=fields,
            versus=_("%(one)s v %(two)s"),
            change_rules=_("Change the rules for %(one)s v %(two)s"),
            change=conditional_escape(_("change…")),
        )
    return words


def _value(form: NewGameForm, name: str):
    """BoundField.value(): the value posted, or the initial one."""
    field = form.fields[name]
    value = form.get_initial_for_field(field, name)
    if form.is_bound:
        value = field.bound_data(field.widget.value_from_datadict(form.data, form.files, name), value)
    return field.prepare_value(value)


def _error_lines(errors: list[str]) -> str:
    return "".join(f'<p class="error" role="alert">{error}</p>' for error in errors)


def _request_attrs(fixed: _Fixed, errors: list[str]) -> str:
    """BoundField.build_widget_attrs's aria-invalid and aria-describedby, then the id."""
    described = [f"{fixed.id}_helptext"] if fixed.help else []
    if errors:
        described.append(f"{fixed.id}_error")
    return (
        (' aria-invalid="true"' if errors else "")
        + (f' aria-describedby="{" ".join(described)}"' if described else "")
        + f' id="{fixed.id}"'
    )


def _widget(fixed: _Fixed, widget: forms.Widget, value, errors: list[str]) -> str:
    """The field's input or select, as ginleague.forms.FastWidgets writes it."""
    value = widget.format_value(value)
    attrs = fixed.attrs + _request_attrs(fixed, errors)
    if isinstance(widget, forms.Select):
        options, found = [], False
        for choice, written, label in fixed.choices:
            selected = not found and choice in value
            found = found or selected
            options.append(f'\n  <option value="{written}"{" selected" if selected else ""}>{label}</option>\n')
        return f'<select name="{fixed.name}"{attrs}>{"".join(options)}\n</select>'
    shown = "" if value is None else f' value="{conditional_escape(value)}"'
    return f'<input type="{widget.input_type}" name="{fixed.name}"{shown}{attrs}>'


def _field(fixed: _Fixed, widget: forms.Widget, value, errors: list[str]) -> str:
    """templates/scoring/_field.html."""
    help_line = f'<small class="help" id="{fixed.id}_helptext">{fixed.help}</small>' if fixed.help else ""
    return (
        f'<div class="field{" has-error" if errors else ""}">\n'
        f'  <label for="{fixed.id}">{fixed.label}</label>\n'
        f"  {_widget(fixed, widget, value, errors)}\n"
        f"  {help_line}\n"
        f"  {_error_lines(errors)}\n"
        "</div>\n"
    )


def _choices(fixed: _Fixed, value, errors: list[str], css: str, *, required: bool, written=None) -> str:
    """A radio row, as {% picks %} (scoring/templatetags/form_fields.py) writes one, its labels and choices
    written once per language (``written``: this request's own, as _written_choices writes them)."""
    value = str(value)
    written_choices = fixed.choices if written is None else written
    required_attr = " required" if required else ""
    picks = "".join(
        f'<label class="pick" for="{fixed.id}_{index}"><input type="radio" name="{fixed.name}" value="{written}" '
        f'id="{fixed.id}_{index}"{required_attr}{" checked" if choice == value else ""}><span>{label}</span></label>'
        for index, (choice, written, label) in enumerate(written_choices)
    )
    return (
        f'<fieldset class="picks {css}{" has-error" if errors else ""}">\n'
        f"  <legend>{fixed.label}</legend>\n"
        f'  <div class="pick-row">{picks}</div>\n'
        f"  {_error_lines(errors)}\n"
        "</fieldset>\n"
    )


def _hollywood(fixed: _Fixed, widget: forms.CheckboxInput, value, errors: list[str]) -> str:
    """The Hollywood box, as templates/scoring/game_new.html laid it out."""
    shown = widget.format_value(value)
    box = (
        f'<input type="checkbox" name="{fixed.name}"{"" if shown is None else f' value="{conditional_escape(shown)}"'}'
        f"{fixed.attrs}{_request_attrs(fixed, errors)}{' checked' if widget.check_test(value) else ''}>"
    )
    return (
        f'<div class="field check{" has-error" if errors else ""}">\n'
        f'      {box} <label for="{fixed.id}">{fixed.label}</label>\n'
        f'      <small class="help hollywood-note">{fixed.help}</small>\n'
        f"      {_error_lines(errors)}\n"
        "    </div>"
    )


def _safe(text: str) -> SafeString:
    return mark_safe(text)  # noqa: S308 - every text in it was escaped above (labels, values, errors, choices)


def _escaped(text) -> SafeString:
    """conditional_escape(text): a plain text (a name, the token) escaped at once, as django.utils.html.escape
    does it, without the checks for lazy and safe values around it (~14k instructions, five a recent game)."""
    if type(text) is str:
        return SafeString(html.escape(text))
    return conditional_escape(text)


# Unbound forms' fields kept per language: the initial values are the last game's rules (and with ?from=, its
# players' names), so there are as many as games differ; the oldest go first past this many.
UNBOUND_KEPT = 256


def new_game_fields(form: NewGameForm) -> dict[str, SafeString | bool]:
    """The form's fields as the new-game page places them: each seat's box, the pickers, the preset, the
    Hollywood box, the overrides (and whether they open: one is set or refused).

    An unbound form's (every GET's) depend only on the language and its initial values: written once per
    language and initial values, the first time they are asked for (a form given values that are no key, not
    kept)."""
    if form.is_bound:
        return fields_written(form)
    words = _words()
    try:
        key = tuple(sorted(form.initial.items()))
        kept = words.unbound.get(key)
    except TypeError:  # a value that cannot be a key
        return fields_written(form)
    if kept is None:
        if len(words.unbound) >= UNBOUND_KEPT:
            del words.unbound[next(iter(words.unbound))]
        kept = words.unbound[key] = fields_written(form)
    return dict(kept)


def fields_written(form: NewGameForm) -> dict[str, SafeString | bool]:
    """new_game_fields, written anew."""
    fixed, errors = _words().fields, form.errors
    values = {name: _value(form, name) for name in form.fields}
    said = {name: [conditional_escape(error) for error in errors[name]] for name in errors}

    def box(name: str) -> str:
        value, refused = values[name], said.get(name, [])
        if value in (None, "") and not refused:
            return fixed[name].blank
        return _field(fixed[name], form.fields[name].widget, value, refused)

    def row(name: str, css: str, written=None) -> str:
        required = form.fields[name].required
        return _choices(fixed[name], values[name], said.get(name, []), css, required=required, written=written)

    # Who deals first, by the names typed; a seat with none keeps the field's own label, written once per language.
    dealers = [
        fixed_choice if label is SEAT_LABELS[seat] else _written_choices([(seat, label)])[0]
        for (seat, label), fixed_choice in zip(form.dealer_choices(), fixed["first_dealer"].choices, strict=True)
    ]

    return {
        "non_field_errors": _safe(_error_lines([conditional_escape(error) for error in form.non_field_errors()])),
        **{seat: _safe(box(seat)) for seat in SEATS},
        "partner_opponents": _safe(row("partner_opponents", "partner-pick")),
        "first_dealer": _safe(row("first_dealer", "dealer-pick", dealers)),
        "preset": _safe(box("preset")),
        "hollywood": _safe(
            _hollywood(
                fixed["hollywood"], form.fields["hollywood"].widget, values["hollywood"], said.get("hollywood", [])
            )
        ),
        "overrides": _safe("".join(box(name) for name in OVERRIDES)),
        "overrides_open": any(values[name] not in (None, "") or name in errors for name in OVERRIDES),
    }


def player_options(names: list[str]) -> SafeString:
    """The datalist of player names the name boxes offer (up to 300 names, each escaped: kept while the names
    read are the same, as they are from one GET to the next)."""
    return _options(tuple(names))


@lru_cache(maxsize=8)
def _options(names: tuple[str, ...]) -> SafeString:
    return _safe("".join(f'<option value="{escape(name)}">' for name in names))


# Each script prefix's (and URL configuration's) address of a new game and of playing a game again, with a
# stand-in id cut out where the game's goes: reverse() was most of writing a recent game.
_ID_STAND_IN = 918_273_645
_URLS: dict[tuple, tuple[str, tuple[str, str]]] = {}


def _urls() -> tuple[str, tuple[str, str]]:
    key = (get_script_prefix(), get_urlconf())
    urls = _URLS.get(key)
    if urls is None:
        play_again = reverse("play_again", args=[_ID_STAND_IN]).split(str(_ID_STAND_IN))
        urls = _URLS[key] = (reverse("game_new"), (play_again[0], play_again[1]))
    return urls


RULES_WORDS_KEPT = 512  # distinct rule sets' words kept per language (each a line of text)


def _rules_words(words: _Words, preset: str, rule_set: RuleSet) -> str:
    """A game's rules as its recent item names them, escaped: its preset, then each rule it changes. The same
    for every game of those rules in one language, so kept: each was a preset's and a dozen rules' gettext."""
    key = (preset, rule_set)
    text = words.rules.get(key)
    if text is None:
        if len(words.rules) >= RULES_WORDS_KEPT:
            words.rules.clear()
        changed = rule_set.describe_overrides()
        text = words.rules[key] = conditional_escape(preset_label(preset)) + "".join(
            f" · {conditional_escape(label)}: {conditional_escape(value)}" for label, value in changed
        )
    return text


def recent_items(recent: list[dict], *, csrf_token: str) -> SafeString:
    """The "Play again" list: each recent sitting (``pk``, its two ``sides``' names, its ``preset`` and
    ``rule_set``) a button that plays it again at once and a link to change its rules first."""
    words = _words()
    token = _escaped(csrf_token)
    new_game, (again_before, again_after) = _urls()
    items = []
    for item in recent:
        one, two = item["sides"]
        sides = {"one": _escaped(one), "two": _escaped(two)}
        rules = _rules_words(words, item["preset"], item["rule_set"])
        pk = int(item["pk"])
        items.append(
            "\n    <li>\n"
            f'      <form method="post" action="{again_before}{pk}{again_after}">'
            f'<input type="hidden" name="csrfmiddlewaretoken" value="{token}">\n'
            f'        <button type="submit" class="chip">{words.versus % sides}\n'
            f"          <small>{rules}</small></button>\n"
            "      </form>\n"
            f'      <a class="tweak" href="{new_game}?from={pk}" aria-label="{words.change_rules % sides}">'
            f"{words.change}</a>\n"
            "    </li>\n  "
        )
    return _safe("".join(items))
