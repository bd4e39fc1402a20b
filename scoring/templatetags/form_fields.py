"""``{% picks %}`` and ``{% number_box %}``: the hand forms' radio rows and deadwood boxes, written in Python.

A hand form draws about 25 radio buttons (how it ended, who went out, the upcard's rank and suit): as
included templates they were a tenth of a scoresheet's time (issue 40). Each tag writes, character for
character, what its template wrote (tests/test_form_fields.py keeps those templates and compares):
every text escaped as ``{{ }}`` escapes it.
"""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from ginleague.forms import _shown

register = template.Library()


def _errors(field) -> tuple[bool, str]:
    """(whether the field has errors, its error paragraphs)."""
    errors = field.errors
    return bool(errors), "".join(f'<p class="error" role="alert">{_shown(error)}</p>' for error in errors)


@register.simple_tag
def picks(field, css: str = "", legend: str = "") -> SafeString:
    """A choice field as a fieldset of radio buttons, the one whose value the field holds checked;
    ``legend`` instead of the field's label, ``css`` a class of the fieldset."""
    name, auto_id = _shown(field.html_name), _shown(field.auto_id)
    value = "%s" % (field.value(),)  # noqa: UP031 - as the template's |stringformat:"s" compared it
    required = " required" if field.field.required else ""
    labels = "".join(
        f'<label class="pick" for="{auto_id}_{index}"><input type="radio" name="{name}" value="{_shown(choice)}"'
        f' id="{auto_id}_{index}"{required}{" checked" if str(choice) == value else ""}><span>{_shown(label)}</span>'
        "</label>"
        for index, (choice, label) in enumerate(field.field.choices)
    )
    has_errors, errors = _errors(field)
    return mark_safe(  # noqa: S308 - every text was escaped above
        f'<fieldset class="picks{f" {_shown(css)}" if css else ""}{" has-error" if has_errors else ""}">\n'
        f"  <legend>{_shown(legend or field.label)}</legend>\n"
        f'  <div class="pick-row">{labels}</div>\n'
        f"  {errors}\n</fieldset>\n"
    )


@register.simple_tag
def number_box(field, css: str = "", from_cards: bool = False) -> SafeString:
    """A deadwood box: a numeric text input with its label, help (the cards' best play, when ``from_cards``) and
    errors. Its title is the field's own message for what is not a whole number: the browser, which refuses
    such a box before sending (its pattern), adds it to its bare "match the requested format"."""
    auto_id = _shown(field.auto_id)
    title = _shown(field.field.error_messages["invalid"])
    value = field.value()
    has_errors, errors = _errors(field)
    invalid = ' aria-invalid="true"' if has_errors else ""
    described = f' aria-describedby="{auto_id}_helptext"' if field.help_text or from_cards else ""
    if from_cards:
        help_text = gettext("best play from the cards; change it if play differed")
        help_html = f'<small class="help" id="{auto_id}_helptext">{conditional_escape(help_text)}</small>'
    elif field.help_text:
        help_html = f'<small class="help" id="{auto_id}_helptext">{_shown(field.help_text)}</small>'
    else:
        help_html = ""
    return mark_safe(  # noqa: S308 - every text was escaped above
        f'<div class="field{f" {_shown(css)}" if css else ""}{" has-error" if has_errors else ""}">\n'
        f'  <label for="{auto_id}">{_shown(field.label)}</label>\n'
        f'  <input type="text" name="{_shown(field.html_name)}" id="{auto_id}" inputmode="numeric" pattern="[0-9]*"'
        f' title="{title}" autocomplete="off" value="{_shown("" if value is None else value)}"{described}{invalid}>\n'
        f"  {help_html}\n  {errors}\n</div>\n"
    )
