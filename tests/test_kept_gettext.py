"""A translation's answers are kept (ginleague/kept_gettext.py): the same answers as its catalogs give, a safe
message's answer still safe, and never more than KEPT of them per language."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import gettext, trans_real

from ginleague import kept_gettext


@pytest.mark.parametrize("language", ["en-gb", "de", "fr", "es", "pt-br"])
def test_a_kept_answer_is_the_catalogs_own(language):
    messages = ["New game", "Sign out", "%(one)s & %(two)s", ":", "no such message, anywhere"]
    with translation.override(language):
        catalogs = trans_real.catalog()
        for _ in range(2):  # looked up, then kept
            for message in messages:
                assert gettext(message) == kept_gettext._catalogs_gettext(catalogs, message)
    if language == "de":
        with translation.override(language):
            assert gettext("New game") != "New game"  # translated, not the English kept by another language


def test_a_safe_message_is_answered_safe_after_the_same_text_was_kept():
    with translation.override("en-gb"):
        plain = gettext("Sign out")
        safe = gettext(mark_safe("Sign out"))  # noqa: S308 - a constant
        again = gettext("Sign out")
    assert plain == safe == again
    assert isinstance(safe, SafeData) and not isinstance(again, SafeData)


def test_no_more_than_kept_answers_per_language(monkeypatch):
    monkeypatch.setattr(kept_gettext, "KEPT", 10)
    with translation.override("fr"):
        for number in range(25):
            gettext(f"message {number}")
        assert len(trans_real.catalog()._kept_answers) <= 10
        assert gettext("New game") == kept_gettext._catalogs_gettext(trans_real.catalog(), "New game")
