"""Language tags: ``{% javascript_catalog_url %}`` (the page language's script strings, ginleague/i18n.py),
``{% languages_by_own_name %}`` (the language switch's list) and ``|named_next`` (whether a page was given a
"next")."""

from django import template
from django.conf import settings

from ginleague.i18n import catalog_url

register = template.Library()


@register.simple_tag
def javascript_catalog_url() -> str:
    return catalog_url()


@register.simple_tag
def languages_by_own_name() -> list[tuple[str, str]]:
    """settings.LANGUAGES as written there, each in its own language and untranslated: a reader looking
    for their language finds "English" or "Deutsch", not the page language's word for it ("Englisch")."""
    return list(settings.LANGUAGES)


@register.filter
def named_next(query) -> str | None:
    """``query.next`` (a request's GET: the last "next" given, None without one), asked as the QueryDict asks: the
    template's own lookup failed its dictionary try first and then listed every attribute of the QueryDict (dir()).
    A page drawn without a request (the server error page) has no query: None, as the lookup gave."""
    get = getattr(query, "get", None)
    return get("next") if get is not None else None
