"""Every shipped language is complete (issue 31): translated, none fuzzy, compiled as committed, nothing unmarked.

For each language of settings.LANGUAGES but English and each domain (``django``: Python and templates;
``djangojs``: static/js): the .po exists; every message is translated and none is fuzzy; GNU msgfmt
--check (what ``compilemessages`` runs) finds nothing; the committed .mo holds exactly the .po's
translations (the .mo files are committed so that ``make run`` needs nothing but Python); and
``makemessages``, run over the tree into a copy of locale/, finds no message the committed .po lacks
(a string marked since the last ``make messages``). ``make messages`` refreshes them all.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core.management import call_command
from django.test.utils import override_settings
from django.utils.translation import to_locale

BASE_DIR = Path(settings.BASE_DIR)
LOCALE_DIR = BASE_DIR / "locale"
LANGUAGES = [to_locale(code) for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
DOMAINS = ["django", "djangojs"]
# What makemessages must not read: as the Makefile's `messages` target (--ignore) has it.
NOT_SOURCE = {".venv", "staticfiles", "tests", "bench", "node_modules", "test-artifacts", "docs", "locale"}
CASES = [(language, domain) for language in LANGUAGES for domain in DOMAINS]


def po_path(language: str, domain: str, root: Path = LOCALE_DIR) -> Path:
    return root / language / "LC_MESSAGES" / f"{domain}.po"


def key(entry) -> tuple[str, str]:
    return (entry.msgctxt or "", entry.msgid)


def translations(catalog) -> dict:
    """(context, message) -> its translation(s): those msgfmt compiles (not the header, fuzzy or empty ones)."""
    found = {}
    for entry in catalog:
        if not entry.msgid or entry.obsolete or "fuzzy" in entry.flags:
            continue
        translated = tuple(sorted(entry.msgstr_plural.items())) if entry.msgid_plural else entry.msgstr
        if any(text for _, text in translated) if entry.msgid_plural else translated:
            found[key(entry)] = translated
    return found


def parsed(language: str, domain: str):
    path = po_path(language, domain)
    assert path.exists(), f"{path.relative_to(BASE_DIR)} is missing: run `make messages`, then translate it"
    return polib.pofile(str(path))


def test_every_language_but_english_ships():
    assert sorted(LANGUAGES) == ["de", "es", "fr", "pt_BR"]


@pytest.mark.parametrize(("language", "domain"), CASES)
def test_every_message_is_translated_and_none_is_fuzzy(language, domain):
    catalog = parsed(language, domain)
    untranslated = [entry.msgid for entry in catalog.untranslated_entries()]
    fuzzy = [entry.msgid for entry in catalog.fuzzy_entries()]
    assert not untranslated, f"{language}/{domain}: {len(untranslated)} untranslated:\n" + "\n".join(untranslated)
    assert not fuzzy, f"{language}/{domain}: {len(fuzzy)} fuzzy (check, then remove the flag):\n" + "\n".join(fuzzy)


@pytest.mark.parametrize(("language", "domain"), CASES)
def test_msgfmt_finds_nothing_wrong(language, domain):
    path = po_path(language, domain)
    assert path.exists(), f"{path.relative_to(BASE_DIR)} is missing"
    checked = subprocess.run(
        ["msgfmt", "--check", "--output-file=/dev/null", str(path)], capture_output=True, text=True, check=False
    )
    # Its warnings too (a header left at makemessages' defaults: fill in Language, Last-Translator...).
    assert checked.returncode == 0 and not checked.stderr.strip(), checked.stderr


@pytest.mark.parametrize(("language", "domain"), CASES)
def test_the_committed_mo_holds_exactly_the_po_translations(language, domain):
    catalog = parsed(language, domain)
    mo = po_path(language, domain).with_suffix(".mo")
    assert mo.exists(), f"{mo.relative_to(BASE_DIR)} is missing: run `make messages` and commit it"
    compiled, written = translations(polib.mofile(str(mo))), translations(catalog)
    differing = sorted(
        str(message) for message in compiled.keys() | written.keys() if compiled.get(message) != written.get(message)
    )
    assert not differing, f"{mo.name} ({language}) is not compiled from its .po: `make messages`\n" + "\n".join(
        differing
    )


@pytest.fixture(scope="module")
def fresh_catalogs(tmp_path_factory):
    """makemessages over a copy of the tree's source folders, into a copy of locale/.

    Copied, not linked: makemessages writes a scratch file beside each template it reads
    (``game.html.py``), which two test workers running it over the same folders would trip over."""
    scratch = tmp_path_factory.mktemp("messages")
    for entry in BASE_DIR.iterdir():
        if entry.name not in NOT_SOURCE and not entry.name.startswith(".") and entry.is_dir():
            shutil.copytree(entry, scratch / entry.name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if LOCALE_DIR.exists():
        shutil.copytree(LOCALE_DIR, scratch / "locale")
    previous = Path.cwd()
    # makemessages reads the tree from the current folder and writes to LOCALE_PATHS[0].
    try:
        os.chdir(scratch)
        with override_settings(LOCALE_PATHS=[str(scratch / "locale")]):
            for domain in DOMAINS:
                call_command("makemessages", locale=LANGUAGES, domain=domain, symlinks=True, verbosity=0)
    finally:
        os.chdir(previous)
    return scratch / "locale"


@pytest.mark.parametrize(("language", "domain"), CASES)
def test_makemessages_finds_no_message_the_committed_po_lacks(fresh_catalogs, language, domain):
    fresh = polib.pofile(str(po_path(language, domain, fresh_catalogs)))  # polib reads what makemessages writes
    assert len(fresh) > 0
    committed = parsed(language, domain)
    known = {key(entry) for entry in committed if not entry.obsolete}
    missing = sorted(key(entry) for entry in fresh if entry.msgid and not entry.obsolete and key(entry) not in known)
    assert not missing, (
        f"{language}/{domain}: {len(missing)} message(s) marked since the last `make messages`:\n"
        + "\n".join(f"{context + ' | ' if context else ''}{msgid}" for context, msgid in missing)
    )
