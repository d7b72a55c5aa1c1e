"""Per-kernel GPU time of one env step, by Warp's activity timers (for machines without Nsight Systems).

Steps ``gym.make_vec("Newton/<Task>-v0", num_envs=N)`` eagerly (no whole-step graph and no captured solver
steps, so that each kernel launch is recorded; with the solver's graph the first H200 run saw one "graph"
activity of 99% of the step), first ``--settle`` env steps untimed, then ``--steps`` env steps under Warp's CUDA
activity timing, and prints the kernels ranked by total GPU time: launches per env step, microseconds per
env step, share of the step's kernel time. Warp's timers synchronize, so the wall-clock figure it prints is
not the graph-replay rate of bench_gpu.py; the ranking is what this script is for.

    python benchmarks/profile_gpu.py --task Ant --worlds 4096
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import gymnasium as gym
import warp as wp

import newton_gym  # noqa: F401  (registers the ids; before torch's threads start: newton_gym.openmp_wait)

# isort: split
import torch

_IDS = {"Ant": "Newton/Ant-v0", "Humanoid": "Newton/Humanoid-v0", "Go1": "Newton/Go1-Flat-v0"}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--task", default="Ant", choices=list(_IDS))
    p.add_argument("--worlds", type=int, default=4096)
    p.add_argument("--steps", type=int, default=5, help="env steps timed")
    p.add_argument("--settle", type=int, default=20, help="env steps run first, untimed")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--device", default="cuda:0")
    a = p.parse_args()

    env = gym.make_vec(_IDS[a.task], num_envs=a.worlds, device=a.device, graph=False, sim={"capture": False})
    env.reset(seed=0)
    space = env.single_action_space
    gen = torch.Generator(device=env.device).manual_seed(0)
    low = torch.as_tensor(space.low, device=env.device).clamp(min=-1.0)
    high = torch.as_tensor(space.high, device=env.device).clamp(max=1.0)

    def step():
        env.step(low + (high - low) * torch.rand(a.worlds, space.shape[0], generator=gen, device=env.device))

    for _ in range(a.settle):
        step()
    wp.synchronize()
    wp.timing_begin(cuda_filter=wp.TIMING_ALL)
    for _ in range(a.steps):
        step()
    results = wp.timing_end()

    total_ms, count = defaultdict(float), defaultdict(int)
    for r in results:
        total_ms[r.name] += r.elapsed
        count[r.name] += 1
    step_ms = sum(total_ms.values()) or float("nan")
    print(
        f"{a.task} at {a.worlds} worlds on {wp.get_device(a.device).name}: {len(results) / a.steps:.0f} "
        f"activities (kernels, copies, memsets) per env step, {step_ms / a.steps * 1e3:,.0f} us of GPU time"
    )
    print(f"{'kernel':<70} {'per step':>8} {'us/step':>10} {'share':>7}")
    for name in sorted(total_ms, key=total_ms.get, reverse=True)[: a.top]:
        print(
            f"{name[:70]:<70} {count[name] / a.steps:>8.1f} {total_ms[name] / a.steps * 1e3:>10,.1f} "
            f"{total_ms[name] / step_ms:>7.1%}"
        )
    env.close()


if __name__ == "__main__":
    main()
