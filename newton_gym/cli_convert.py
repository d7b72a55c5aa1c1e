"""``newton-gym convert <file> [-o DIR]``: MJCF, URDF or mesh file -> USD (see newton_gym.assets)."""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the ``convert`` arguments."""
    parser.add_argument("file", help="MJCF (.xml), URDF (.urdf) or mesh (.obj, .stl, ...) file")
    parser.add_argument("-o", "--output-dir", default=None, help="output folder (default: a fresh temporary folder)")
    parser.add_argument(
        "-n", "--name", default=None, help="output file name; end it in .usda for text output (default: <file>.usd)"
    )
    parser.add_argument("-f", "--force", action="store_true", help="convert even if the USD is up to date")
    parser.add_argument("--fix-base", action="store_true", help="weld the robot's root body to the world")
    parser.add_argument(
        "--no-instanceable",
        action="store_true",
        help="write mesh data inline instead of in a separate referenced layer",
    )


def run(args: argparse.Namespace) -> int:
    """Runs the conversion; prints the USD path (exit 0) or the error (exit 1)."""
    from newton_gym.assets import AssetError  # noqa: PLC0415
    from newton_gym.assets.convert import convert_file  # noqa: PLC0415

    try:
        converter = convert_file(
            args.file,
            usd_dir=args.output_dir,
            usd_file_name=args.name,
            force=args.force,
            make_instanceable=not args.no_instanceable,
            fix_base=args.fix_base,
        )
    except AssetError as exc:
        print(f"newton-gym convert: error: {exc}", file=sys.stderr)
        return 1
    state = "converted" if converter.converted else "up to date"
    print(f"{converter.usd_path} ({state})")
    return 0
