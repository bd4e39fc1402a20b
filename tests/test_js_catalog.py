"""The JavaScript catalog (issue 31): served per language, loaded before the site's scripts, kept for offline use."""

import json
import re

import pytest
from django.urls import reverse

from ginleague.i18n import catalog_version

pytestmark = pytest.mark.django_db


def scripts_in_head(html: str) -> list[str]:
    head = html[: html.index("</head>")]
    return re.findall(r'<script[^>]* src="([^"]+)"', head)


def test_the_catalog_names_its_language_and_is_kept_for_good_at_its_version(client):
    answer = client.get(f"/jsi18n/de/?v={catalog_version()}")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    body = answer.content.decode()
    assert "django.catalog" in body and "django.gettext" in body
    assert '"DATE_INPUT_FORMATS"' in body and '"DECIMAL_SEPARATOR": ","' in body  # German's formats
    assert "immutable" in answer["Cache-Control"]
    assert client.get("/jsi18n/de/?v=old")["Cache-Control"] == "no-cache"
    assert client.get("/jsi18n/xx/").status_code == 404


@pytest.mark.parametrize("code", ["en-gb", "de"])
def test_the_catalog_holds_the_sites_script_strings_not_the_admins(client, code):
    """Issue 40: every page's first load carries the catalog; the admin's calendar and selector strings
    (Django's own djangojs, which no page of the site uses) were a third of the English one."""
    body = client.get(f"/jsi18n/{code}/?v={catalog_version()}").content.decode()
    assert "Choose a time" not in body and "Click to choose all %s at once." not in body
    if code == "de":
        assert "Offline" in body and "nicht" in body  # the site's own strings, in German
    assert '"DECIMAL_SEPARATOR"' in body  # the formats stay


@pytest.mark.parametrize(("accept", "code"), [("de-DE,de", "de"), ("", "en-gb"), ("pt-BR", "pt-br")])
def test_every_page_loads_its_languages_catalog_then_the_fallback_before_its_own_scripts(client, accept, code):
    html = client.get(reverse("player_list"), HTTP_ACCEPT_LANGUAGE=accept).content.decode()
    scripts = scripts_in_head(html)
    catalog = scripts.index(f"/jsi18n/{code}/?v={catalog_version()}")
    fallback = next(n for n, src in enumerate(scripts) if src.endswith("js/i18n-fallback.js"))
    site = next(n for n, src in enumerate(scripts) if src.endswith("js/site.js"))  # it loads the offline app, later
    assert catalog < fallback < site
    tag = re.search(r'<script src="/jsi18n/[^"]+"[^>]*>', html).group(0)
    assert "defer" not in tag and "async" not in tag  # it has run before any deferred script


def test_the_service_worker_keeps_the_catalog_of_the_language_this_browser_gets(client):
    def shell(**headers) -> list[str]:
        source = client.get(reverse("service_worker"), **headers).content.decode()
        return json.loads(source[source.index("{") : source.index(";\n")])["shell"]

    assert f"/jsi18n/fr/?v={catalog_version()}" in shell(HTTP_ACCEPT_LANGUAGE="fr")
    assert f"/jsi18n/en-gb/?v={catalog_version()}" in shell()
    assert any(url.endswith("js/i18n-fallback.js") for url in shell())


def test_the_offline_badge_counts_in_spanish_agree_with_one_and_many(client):
    """ "Sin conexión · 1 pendiente", not "1 pendientes": the badge's counts are plurals in the catalog."""
    body = client.get(f"/jsi18n/es/?v={catalog_version()}").content.decode()
    catalog = json.loads(re.search(r"const newcatalog = (\{.*?\});\n", body, re.S).group(1))
    assert catalog["Offline · %(count)s waiting"][0] == "Sin conexión · %(count)s pendiente"
    assert catalog["Offline · %(count)s waiting"][-1] == "Sin conexión · %(count)s pendientes"
    assert catalog["%(count)s waiting"][0] == "%(count)s pendiente"
