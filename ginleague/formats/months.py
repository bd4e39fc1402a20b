"""Month names as a date says them ("27 de novembro de 2026"), in GinLeague's own catalogs.

Django's date formats spell a month with its ``F`` format, which reads Django's translation of
"January" ... "December". Its Brazilian Portuguese catalog capitalises them ("27 de Novembro de
2026"), where Brazilian writing keeps month names in lower case. The project's catalogs are read
before Django's (``LOCALE_PATHS``), so marking the names here puts them in our .po files, where each
language gives them as its dates write them (the others as Django already does).
"""

from django.utils.translation import gettext_noop

MONTHS = (
    gettext_noop("January"),
    gettext_noop("February"),
    gettext_noop("March"),
    gettext_noop("April"),
    gettext_noop("May"),
    gettext_noop("June"),
    gettext_noop("July"),
    gettext_noop("August"),
    gettext_noop("September"),
    gettext_noop("October"),
    gettext_noop("November"),
    gettext_noop("December"),
)
