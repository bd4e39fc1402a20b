"""Benchmark: the two ways to score offline in the browser (docs/offline.md says which was chosen).

    .venv/bin/python bench/bench_offline_scorer.py [--pyodide DIR] [--runs N] [--no-phone]

(a) the pure engine (scoring/engine: __init__, cards, rules, score) under Pyodide;
(b) the JavaScript port, static/js/engine.js.
Each is served from a local static server (no compression, like a cold cache) to
headless Chromium at 390x844, in a fresh browser context per run, and the script prints:
bytes downloaded (as the browser counts them, and gzip -9 of the same files), ms from
navigation to the first scored session, bytes a service worker would keep offline,
and ms to score a 60-hand Hollywood sitting once loaded (median). The "phone" rows
repeat the first load under Lighthouse's mobile throttling (4x slower CPU, 1.6 Mbit/s,
150 ms round trip) through the DevTools protocol.

Pyodide is not a project dependency: get it once outside the repo with
``cd /tmp/pyodide && npm pack pyodide && tar xzf pyodide-*.tgz`` and pass
``--pyodide /tmp/pyodide/package`` (the default). Without it only (b) is measured.
Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import random
import shutil
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoring.engine.rules import resolve_rules  # noqa: E402
from scoring.engine.score import HandFacts, score_session  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 390, "height": 844}
ENGINE_FILES = ("__init__.py", "cards.py", "rules.py", "score.py")
PYODIDE_FILES = ("pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
# Lighthouse's mobile profile.
PHONE_NETWORK = {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8}
PHONE_CPU_SLOWDOWN = 4


def hollywood_sitting(hands: int = 60, seed: int = 7) -> list[dict]:
    """A valid 60-hand Hollywood sitting (target raised so that every hand counts)."""
    rng = random.Random(seed)
    facts = []
    for _ in range(hands):
        ending = rng.choice(["knock", "knock", "gin", "dead"])
        hand = {"ending": ending, "by": None, "knocker_deadwood": None, "defender_deadwood": None, "upcard": None}
        if ending != "dead":
            hand["by"] = rng.choice([1, 2])
            hand["defender_deadwood"] = rng.randint(0, 40)
        if ending == "knock":
            hand["knocker_deadwood"] = rng.randint(1, 10)
        facts.append(hand)
    rules = {"preset": "hollywood", "target": 1000}
    score_session(resolve_rules(rules), (1, 2), 1, [HandFacts(**hand) for hand in facts])  # valid, or raise
    return [rules, facts]


PORT_PAGE = """<!doctype html><meta charset="utf-8"><title>port</title>
<script src="engine.js"></script>
<script>
  const [rules, hands] = %(sitting)s;
  const game = GinEngine.scoreSession(rules, [1, 2], 1, hands.slice(0, 5));
  window.firstScored = {ms: performance.now(), over: game.over};
  window.scoreSitting = () => GinEngine.scoreSession(rules, [1, 2], 1, hands);
</script>"""

PYODIDE_PAGE = """<!doctype html><meta charset="utf-8"><title>pyodide</title>
<script src="pyodide/pyodide.js"></script>
<script>
(async () => {
  const [rules, hands] = %(sitting)s;
  const py = await loadPyodide({indexURL: new URL("pyodide/", location.href).href});
  py.FS.mkdirTree("/engine/scoring/engine");
  py.FS.writeFile("/engine/scoring/__init__.py", "");
  for (const name of %(files)s) {
    py.FS.writeFile("/engine/scoring/engine/" + name, await (await fetch("engine/" + name)).text());
  }
  py.runPython(`
import sys, json
sys.path.insert(0, "/engine")
from scoring.engine.rules import resolve_rules
from scoring.engine.score import HandFacts, score_session
def score_json(rules, hands):
    result = score_session(resolve_rules(json.loads(rules)), (1, 2), 1, [HandFacts(**h) for h in json.loads(hands)])
    return json.dumps({"over": result.over, "next_dealer": result.next_dealer,
        "scores": [[g.hand_points[1], g.hand_points[2], g.final] for g in result.games],
        "hands": [[h.dealer, h.result, h.winner, h.points, h.boxes, list(h.games)] for h in result.hands]})
`);
  const scoreJson = py.globals.get("score_json");
  const game = JSON.parse(scoreJson(JSON.stringify(rules), JSON.stringify(hands.slice(0, 5))));
  window.firstScored = {ms: performance.now(), over: game.over};
  window.scoreSitting = () => JSON.parse(scoreJson(JSON.stringify(rules), JSON.stringify(hands)));
})();
</script>"""


def build_site(site: Path, pyodide: Path | None, sitting: list) -> None:
    shutil.copy(ROOT / "static" / "js" / "engine.js", site / "engine.js")
    (site / "port.html").write_text(PORT_PAGE % {"sitting": json.dumps(sitting)})
    if pyodide is None:
        return
    (site / "pyodide").mkdir()
    for name in PYODIDE_FILES:
        shutil.copy(pyodide / name, site / "pyodide" / name)
    (site / "engine").mkdir()
    for name in ENGINE_FILES:
        shutil.copy(ROOT / "scoring" / "engine" / name, site / "engine" / name)
    (site / "pyodide.html").write_text(
        PYODIDE_PAGE % {"sitting": json.dumps(sitting), "files": json.dumps(list(ENGINE_FILES))}
    )


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {
            **http.server.SimpleHTTPRequestHandler.extensions_map,
            ".mjs": "text/javascript",
            ".wasm": "application/wasm",
        }

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def first_load(browser, url: str, *, phone: bool) -> dict:
    """One cold load in a fresh context: bytes fetched (by file), ms to the first scored session."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    fetched: dict[str, int] = {}
    page.on(
        "requestfinished",
        lambda request: fetched.__setitem__(request.url.rsplit("/", 1)[-1], request.sizes()["responseBodySize"]),
    )
    if phone:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", PHONE_NETWORK)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": PHONE_CPU_SLOWDOWN})
    page.goto(url)
    page.wait_for_function("() => window.firstScored", timeout=300_000, polling=50)
    first = page.evaluate("() => window.firstScored")
    times = []
    if not phone:
        for _ in range(15):
            times.append(
                page.evaluate(
                    "() => { const t = performance.now(); window.scoreSitting(); return performance.now() - t; }"
                )
            )
    context.close()
    return {"ms": first["ms"], "fetched": fetched, "score_ms": statistics.median(times) if times else None}


def gzip_size(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyodide", type=Path, default=Path("/tmp/pyodide/package"))
    parser.add_argument("--runs", type=int, default=3, help="cold loads per option (median shown)")
    parser.add_argument("--no-phone", action="store_true", help="skip the throttled phone loads")
    args = parser.parse_args()
    pyodide = args.pyodide if (args.pyodide / "pyodide.asm.wasm").exists() else None
    if pyodide is None:
        print(f"(no Pyodide at {args.pyodide}: only the JavaScript port is measured; see the docstring)")
    else:
        version = json.loads((pyodide / "package.json").read_text())["version"]
        print(f"Pyodide {version} from {pyodide}")

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as temp, sync_playwright() as playwright:
        site = Path(temp)
        build_site(site, pyodide, hollywood_sitting())
        server, base = serve(site)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        options = [("JavaScript port (static/js/engine.js)", "port.html")]
        if pyodide is not None:
            options.append(("Pyodide + scoring/engine", "pyodide.html"))
        print(
            f"{'option':40} {'download':>11} {'gzip -9':>10} {'kept offline':>13} "
            f"{'first score':>12} {'phone first':>12} {'60-hand Hollywood':>18}"
        )
        for label, page_name in options:
            loads = [first_load(browser, base + page_name, phone=False) for _ in range(args.runs)]
            fetched = loads[0]["fetched"]
            scorer_files = {name: size for name, size in fetched.items() if not name.endswith(".html")}
            downloaded = sum(scorer_files.values())
            gz = sum(gzip_size(next(site.rglob(name))) for name in scorer_files)
            first_ms = statistics.median(load["ms"] for load in loads)
            score_ms = statistics.median(load["score_ms"] for load in loads)
            phone_ms = None if args.no_phone else first_load(browser, base + page_name, phone=True)["ms"]
            phone = "-" if phone_ms is None else f"{phone_ms:,.0f} ms"
            print(
                f"{label:40} {downloaded:>9,} B {gz:>8,} B {downloaded:>11,} B {first_ms:>9,.0f} ms "
                f"{phone:>12} {score_ms:>15.2f} ms"
            )
            for name, size in sorted(scorer_files.items(), key=lambda item: -item[1]):
                print(f"    {name:36} {size:>11,} B")
        browser.close()
        server.shutdown()
    print("download = bytes the browser fetched for the scorer (the test page itself excluded);")
    print("kept offline = the same files, which a service worker must cache to score with no network;")
    print(f"phone = Lighthouse mobile throttling ({PHONE_CPU_SLOWDOWN}x CPU, 1.6 Mbit/s, 150 ms RTT), uncompressed.")


if __name__ == "__main__":
    main()
