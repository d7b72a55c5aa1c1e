"""Conversion time of Gymnasium's ant.xml and humanoid.xml to USD, cold and cached.

* first: the first conversion in this process (includes importing pxr and mujoco).
* cold: a full conversion (``force_usd_conversion=True``): parse, compile, extract, write, rename.
* cached: an up-to-date USD exists: hash the asset and its config, read the stored hash, return.

Prints medians over repeats (seconds and milliseconds); nothing is asserted.

    python benchmarks/bench_convert.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _timing import median_time

from newton_gym.assets import MjcfConverter, MjcfConverterCfg  # noqa: E402
from newton_gym.assets.robots import robot_source_path  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    print(f"{'model':<10} {'first [ms]':>11} {'cold [ms]':>10} {'cached [ms]':>12}  (median of {args.repeats})")
    with tempfile.TemporaryDirectory() as out:
        for name in ("ant", "humanoid"):
            xml = robot_source_path(name)  # byte copies of gymnasium's ant.xml / humanoid.xml

            def convert(force: bool, xml=xml, name=name):
                cfg = MjcfConverterCfg(
                    asset_path=xml, usd_dir=out, usd_file_name=f"{name}.usda", force_usd_conversion=force
                )
                return MjcfConverter(cfg)

            start = time.perf_counter()
            convert(True)
            first = time.perf_counter() - start
            cold = median_time(lambda: convert(True), args.repeats)
            cached = median_time(lambda: convert(False), args.repeats)
            assert not convert(False).converted
            print(f"{name:<10} {first * 1e3:>11.1f} {cold * 1e3:>10.1f} {cached * 1e3:>12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
