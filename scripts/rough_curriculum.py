"""What Go1-Rough's terrain curriculum makes of a policy's episodes: the share of worlds Isaac Lab's rule would
promote (ended farther than half a patch, 4 m, from the spawn) and demote (less than half of what the command
asked over the episode, and not promoted), over one full episode of every world on level 0, with three kinds
of command: drawn yaw rates (the task's default), Isaac Lab's heading commands (``heading_command = true``)
and drawn yaw rates held at 0.

    python scripts/rough_curriculum.py [--checkpoint newton_gym/assets/policies/go1_rough_newton.pt]
                                       [--worlds 128]

Worlds that fall before the episode's end are left out (their reset moves them by the same rule).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import newton_gym  # noqa: E402, F401  (before torch's threads start: newton_gym.openmp_wait)

# isort: split
import torch  # noqa: E402


def episode_outcomes(policy, worlds: int, heading: bool, zero_yaw_rate: bool, seed: int = 0) -> dict:
    """{"worlds": survivors, "distance": mean [m], "promoted": share, "demoted": share} of one episode."""
    import gymnasium as gym

    env = gym.make_vec(
        "Newton/Go1-Rough-v0",
        num_envs=worlds,
        device="cpu",
        curriculum=False,
        max_init_level=0,
        heading_command=heading,
    )
    task = env.task
    obs, _ = env.reset(seed=seed)
    steps = int(task.cfg.max_episode_steps) - 1  # the last step's time-out resets the world

    def hold(obs):
        if zero_yaw_rate:
            task.command[:, 2] = 0.0
            obs[:, 11] = 0.0  # the observation's yaw-rate command
        return obs

    obs = hold(obs)
    command = task.command[:, :2].clone()
    start = task.layout.qpos()[:, :2].clone()
    alive = torch.ones(worlds, dtype=torch.bool)
    with torch.no_grad():
        for _ in range(steps):
            obs, _, terminated, truncated, _ = env.step(policy(obs))
            obs = hold(obs)
            alive &= ~(terminated | truncated)
    distance = (task.layout.qpos()[:, :2] - start).norm(dim=1)[alive]
    episode_s = steps * env.sim.dt
    promoted = distance > 0.5 * float(task.terrain.cfg.size[0])
    demoted = (distance < command[alive].norm(dim=1) * episode_s * 0.5) & ~promoted
    env.close()
    return {
        "worlds": int(alive.sum()),
        "distance": float(distance.mean()),
        "promoted": float(promoted.float().mean()),
        "demoted": float(demoted.float().mean()),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", default=os.path.join("newton_gym", "assets", "policies", "go1_rough_newton.pt"))
    parser.add_argument("--worlds", type=int, default=128)
    args = parser.parse_args(argv)
    from newton_gym.train.checkpoint import load_policy

    torch.set_num_threads(1)
    policy = load_policy(args.checkpoint)
    print(f"{args.checkpoint}: one episode of {args.worlds} worlds on level 0")
    print("commands                 survivors  distance [m]  promoted  demoted")
    kinds = (
        ("drawn yaw rates", False, False),
        ("heading commands", True, False),
        ("yaw rate held at 0", False, True),
    )
    for label, heading, zero in kinds:
        r = episode_outcomes(policy, args.worlds, heading, zero)
        print(
            f"{label:24s} {r['worlds']:9d} {r['distance']:13.2f} {100 * r['promoted']:8.0f} % "
            f"{100 * r['demoted']:6.0f} %"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
