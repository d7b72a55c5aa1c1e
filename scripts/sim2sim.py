"""Sim-to-sim: run a policy trained on Newton/Ant-v0 in Gymnasium's MuJoCo Ant-v5 and in Newton/Ant-v0.

Both environments share the observation (27 values, ``include_cfrc_ext_in_observation=False``), action
and reward definitions, so the checkpoint runs unchanged in both; the script prints both mean returns
over K episodes of deterministic (mean) actions.

    python scripts/sim2sim.py --checkpoint runs/ant/checkpoints/final.pt --episodes 10
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
import warp as wp

wp.config.log_level = wp.LOG_WARNING  # keep Warp's module-load lines out of the report


def run_mujoco(policy, episodes: int, seed: int, max_steps: int) -> list[float]:
    """Returns of ``episodes`` episodes in gymnasium's Ant-v5 (MuJoCo)."""
    import gymnasium as gym

    env = gym.make("Ant-v5", include_cfrc_ext_in_observation=False, max_episode_steps=max_steps)
    returns = []
    for k in range(episodes):
        obs, _ = env.reset(seed=seed + k)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(policy.act_numpy(obs).astype(np.float64))
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    env.close()
    return returns


def run_newton(policy, episodes: int, seed: int, max_steps: int) -> list[float]:
    """Returns of the first episode of each of ``episodes`` worlds of Newton/Ant-v0 stepped together."""
    import gymnasium as gym

    import newton_gym  # noqa: F401

    env = gym.make_vec("Newton/Ant-v0", num_envs=episodes, device="cpu", seed=seed, max_episode_steps=max_steps)
    obs, _ = env.reset(seed=seed)
    returns = torch.full((episodes,), float("nan"), dtype=torch.float64)
    while torch.isnan(returns).any():
        obs, _, _, _, info = env.step(policy(obs))
        if "episode" in info:
            first = info["episode"]["_r"] & torch.isnan(returns)
            returns[first] = info["episode"]["r"][first].double()
    env.close()
    return returns.tolist()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True, help="newton_gym checkpoint trained on Newton/Ant-v0")
    parser.add_argument("--episodes", type=int, default=10, help="episodes per simulator (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, default=1000, help="episode length (Ant-v5: 1000)")
    args = parser.parse_args(argv)
    from newton_gym.train.checkpoint import load_policy

    policy = load_policy(args.checkpoint)
    if policy.meta["task"] != "Newton/Ant-v0":
        print(f"warning: the checkpoint was trained on {policy.meta['task']}, not Newton/Ant-v0")
    for name, fn in (("Newton/Ant-v0", run_newton), ("gymnasium Ant-v5 (MuJoCo)", run_mujoco)):
        t0 = time.perf_counter()
        returns = fn(policy, args.episodes, args.seed, args.max_steps)
        print(f"{name:28s} mean return {np.mean(returns):8.1f} +- {np.std(returns):6.1f} over {len(returns)} "
              f"episodes ({time.perf_counter() - t0:.0f} s)   [{', '.join(f'{r:.0f}' for r in returns)}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
