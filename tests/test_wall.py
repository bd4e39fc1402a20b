"""The wall screen: who may see it, what it shows without JavaScript, and its event stream."""

import asyncio
import threading

import pytest
from django.test import AsyncClient
from django.urls import reverse

from scoring import changes, services
from scoring.league import live
from scoring.league import services as league
from scoring.models import Game, SeasonFormat
from tests.league_setup import make_club, play


def run_async(coroutine):
    """asyncio.run in a thread of its own: Playwright's sync API (browser tests earlier in the
    session) leaves an event loop running in this one."""
    result = {}

    def target():
        try:
            result["value"] = asyncio.run(coroutine)
        except BaseException as error:  # handed back to the test below
            result["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def open_season(cast, name="Wall Season"):
    players = [cast.player_of(cast.player), cast.player_of(cast.rival), cast.guest]
    return league.season_create(
        club=cast.club, name=name, players=players, format=SeasonFormat.OPEN, created_by=cast.owner
    )


@pytest.mark.django_db
def test_public_wall_is_a_plain_page_with_a_reload_link(client):
    cast = make_club(name="Wall Gin")
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    done = play(league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner), pat)
    league.game_confirm(game=done, confirmed_by=cast.owner)
    live_game = league.open_game_start(season=season, player_one=quinn, player_two=cast.guest, started_by=cast.owner)
    services.hand_record(game=live_game, ending="knock", by=quinn, knocker_deadwood=4, defender_deadwood=20)

    url = reverse("league:wall", args=[cast.club.slug, season.pk])
    response = client.get(url)
    assert response.status_code == 200
    text = response.content.decode()
    assert f'<a class="wall-reload" href="{url}">Reload</a>' in text
    assert 'http-equiv="refresh"' not in text
    assert "<script src=" in text and "<script>" not in text and "style=" not in text  # CSP: no inline code
    assert "/static/css/wall.css" in text and "/static/js/wall.js" in text
    # The confirmed winner leads; the game in play shows its running hand points.
    assert f'<tr data-player="{pat.name}">\n          <td class="num">1</td>' in text
    assert f'data-game="{live_game.pk}"' in text and "16&ndash;0" in text
    assert 'data-version="' in text


@pytest.mark.django_db
def test_board_partial_is_only_the_board(client):
    cast = make_club(name="Board Gin")
    season = open_season(cast)
    response = client.get(reverse("league:wall_board", args=[cast.club.slug, season.pk]))
    text = response.content.decode().strip()
    assert text.startswith('<div id="wall-board"') and text.endswith("</div>")
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_private_wall_only_for_members(client):
    cast = make_club(name="Private Wall", is_public=False)
    season = open_season(cast)
    urls = [
        reverse(name, args=[cast.club.slug, season.pk])
        for name in ("league:wall", "league:wall_board", "league:wall_events")
    ]
    for url in urls[:2]:
        assert client.get(url).status_code == 404
    client.force_login(cast.outsider)
    for url in urls[:2]:
        assert client.get(url).status_code == 404
    client.force_login(cast.player)
    for url in urls[:2]:
        assert client.get(url).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_private_event_stream_refuses_outsiders():
    cast = make_club(name="Private Stream", is_public=False)
    season = open_season(cast)
    url = reverse("league:wall_events", args=[cast.club.slug, season.pk])

    async def status_for(user):
        client = AsyncClient()
        if user is not None:
            await client.aforce_login(user)
        response = await client.get(url)
        return response.status_code

    assert run_async(status_for(None)) == 404
    assert run_async(status_for(cast.outsider)) == 404


@pytest.mark.django_db
def test_the_season_version_moves_with_every_saved_hand_and_confirmation():
    cast = make_club(name="Version Gin")
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    seen = [changes.season_version(season.pk)]
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    seen.append(changes.season_version(season.pk))
    services.hand_record(game=game, ending="knock", by=pat, knocker_deadwood=4, defender_deadwood=20)
    seen.append(changes.season_version(season.pk))
    services.hand_remove_last(game=game)
    seen.append(changes.season_version(season.pk))
    play(game, pat)
    seen.append(changes.season_version(season.pk))
    league.game_confirm(game=game, confirmed_by=cast.owner)
    seen.append(changes.season_version(season.pk))
    assert len(set(seen)) == len(seen), seen


def _record_later(game, by, delay=0.3):
    """Save a hand from another thread (its own database connection), like another device would."""
    from django.db import connection

    def record():
        try:
            services.hand_record(game=game, ending="knock", by=by, knocker_deadwood=4, defender_deadwood=20)
        finally:
            connection.close()

    timer = threading.Timer(delay, record)
    timer.start()
    return timer


@pytest.mark.django_db(transaction=True)
def test_change_stream_reports_a_hand_saved_elsewhere():
    cast = make_club(name="Stream Gin")
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)

    async def watch():
        events = []
        async for kind, data in live.season_changes(season.pk, seconds=5, keepalive=60):
            events.append((kind, data))
            if kind == "ready":
                timer = _record_later(game, pat)
            if kind == "change":
                break
        timer.join()
        return events

    events = run_async(watch())
    assert [kind for kind, _ in events] == ["ready", "change"]
    assert events[1][1] == changes.season_version(season.pk) != events[0][1]


@pytest.mark.django_db(transaction=True)
def test_a_quiet_stream_sends_keepalives_and_ends():
    cast = make_club(name="Quiet Stream")
    season = open_season(cast)

    async def watch():
        return [kind async for kind, _ in live.season_changes(season.pk, seconds=1.6, keepalive=0.5)]

    kinds = run_async(watch())
    assert kinds[0] == "ready" and kinds.count("keepalive") >= 2 and "change" not in kinds


@pytest.mark.django_db(transaction=True)
def test_events_view_streams_server_sent_events():
    cast = make_club(name="SSE Gin")
    season = open_season(cast)
    url = reverse("league:wall_events", args=[cast.club.slug, season.pk])

    async def first_chunks():
        response = await AsyncClient().get(url)
        chunks = []
        async for chunk in response.streaming_content:
            chunks.append(chunk.decode())
            if "event: ready" in chunk.decode():
                break
        await response.streaming_content.aclose()
        return response, "".join(chunks)

    response, text = run_async(first_chunks())
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    assert text.startswith("retry: 1000\n\n")
    assert f"event: ready\ndata: {changes.season_version(season.pk)}\n\n" in text


def _database_clock():
    """PostgreSQL's clock now (None elsewhere)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        return cursor.fetchone()[0]


def _listener_sessions(since) -> int:
    """PostgreSQL sessions of the wall-screen hub on this test database opened since ``since`` (0
    elsewhere). Not the older ones: a wall screen an earlier browser test closed can still hold a
    stream in that test's live server (a WSGI server notices a gone client at its next keepalive)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s"
            " AND backend_start >= %s",
            [live.LISTENER_NAME, since],
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_many_screens_share_one_listener_and_each_hears_only_its_own_season():
    cast = make_club(name="Busy Night")
    busy, quiet = open_season(cast, name="Busy"), open_season(cast, name="Quiet")
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    game = league.open_game_start(season=busy, player_one=pat, player_two=quinn, started_by=cast.owner)
    screens = 12  # per season
    since = _database_clock()

    async def watch():
        ready = asyncio.Event()
        opened = 0

        async def screen(season_id):
            nonlocal opened
            kinds = []
            async for kind, _ in live.season_changes(season_id, seconds=2.5, keepalive=60):
                kinds.append(kind)
                if kind == "ready":
                    opened += 1
                    if opened == 2 * screens:
                        ready.set()
            return season_id, kinds

        tasks = [asyncio.create_task(screen(season.pk)) for season in (busy, quiet) for _ in range(screens)]
        await ready.wait()
        stats = live.hub_stats()
        await asyncio.sleep(0.3)  # the hub has connected and listens
        sessions = await asyncio.to_thread(_listener_sessions, since)
        timer = _record_later(game, pat, delay=0)
        heard = {busy.pk: [], quiet.pk: []}
        for season_id, kinds in await asyncio.gather(*tasks):
            heard[season_id].append(kinds)
        timer.join()
        return heard, stats, sessions

    heard, stats, sessions = run_async(watch())
    assert stats == {"seasons": 2, "streams": 2 * screens, "running": 1}
    assert sessions in (0, 1)  # one LISTEN connection for every screen of the process (PostgreSQL)
    assert heard[busy.pk] == [["ready", "change"]] * screens  # every screen of the season, once
    assert heard[quiet.pk] == [["ready"]] * screens  # and no other season's screen


def _psycopg_on_postgresql_only():
    """psycopg, to LISTEN as a wall screen's hub does; the test is skipped on SQLite, which has no NOTIFY."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("NOTIFY is PostgreSQL's; SQLite screens poll (test_change_stream_reports_a_hand_saved_elsewhere)")
    import psycopg

    return psycopg


@pytest.mark.django_db(transaction=True)
def test_a_seasons_hand_is_announced_to_its_wall_screens_and_a_friendly_games_to_nobody():
    psycopg = _psycopg_on_postgresql_only()
    cast = make_club(name="Announced")
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    league_game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
    friendly = services.game_create(player_one=pat, player_two=quinn, first_dealer=quinn, created_by=cast.owner)
    with psycopg.connect(**live._listener_params()) as listener:
        listener.execute(f"LISTEN {changes.CHANNEL}")
        listener.execute(f"LISTEN {changes.GAME_CHANNEL}")  # every game's open scoresheets
        for game in (friendly, league_game, friendly):
            services.hand_record(game=game, ending="knock", by=pat, knocker_deadwood=4, defender_deadwood=20)
        heard = [(note.channel, note.payload) for note in listener.notifies(timeout=1.0)]
    assert [payload for channel, payload in heard if channel == changes.CHANNEL] == [f"season:{season.pk}"]
    games = [f"game:{game.pk}" for game in (friendly, league_game, friendly)]
    assert [payload for channel, payload in heard if channel == changes.GAME_CHANNEL] == games


@pytest.mark.django_db(transaction=True)
def test_a_seasons_new_game_is_announced_to_its_wall_screens_at_once():
    """A season's game started is on its walls when it commits, not at their hub's next look around
    (SAFETY_SECONDS later): a new game sent no notification before."""
    psycopg = _psycopg_on_postgresql_only()
    cast = make_club(name="Started")
    season = open_season(cast)
    pat, quinn = cast.player_of(cast.player), cast.player_of(cast.rival)
    with psycopg.connect(**live._listener_params()) as listener:
        listener.execute(f"LISTEN {changes.CHANNEL}")
        game = league.open_game_start(season=season, player_one=pat, player_two=quinn, started_by=cast.owner)
        heard = [(note.channel, note.payload) for note in listener.notifies(timeout=10.0, stop_after=1)]
    assert heard == [(changes.CHANNEL, f"season:{season.pk}")]
    assert Game.objects.get(pk=game.pk).season_id == season.pk
