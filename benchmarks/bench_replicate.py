"""Replicate + finalize time of an Ant-sized robot (9 bodies, free + 8 revolute joints, 9 shapes).

Prints medians over repeats and, as a same-run reference, the time of building the same scene with a
Python loop of add_world() calls (what a user without a vectorised replicate would write).
Target (issue 2): 4096 worlds finalized in under 1 s on the 2-core CPU machine.
"""

from __future__ import annotations

import tracemalloc

import warp as wp
from _timing import median_time

from newton_gym import ModelBuilder
from newton_gym.sim.examples import ant_like_builder


def main():
    wp.config.quiet = True
    wp.init()
    robot = ant_like_builder()

    def replicate(n):
        scene = ModelBuilder()
        scene.add_ground_plane()
        scene.replicate(robot, n)
        return scene

    def loop(n):
        scene = ModelBuilder()
        scene.add_ground_plane()
        for _ in range(n):
            scene.add_world(robot)
        return scene

    print(
        f"{'worlds':>7} {'replicate [s]':>14} {'finalize [s]':>13} {'total [s]':>10} "
        f"{'add_world loop [s]':>19} {'loop/replicate':>15} {'peak MB':>8}"
    )
    for n in (1, 64, 1024, 4096):
        repeats = 5 if n <= 1024 else 3
        t_rep = median_time(lambda n=n: replicate(n), repeats)
        scene = replicate(n)
        t_fin = median_time(lambda scene=scene: scene.finalize("cpu"), repeats)
        t_loop = median_time(lambda n=n: loop(n), 1 if n >= 1024 else repeats)
        tracemalloc.start()
        replicate(n).finalize("cpu")
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        print(
            f"{n:>7} {t_rep:>14.4f} {t_fin:>13.4f} {t_rep + t_fin:>10.4f} {t_loop:>19.4f} "
            f"{t_loop / t_rep:>15.1f} {peak:>8.1f}"
        )


if __name__ == "__main__":
    main()
