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

import secrets
import uuid
from collections.abc import Callable, Iterable

from django.conf import settings
from django.middleware.csrf import get_token
from django.urls import get_script_prefix
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from scoring import parts

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
