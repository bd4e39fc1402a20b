"""A loaded translation's answers kept: each message is looked up in its catalogs once per process.

Django's translation of a language merges its apps' catalogs into one that asks each in turn (six for
English), and chains the rest as fallbacks (five more for English): a message, found or not, was about 37k
instructions, several times a page (a partnership's side, "Ann & Cat", on the new-game page and the sheet;
issue 40). A translation's catalogs never change once loaded (a changed setting or a test loads new
translation objects), so the answer to a message is kept on the translation object itself, for texts
only (a safe string's answer is Django's to mark again), up to KEPT messages per language, then the kept
ones are dropped and kept afresh.
"""

from __future__ import annotations

from django.utils.translation import trans_real

KEPT = 4096  # distinct messages kept per translation object (the code's own are a few hundred)

_catalogs_gettext = trans_real.DjangoTranslation.gettext  # GNUTranslations.gettext: the catalogs, then fallbacks


def _kept_gettext(self, message):
    kept = self.__dict__.get("_kept_answers")
    if kept is None:
        kept = self._kept_answers = {}
    answer = kept.get(message) if type(message) is str else None
    if answer is None:
        answer = _catalogs_gettext(self, message)
        if type(message) is str and type(answer) is str:
            if len(kept) >= KEPT:
                kept.clear()
            kept[message] = answer
    return answer


def install() -> None:
    """Keep every translation's answers (GinLeagueConfig.ready, once)."""
    if trans_real.DjangoTranslation.gettext is not _kept_gettext:
        trans_real.DjangoTranslation.gettext = _kept_gettext
