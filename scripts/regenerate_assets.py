"""Regenerate the robots shipped in newton_gym/assets/robots/ from their MJCF sources.

    python scripts/regenerate_assets.py            # rewrite the shipped .usda files
    python scripts/regenerate_assets.py --check    # exit 1 if regenerating would change them

The output is deterministic, so a clean checkout regenerates to identical bytes.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from newton_gym.assets.robots import ROBOT_NAMES, ROBOTS_DIR, regenerate_robots  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on any difference")
    parser.add_argument("names", nargs="*", default=list(ROBOT_NAMES), help="robots (default: all)")
    args = parser.parse_args(argv)
    if not args.check:
        for path in regenerate_robots(ROBOTS_DIR, tuple(args.names)):
            print(f"wrote {path}")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        stale = []
        for path in regenerate_robots(scratch, tuple(args.names)):
            shipped = os.path.join(ROBOTS_DIR, os.path.basename(path))
            if not os.path.isfile(shipped) or not filecmp.cmp(path, shipped, shallow=False):
                stale.append(shipped)
    for path in stale:
        print(f"out of date: {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
