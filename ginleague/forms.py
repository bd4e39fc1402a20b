"""The form renderer: Django's, with its plainest widgets (inputs, checkboxes, selects) written in Python.

Django renders every widget through its own template engine: an ``<input>`` is three templates
(text.html, input.html, attrs.html) and a ``<select>`` one more per option. The new-game form's 22
widgets cost more than the rest of its page (issue 40). ``FastWidgets`` writes those widgets' HTML
itself, character for character what Django's templates write (tests/test_page_cost.py compares
them), and leaves every other template (radio buttons, a form's or a field's layout, anything
custom) to Django.
"""

from __future__ import annotations

from django.conf import settings
from django.forms.renderers import DjangoTemplates
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.timezone import template_localtime

WIDGETS = "django/forms/widgets/"
# The widget templates that are exactly {% include "django/forms/widgets/input.html" %}.
INPUTS = frozenset(
    f"{WIDGETS}{name}.html"
    for name in (
        "input", "text", "number", "email", "url", "password", "hidden", "checkbox", "search", "tel", "color",
        "date", "datetime", "time", "file",
    )
)  # fmt: skip
SELECT, OPTION = f"{WIDGETS}select.html", f"{WIDGETS}select_option.html"


def _shown(value) -> str:
    """``{{ value }}`` in an autoescaping template."""
    return conditional_escape(localize(template_localtime(value, settings.USE_TZ)))


def _text(value) -> str:
    """``{{ value|stringformat:'s' }}`` in an autoescaping template (the filter keeps safe text safe)."""
    return conditional_escape(value) if hasattr(value, "__html__") else conditional_escape(str(value))


def attrs_html(attrs: dict) -> str:
    """django/forms/widgets/attrs.html."""
    return "".join(
        f" {_shown(name)}" if value is True else f' {_shown(name)}="{_text(value)}"'
        for name, value in attrs.items()
        if value is not False
    )


def _input(widget: dict) -> str:
    value = "" if widget["value"] is None else f' value="{_text(widget["value"])}"'
    attrs = attrs_html(widget["attrs"])
    return f'<input type="{_shown(widget["type"])}" name="{_shown(widget["name"])}"{value}{attrs}>'


def _option(option: dict) -> str:
    """django/forms/widgets/select_option.html, with the line end that file ends with."""
    return f'<option value="{_text(option["value"])}"{attrs_html(option["attrs"])}>{_shown(option["label"])}</option>\n'


def _select(widget: dict) -> str | None:
    parts = [f'<select name="{_shown(widget["name"])}"{attrs_html(widget["attrs"])}>']
    for group_name, group_choices, _index in widget["optgroups"]:
        if group_name:
            parts.append(f'\n  <optgroup label="{_shown(group_name)}">')
        for option in group_choices:
            if option["template_name"] != OPTION:
                return None  # a custom option: Django's templates
            parts.append(f"\n  {_option(option)}")
        if group_name:
            parts.append("\n  </optgroup>")
    parts.append("\n</select>")
    return "".join(parts)


class FastWidgets(DjangoTemplates):
    """settings.FORM_RENDERER: inputs and selects written here, everything else by Django's templates."""

    def render(self, template_name, context, request=None):
        widget = context.get("widget") if isinstance(context, dict) else None
        if widget is not None and len(context) == 1:
            if template_name in INPUTS:
                return _input(widget).strip()
            if template_name == SELECT:
                written = _select(widget)
                if written is not None:
                    return written.strip()
        return super().render(template_name, context, request)
