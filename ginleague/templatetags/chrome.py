"""``{% messages_box %}`` and ``{% language_switch %}``: base.html's two included parts, without an include a page.

Every page included templates/_messages.html and templates/_language_switch.html: each include looked its
template up, pushed a context and rendered it, about a tenth of a light page's chrome (issue 40). Here the
messages' box is written at once when there is nothing to show in it (nearly every page), and the template
rendered as before when there is; the language switch is rendered from its template once per language
(the key of ``{% once_per_language %}``: language, script prefix, settings' generation), with marks where a
request's CSRF field and "next" go, and each request fills in its own. The templates stay what the parts
are: tests/test_chrome.py compares both tags with including them, byte for byte.
"""

from __future__ import annotations

import secrets
from types import SimpleNamespace

from django import template
from django.template.defaulttags import CsrfTokenNode
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from ginleague.templatetags import rendered_once
from ginleague.templatetags.languages import named_next

register = template.Library()

MESSAGES = "_messages.html"
LANGUAGE_SWITCH = "_language_switch.html"
EMPTY_MESSAGES = '<div id="messages"></div>\n'  # _messages.html (its last line ended) with no message and no oob


class MessagesBoxNode(template.Node):
    def render(self, context):
        if not context.get("oob") and not context.get("messages"):
            return mark_safe(EMPTY_MESSAGES)  # noqa: S308 - a constant
        return context.template.engine.get_template(MESSAGES).render(context)


_TOKEN_MARK = f"\x00token-{secrets.token_hex(8)}\x00"
_NEXT_MARK = f"\x00next-{secrets.token_hex(8)}\x00"
_TOKEN_FIELD = CsrfTokenNode().render(template.Context({"csrf_token": _TOKEN_MARK}))


def next_of(context) -> str:
    """What _language_switch.html's "next" field holds: the page's path when it was given a "next" of its own
    (not echoed), else its full path; nothing on a page drawn without a request."""
    request = context.get("request")
    if request is None:
        return ""
    return request.path if named_next(request.GET) else request.get_full_path()


class LanguageSwitchNode(template.Node):
    def __init__(self):
        self.rendered: dict[tuple, tuple[str, str, str]] = {}

    def render(self, context):
        key = (rendered_once._generation, translation.get_language(), get_script_prefix())
        parts = self.rendered.get(key)
        if parts is None:
            parts = self.rendered[key] = self._parts(context)
        before, between, after = parts
        token = CsrfTokenNode().render(context)
        return mark_safe(f"{before}{token}{between}{conditional_escape(next_of(context))}{after}")  # noqa: S308 - escaped

    def _parts(self, context) -> tuple[str, str, str]:
        """The switch rendered with marks for the CSRF field and the "next", cut at them."""
        stand_in = SimpleNamespace(GET={}, path="", get_full_path=lambda: _NEXT_MARK)
        with context.push(csrf_token=_TOKEN_MARK, request=stand_in):
            text = context.template.engine.get_template(LANGUAGE_SWITCH).render(context)
        pieces = text.replace(_TOKEN_FIELD, _NEXT_MARK).split(_NEXT_MARK)
        if len(pieces) != 3:
            raise template.TemplateSyntaxError(f"{LANGUAGE_SWITCH}: one CSRF field and one next expected")
        return pieces[0], pieces[1], pieces[2]


@register.tag("messages_box")
def messages_box(parser, token):
    return MessagesBoxNode()


@register.tag("language_switch")
def language_switch(parser, token):
    return LanguageSwitchNode()
