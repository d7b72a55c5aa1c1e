"""Print the figures the README quotes, from the code as it stands: the number of tests the README's test
command runs, and the solver's build time and bytes per world (benchmarks/bench_replicate.py).

    python scripts/readme_figures.py            # tests and 4096-world build / memory figures
    python scripts/readme_figures.py --tests    # the test count only (seconds)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_count() -> str:
    """'N tests' as pytest collects them (the README's test command runs these)."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    found = re.search(r"(\d+) tests? collected", out)
    return f"{found.group(1)} tests" if found else "pytest collected nothing: " + out.strip().splitlines()[-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", action="store_true", help="print only the test count")
    args = parser.parse_args(argv)
    print(f"test suite: {test_count()}")
    if args.tests:
        return 0
    print("build and memory, 4096 worlds (benchmarks/bench_replicate.py):", flush=True)
    bench = os.path.join(ROOT, "benchmarks", "bench_replicate.py")
    return subprocess.run([sys.executable, bench, "--worlds", "4096", "--repeat", "1"], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
