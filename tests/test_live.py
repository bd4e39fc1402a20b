"""Live pages' one stream (/live/): who may follow what, and what each viewer hears."""

import asyncio
import json
import threading

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.test import AsyncClient
from django.urls import reverse

from scoring import changes, services
from scoring.league import live
from scoring.league import services as league
from tests.league_setup import make_club, play
from tests.test_wall import _record_later, open_season, run_async


async def _stream(user, query: str, *, until, timer_after_ready=None):
    """Open /live/?query as ``user`` (None: anonymous); read events until ``until(events)``. Returns
    (status, [(event, data)]). ``timer_after_ready``: started once the stream is ready (another phone's save)."""
    client = AsyncClient()
    if user is not None:
        await client.aforce_login(user)
    response = await client.get(reverse("live_events") + "?" + query)
    if response.status_code != 200:
        return response.status_code, []
    events, timer, buffer = [], None, ""
    try:
        async for chunk in response.streaming_content:
            buffer += chunk.decode()
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                fields = [line.split(": ", 1) for line in block.splitlines() if not line.startswith(":")]
                lines = dict(field for field in fields if len(field) == 2)
                if "event" in lines:
                    events.append((lines["event"], lines.get("data", "")))
                    if lines["event"] == "ready" and timer_after_ready is not None:
                        timer = timer_after_ready()
            if until(events):
                break
    finally:
        await response.streaming_content.aclose()
        if timer is not None:
            timer.join()
    return response.status_code, events


def _names(events):
    return [name for name, _ in events]


@pytest.mark.django_db(transaction=True)
def test_a_private_clubs_scoresheet_stream_is_refused_to_an_outsider():
    cast = make_club(name="Private Live", is_public=False)
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    ready = lambda events: "ready" in _names(events)  # noqa: E731
    for query in (f"game={game.pk}", f"season={season.pk}", f"club={cast.club.slug}"):
        assert run_async(_stream(None, query, until=ready))[0] == 404
        assert run_async(_stream(cast.outsider, query, until=ready))[0] == 404
    status, events = run_async(_stream(cast.player, f"game={game.pk}", until=ready))
    assert status == 200
    assert json.loads(events[0][1])["game"] == changes.game_version(game)


@pytest.mark.django_db(transaction=True)
def test_a_scoresheet_stream_hears_a_hand_saved_on_another_phone_of_a_friendly_game():
    cast = make_club(name="Kitchen Live")
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    friendly = services.game_create(player_one=pat, player_two=quinn, first_dealer=quinn, created_by=cast.player)
    status, events = run_async(
        _stream(
            None,
            f"game={friendly.pk}",
            until=lambda events: "game" in _names(events),
            timer_after_ready=lambda: _record_later(friendly, pat),
        )
    )
    friendly.refresh_from_db()
    assert status == 200 and _names(events) == ["ready", "game"]
    assert events[1][1] == changes.game_version(friendly) != json.loads(events[0][1])["game"]


@pytest.mark.django_db(transaction=True)
def test_a_stream_still_hears_a_hand_after_its_hub_failed_unexpectedly(monkeypatch):
    """The hub's first look at the versions fails with an error nobody planned for: the hub starts again
    and the open page still hears the other phone's hand (it used to stay deaf until another page opened)."""
    cast = make_club(name="Kitchen Hub")
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    friendly = services.game_create(player_one=pat, player_two=quinn, first_dealer=quinn, created_by=cast.player)
    reader = "_read_versions" if connection.vendor == "postgresql" else "_polled_versions"
    read, failed = getattr(live, reader), []

    def fails_once(*args):
        if not failed:
            failed.append(True)
            raise RuntimeError("an error nobody planned for")
        return read(*args)

    monkeypatch.setattr(live, reader, fails_once)
    monkeypatch.setattr(live, "RECONNECT_SECONDS", 0.1)
    watching = _stream(
        None,
        f"game={friendly.pk}",
        until=lambda events: "game" in _names(events),
        timer_after_ready=lambda: _record_later(friendly, pat, delay=0.5),
    )
    status, events = run_async(asyncio.wait_for(watching, timeout=10))
    friendly.refresh_from_db()
    assert failed and status == 200 and _names(events) == ["ready", "game"]
    assert events[1][1] == changes.game_version(friendly)


@pytest.mark.django_db(transaction=True)
def test_a_page_reopened_while_its_hub_was_stopping_still_hears_the_next_hand(monkeypatch):
    """A reload: the page's old stream ends, the hub sees nobody watching and stops, and the new stream
    opens while the hub is still closing its connection. The hub looks again instead of ending (the new
    page used to stay deaf: nothing started a hub that had not quite ended yet)."""
    cast = make_club(name="Kitchen Reload")
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    friendly = services.game_create(player_one=pat, player_two=quinn, first_dealer=quinn, created_by=cast.player)
    stopping = threading.Event()
    method = "_listen" if connection.vendor == "postgresql" else "_poll"
    watch = getattr(live._Hub, method)

    async def slow_to_close(hub):
        await watch(hub)
        stopping.set()
        await asyncio.sleep(1.0)  # closing its connection, slowly

    monkeypatch.setattr(live._Hub, method, slow_to_close)
    topics = [changes.game_topic(friendly.pk)]

    async def reload():
        page = live.topic_changes(topics)
        assert (await anext(page))[0] == "ready"
        await page.aclose()  # the page goes: nobody watches, the hub stops
        await sync_to_async(stopping.wait)(timeout=10)
        heard, timer = [], None
        async for kind, versions in live.topic_changes(topics):  # the page again, while the hub is closing
            heard.append((kind, versions))
            if kind == "ready":
                timer = _record_later(friendly, pat)
            elif kind == "change":
                break
        timer.join()
        return heard

    heard = run_async(asyncio.wait_for(reload(), timeout=15))
    friendly.refresh_from_db()
    assert stopping.is_set() and [kind for kind, _ in heard] == ["ready", "change"]
    assert heard[1][1] == {topics[0]: changes.game_version(friendly)}


def _hand_then_finish_later(game, by, then_by):
    """Another phone saves a hand of ``game`` (still in play after it), then, a second later (two polls of
    the SQLite hub), the gin that finishes it."""
    import threading
    import time

    from django.db import connection

    def both():
        try:
            services.hand_record(game=game, ending="knock", by=by, knocker_deadwood=4, defender_deadwood=20)
            time.sleep(1.0)
            play(game, then_by)
        finally:
            connection.close()

    thread = threading.Thread(target=both)
    thread.start()
    return thread


def _finish_both_later(first, first_by, then, then_by):
    """Another phone finishes ``first``, then ``then`` (one after the other)."""
    import threading

    from django.db import connection

    def both():
        try:
            play(first, first_by)
            play(then, then_by)
        finally:
            connection.close()

    thread = threading.Thread(target=both)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_to_do_event_reaches_the_members_of_the_club_only_when_a_result_can_move_their_list():
    cast = make_club(name="Todo Live", is_public=False)
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    other = make_club(name="Elsewhere")
    theirs = open_season(other, name="Theirs")
    other_pat, other_quinn = other.player_of(other.player), other.player_of(other.rival)
    their_game = league.open_game_start(
        season=theirs, player_one=other_pat, player_two=other_quinn, started_by=other.owner
    )
    until_todo = lambda events: "todo" in _names(events)  # noqa: E731
    before = changes.season_todo_versions([season.pk])[season.pk]

    # A member's stream (any page: the navigation's count) does not hear a hand of a game in play as
    # "todo" (no one's list moves: every signed-in page would fetch its count for nothing), and hears
    # the gin that finishes the game (a result for Quinn to confirm).
    status, heard = run_async(
        _stream(cast.rival, "", until=until_todo, timer_after_ready=lambda: _hand_then_finish_later(game, pat, pat))
    )
    assert status == 200 and _names(heard) == ["ready", "todo"]
    assert json.loads(heard[0][1]) == {"todo": before}
    assert heard[1][1] == changes.season_todo_versions([season.pk])[season.pk] != before
    their_version = changes.season_todo_versions([theirs.pk])[theirs.pk]
    # Another club's member: a result of the private club's season, then one of their own club's. The
    # first never reaches them; the first "todo" they hear is their own club's.
    rematch = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    status, heard = run_async(
        _stream(
            other.rival,
            "",
            until=until_todo,
            timer_after_ready=lambda: _finish_both_later(rematch, pat, their_game, other_pat),
        )
    )
    assert status == 200 and _names(heard) == ["ready", "todo"]
    assert json.loads(heard[0][1]) == {"todo": their_version}  # their own club's season only
    assert heard[1][1] == changes.season_todo_versions([theirs.pk])[theirs.pk]


@pytest.mark.django_db
def test_a_set_aside_version_and_a_dispute_move_the_versions_pages_follow():
    cast = make_club(name="Moves Live")
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    services.hand_record(game=game, ending="knock", by=pat, knocker_deadwood=4, defender_deadwood=20)
    before = changes.game_versions([game.pk])[game.pk]
    hand = game.hands.get(number=1)
    services.hand_version_set_aside(hand=hand, ending="knock", by=quinn, knocker_deadwood=3, defender_deadwood=30)
    after_set_aside = changes.game_versions([game.pk])[game.pk]
    assert after_set_aside != before
    play(game, pat)
    season_before = changes.season_version(season.pk)
    league.game_dispute(game=game, disputed_by=cast.rival, comment="Hand 2 was a knock, not gin.")
    assert changes.season_version(season.pk) != season_before
    assert changes.game_versions([game.pk])[game.pk] not in (after_set_aside, before)


@pytest.mark.django_db
def test_a_wsgi_server_answers_unlive_at_once_and_still_refuses_outsiders(client):
    cast = make_club(name="Wsgi Live", is_public=False)
    season = open_season(cast)
    url = reverse("live_events") + f"?season={season.pk}"
    client.force_login(cast.outsider)
    assert client.get(url).status_code == 404
    client.force_login(cast.player)
    response = client.get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == b"event: unlive\ndata: reload\n\n"  # ends: no thread held


@pytest.mark.django_db(transaction=True)
def test_a_server_shutting_down_ends_its_streams_at_once():
    cast = make_club(name="Closing Live")
    season = open_season(cast)

    async def watch():
        kinds = []
        async for kind, _ in live.topic_changes([changes.season_topic(season.pk)], seconds=60, keepalive=60):
            kinds.append(kind)
            if kind == "ready":
                live.end_streams()  # what uvicorn's exit handler calls first
        return kinds

    assert run_async(watch()) == ["ready", "closing"]  # ended, rather than cut after the server's grace time


@pytest.mark.django_db(transaction=True)
def test_the_club_page_shows_its_games_in_play_and_its_stream_hears_them(client):
    cast = make_club(name="Club Live")
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    page = client.get(reverse("league:club", args=[cast.club.slug])).content.decode()
    assert f'<li data-game="{game.pk}">' in page and 'id="club-playing"' in page and 'data-live="club"' in page
    status, heard = run_async(
        _stream(
            None,
            f"club={cast.club.slug}",
            until=lambda events: "club" in _names(events),
            timer_after_ready=lambda: _record_later(game, pat),
        )
    )
    assert status == 200 and _names(heard) == ["ready", "club"]
    assert "1 hand played" in client.get(reverse("league:club", args=[cast.club.slug])).content.decode()


@pytest.mark.django_db(transaction=True)
def test_one_address_holds_at_most_the_configured_number_of_streams(settings):
    """One client cannot hold the process's file descriptors: one stream too many is a clear 429."""
    settings.LIVE_STREAMS_PER_ADDRESS = 2
    cast = make_club(name="Capped Live")
    season = open_season(cast)
    url = reverse("live_events") + f"?season={season.pk}"

    async def open_three_then_one_more():
        client = AsyncClient()
        held = [await client.get(url), await client.get(url)]
        reading = [response.streaming_content for response in held]  # one iterator each, kept
        for response, events in zip(held, reading, strict=True):  # both are open: they answer
            assert response.status_code == 200 and b"retry: 1000" in await anext(events)
        refused = await client.get(url)
        assert refused.status_code == 429  # the third
        wall = reverse("league:wall_events", args=[cast.club.slug, season.pk])
        assert (await client.get(wall)).status_code == 429  # a wall screen's stream counts too
        await reading[0].aclose()  # one page closed, and the server closed its answer: its place is free again
        await sync_to_async(held[0].close)()
        again = await client.get(url)
        open_now = live.open_streams("127.0.0.1")
        for response, events in ((held[1], reading[1]), (again, again.streaming_content)):
            await anext(events)
            await events.aclose()
            await sync_to_async(response.close)()
        return refused, again.status_code, open_now, live.open_streams("127.0.0.1")

    refused, again, open_now, open_after = run_async(open_three_then_one_more())
    assert refused.status_code == 429 and refused["Retry-After"] == "60"
    assert refused.content.decode() == (
        "Too many live pages are open from your address (at most 2). Close some, then reload this one."
    )
    assert again == 200 and open_now == 2 and open_after == 0
