"""The rules engine package imports no Django: every module in scoring/engine/, found on disk."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "scoring" / "engine"


def engine_modules() -> list[str]:
    return sorted(
        "scoring.engine" + ("" if path.stem == "__init__" else f".{path.stem}")
        for path in ENGINE.glob("*.py")
    )


def test_every_engine_module_is_found():
    modules = engine_modules()
    assert "scoring.engine.score" in modules and "scoring.engine.melds" in modules
    assert len(modules) >= 10


def test_engine_imports_no_django_and_nothing_else_of_the_project():
    code = (
        "import sys; "
        + "; ".join(f"import {name}" for name in engine_modules())
        + "; bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'players')"
        " or (m.startswith('scoring.') and not m.startswith('scoring.engine'))); "
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, f"the engine loaded: {result.stdout} {result.stderr}"
