"""``{% once_per_language %}``: a part of a page rendered once per language (and viewer class) per process.

Every page's chrome (base.html: its links, static URLs, translated words, the language switch's options)
depends only on the code, the active language and, for the navigation, on whether the viewer is signed
out, signed in or a superuser. Rendered anew on every request (a dozen ``reverse()`` and gettext calls)
it was about half of a light page's time (issue 40). A part is rendered the first time its key
(language, script prefix, and with ``viewer`` the viewer's class) is seen, and the text kept on the
template's node: a template parsed again (DEBUG, a new engine in a test) starts empty, and a changed
setting (tests) renders every part again.

What differs between two requests of one key (the CSRF token, the viewer's name, the path, the CSP
nonce, a child template's block, a view's flag) goes in ``{% each_request %}``, rendered on every request
in its place. Parsing refuses a block, ``{% csrf_token %}`` or a request's variable (``request``,
``user``, ``csrf_token``…) outside one, and an ``each_request`` anywhere but directly in the part or in
its ``{% if %}`` branches (whose conditions must then depend on the key only: the viewer's class).

    {% once_per_language viewer %}…{% each_request %}{% csrf_token %}{% end_each_request %}…{% end_once_per_language %}
"""

from __future__ import annotations

import secrets

from django import template
from django.core.signals import setting_changed
from django.template.base import VariableNode
from django.template.defaulttags import CsrfTokenNode, IfNode
from django.template.loader_tags import BlockNode
from django.urls import get_script_prefix
from django.utils import translation
from django.utils.safestring import mark_safe

register = template.Library()

# Context names that differ between two requests of one key: only inside {% each_request %}.
PER_REQUEST_NAMES = frozenset({"request", "csrf_token", "csp_nonce", "user", "perms", "messages"})
# Where an each_request part stands in the first rendering, split out afterwards (never in a page).
_HOLE = f"\x00{secrets.token_hex(8)}\x00"
_RECORDING = "rendered_once.holes"

_generation = 0  # moved by forget_rendered(): every part is rendered again


def forget_rendered(**kwargs) -> None:
    """Render every part again from now on: a setting changed, or a test put in other translations."""
    global _generation
    _generation += 1


setting_changed.connect(forget_rendered, dispatch_uid="rendered_once")


def viewer_class(context) -> str:
    """Signed out, signed in or superuser: what the chrome's ``{% if user.… %}`` tell apart."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return "anonymous"
    return "superuser" if user.is_superuser else "member"


class EachRequestNode(template.Node):
    """Rendered on every request; while its part is first rendered, a mark where it stands."""

    def __init__(self, nodelist):
        self.nodelist = nodelist

    def render(self, context):
        holes = context.render_context.get(_RECORDING)
        if holes is None:
            return self.nodelist.render(context)
        holes.append(self)
        return _HOLE


class OncePerLanguageNode(template.Node):
    def __init__(self, nodelist, by_viewer: bool):
        self.nodelist = nodelist
        self.by_viewer = by_viewer
        self.rendered: dict[tuple, tuple[tuple[str, ...], tuple[EachRequestNode, ...]]] = {}
        self.holes = nodelist.get_nodes_by_type(EachRequestNode)

    def get_nodes_by_type(self, nodetype):
        """{% extends %} looks for its parent's blocks on every render; a block is only ever in an each_request
        part (refused elsewhere when parsed), so only those are searched: base.html's walk was 37 us a page."""
        if nodetype is BlockNode:
            # The part's blocks, found once: a parsed template's nodes never change (37 us, then ~15 us a page).
            blocks = self.__dict__.get("_blocks")
            if blocks is None:
                blocks = self._blocks = [node for hole in self.holes for node in hole.get_nodes_by_type(nodetype)]
            return list(blocks)
        return super().get_nodes_by_type(nodetype)

    def render(self, context):
        key = (
            _generation,
            translation.get_language(),
            get_script_prefix(),
            viewer_class(context) if self.by_viewer else None,
        )
        kept = self.rendered.get(key)
        if kept is None:
            kept = self.rendered[key] = self._record(context)
        texts, holes = kept
        if not holes:
            return texts[0]
        # Each hole's nodes straight into the page, and the page not copied into a SafeString here: the NodeList
        # around this node joins and marks what it renders (the new-game page, ~14k characters with a few
        # beyond Latin-1, was copied twice more per part).
        out = [texts[0]]
        for hole, text in zip(holes, texts[1:], strict=True):
            out.extend([node.render_annotated(context) for node in hole.nodelist])
            out.append(text)
        return "".join(out)

    def _record(self, context):
        holes = []
        context.render_context[_RECORDING] = holes
        try:
            text = self.nodelist.render(context)
        finally:
            del context.render_context[_RECORDING]
        texts = text.split(_HOLE)
        if len(texts) != len(holes) + 1:
            raise template.TemplateSyntaxError("once_per_language: a part's mark was lost (a filter over it?)")
        return tuple(mark_safe(text) for text in texts), tuple(holes)  # noqa: S308 - as above


def _names(value):
    """The variable names an {% if %} condition reads (smartif's operators and literals)."""
    if value is None:
        return
    expression = getattr(value, "value", None)  # TemplateLiteral
    if expression is not None and hasattr(expression, "var"):
        var = expression.var
        if isinstance(getattr(var, "var", None), str):
            yield var.var
        return
    for side in ("first", "second"):
        yield from _names(getattr(value, side, None))


def _check(nodelist, name: str, *, by_viewer: bool, holes_allowed: bool = True) -> None:
    """Refuse what differs per request outside an each_request part (see the module's docstring)."""
    for node in nodelist:
        if isinstance(node, EachRequestNode):
            if not holes_allowed:
                raise template.TemplateSyntaxError(f"{name}: each_request only in the part or its if branches")
            continue
        if isinstance(node, (BlockNode, CsrfTokenNode, OncePerLanguageNode)):
            raise template.TemplateSyntaxError(f"{name}: {type(node).__name__} outside each_request")
        if isinstance(node, VariableNode):
            var = getattr(node.filter_expression.var, "var", None)
            if isinstance(var, str) and var.split(".")[0] in PER_REQUEST_NAMES:
                raise template.TemplateSyntaxError(f"{name}: {{{{ {var} }}}} differs per request")
        if isinstance(node, IfNode):
            for condition, branch in node.conditions_nodelists:
                for var in _names(condition):
                    if var.split(".")[0] in PER_REQUEST_NAMES and not (
                        by_viewer and var in ("user.is_authenticated", "user.is_superuser")
                    ):
                        raise template.TemplateSyntaxError(f"{name}: {{% if {var} %}} differs per request")
                _check(branch, name, by_viewer=by_viewer, holes_allowed=holes_allowed)
            continue
        for attr in node.child_nodelists:
            child = getattr(node, attr, None)
            if child:
                _check(child, name, by_viewer=by_viewer, holes_allowed=False)


@register.tag("once_per_language")
def once_per_language(parser, token):
    bits = token.split_contents()
    if bits[1:] not in ([], ["viewer"]):
        raise template.TemplateSyntaxError(f"{bits[0]} takes nothing or 'viewer'")
    nodelist = parser.parse(("end_once_per_language",))
    parser.delete_first_token()
    by_viewer = bits[1:] == ["viewer"]
    _check(nodelist, bits[0], by_viewer=by_viewer)
    return OncePerLanguageNode(nodelist, by_viewer=by_viewer)


@register.tag("each_request")
def each_request(parser, token):
    nodelist = parser.parse(("end_each_request",))
    parser.delete_first_token()
    return EachRequestNode(nodelist)
