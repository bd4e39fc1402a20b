"""The engine's words for people: marked for translation, translated by whoever runs the engine.

The engine is pure Python, so it cannot ask Django for the active language. Its messages are
written as ``_("hand %(number)s: ...") % {...}`` (named placeholders, so a translation may move
them); ``_`` and ``ngettext`` pass the text through unchanged until the app installs its
translator (scoring/apps.py), after which they answer in the language of the request at hand.
"""

from collections.abc import Callable


def _unchanged(message: str) -> str:
    return message


def _english_plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


_translate: Callable[[str], str] = _unchanged
_translate_plural: Callable[[str, str, int], str] = _english_plural


def _(message: str) -> str:
    """The message in the active language (unchanged where no translator is installed)."""
    return _translate(message)


def gettext_noop(message: str) -> str:
    """Mark a module-level constant for translation, leaving it English: ``_()`` translates it where it is shown."""
    return message


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form for ``count`` in the active language."""
    return _translate_plural(singular, plural, count)


def install_translator(translate: Callable[[str], str], translate_plural: Callable[[str, str, int], str]) -> None:
    """Make ``_`` and ``ngettext`` answer through these functions (the app's gettext and ngettext)."""
    global _translate, _translate_plural
    _translate, _translate_plural = translate, translate_plural
