"""The site's addresses: each reaches its own view, whatever order ginleague/urls.py tries them in."""

from __future__ import annotations

import uuid

import pytest
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.converters import IntConverter, PathConverter, SlugConverter, StringConverter, UUIDConverter
from django.urls.resolvers import RoutePattern

import ginleague.urls

SAMPLES = {
    IntConverter: 7,
    SlugConverter: "a-club",
    StringConverter: "de",
    PathConverter: "a/b",
    UUIDConverter: uuid.UUID(int=7),
}


def named_routes() -> list[tuple[str, dict]]:
    """Every path() address with a name (walking the includes), as its full name and sample values."""
    found = []

    def walk(patterns, namespace):
        for entry in patterns:
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, entry.namespace or namespace)
            elif isinstance(entry, URLPattern) and entry.name and isinstance(entry.pattern, RoutePattern):
                kwargs = {name: SAMPLES[type(converter)] for name, converter in entry.pattern.converters.items()}
                found.append((f"{namespace}:{entry.name}" if namespace else entry.name, kwargs))

    walk(get_resolver().url_patterns, None)
    return found


ROUTES = named_routes()


def test_every_kind_of_address_is_walked():
    names = {name for name, _ in ROUTES}
    assert {
        "home",
        "game",
        "hand_submit",
        "api:hand-list",
        "league:clubs",
        "stats:player",
        "login",
        "admin:index",
    } <= names


@pytest.mark.parametrize(("name", "kwargs"), ROUTES, ids=[name for name, _ in ROUTES])
def test_an_address_reaches_its_own_view_through_one_entry_only(name, kwargs):
    address = reverse(name, kwargs=kwargs)
    assert resolve(address).view_name == name
    # No other top-level entry answers it: moving one before another cannot change which view a page gets.
    answering = []
    for entry in ginleague.urls.urlpatterns:
        try:
            matched = entry.resolve(address.removeprefix("/"))
        except Resolver404:
            continue
        if matched:
            answering.append(str(entry.pattern))
    assert len(answering) == 1, f"{address} is answered by {answering}"
