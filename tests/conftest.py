import json
from pathlib import Path

import pytest

VECTOR_DIR = Path(__file__).parent / "vectors"
VECTOR_FILES = sorted(VECTOR_DIR.glob("*.json"))


def load_vector(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def user(db):
    from tests.factories import UserFactory

    return UserFactory(username="ann")
