"""Text in a parsed JSON body: where a key or string holds what no stored text can (a NUL, a lone surrogate).

Shared by the parser (which refuses a lone surrogate before anything echoes it) and the serializers
and import (which refuse a NUL, which PostgreSQL cannot store), so both name the same path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def shown(text: str) -> str:
    """A key as it may be shown in a message: a NUL or a lone surrogate written as its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\u0000")


def is_utf8_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def find_text(value: Any, is_bad: Callable[[str], bool], path: str = "") -> str | None:
    """The path (``hands[1].ending``) of the first key or string of a parsed body that ``is_bad``, or None."""
    if isinstance(value, str):
        return path if is_bad(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{shown(str(key))}" if path else shown(str(key))
            if is_bad(str(key)):
                return where
            found = find_text(item, is_bad, where)
            if found is not None:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = find_text(item, is_bad, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def find_lone_surrogate(value: Any) -> str | None:
    """The path of the first key or string holding a lone UTF-16 surrogate ("body": the whole body), or None."""
    found = find_text(value, lambda text: not is_utf8_text(text))
    return None if found is None else found or "body"


def find_nul(value: Any) -> str | None:
    """The path of the first key or string holding a NUL character (PostgreSQL cannot store one), or None."""
    return find_text(value, lambda text: "\x00" in text)
