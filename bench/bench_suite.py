"""Where `make test`'s time goes: the suite's wall time, its CPU by kind of process, and the machine's own speed.

    .venv/bin/python bench/bench_suite.py [--reference-only] [-- pytest arguments]

Runs the suite as `make pytest` runs it (the same workers; pytest arguments after ``--`` narrow it:
``-- -m browser``, or ``-- -m "'not browser'"``, quoted again for make) and samples every process on the
machine four times a second, adding up the CPU each kind used: the tests' Python (xdist's workers, their
live servers, the servers the tests start), Chromium's processes by type (renderer, browser, GPU, utility),
Playwright's node driver, PostgreSQL, and the rest. Beside them, from /proc/stat: the machine's idle and
stolen time (a hypervisor giving a shared core to another guest; such a machine is not idle, whatever
runs on it).

The issue's target (#40) is a wall time: `make test` under 3 minutes per database on an idle 2-core
machine. A run that keeps both cores busy takes about its CPU seconds over two, so the CPU figure says what
the suite costs, and the wall time what this machine made of it. Machines of this kind differ from day to
day: the same code has taken 245 s on one and 340 s on another. So the script also times a fixed piece of
plain Python (twenty million additions, best of three, before the suite and after it) and prints the
suite's CPU in units of it: a figure to compare between machines, where seconds are not.

Figures, not pass/fail. Run it on an otherwise idle machine; nothing is kept but what it prints.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_SECONDS = 0.25
TARGET_SECONDS = 180
CHROMIUM_TYPES = ("renderer", "gpu-process", "utility", "zygote")


def reference_seconds(rounds: int = 3) -> float:
    """The best of ``rounds`` timings of twenty million additions in one Python thread."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        total = 0
        for number in range(20_000_000):
            total += number
        best = min(best, time.perf_counter() - started)
    return best


def kind_of(pid: int) -> str | None:
    """What a process is, by its command line; None once it has gone."""
    try:
        words = [word.decode(errors="replace") for word in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")]
    except OSError:
        return None
    words = [word for word in words if word]
    if not words:
        return "kernel threads"
    program = os.path.basename(words[0])
    if "chrom" in program:
        switches = " ".join(words)
        chromium_type = next((name for name in CHROMIUM_TYPES if f"--type={name}" in switches), "browser")
        return f"chromium {chromium_type}"
    if program.startswith("python") or program in ("pytest", "uvicorn", "gunicorn"):
        return "python (tests, their servers)"
    if program == "node":
        return "node (Playwright's driver)"
    if program.startswith("postgres") or "postgres:" in words[0]:
        return "postgresql"
    return f"other: {program[:24]}"


def cpu_ticks() -> dict[tuple[int, int], int]:
    """Each process's user + system ticks so far, keyed by (pid, start time): a reused pid is another process."""
    ticks = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        ticks[(int(name), int(fields[19]))] = int(fields[11]) + int(fields[12])
    return ticks


def machine_ticks() -> list[int]:
    """/proc/stat's first line: user, nice, system, idle, iowait, irq, softirq, steal, ..."""
    return [int(field) for field in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]


def run_sampled(command: list[str]) -> tuple[int, float, collections.Counter, list[int]]:
    """Run ``command``; its exit status, wall seconds, CPU seconds by kind (every process on the machine that
    used CPU meanwhile) and /proc/stat's ticks over the run."""
    seen = cpu_ticks()  # what the processes already running had used: only what they use from now counts
    kinds: dict[tuple[int, int], str | None] = {}
    used: collections.Counter = collections.Counter()
    before, started = machine_ticks(), time.monotonic()
    process = subprocess.Popen(command, cwd=ROOT)
    while process.poll() is None:
        time.sleep(SAMPLE_SECONDS)
        for key, ticks in cpu_ticks().items():
            if key[0] == os.getpid():  # the sampling itself is not the suite's
                continue
            grown = ticks - seen.get(key, 0)
            if grown > 0:
                if key not in kinds:
                    kinds[key] = kind_of(key[0])
                used[kinds[key] or "gone before it was named"] += grown / TICKS
                seen[key] = ticks
    wall = time.monotonic() - started
    return process.returncode, wall, used, [after - then for after, then in zip(machine_ticks(), before, strict=False)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-only", action="store_true", help="only time the fixed piece of Python")
    parser.add_argument("pytest_args", nargs="*", help="after --: passed to pytest (make's PYTEST_ARGS)")
    args = parser.parse_args()
    reference = reference_seconds()
    print(f"machine: twenty million additions in {reference:.2f} s (best of 3), {os.cpu_count()} cores")
    if args.reference_only:
        return
    command = ["make", "--no-print-directory", "pytest", f"PYTEST_ARGS={' '.join(args.pytest_args)}"]
    status, wall, used, ticks = run_sampled(command)
    after = reference_seconds()
    print(f"machine: twenty million additions in {after:.2f} s after the suite")
    reference = (reference + after) / 2  # the machine's speed moves within minutes: the mean of both
    busy = (ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6]) / TICKS  # user, nice, system, irq, softirq
    total = sum(used.values())
    print(f"\n`make pytest {' '.join(args.pytest_args)}`: {'passed' if status == 0 else f'FAILED ({status})'}")
    print(f"wall {wall:.1f} s (target < {TARGET_SECONDS} s); machine busy {busy:.1f} CPU-s, "
          f"idle {ticks[3] / TICKS:.1f}, iowait {ticks[4] / TICKS:.1f}, stolen {ticks[7] / TICKS:.1f}")  # fmt: skip
    print(f"CPU of the processes: {total:.1f} s = {total / reference:.0f} reference units "
          f"(at {os.cpu_count()} cores, about {total / (os.cpu_count() or 1):.0f} s of wall)")  # fmt: skip
    for kind, seconds in used.most_common():
        if seconds >= 0.5:
            print(f"  {seconds:7.1f} s  {100 * seconds / total:4.1f}%  {kind}")
    # Processes that came and went between two samples, interrupts, and this script's own sampling.
    print(f"  {busy - total:7.1f} s  not named (the machine's busy time less the processes')")
    sys.exit(status)


if __name__ == "__main__":
    main()
