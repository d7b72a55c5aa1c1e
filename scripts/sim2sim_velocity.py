"""Velocity-tracking error of a legged policy in newton_gym and in MuJoCo C on the same MJCF.

    python scripts/sim2sim_velocity.py --checkpoint runs/<run>/model_<it>.pt        # rsl_rl checkpoint
    python scripts/sim2sim_velocity.py --checkpoint runs/<run>/checkpoints/final.pt  # skrl checkpoint
    python scripts/sim2sim_velocity.py --checkpoint newton_gym/assets/policies/go1_newton.pt
    python scripts/sim2sim_velocity.py --checkpoint runs/<go1 rough run>/model_<it>.pt   # on the same terrain

Prints, per command of ``newton_gym.train.velocity_eval.DEFAULT_COMMANDS``, the mean |cmd_xy - v_xy| [m/s]
in both simulators, their means and the ratio MuJoCo / newton_gym.
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args(argv)
    policy = load_policy(args.checkpoint)
    task = policy.meta["task"]
    if task not in ROBOT_OF_TASK:
        raise ConfigError(f"{args.checkpoint}: trained on {task}; the velocity check knows {sorted(ROBOT_OF_TASK)}")
    clip = float(np.max(np.abs(policy.meta["action_high"])))
    terrain_cfg, terrain, scan = policy_ground(policy)  # a rough policy's terrain, and whether it saw the scan
    ours = tracking_error_newton(
        policy, task, seconds=args.seconds, action_clip=clip, terrain=terrain_cfg, height_scan=scan
    )
    ref = tracking_error_mujoco(
        policy, ROBOT_OF_TASK[task], seconds=args.seconds, action_clip=clip, terrain=terrain, height_scan=scan
    )
    print(f"{task}, {args.seconds:.0f} s per command, error after 1 s [m/s]")
    print("command (vx, vy, wz)    newton_gym   MuJoCo")
    for command, a, b in zip(DEFAULT_COMMANDS, ours, ref):
        label = "(" + ", ".join(f"{c:+.1f}" for c in command) + ")"
        print(f"{label:22s} {a:10.3f} {b:8.3f}")
    print(f"{'mean':22s} {ours.mean():10.3f} {ref.mean():8.3f}   MuJoCo / newton_gym = {ref.mean() / ours.mean():.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
