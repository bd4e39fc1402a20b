"""Every committed change moves the versions live pages follow, whatever the order of commits and the clocks."""

import datetime
import threading
from unittest import mock

import pytest
from django.db import connection, transaction
from django.utils import timezone

from scoring import changes, services
from scoring.league import live
from scoring.league import services as league
from tests.league_setup import make_club
from tests.test_wall import open_season, run_async


def _two_tables(name):
    cast = make_club(name=name)
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    table_a = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    table_b = league.open_game_start(season=season, player_one=quinn, player_two=cast.guest, started_by=cast.owner)
    return season, (table_a, pat), (table_b, quinn)


def _knock(game, by):
    services.hand_record(game=game, ending="knock", by=by, knocker_deadwood=4, defender_deadwood=20)


def _watch(season, stop: threading.Event, heard: list):
    """A live page of the season (in a thread of its own): every version its stream tells, until ``stop``."""

    async def follow():
        topic = changes.season_topic(season.pk)
        stream = live.topic_changes([topic], seconds=30, keepalive=0.2)
        async for kind, versions in stream:
            if topic in versions:
                heard.append(versions[topic])
            if stop.is_set():
                await stream.aclose()
                return

    thread = threading.Thread(target=run_async, args=(follow(),))
    thread.start()
    return thread


def _wait_for(condition, seconds=15.0):
    deadline = timezone.now() + datetime.timedelta(seconds=seconds)
    while not condition() and timezone.now() < deadline:
        threading.Event().wait(0.05)
    return condition()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite serialises writers (BEGIN IMMEDIATE): a second transaction cannot commit while the first "
    "is open; the clock test below is SQLite's way to commit out of stamp order",
)
def test_a_hand_that_commits_after_a_later_one_still_moves_the_season_and_is_heard():
    """Table A's save starts first and commits last; table B's saves and commits in between."""
    season, (table_a, pat), (table_b, quinn) = _two_tables("Commit Order")
    heard, stop = [], threading.Event()
    watcher = _watch(season, stop, heard)
    assert _wait_for(lambda: heard)  # the stream is ready
    a_written, b_committed, after_b = threading.Event(), threading.Event(), {}

    def table_a_phone():
        try:
            with transaction.atomic():
                _knock(table_a, pat)
                a_written.set()
                b_committed.wait(timeout=10)  # table B commits while this transaction is still open
        finally:
            connection.close()

    def table_b_phone():
        try:
            a_written.wait(timeout=10)
            _knock(table_b, quinn)
            after_b["version"] = changes.season_version(season.pk)
            b_committed.set()
        finally:
            connection.close()

    phones = [threading.Thread(target=table_a_phone), threading.Thread(target=table_b_phone)]
    for phone in phones:
        phone.start()
    for phone in phones:
        phone.join()
    assert b_committed.is_set() and table_a.hands.count() == table_b.hands.count() == 1
    final = changes.season_version(season.pk)
    try:
        assert final != after_b["version"]  # table A's hand moved the season's version when it committed
        assert _wait_for(lambda: heard[-1] == final)  # and every page of the season heard of it
    finally:
        stop.set()
        watcher.join()


@pytest.mark.django_db(transaction=True)
def test_a_change_stamped_by_a_server_whose_clock_is_behind_still_moves_the_season():
    """Two app servers (or one whose clock was set back): the later commit carries the earlier time."""
    season, (table_a, pat), (table_b, quinn) = _two_tables("Clock Behind")
    heard, stop = [], threading.Event()
    watcher = _watch(season, stop, heard)
    assert _wait_for(lambda: heard)
    _knock(table_b, quinn)  # on the server whose clock is right
    assert _wait_for(lambda: heard[-1] == changes.season_version(season.pk))
    after_b = changes.season_version(season.pk)
    behind = timezone.now() - datetime.timedelta(seconds=5)
    with mock.patch("django.utils.timezone.now", return_value=behind):  # the other server, 5 s behind
        _knock(table_a, pat)
    final = changes.season_version(season.pk)
    try:
        assert final != after_b
        assert _wait_for(lambda: heard[-1] == final)
    finally:
        stop.set()
        watcher.join()
