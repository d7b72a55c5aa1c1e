"""Env-steps per second of gym.make_vec("Newton/<Task>-v0") against EnvPool and gymnasium on the same
MuJoCo task, in one run, on the CPU.

Random actions in [-1, 1] times the task's action bound. References: EnvPool 1.2.5 (``envpool``, the
``benchmark`` extra) ``<Task>-v5`` with the same number of environments and the same number of threads,
and gymnasium's ``<Task>-v5`` as one env (single-threaded by nature). Each figure is the median of
``--repeats`` timings of ``--steps`` vector steps; the ratio ours / EnvPool is taken within the same
repeat and its median printed. Bytes of model + state per world come from the solver's arrays.

    python benchmarks/bench_env.py [--tasks Ant Humanoid] [--worlds 256] [--threads 1 2]
"""

from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np
import torch

_ACTION_BOUND = {"Ant": 1.0, "Humanoid": 0.4}
_ACTIONS = {"Ant": 8, "Humanoid": 17}


def _timed(step_fn, n_envs, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        step_fn()
    return n_envs * steps / (time.perf_counter() - t0)


def _gymnasium(task, steps, repeats):
    env = gym.make(f"{task}-v5")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    bound = _ACTION_BOUND[task]

    def one():
        _, _, term, trunc, _ = env.step(rng.uniform(-bound, bound, _ACTIONS[task]))
        if term or trunc:
            env.reset()

    return [_timed(one, 1, steps) for _ in range(repeats)]


def _envpool(task, n, threads, steps, repeats):
    try:
        import envpool
    except ImportError:
        return None
    env = envpool.make_gymnasium(f"{task}-v5", num_envs=n, num_threads=threads, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    bound = _ACTION_BOUND[task]

    def one():
        env.step(rng.uniform(-bound, bound, (n, _ACTIONS[task])))  # autoresets by itself

    one()
    return [_timed(one, n, steps) for _ in range(repeats)]


def _ours(task, n, threads, steps, repeats, device):
    import warp as wp

    import newton_gym  # noqa: F401

    env = gym.make_vec(f"Newton/{task}-v0", num_envs=n, device=device, sim={"threads": threads})
    env.reset(seed=0)
    gen = torch.Generator().manual_seed(0)
    bound = _ACTION_BOUND[task]
    dev = env.device

    def one():
        env.step(((torch.rand(n, _ACTIONS[task], generator=gen) * 2 - 1) * bound).to(dev))

    one()  # warm-up (the graph is captured at construction)
    rates = [_timed(one, n, steps) for _ in range(repeats)]
    sim = env.unwrapped.sim
    arrays = [v for obj in (sim.model, sim.state, sim.solver.data, sim.solver.rows, sim.solver.contacts)
              for v in vars(obj).values() if isinstance(v, wp.array)]
    env.close()
    return rates, sum(a.capacity for a in arrays) / n


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["Ant", "Humanoid"])
    parser.add_argument("--worlds", type=int, nargs="+", default=[256])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    import warp as wp

    wp.config.log_level = wp.LOG_WARNING
    torch.set_num_threads(1)
    print(f"env-steps/s, median of {args.repeats}; ratios within the same repeat")
    print(f"{'task':>9} {'N':>5} {'thr':>4} {'newton_gym':>11} {'EnvPool':>9} {'gymnasium':>10} {'/EnvPool':>9} "
          f"{'/gymnasium':>11} {'bytes/world':>12}")
    for task in args.tasks:
        single = _gymnasium(task, args.steps * 4, args.repeats)
        for n in args.worlds:
            for threads in args.threads:
                ours, mem = _ours(task, n, threads, args.steps, args.repeats, args.device)
                pool = _envpool(task, n, threads, args.steps, args.repeats)
                ratio = statistics.median(a / b for a, b in zip(ours, pool)) if pool else float("nan")
                pool_med = statistics.median(pool) if pool else float("nan")
                print(f"{task:>9} {n:>5} {threads:>4} {statistics.median(ours):>11,.0f} {pool_med:>9,.0f} "
                      f"{statistics.median(single):>10,.0f} {ratio:>9.2f} "
                      f"{statistics.median(ours) / statistics.median(single):>11.2f} {mem:>12,.0f}")


if __name__ == "__main__":
    main()
