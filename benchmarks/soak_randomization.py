"""Soak run under extreme domain randomization: does any NaN or inf reach the user?

Steps Newton/Ant-v0 and Newton/Humanoid-v0 with every randomization at an extreme range (gravity
components up to +-200 m/s^2, body masses scaled 1e-3..1e3, friction 0..10), random actions scaled past
the action bounds, non-finite actions in a few rows (nan_action="zero") and, every ``--corrupt-every``
steps, a world's joint velocities set to 1e30 (a blown-up state). Counts the env-steps, the worlds
terminated as unhealthy, and every non-finite entry in the observations, rewards, reward terms,
``final_obs`` and episode returns; the last five must all be 0. Also prints the resident memory at the
start and end (it must stay flat).

    python benchmarks/soak_randomization.py [--worlds 64] [--steps 2000] [--tasks Ant Humanoid]
"""

from __future__ import annotations

import argparse
import resource
import time

import gymnasium as gym

import newton_gym  # noqa: F401  (registers the tasks; before torch's threads start: newton_gym.openmp_wait)

# isort: split
import torch

EXTREME = {
    "gravity_x": (-200.0, 200.0),
    "gravity_y": (-200.0, 200.0),
    "gravity_z": (-200.0, 50.0),
    "mass_scale": (1e-3, 1e3),
    "friction": (0.0, 10.0),
}


def _nonfinite(t: torch.Tensor) -> int:
    return int((~torch.isfinite(t)).sum())


def soak(task: str, worlds: int, steps: int, corrupt_every: int, seed: int) -> dict:
    env = gym.make_vec(f"Newton/{task}-v0", num_envs=worlds, randomization=EXTREME, nan_action="zero")
    env.reset(seed=seed)
    gen = torch.Generator().manual_seed(seed)
    width = env.single_action_space.shape[0]
    counts = {
        "env_steps": 0,
        "unhealthy": 0,
        "episodes": 0,
        "nan_actions": 0,
        "obs": 0,
        "reward": 0,
        "reward_terms": 0,
        "final_obs": 0,
        "episode_r": 0,
    }
    t0 = time.perf_counter()
    for step in range(steps):
        a = (torch.rand(worlds, width, generator=gen) * 2 - 1) * 3.0
        a[step % worlds, step % width] = float("nan")
        if corrupt_every and step % corrupt_every == 0:
            env.joint_qd[(step // corrupt_every) % worlds] = 1e30
        obs, reward, terminated, truncated, info = env.step(a)
        counts["env_steps"] += worlds
        counts["unhealthy"] += int(info["unhealthy_worlds"])
        counts["nan_actions"] += int(info["nan_actions"])
        counts["obs"] += _nonfinite(obs)
        counts["reward"] += _nonfinite(reward)
        counts["reward_terms"] += sum(_nonfinite(v) for v in info["reward_terms"].values())
        if "final_obs" in info:
            counts["final_obs"] += _nonfinite(info["final_obs"])
            counts["episode_r"] += _nonfinite(info["newton_episode"]["r"])
            counts["episodes"] += int(info["_newton_episode"].sum())
    counts["seconds"] = round(time.perf_counter() - t0, 1)
    env.close()
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["Ant", "Humanoid"])
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--corrupt-every", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    bad = 0
    for task in args.tasks:
        c = soak(task, args.worlds, args.steps, args.corrupt_every, args.seed)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{task}: {c['env_steps']} env-steps in {c['seconds']} s, {c['episodes']} episodes, "
            f"{c['unhealthy']} unhealthy terminations, {c['nan_actions']} non-finite action rows; non-finite "
            f"entries: obs {c['obs']}, reward {c['reward']}, reward terms {c['reward_terms']}, final_obs "
            f"{c['final_obs']}, episode return {c['episode_r']}; peak RSS {rss:.0f} MiB (start {rss0:.0f})"
        )
        bad += c["obs"] + c["reward"] + c["reward_terms"] + c["final_obs"] + c["episode_r"]
    print("no non-finite value reached the user" if bad == 0 else f"{bad} non-finite values reached the user")
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
