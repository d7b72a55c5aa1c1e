#!/usr/bin/env python
"""Large fuzz run of the importers: ``python scripts/fuzz_inputs.py [--seed 14] [--count 1200]``.

Generates mutated USD / MJCF / URDF inputs (``tests/fuzz/mutate.py``; the CI test runs the first few
hundred of the same seed), imports each in a worker process under a per-case time limit
(``tests/fuzz/harness.py``: MJCF / URDF through ``convert_file``, then ``add_usd`` and ``finalize``) and
prints, per input kind: cases, imported, NewtonGymError, escaped exceptions, non-finite values in the
model (silent: newton_gym gave no warning), builders changed by a failed import, hangs and crashes; then
the escaped exception types and non-finite fields with one example each.

The newton_gym under test is whichever Python imports (set PYTHONPATH to compare checkouts, e.g. a git
worktree of an older commit); the inputs always come from this checkout's tests/fuzz and robots.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time

FUZZ_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "fuzz")
sys.path.insert(0, os.path.abspath(FUZZ_DIR))

from mutate import make_case  # noqa: E402

COLUMNS = (
    "cases",
    "imported",
    "NewtonGymError",
    "internal",
    "escaped",
    "non-finite",
    "silent",
    "dirty",
    "hang",
    "crash",
)


def _worker(conn, seed: int, quiet: bool):
    """Worker process: imports newton_gym once, then runs the case indices it is sent."""
    import dataclasses

    if quiet:  # MuJoCo and OpenUSD print to the C streams; results travel through the pipe
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    import warp as wp

    wp.config.quiet = True
    from harness import run_case

    import newton_gym  # noqa: F401  (imported before the first case's clock starts)

    os.chdir(tempfile.mkdtemp(prefix="ng_fuzz_run_"))  # MuJoCo writes MUJOCO_LOG.TXT here
    conn.send("ready")
    while (index := conn.recv()) is not None:
        conn.send(dataclasses.asdict(run_case(make_case(seed, index))))


class _Pool:
    """One worker process, restarted after a hang or a crash."""

    def __init__(self, seed: int, quiet: bool):
        self.seed, self.quiet = seed, quiet
        self._start()

    def _start(self):
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, self.seed, self.quiet), daemon=True)
        self.proc.start()
        if not self.conn.poll(300) or self.conn.recv() != "ready":
            raise RuntimeError("the fuzz worker did not start")

    def run(self, index: int, timeout: float) -> dict:
        self.conn.send(index)
        try:
            if self.conn.poll(timeout):
                return self.conn.recv()
            status, detail = "hang", f"no result after {timeout:g} s"
        except EOFError:
            status, detail = "crash", "worker died"
        self.proc.kill()
        self.proc.join()
        detail += f" (exit code {self.proc.exitcode})" if status == "crash" else ""
        self._start()
        return {
            "status": status,
            "stage": "",
            "error_type": "",
            "message": detail,
            "where": "",
            "nonfinite": (),
            "warnings": (),
            "package_warnings": 0,
            "internal": "",
        }

    def close(self):
        self.conn.send(None)
        self.proc.join(10)


def _package_origin() -> str:
    spec = importlib.util.find_spec("newton_gym")
    folder = os.path.dirname(os.path.dirname(spec.origin))
    try:
        rev = subprocess.run(
            ["git", "-C", folder, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", folder, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        rev += " + uncommitted changes" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        rev = "not a git checkout"
    return f"{folder} ({rev})"


def _row(results) -> dict:
    row = collections.Counter(cases=len(results))
    for _, r in results:
        status = r["status"]
        row[{"rejected": "NewtonGymError", "nonfinite": "non-finite"}.get(status, status)] += 1
        row["silent"] += status == "nonfinite" and not r["package_warnings"]
        row["internal"] += bool(r.get("internal"))
    return row


def _table(results, kinds) -> str:
    widths = [max(len(c), 5) for c in COLUMNS]
    lines = ["kind  " + "  ".join(c.rjust(w) for c, w in zip(COLUMNS, widths))]
    for kind in (*kinds, "total"):
        row = _row([x for x in results if kind in ("total", x[0].kind)])
        lines.append(f"{kind:<5} " + "  ".join(str(row[c]).rjust(w) for c, w in zip(COLUMNS, widths)))
    lines.append(
        "(internal: NewtonGymErrors that wrap an unexpected exception, add_usd's 'internal error'; "
        "silent: the non-finite cases in which newton_gym gave no warning)"
    )
    return "\n".join(lines)


def _examples(results, status: str, key) -> list[str]:
    groups = collections.defaultdict(list)
    for case, r in results:
        if r["status"] == status:
            for k in key(r):
                groups[k].append((case, r))
    out = []
    for k, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        case, r = items[0]
        out.append(f"  {k}: {len(items)}  e.g. {case.describe()[:220]}")
        if r["where"]:
            out.append(f"      at {r['where']}")
        if r["message"]:
            out.append(f"      {' '.join(r['message'].split())[:300]}")
        if r["nonfinite"]:
            out.append(f"      non-finite: {', '.join(r['nonfinite'])}; newton_gym warnings: {r['package_warnings']}")
    return out


def report(results, kinds, seconds: float, args) -> str:
    """The run's summary tables."""
    lines = [
        f"fuzz run: seed {args.seed}, cases {args.start}..{args.start + args.count - 1}, "
        f"time limit {args.timeout:g} s per case, {seconds:.1f} s in all",
        f"newton_gym: {_package_origin()}",
        "",
        _table(results, kinds),
        "",
    ]
    rejected = collections.Counter((r["error_type"], r["stage"]) for _, r in results if r["status"] == "rejected")
    lines.append(
        "NewtonGymError by type and stage: "
        + ", ".join(f"{t} at {s} {n}" for (t, s), n in sorted(rejected.items(), key=lambda kv: -kv[1]))
    )
    for title, status, key in (
        ("Escaped exceptions by type (count, one example)", "escaped", lambda r: [r["error_type"]]),
        (
            "Internal errors wrapped in a NewtonGymError, by wrapped type",
            "rejected",
            lambda r: [r["internal"]] if r.get("internal") else [],
        ),
        ("Non-finite model fields (count, one example)", "nonfinite", lambda r: r["nonfinite"]),
        ("Builder changed by a failed add_usd", "dirty", lambda r: [r["stage"]]),
        ("Hangs", "hang", lambda r: ["hang"]),
        ("Crashes", "crash", lambda r: ["crash"]),
    ):
        found = _examples(results, status, key)
        lines += ["", f"{title}:", *(found or ["  none"])]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=14, help="run seed (the CI test uses 14)")
    parser.add_argument("--count", type=int, default=1200, help="number of cases")
    parser.add_argument("--start", type=int, default=0, help="first case index")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case before it counts as a hang")
    parser.add_argument("--verbose", action="store_true", help="keep the importers' own stderr output")
    parser.add_argument(
        "--details", action="store_true", help="also list every case that did not import or fail cleanly"
    )
    args = parser.parse_args(argv)
    pool = _Pool(args.seed, quiet=not args.verbose)
    results, t0 = [], time.perf_counter()
    try:
        for index in range(args.start, args.start + args.count):
            results.append((make_case(args.seed, index), pool.run(index, args.timeout)))
    finally:
        pool.close()
    kinds = sorted({c.kind for c, _ in results}, key=["usd", "mjcf", "urdf"].index)
    print(report(results, kinds, time.perf_counter() - t0, args))
    if args.details:
        print("\nCases that did not import or fail cleanly:")
        for case, r in results:
            if r["status"] not in ("imported", "rejected"):
                message = " ".join(r["message"].split())[:300]
                nonfinite = f" non-finite: {', '.join(r['nonfinite'])}" if r["nonfinite"] else ""
                print(f"  {r['status']}: {case.describe()}\n      {r['error_type']} {message}{nonfinite}")
    bad = sum(r["status"] not in ("imported", "rejected") for _, r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
