import subprocess
import sys
from pathlib import Path

PURE_MODULES = [
    "scoring.engine",
    "scoring.rules",
    "scoring.record",
    "scoring.cards",
    "scoring.melds",
    "scoring.ratings",
]


def test_rules_engine_imports_no_django():
    code = (
        "import sys; "
        + "; ".join(f"import {name}" for name in PURE_MODULES)
        + "; bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.')); "
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True
    )
    assert result.returncode == 0, f"django modules loaded: {result.stdout} {result.stderr}"
