"""Velocity-tracking error of a rough-terrain policy on each kind of sub-terrain at several levels, in
newton_gym and in MuJoCo C on the same heightfield.

    python scripts/rough_patches.py                                   # the shipped go1_rough_newton.pt
    python scripts/rough_patches.py --checkpoint runs/<run>/model_<it>.pt --levels 0 4 9

For each sub-terrain kind of the policy's terrain (its first column) and each level, the robot starts on the
patch's platform (``newton_gym.train.velocity_eval``: yaw 0, the evaluation's four commands held, no noise,
pushes or randomization) and walks ``--seconds``; the table gives the mean |cmd_xy - v_xy| [m/s] over the
commands after the first second, newton_gym / MuJoCo C, and in brackets how many of the commands' robots
fell in each (a fallen robot counts the error of standing still from then on: the same rule in both). What
the curriculum's mean level cannot say: how the policy walks on the ground it has not been promoted to.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from newton_gym.errors import ConfigError  # noqa: E402
from newton_gym.train.checkpoint import load_policy  # noqa: E402
from newton_gym.train.velocity_eval import (  # noqa: E402
    DEFAULT_COMMANDS,
    ROBOT_OF_TASK,
    policy_ground,
    tracking_error_mujoco,
    tracking_error_newton,
)

SHIPPED = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "newton_gym",
    "assets",
    "policies",
    "go1_rough_newton.pt",
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=SHIPPED)
    parser.add_argument("--levels", type=int, nargs="+", default=[2, 5, 8])
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args(argv)
    policy = load_policy(args.checkpoint)
    task = policy.meta["task"]
    if not task.endswith("Rough-v0") or task not in ROBOT_OF_TASK:
        raise ConfigError(f"{args.checkpoint}: trained on {task}, not a rough velocity task")
    terrain_cfg, terrain, scan = policy_ground(policy)
    rows = terrain.origins.shape[0]
    bad = [level for level in args.levels if not 0 <= level < rows]
    if bad:
        raise ConfigError(f"--levels {bad}: the terrain has levels 0 to {rows - 1}")
    clip = float(np.max(np.abs(policy.meta["action_high"])))
    first_column = {}
    for column, kind in enumerate(terrain.kind_names[0]):
        first_column.setdefault(str(kind), column)
    print(
        f"{task}, {os.path.basename(args.checkpoint)}: mean tracking error [m/s], newton_gym / MuJoCo C "
        f"(robots fallen of {len(DEFAULT_COMMANDS)})"
    )
    print("| sub-terrain (column) | " + " | ".join(f"level {level}" for level in args.levels) + " |")
    print("|---|" + "---|" * len(args.levels))
    for kind, column in first_column.items():
        cells = []
        for level in args.levels:
            # the same start, length, action clip and scan in both simulators
            same = dict(seconds=args.seconds, action_clip=clip, patch=(level, column), height_scan=scan)
            ours, ours_fell = tracking_error_newton(policy, task, terrain=terrain_cfg, return_falls=True, **same)
            ref, ref_fell = tracking_error_mujoco(
                policy, ROBOT_OF_TASK[task], terrain=terrain, return_falls=True, **same
            )
            cells.append(f"{ours.mean():.3f} / {ref.mean():.3f} ({int(ours_fell.sum())} / {int(ref_fell.sum())})")
        print(f"| {kind} ({column}) | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
