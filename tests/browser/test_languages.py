"""The page's language offline (issue 31): the service worker keeps the chosen language's JavaScript catalog."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, kept_by_worker, sign_in
from tests.browser.test_offline import ready
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CATALOG_OFFLINE = """async () => {
    const src = document.querySelector('script[src^="/jsi18n/"]').getAttribute('src');
    // Past the browser's own cache (which keeps the versioned catalog for good): only the worker can answer.
    const answer = await fetch(src, {cache: 'no-store'});
    return {
        src: src,
        status: answer.status,
        body: await answer.text(),
        gettext: typeof gettext === 'function' && typeof ngettext === 'function' && typeof interpolate === 'function',
        catalog: typeof django === 'object' && 'catalog' in django,
    };
}"""


def seen_once_then_offline(page, url: str) -> None:
    """Open ``url`` until the worker controls it and has kept what it loads, then cut the network and open it again."""
    page.goto(url)
    ready(page)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    ready(page)
    page.wait_for_load_state("networkidle")  # nothing of the page's own still in flight to fail offline
    kept_by_worker(page)
    page.context.set_offline(True)
    page.goto(url)


def test_a_german_phone_keeps_german_offline_and_a_footer_switch_to_spanish_too(new_page, live_server):
    UserFactory(username="ann")
    page = new_page(locale="de-DE")
    sign_in(page, live_server.url, "ann")
    seen_once_then_offline(page, f"{live_server.url}/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    german = page.evaluate(CATALOG_OFFLINE)
    assert german["src"].startswith("/jsi18n/de/")
    assert german["status"] == 200 and "django.catalog" in german["body"]
    assert german["gettext"] and german["catalog"]  # the catalog itself ran, not the fallback

    page.context.set_offline(False)
    page.goto(f"{live_server.url}/players/")
    page.locator("footer select[name=language]").select_option("es")
    page.locator("footer button[type=submit]").click()
    page.wait_for_url(f"{live_server.url}/players/")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    page.wait_for_load_state("networkidle")
    kept_by_worker(page)
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "es")
    spanish = page.evaluate(CATALOG_OFFLINE)
    assert spanish["src"].startswith("/jsi18n/es/")
    assert spanish["status"] == 200 and "django.catalog" in spanish["body"]
    assert spanish["gettext"] and spanish["catalog"]
    page.context.set_offline(False)


def test_a_page_whose_catalog_did_not_load_still_has_gettext_in_english(browser, live_server):
    context = browser.new_context(viewport=PHONE, locale="fr-FR")
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.route("**/jsi18n/**", lambda route: route.abort())
        page.goto(f"{live_server.url}/players/")
        stand_in = page.evaluate(
            """() => ({
                catalog: 'catalog' in django,
                one: interpolate(ngettext('%s hand', '%s hands', 1), [1]),
                two: interpolate(ngettext('%s hand', '%s hands', 2), [2]),
                named: interpolate(gettext('Sign in as %(name)s'), {name: 'Ann'}, true),
                format: get_format('TIME_FORMAT'),
            })"""
        )
        assert stand_in == {
            "catalog": False,
            "one": "1 hand",
            "two": "2 hands",
            "named": "Sign in as Ann",
            "format": "H:i",
        }
        assert errors == []
    finally:
        context.close()
