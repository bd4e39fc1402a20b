"""A client generated from the API's own schema (openapi-python-client, the most used generator) plays a whole game.

The client is generated from /api/schema/ of a live server, then starts a game,
records hands (one retried with the same Idempotency-Key), corrects one and
reads the game back; every answer must parse into the generated typed models.
"""

import importlib
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from players.tokens import token_create
from tests.factories import UserFactory

VENV_BIN = Path(sys.executable).parent
PACKAGE = "ginleague_client"


@pytest.fixture
def generated_client(live_server, tmp_path, monkeypatch):
    generator = shutil.which("openapi-python-client", path=str(VENV_BIN)) or shutil.which("openapi-python-client")
    if generator is None:
        pytest.fail("openapi-python-client is a dev dependency: pip install -e '.[dev]'")
    # The schema as the live server serves it, read here with a generous timeout: the generator's own
    # --url fetch gives up after 5 s, which a loaded machine's schema generation can take.
    schema = tmp_path / "schema.yaml"  # YAML's parser reads JSON too
    with urllib.request.urlopen(f"{live_server.url}/api/schema/", timeout=120) as answer:
        schema.write_bytes(answer.read())
    result = subprocess.run(
        [generator, "generate", "--path", str(schema), "--output-path",
         str(tmp_path / PACKAGE), "--meta", "none"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"},  # its ruff post-hook
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
        del sys.modules[name]
    return importlib.import_module(PACKAGE)


def test_a_generated_client_plays_a_whole_game(generated_client, live_server, transactional_db):
    client_module = generated_client
    api = importlib.import_module(f"{PACKAGE}.api")  # noqa: F841 (the subpackages below)
    from ginleague_client.api.games import (
        games_create,
        games_hands_create,
        games_hands_partial_update,
        games_retrieve,
    )
    from ginleague_client.api.players import players_create
    from ginleague_client.models import (
        EndingEnum,
        GameCreateRequest,
        GameCreateRequestRules,
        GameDetail,
        HandEdited,
        HandRecorded,
        HandRecordRequest,
        PatchedHandEditRequest,
        Player,
        PlayerRequest,
    )

    user = UserFactory(username="generated")
    client = client_module.AuthenticatedClient(
        base_url=live_server.url, token=token_create(user=user).key, prefix="Token", raise_on_unexpected_status=True
    )

    ann = players_create.sync(client=client, body=PlayerRequest(name="Gen Ann"))
    bob = players_create.sync(client=client, body=PlayerRequest(name="Gen Bob"))
    assert isinstance(ann, Player) and isinstance(bob, Player)

    rules = GameCreateRequestRules.from_dict({"preset": "standard", "undercut_bonus": 20})
    game = games_create.sync(
        client=client, body=GameCreateRequest(player_one=ann.id, player_two=bob.id, first_dealer=bob.id, rules=rules)
    )
    assert isinstance(game, GameDetail)
    assert game.rules.additional_properties["undercut_bonus"] == 20

    first = games_hands_create.sync(
        game.id, client=client, idempotency_key="gen-hand-1",
        body=HandRecordRequest(number=1, ending=EndingEnum.KNOCK, by=ann.id, knocker_deadwood=5, defender_deadwood=30),
    )  # fmt: skip
    assert isinstance(first, HandRecorded)
    assert first.hand.points == 25

    body = HandRecordRequest(number=2, ending=EndingEnum.KNOCK, by=bob.id, knocker_deadwood=2, defender_deadwood=12)
    second = games_hands_create.sync_detailed(game.id, client=client, idempotency_key="gen-hand-2", body=body)
    retried = games_hands_create.sync_detailed(game.id, client=client, idempotency_key="gen-hand-2", body=body)
    assert isinstance(second.parsed, HandRecorded) and isinstance(retried.parsed, HandRecorded)
    assert retried.headers.get("Idempotent-Replayed") == "true"
    assert retried.parsed.hand.id == second.parsed.hand.id
    assert retried.parsed.game.hand_count == 2  # recorded once

    corrected = games_hands_partial_update.sync(
        game.id, first.hand.id, client=client, idempotency_key="gen-fix-1",
        body=PatchedHandEditRequest(knocker_deadwood=4, reason="Miscounted"),
    )  # fmt: skip
    assert isinstance(corrected, HandEdited)
    assert corrected.hand.points == 26
    assert corrected.changes

    last = games_hands_create.sync(
        game.id, client=client, idempotency_key="gen-hand-3",
        body=HandRecordRequest(number=3, ending=EndingEnum.GIN, by=ann.id, defender_deadwood=80),
    )  # fmt: skip
    assert isinstance(last, HandRecorded)

    final = games_retrieve.sync(game.id, client=client)
    assert isinstance(final, GameDetail)
    assert final.over is True
    assert final.winner is not None and final.winner.id == ann.id
    assert [hand.number for hand in final.hands] == [1, 2, 3]


def test_a_generated_client_plays_a_partnership_game_to_its_end(generated_client, live_server, transactional_db):
    client_module = generated_client
    from ginleague_client.api.games import (
        games_create,
        games_hands_create,
        games_hands_partial_update,
        games_retrieve,
    )
    from ginleague_client.api.players import players_create
    from ginleague_client.models import (
        EndingEnum,
        GameCreateRequest,
        GameCreateRequestRules,
        GameDetail,
        HandEdited,
        HandRecorded,
        HandRecordRequest,
        PatchedHandEditRequest,
        PlayerRequest,
        Problem,
    )

    user = UserFactory(username="partners")
    client = client_module.AuthenticatedClient(
        base_url=live_server.url, token=token_create(user=user).key, prefix="Token", raise_on_unexpected_status=True
    )
    ann, bob, cat, dan = (
        players_create.sync(client=client, body=PlayerRequest(name=f"Gen {name}"))
        for name in ("Ann", "Bob", "Cat", "Dan")
    )
    game = games_create.sync(
        client=client,
        body=GameCreateRequest(
            player_one=ann.id, player_two=bob.id, player_three=cat.id, player_four=dan.id, first_dealer=bob.id,
            rules=GameCreateRequestRules.from_dict({"preset": "partnership"}),
        ),
    )  # fmt: skip
    assert isinstance(game, GameDetail) and game.player_three.id == cat.id and game.player_four.id == dan.id

    def record(key, **facts):
        return games_hands_create.sync_detailed(
            game.id, client=client, idempotency_key=key, body=HandRecordRequest(**facts)
        )

    # Deal 1: board 2 comes in first, from the other phone; then board 1, which a second phone sends again.
    second = record("b2-1", number=1, board=2, ending=EndingEnum.KNOCK, by=dan.id, knocker_deadwood=3,
                    defender_deadwood=13)  # fmt: skip
    assert isinstance(second.parsed, HandRecorded) and second.parsed.game.deals[0].settled is False
    first = record("b1-1", number=1, board=1, ending=EndingEnum.KNOCK, by=ann.id, knocker_deadwood=4,
                   defender_deadwood=20)  # fmt: skip
    assert isinstance(first.parsed, HandRecorded)
    assert first.parsed.game.deals[0].winner == ann.id and first.parsed.game.deals[0].points == 6
    again = record("b1-1-other-phone", number=1, board=1, ending=EndingEnum.KNOCK, by=ann.id, knocker_deadwood=4,
                   defender_deadwood=20)  # fmt: skip
    assert again.status_code == 409 and isinstance(again.parsed, Problem)
    assert (again.parsed.hand, again.parsed.board, again.parsed.field) == (1, 1, "number")

    # A board corrected: Dan's knock was Cat's undercut on board 2.
    corrected = games_hands_partial_update.sync(
        game.id, second.parsed.hand.id, client=client, idempotency_key="fix-b2-1",
        body=PatchedHandEditRequest(by=cat.id, knocker_deadwood=3, defender_deadwood=23, reason="Cat knocked"),
    )  # fmt: skip
    assert isinstance(corrected, HandEdited) and corrected.changes
    assert corrected.game.deals[0].points == 36  # 16 + 20

    # Two gin deals for Ann & Cat end the game (36 + 90 + 90 >= 125).
    for number in (2, 3):
        for board, by in ((1, ann), (2, cat)):
            answer = record(f"gin-{number}-{board}", number=number, board=board, ending=EndingEnum.GIN, by=by.id,
                            defender_deadwood=20)  # fmt: skip
            assert isinstance(answer.parsed, HandRecorded), answer.content
        if answer.parsed.game.over:
            break
    final = games_retrieve.sync(game.id, client=client)
    assert isinstance(final, GameDetail) and final.over is True
    assert final.winner.id == ann.id  # the side Ann & Cat, named by its first-seated player
    assert [deal.settled for deal in final.deals] == [True] * len(final.deals)
    assert final.scores[0].player_one_final > final.scores[0].player_two_final
