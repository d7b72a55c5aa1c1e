"""Env-steps per second of gym.make_vec("Newton/Ant-v0") against gymnasium's Ant-v5, same run, CPU.

Random actions; the reference is Ant-v5 (include_cfrc_ext_in_observation=False) as one env and as a
SyncVectorEnv of 8 copies. Prints medians of repeated timings and ratios (ours / reference). Both
sides use one core by default (``--threads 1``: our solver on one thread; MuJoCo steps single-threaded);
``--threads 0`` gives our machine figure (one solver thread per core).
Usage: python benchmarks/bench_env.py [--worlds 1 64 256 1024] [--steps 50] [--device cpu] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np
import torch


def _rate(step_fn, n_envs, steps, repeats=3):
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            step_fn()
        rates.append(n_envs * steps / (time.perf_counter() - t0))
    return statistics.median(rates)


def reference(steps):
    env = gym.make("Ant-v5", include_cfrc_ext_in_observation=False)
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def one():
        _, _, term, trunc, _ = env.step(rng.uniform(-1, 1, 8))
        if term or trunc:
            env.reset()

    single = _rate(one, 1, steps * 4)
    venv = gym.make_vec("Ant-v5", num_envs=8, vectorization_mode="sync", include_cfrc_ext_in_observation=False)
    venv.reset(seed=0)
    sync = _rate(lambda: venv.step(rng.uniform(-1, 1, (8, 8))), 8, steps)
    return single, sync


def ours(n, steps, device, threads):
    import newton_gym  # noqa: F401

    env = gym.make_vec("Newton/Ant-v0", num_envs=n, device=device, sim={"threads": threads})
    env.reset(seed=0)
    gen = torch.Generator().manual_seed(0)
    dev = env.device

    def one():
        env.step((torch.rand(n, 8, generator=gen) * 2 - 1).to(dev))

    one()  # warm-up (graph capture is done at construction)
    return _rate(one, n, steps)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--worlds", type=int, nargs="+", default=[1, 64, 256, 1024])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1,
                        help="CPU threads of our solver (1: the per-core figure; 0: one per core)")
    args = parser.parse_args()
    import warp as wp

    wp.config.log_level = wp.LOG_WARNING
    single, sync = reference(args.steps)
    print(f"gymnasium Ant-v5 (MuJoCo C): single env {single:,.0f} env-steps/s, SyncVectorEnv(8) {sync:,.0f}")
    print(f"{'worlds':>7} {'Newton/Ant-v0 [env-steps/s]':>28} {'/ single':>9} {'/ sync':>8}")
    for n in args.worlds:
        rate = ours(n, max(5, args.steps if n <= 256 else args.steps // 4), args.device, args.threads)
        print(f"{n:>7} {rate:>28,.0f} {rate / single:>9.2f} {rate / sync:>8.2f}")


if __name__ == "__main__":
    main()
