"""Sim-to-sim: run checkpoints in newton_gym and in MuJoCo C.

A checkpoint trained on ``Newton/Ant-v0`` runs in Newton/Ant-v0 and in gymnasium's Ant-v5 (MuJoCo C);
one trained on ``MuJoCo/Ant-v5`` (gymnasium's task, ``newton-gym train --config
configs/train_ant_mujoco.toml``) runs in both as well. Observation, action and reward definitions are
shared (``include_cfrc_ext_in_observation=False``), so the checkpoint runs unchanged. For those tasks the
script prints mean returns of deterministic (mean) actions over K episodes and the fraction kept in the
other simulator. A legged velocity task's checkpoint (Go1, G1; either backend) is compared by its
velocity-tracking error in both simulators on the same MJCF (:mod:`newton_gym.train.velocity_eval`).

    python scripts/sim2sim.py                                   # every shipped policy
    python scripts/sim2sim.py --checkpoint runs/ant-v0_<time>/checkpoints/final.pt --episodes 10
    python scripts/sim2sim.py --checkpoint runs/go1_<time>/model_300.pt --seconds 8
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import warp as wp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
wp.config.log_level = wp.LOG_WARNING  # keep Warp's module-load lines out of the report

SHIPPED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "newton_gym", "assets", "policies")


def compare(path: str, episodes: int, seed: int, max_steps: int, noise: float | None) -> dict:
    """Evaluate one checkpoint in both simulators; prints and returns {simulator: mean return}."""
    from newton_gym.train.checkpoint import load_policy
    from newton_gym.train.evaluate import evaluate

    policy = load_policy(path)
    task = policy.meta["task"]
    t0 = time.perf_counter()
    results = evaluate(policy, task, episodes, seed, max_steps, noise)
    if not results:
        print(f"{path}: task {task} has no MuJoCo twin")
        return {}
    means = {name: float(np.mean(r)) for name, r in results.items()}
    trained_in = task if task.startswith("Newton/") else next(n for n in means if "(MuJoCo" in n)
    start = "the task's reset noise" if noise is None else f"reset noise {noise:g}"
    print(f"{os.path.basename(path)} (trained in {task}; {start}; {time.perf_counter() - t0:.0f} s)")
    for name, returns in results.items():
        kept = means[name] / means[trained_in] if means[trained_in] else float("nan")
        print(
            f"  {name:26s} mean return {means[name]:8.1f} +- {np.std(returns):6.1f} over {len(returns)} episodes"
            f"   {100 * kept:5.1f} % of the training simulator's"
        )
    return means


def compare_velocity(path: str, seconds: float) -> dict:
    """Velocity-tracking error of a legged checkpoint in both simulators; prints and returns the means."""
    from newton_gym.train.checkpoint import load_policy
    from newton_gym.train.velocity_eval import ROBOT_OF_TASK, tracking_error_mujoco, tracking_error_newton

    policy = load_policy(path)
    task = policy.meta["task"]
    t0 = time.perf_counter()
    clip = float(np.max(np.abs(policy.meta["action_high"])))
    ours = tracking_error_newton(policy, task, seconds=seconds)
    ref = tracking_error_mujoco(policy, ROBOT_OF_TASK[task], seconds=seconds, action_clip=clip)
    print(f"{os.path.basename(path)} (trained in {task}; {seconds:g} s per command; {time.perf_counter() - t0:.0f} s)")
    print(f"  {task:26s} mean velocity error {ours.mean():6.3f} m/s over {len(ours)} commands")
    ratio = ref.mean() / ours.mean()
    print(f"  {'MuJoCo C (same MJCF)':26s} mean velocity error {ref.mean():6.3f} m/s   {ratio:.2f} x newton_gym's")
    return {task: float(ours.mean()), "MuJoCo": float(ref.mean())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--checkpoint",
        nargs="+",
        default=None,
        help="checkpoints (default: the shipped ones in newton_gym/assets/policies)",
    )
    parser.add_argument("--episodes", type=int, default=10, help="episodes per simulator (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=1000, help="episode length (Ant-v5: 1000)")
    parser.add_argument(
        "--seconds", type=float, default=8.0, help="legged tasks: seconds per velocity command (first 1 s not counted)"
    )
    parser.add_argument(
        "--reset-noise",
        type=float,
        default=None,
        help="reset noise scale (default: the task's; 0: every episode from the same state)",
    )
    args = parser.parse_args(argv)
    paths = args.checkpoint or sorted(os.path.join(SHIPPED, f) for f in os.listdir(SHIPPED) if f.endswith(".pt"))
    from newton_gym.train.checkpoint import checkpoint_meta, load_checkpoint
    from newton_gym.train.velocity_eval import ROBOT_OF_TASK

    for path in paths:
        if checkpoint_meta(load_checkpoint(path))["task"] in ROBOT_OF_TASK:
            compare_velocity(path, args.seconds)
        else:
            compare(path, args.episodes, args.seed, args.max_steps, args.reset_noise)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
