"""Partnership gin played at the table (issue 41): a whole game on two phones, one per board, at 390x844.

Phone one starts the game through the new-game form and records board 1 of every deal; phone two records
board 2, one of its boards with the network off (scored by the offline scorer, GinEngine.scorePartnership,
and sent when the network is back). Each phone follows the other's boards live. The side totals, the deals'
results and the winner on the page are checked against the engine scoring the same facts
(scoring.engine.partnership.score_partnership), never against numbers typed here.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.engine.partnership import score_partnership
from scoring.engine.rules import resolve_rules
from scoring.engine.score import HandFacts
from scoring.models import Game, Hand
from tests.browser.conftest import screenshot, sign_in
from tests.browser.test_kitchen import pick
from tests.browser.test_wall import asgi_server  # noqa: F401 (a fixture: the live streams need ASGI)
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE_390 = {"width": 390, "height": 844}
NAMES = ("Ann", "Bob", "Cat", "Dan")
# (board 1, board 2) of each deal, as the players say them: fixed opponents, Ann v Bob and Cat v Dan.
DEALS = [
    ({"ending": "gin", "by": "Ann", "defender": 30}, {"ending": "knock", "by": "Dan", "knocker": 3, "defender": 13}),
    ({"ending": "gin", "by": "Bob", "defender": 40}, {"ending": "dead"}),
    (
        {"ending": "knock", "by": "Ann", "knocker": 2, "defender": 12},
        {"ending": "knock", "by": "Cat", "knocker": 4, "defender": 14},
    ),
    ({"ending": "gin", "by": "Ann", "defender": 60}, {"ending": "gin", "by": "Cat", "defender": 20}),
]
OFFLINE_BOARD = (2, 2)  # deal 2, board 2 is scored on phone two with the network off


def ready(page) -> None:
    expect(page.locator("html[data-offline-ready='1']")).to_have_count(1)


def side_points(page) -> list[str]:
    return [text.strip() for text in page.locator("#sheet .sides .board .pts").all_inner_texts()]


def fits(page) -> None:
    """Nothing wider than the phone: no sideways scrolling."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE_390["width"]


def enter_board(page, board: int, facts: dict) -> None:
    """Type one board's hand with the keyboard where a box is typed, Enter to save."""
    form = page.locator(f"form#record-board-{board}")
    form.locator("fieldset.endings").get_by_text(
        {"gin": "Gin", "knock": "Knock", "dead": "Dead hand"}[facts["ending"]], exact=True
    ).click()
    if facts.get("by"):
        form.locator("fieldset.who").get_by_text(facts["by"], exact=True).click()
    if facts.get("knocker") is not None:
        form.get_by_label("Knocker's deadwood").fill(str(facts["knocker"]))
    box = form.get_by_label("Other player's deadwood")
    if facts.get("defender") is not None:
        box.fill(str(facts["defender"]))
        box.press("Enter")
    else:
        form.get_by_role("button", name=f"Save board {board}").press("Enter")


def engine_figures(game: Game):
    rules = resolve_rules(game.rules)
    ids = {player.name: player.pk for player in (game.player_one, game.player_two, game.player_three, game.player_four)}

    def facts(board):
        return HandFacts(
            ending=board["ending"],
            by=ids.get(board.get("by")),
            knocker_deadwood=board.get("knocker"),
            defender_deadwood=board.get("defender"),
        )

    players = tuple(ids[name] for name in NAMES)
    return score_partnership(rules, players, game.first_dealer_id, [(facts(one), facts(two)) for one, two in DEALS])


def test_a_partnership_game_on_two_phones_one_per_board_to_its_end_with_a_board_scored_offline(new_page, asgi_server):  # noqa: F811
    base = asgi_server
    UserFactory(username="ann")
    one = new_page(viewport=PHONE_390)
    two = new_page(viewport=PHONE_390)
    for phone in (one, two):
        sign_in(phone, base, "ann")

    # Phone one starts the game: four players, the sides, who plays whom, the first dealer.
    one.goto(f"{base}/games/new/")
    one.get_by_label("Rules", exact=True).select_option("partnership")
    for label, name in zip(
        (
            "First player",
            "Second player",
            "Third player (partner of the first)",
            "Fourth player (partner of the second)",
        ),
        NAMES,
        strict=True,
    ):
        one.get_by_label(label, exact=True).fill(name)
    pick(one, "Who deals first", "Ann")
    fits(one)
    one.get_by_role("button", name="Start the game").click()
    one.wait_for_url(re.compile(r"/games/\d+/$"))
    game = Game.objects.get()
    expect(one.locator("h1")).to_have_text("Ann & Cat v Bob & Dan")
    two.goto(f"{base}/games/{game.pk}/")
    for phone in (one, two):
        ready(phone)
        phone.evaluate("navigator.serviceWorker.ready.then(() => true)")

    for number, (first, second) in enumerate(DEALS, start=1):
        offline = (number, 2) == OFFLINE_BOARD
        expect(one.locator("form#record-board-1")).to_have_attribute("data-deal", str(number))
        if offline:
            two.reload()  # the page and the game's copy kept by the worker as they are now
            ready(two)
            two.context.set_offline(True)
        expect(two.locator("form#record-board-2")).to_have_attribute("data-deal", str(number))
        enter_board(one, 1, first)
        expect(one.locator(".notice")).to_contain_text(f"Deal {number}, board 1 saved")
        if number == 1:  # mid-deal: board 1 in, board 2 still being played
            expect(two.locator("#open-board-1")).to_contain_text("Recorded: the deal is settled")  # live
            fits(one)
            screenshot(one, "partnership-mid-deal-390")
        enter_board(two, 2, second)
        if offline:
            expect(two.locator("#open-board-2.unsent")).to_contain_text("Kept on this phone: not yet sent.")
            assert Hand.objects.filter(game=game, number=number, board=2).count() == 0
            screenshot(two, "partnership-board-offline-390")
            two.context.set_offline(False)
            two.evaluate("window.dispatchEvent(new Event('online'))")
        else:
            expect(two.locator(".notice")).to_contain_text(f"Deal {number}, board 2 saved")
        expect(one.locator("p.last-deal")).to_contain_text(f"Deal {number}:")  # live on phone one
        assert Hand.objects.filter(game=game, number=number).count() == 2

    result = engine_figures(game)
    assert result.over
    names = {
        player.pk: player.name for player in (game.player_one, game.player_two, game.player_three, game.player_four)
    }

    def side(key):
        return f"{names[key[0]]} & {names[key[1]]}"

    winner = side(result.winner)
    for phone in (one, two):
        phone.reload()
        expect(phone.locator("p.dealer.is-over")).to_contain_text(f"{winner} win by {result.margin}")
        assert side_points(phone) == [str(result.game.final[key]) for key in result.sides]
        for deal in result.deals:
            words = (
                "Tied deal: nobody scores."
                if deal.winner is None
                else f"{side(deal.winner)} win the deal by {deal.points}."
            )
            expect(phone.locator(f"ol.deals li[data-deal='{deal.number}'] .deal-result")).to_contain_text(words)
        assert phone.locator("form.board-record").count() == 0
        fits(phone)
    screenshot(one, "partnership-end-390")
    assert Hand.objects.filter(game=game).count() == 2 * len(DEALS)


LANGUAGES = {"en": "en-GB", "de": "de-DE", "es": "es-ES", "fr": "fr-FR", "pt-br": "pt-BR"}


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_partnership_pages_fit_a_390_px_phone_in_every_language(new_page, live_server, language):
    from scoring import services
    from tests.browser.test_phone_languages import OUT_OF_SIGHT
    from tests.factories import PlayerFactory

    user = UserFactory(username="ann")
    quartet = [PlayerFactory(name=name) for name in ("Annabelle", "Bartholomew", "Cyrille", "Dorothea")]
    one, two, three, four = quartet
    game = services.game_create(
        player_one=one,
        player_two=two,
        player_three=three,
        player_four=four,
        first_dealer=three,
        rules={"preset": "partnership", "partner_opponents": "alternate"},
        created_by=user,
    )
    for board, facts in (
        (1, {"ending": "gin", "by": one, "defender_deadwood": 20}),
        (2, {"ending": "knock", "by": four, "knocker_deadwood": 2, "defender_deadwood": 12}),
        (2, {"ending": "knock", "by": three, "knocker_deadwood": 9, "defender_deadwood": 5}),  # an undercut
    ):
        services.board_record(game=game, board=board, recorded_by=user, **facts)
    page = new_page(viewport=PHONE_390, locale=LANGUAGES[language])
    sign_in(page, live_server.url, "ann")
    widths, hidden = {}, {}
    for name, path in (
        ("new-game", f"/games/new/?from={game.pk}"),
        ("sheet", f"/games/{game.pk}/"),
        ("board-edit", f"/games/{game.pk}/hands/1/edit/?board=2"),
    ):
        page.goto(live_server.url + path)
        screenshot(page, f"partnership-{name}-{language}")
        widths[name] = page.evaluate("document.documentElement.scrollWidth")
        hidden[name] = page.evaluate(OUT_OF_SIGHT)
    assert all(width <= PHONE_390["width"] for width in widths.values()), widths
    assert not any(hidden.values()), hidden
