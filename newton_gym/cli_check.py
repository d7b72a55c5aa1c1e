"""``newton-gym check FILE [--seconds 1.0] [--no-mujoco]``: does an MJCF, URDF or USD robot work here?

Converts and imports the file, builds the solver for 1 and 4 worlds, steps it at zero control and
compares body positions with MuJoCo C (see :mod:`newton_gym.check`). Prints the report, the warnings
(what was dropped or is not simulated) and a verdict. Exit status: 0 for "works", "chaotic" or "runs"
(not compared with MuJoCo), 1 for "differs" or "fails at <stage>", 2 for a usage error (a missing file).

Example::

    newton-gym check my_robot.xml
"""

from __future__ import annotations

import argparse
import math
import os
import sys

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the ``check`` arguments."""
    parser.add_argument("file", help="MJCF (.xml), URDF (.urdf) or USD (.usd, .usda, .usdc) file")
    parser.add_argument("--seconds", type=float, default=1.0, help="simulated time [s] (default 1.0)")
    parser.add_argument("--no-mujoco", action="store_true", help="do not run MuJoCo C beside (no comparison)")
    parser.add_argument("-o", "--output-dir", default=None, help="keep the converted USD here (default: discarded)")
    parser.add_argument("--device", default=None, help="Warp device, e.g. cpu or cuda:0 (default: Warp's)")


def run(args: argparse.Namespace) -> int:
    """Runs the check and prints its report; returns the exit status."""
    if not os.path.isfile(args.file):
        print(f"newton-gym check: error: {args.file}: no such file", file=sys.stderr)
        return 2
    if not (math.isfinite(args.seconds) and args.seconds > 0.0):
        print(f"newton-gym check: error: --seconds must be a positive number, got {args.seconds}", file=sys.stderr)
        return 2
    from .check import check_robot, format_report  # noqa: PLC0415

    result = check_robot(
        args.file, seconds=args.seconds, mujoco=not args.no_mujoco, out_dir=args.output_dir, device=args.device
    )
    print(format_report(result))
    return 0 if result.ok else 1
