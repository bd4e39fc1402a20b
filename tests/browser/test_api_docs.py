"""The API docs (Swagger UI) render in a real browser under the site's CSP."""

import pytest

from tests.browser.conftest import LAPTOP, screenshot

pytestmark = pytest.mark.browser

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


def test_api_docs_render_with_no_csp_violation(new_page, live_server, transactional_db):
    page = new_page(viewport=LAPTOP)
    page.add_init_script(RECORD_VIOLATIONS)
    response = page.goto(f"{live_server.url}/api/docs/")
    assert response.status == 200
    policy = response.headers["content-security-policy"]
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    # Swagger UI builds the page from the schema: the title and the hand endpoint appear.
    page.get_by_text("GinLeague API", exact=False).first.wait_for()
    operation = page.locator("#operations-games-games_hands_create")
    operation.wait_for()
    operation.locator(".opblock-summary").click()
    page.get_by_text("Idempotency-Key", exact=True).first.wait_for()
    screenshot(page, "api-docs")
    assert page.evaluate("window.__cspViolations") == []
