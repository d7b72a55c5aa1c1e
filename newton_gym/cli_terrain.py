"""``newton-gym terrain [--config FILE] [--out PNG] [--seed N]``: generate a rough terrain (see
newton_gym.terrain), print its summary and draw it top-down.

Example::

    newton-gym terrain --config configs/terrain_rough.toml --out terrain.png --seed 1
"""

from __future__ import annotations

import argparse
import sys
import time

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the ``terrain`` arguments."""
    parser.add_argument("--config", default=None, help="terrain TOML file (default: the code defaults, the rough mix)")
    parser.add_argument("--out", default=None, help="PNG to write (default: print the summary only)")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: the config's)")
    parser.add_argument("--dpi", type=int, default=100, help="PNG resolution, dots per inch (default 100)")


def run(args: argparse.Namespace) -> int:
    """Generates the terrain; prints the summary (exit 0) or the error (exit 1)."""
    from .errors import ConfigError
    from .terrain import draw_terrain, generate_terrain, load_terrain_config

    try:
        cfg = load_terrain_config(args.config, seed=args.seed)
    except ConfigError as exc:
        print(f"newton-gym terrain: error: {exc}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    terrain = generate_terrain(cfg)
    seconds = time.perf_counter() - start
    for line in summary(terrain, seconds):
        print(line)
    if args.out:
        try:
            print(f"wrote {draw_terrain(terrain, args.out, dpi=args.dpi)}")
        except ImportError as exc:
            print(f"newton-gym terrain: error: {exc}", file=sys.stderr)
            return 1
    return 0


def summary(terrain, seconds: float) -> list[str]:
    """The lines printed for ``terrain`` generated in ``seconds``."""
    cfg, field = terrain.cfg, terrain.heightfield
    mode = "curriculum" if cfg.curriculum else "random"
    names, counts = [], {}
    for k in terrain.kinds.ravel():
        counts[terrain.names[k]] = counts.get(terrain.names[k], 0) + 1
    for name in terrain.names:
        names.append(f"{name} {counts.get(name, 0)}")
    return [
        f"terrain: {cfg.num_rows} x {cfg.num_cols} patches of {cfg.size[0]:g} x {cfg.size[1]:g} m ({mode}, "
        f"seed {cfg.seed}), border {cfg.border_width:g} m",
        f"field: {field.ncol} x {field.nrow} points at {cfg.horizontal_scale:g} m ({field.nbytes() / 1e6:.1f} MB), "
        f"heights {field.heights.min():.3f} .. {field.heights.max():.3f} m",
        f"boxes: {len(terrain.boxes)}",
        f"patches: {', '.join(names)}",
        f"generated in {seconds:.3f} s",
    ]
