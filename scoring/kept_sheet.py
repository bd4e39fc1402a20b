"""The scoresheet's body (the ``#sheet`` div) rendered once per game version and viewer's place, per process.

A 60-hand sheet is read, scored and written out (its rows, boards, results, rules, offline copy and blank
hand form) on every load, every phone's live refresh and every save's answer, though it changes only when
the game does. What it shows depends on:

* the game's version (``scoring.changes.game_version``: it moves with every committed change of its
  hands, figures, time call or league status, whichever process wrote it), its players' names (a
  rename moves no game's version) and, for a league game, when its season closed;
* what the viewer may do there (edit, call or withdraw time, confirm, dispute) and what they are told
  about the confirmation: computed on every request and made part of the key;
* the language and time zone (``scoring.parts.part_key``), the site's address prefix and the page asked for
  (card entry, all hands).

It is kept in the "parts" cache (``scoring.parts``) under those, rendered without the request, so nothing
of one person's request can be kept; what differs per request is put in afterwards: the CSRF token, the
record form's save key (a new one for every rendered form) and a save's notice. Only the blank sheet is
kept: a sheet with a refused form or a preview is drawn as before, every time (and every sheet, with
PART_CACHE_ENTRIES=0).
"""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Callable, Hashable, Iterable

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from ginleague.csrf import get_token
from scoring import parts
from scoring.scoresheet import shown_value, written

# What stands in the kept text for each per-request piece (never in a page: random per process, and no
# character a name or a word of the sheet could bring is in it unescaped).
CSRF_MARK = f"csrf{secrets.token_hex(12)}"
SAVE_KEY_MARK = f"savekey{secrets.token_hex(12)}"
SAVED_MARK = f"saved{secrets.token_hex(12)}"
EXPECTED_MARK = f"expected{secrets.token_hex(12)}"  # the blank hand form's number, in its kept fields (views.py)
BODY_MARK = f"body{secrets.token_hex(12)}"  # the body in the htmx answer's frame written around it (views.py)
# The save's notice as game.html writes it; the kept sheet holds it with SAVED_MARK for its words.
_NOTICE = '<p class="notice" role="status">{}</p>'


def keeping() -> bool:
    """Whether sheets are kept: as live parts are, unless PART_CACHE_ENTRIES is 0 (then drawn whole every time)."""
    return settings.PART_CACHE_ENTRIES > 0


# The body's values that move from one version of a game to the next (a save's answer draws a new version): the
# body's frame, drawn once through the template per shape (``framed``), holds a mark in each one's place.
HOLES = (
    "version",
    "offline_copy",
    "next_dealer",
    "sitting_winner",
    "sitting_margin",
    "time_note",
    "last_number",
    "next_number",
    "hands_shown",
    "boards_html",
    "results_html",
    "run_heads",
    "rows_html",
    "blank_fields",
)
_HOLE_MARK = f"hole{secrets.token_hex(12)}"
_HOLE = re.compile(f"{_HOLE_MARK}_([a-z_]+)_")


def framed(template: str, context: dict, *, shape: Iterable[Hashable]) -> str:
    """``render_to_string(template, context)``, with the template drawn once per ``shape`` (every value the body
    shows that is not one of HOLES, and whether each hole is empty: all its ``{% if %}``s ask) and each of
    HOLES put in as ``{{ }}`` shows it (the template shows them only as ``{{ name }}``, never filtered). A 60-hand
    sheet's template was a third of drawing a save's answer, though only these values had moved."""
    # An empty hole is drawn in the frame as it is: its value ("", 0, None show differently) is part of the key.
    key = ("sheet frame", template, *shape, *(True if context[name] else repr(context[name]) for name in HOLES))

    def draw() -> tuple[str, ...]:
        holes = {name: f"{_HOLE_MARK}_{name}_" if context[name] else context[name] for name in HOLES}
        return tuple(_HOLE.split(render_to_string(template, {**context, **holes})))  # text, hole's name, text, ...

    pieces = list(written(key, draw))
    pieces[1::2] = [shown_value(context[name]) for name in pieces[1::2]]
    return "".join(pieces)


def marks() -> dict:
    """The body's per-request values as marks, for its one rendering that is kept."""
    return {"csrf_token": CSRF_MARK, "save_key": SAVE_KEY_MARK, "saved": SAVED_MARK}


def sheet_body(
    request, *, versions: Iterable[object], viewer: Iterable[object], render: Callable[[], str], saved: str = ""
) -> tuple[SafeString, str | None]:
    """(the sheet's body for this request, the CSRF token put in it or None): ``render()``'s text (rendered
    with ``marks()``), kept under ``versions`` and ``viewer``, with this request's token, a new save key and
    ``saved`` (the notice, shown when not empty) put in."""
    versions = (get_script_prefix(), *versions)  # its links
    body = parts.rendered("sheet", versions=versions, render=render, viewer=repr(tuple(viewer)))
    token = None
    if CSRF_MARK in body:
        token = get_token(request)
        body = body.replace(CSRF_MARK, token)
    if SAVE_KEY_MARK in body:  # a new key with every rendered record form: sending that form again saves once
        body = body.replace(SAVE_KEY_MARK, uuid.uuid4().hex)
    notice = _NOTICE.format(conditional_escape(saved)) if saved else ""
    body = body.replace(_NOTICE.format(SAVED_MARK), notice)
    return mark_safe(body), token  # noqa: S308 - the template's own output; the token and key are letters, saved escaped
