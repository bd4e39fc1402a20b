"""How hard the suite fuzzes: a quick pass in `make test`, a deep one in `make fuzz` (GINLEAGUE_FUZZ=deep)."""

import os

DEEP = os.environ.get("GINLEAGUE_FUZZ", "") == "deep"


def examples(quick: int, deep: int) -> int:
    """The number of generated cases: ``quick`` in everyday runs, ``deep`` under `make fuzz`."""
    return deep if DEEP else quick
