"""Env-steps per second of gym.make_vec("Newton/<Task>-v0") against EnvPool and gymnasium on the same
MuJoCo task, in one run, on the CPU.

Random actions in [-1, 1] times the task's action bound. References: EnvPool 1.2.5 (``envpool``, the
``benchmark`` extra) ``<Task>-v5`` with the same number of environments and the same number of threads,
and gymnasium's ``<Task>-v5`` as one env (single-threaded by nature); both as shipped (their
observations also hold cfrc_ext and, for Humanoid, cinert / cvel / actuator forces, which ours leave
out). The three are built once and timed in turn within each of ``--repeats`` repeats, so a ratio
(ours / EnvPool, ours / gymnasium) pairs timings taken seconds apart; the medians of the rates and of
the per-repeat ratios are printed, and the range of the ratio to EnvPool over the repeats (``range``: on a
shared machine it shows how far one repeat's ratio can stray). Each timing is ``--steps`` vector steps (4x
as many single-env steps for gymnasium). Bytes per world: ours, every Warp array of the model, state, control and solver (one
level into the solver's member objects) over N; MuJoCo's, one mjModel + mjData buffer + the part of
mjData's arena used so far (EnvPool keeps a model and a data per env). The load average is printed first: a busy machine moves every figure.
On the CPU two more columns split our step: ``env ms``, the milliseconds per vector step spent outside
``Simulation.step`` (actions, observation, reward, termination, resets: the env's own work, serial at any
thread count), and ``phys/EnvPool``, the rate of our physics alone against EnvPool's env steps (what the
ratio to EnvPool would be if the env's own work took no time).

``--ceiling`` then measures what the machine's cores allow our physics: the captured step of independent
one-thread solvers, each with its share of the worlds, replayed side by side on a thread pool (nothing shared,
as separate processes), against one alone, beside our threaded solver against its one-thread run, and our
threaded step's time over the side-by-side replay's (1.00: our threads cost what separate processes would).
The four are timed in turn in blocks of 10 replays for ``--ceiling-seconds``, so each ratio pairs timings
milliseconds apart; the spread of one solver alone over the blocks is printed too (this shared host runs a
single thread at two speeds about 1.7x apart, changing from block to block, while two threads side by side
run at the slower one). EnvPool's own speed-up is its rows' ratio in the table.

    python benchmarks/bench_env.py [--tasks Ant Humanoid] [--worlds 256] [--threads 1 2] [--ceiling]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# As `import newton_gym` before torch would: torch's OpenMP workers sleep between operations instead of
# spinning on the cores the solver's threads step on (newton_gym.openmp_wait).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import gymnasium as gym
import numpy as np
import torch
from _memory import array_bytes

_ACTION_BOUND = {"Ant": 1.0, "Humanoid": 0.4}
_ACTIONS = {"Ant": 8, "Humanoid": 17}


def _timed(step_fn, n_envs, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        step_fn()
    return n_envs * steps / (time.perf_counter() - t0)


def _gymnasium(task):
    """One gymnasium env: (step function, MuJoCo bytes per env, close)."""
    env = gym.make(f"{task}-v5")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    bound = _ACTION_BOUND[task]

    def one():
        _, _, term, trunc, _ = env.step(rng.uniform(-bound, bound, _ACTIONS[task]))
        if term or trunc:
            env.reset()

    model, data = env.unwrapped.model, env.unwrapped.data
    return one, (model, data), env.close


def _envpool(task, n, threads):
    """EnvPool with n envs on ``threads`` threads: step function and close, or None without envpool."""
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

    return one, env.close


def _warp_bytes(sim) -> int:
    """Bytes of every distinct Warp array of the model, state, control and solver (its member objects and
    row buffers included: :func:`_memory.array_bytes`)."""
    return array_bytes([sim.model, sim.state, sim.control, sim.solver])


def _ours(task, n, threads, device):
    """gym.make_vec Newton/<task>-v0: (step function, bytes per world, close, physics clock). The physics
    clock is a one-element list of the seconds spent in ``Simulation.step`` (the solver's captured substeps)
    since it was last zeroed; on CUDA, where the env step is one graph and kernels run asynchronously, None."""
    import newton_gym  # noqa: F401

    env = gym.make_vec(f"Newton/{task}-v0", num_envs=n, device=device, sim={"threads": threads})
    env.reset(seed=0)
    gen = torch.Generator().manual_seed(0)
    bound = _ACTION_BOUND[task]
    dev = env.device
    sim = env.unwrapped.sim
    clock = None
    if sim.device.is_cpu:
        clock, physics = [0.0], sim.step

        def timed_physics():
            t0 = time.perf_counter()
            physics()
            clock[0] += time.perf_counter() - t0

        sim.step = timed_physics

    def one():
        env.step(((torch.rand(n, _ACTIONS[task], generator=gen) * 2 - 1) * bound).to(dev))

    return one, _warp_bytes(sim) / n, env.close, clock


def _row(task, n, threads, steps, repeats, device):
    ours, ours_bytes, ours_close, clock = _ours(task, n, threads, device)
    pool = _envpool(task, n, threads)
    single, mj_bytes, single_close = _gymnasium(task)
    for _ in range(10):  # warm-up (our graph is captured at construction)
        for fn in (ours, single) + ((pool[0],) if pool else ()):
            fn()
    model, data = mj_bytes  # the arena counted as far as it was used (its reserve is 14 MB of untouched pages)
    mj_bytes = model.nbuffer + data.nbuffer + data.maxuse_arena
    rates = {"ours": [], "pool": [], "single": [], "physics": [], "env_ms": []}
    for _ in range(repeats):  # interleaved: the ratios of a repeat come from timings seconds apart
        if clock is not None:
            clock[0] = 0.0
        t0 = time.perf_counter()
        rates["ours"].append(_timed(ours, n, steps))
        if clock is not None:  # the physics alone, and the env's own work per vector step
            rates["physics"].append(n * steps / clock[0])
            rates["env_ms"].append(1e3 * (time.perf_counter() - t0 - clock[0]) / steps)
        if pool:
            rates["pool"].append(_timed(pool[0], n, steps))
        rates["single"].append(_timed(single, 1, 4 * steps))
    ours_close()
    single_close()
    if pool:
        pool[1]()
    med = {k: statistics.median(v) if v else float("nan") for k, v in rates.items()}
    pool_ratios = [a / b for a, b in zip(rates["ours"], rates["pool"])] if pool else [float("nan")]
    vs_pool = statistics.median(pool_ratios)
    pool_range = f"{min(pool_ratios):.2f}-{max(pool_ratios):.2f}"
    vs_single = statistics.median(a / b for a, b in zip(rates["ours"], rates["single"]))
    physics_vs_pool = float("nan")
    if pool and rates["physics"]:
        physics_vs_pool = statistics.median(a / b for a, b in zip(rates["physics"], rates["pool"]))
    print(
        f"{task:>9} {n:>5} {threads:>4} {med['ours']:>11,.0f} {med['pool']:>9,.0f} {med['single']:>10,.0f} "
        f"{vs_pool:>9.2f} {pool_range:>10} {vs_single:>11.2f} {med['env_ms']:>7.2f} {physics_vs_pool:>13.2f} {ours_bytes:>12,.0f} "
        f"{mj_bytes:>12,.0f}",
        flush=True,
    )


#: Replays per timing block of ``--ceiling``.
_BLOCK = 10


def _ceiling(task, n, threads, seconds):
    """How far ``threads`` threads can speed up our physics on this machine, against what our threaded solver
    gets: the replay of the captured step of ``threads`` independent one-thread solvers of n / threads worlds
    each, run side by side on a thread pool (no data shared, as separate processes would be), against one of
    them alone; and our ``threads``-thread solver of n worlds against the same n worlds on one thread.

    The four are timed in turn in short blocks (:data:`_BLOCK` replays, median) for ``seconds``, so
    each block's ratios pair timings milliseconds apart: on a shared host whose single-thread speed changes
    between blocks (here one solver alone ran at two speeds about 1.7x apart, block to block, while two side
    by side did not), a speed-up taken from timings seconds apart measures the host. Returns a dict of medians
    over the blocks: ``ceiling`` and ``ours`` (the two speed-ups), ``ours_vs_sides`` (our threaded step's time
    over the side-by-side replay's, same worlds in all), ``alone_ms`` (10th and 90th percentiles of one
    solver alone) and ``sides_ms`` (the side-by-side replay)."""
    from concurrent.futures import ThreadPoolExecutor

    import newton_gym  # noqa: F401

    def solver(worlds, thr):
        env = gym.make_vec(f"Newton/{task}-v0", num_envs=worlds, device="cpu", sim={"threads": thr})
        env.reset(seed=0)
        for _ in range(10):
            env.step(torch.zeros(worlds, _ACTIONS[task]))
        return env, env.unwrapped.sim.solver

    parts = [solver(n // threads, 1) for _ in range(threads)]
    whole1, whole = solver(n, 1), solver(n, threads)
    pool = ThreadPoolExecutor(threads)

    def side_by_side():
        for future in [pool.submit(s.replay) for _, s in parts]:
            future.result()

    def ms(fn):
        times = []
        for _ in range(_BLOCK):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return 1e3 * statistics.median(times)

    blocks = {"alone": [], "sides": [], "one": [], "many": []}
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or not blocks["alone"]:
        blocks["alone"].append(ms(parts[0][1].replay))
        blocks["sides"].append(ms(side_by_side))
        blocks["one"].append(ms(whole1[1].replay))
        blocks["many"].append(ms(whole[1].replay))
    pool.shutdown()
    for env, _ in parts + [whole1, whole]:
        env.close()
    b = {k: np.asarray(v) for k, v in blocks.items()}
    return {
        "ceiling": float(np.median(threads * b["alone"] / b["sides"])),
        "ours": float(np.median(b["one"] / b["many"])),
        "ours_vs_sides": float(np.median(b["many"] / b["sides"])),
        "alone_ms": (float(np.percentile(b["alone"], 10)), float(np.percentile(b["alone"], 90))),
        "sides_ms": float(np.median(b["sides"])),
        "blocks": len(blocks["alone"]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["Ant", "Humanoid"])
    parser.add_argument("--worlds", type=int, nargs="+", default=[256])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="after the table, each task's physics speed-up on the largest thread count: our threaded solver's "
        "against independent one-thread solvers side by side (what the machine's cores allow)",
    )
    parser.add_argument("--ceiling-seconds", type=float, default=20.0, help="how long --ceiling times each task")
    args = parser.parse_args()
    import warp as wp

    wp.config.log_level = wp.LOG_WARNING
    torch.set_num_threads(1)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"env-steps/s, median of {args.repeats}; ratios within each repeat; {os.cpu_count()} CPUs, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(
        f"{'task':>9} {'N':>5} {'thr':>4} {'newton_gym':>11} {'EnvPool':>9} {'gymnasium':>10} {'/EnvPool':>9} "
        f"{'range':>10} {'/gymnasium':>11} {'env ms':>7} {'phys/EnvPool':>13} {'bytes/world':>12} {'MuJoCo B/env':>12}"
    )
    for task in args.tasks:
        for n in args.worlds:
            for threads in args.threads:
                _row(task, n, threads, args.steps, args.repeats, args.device)
    threads = max(args.threads)
    if args.ceiling and args.device == "cpu" and threads > 1:
        print(
            f"physics speed-up on {threads} threads (captured step replayed; medians over blocks of {_BLOCK} "
            f"replays, {args.ceiling_seconds:g} s per task):"
        )
        for task in args.tasks:
            n = max(args.worlds)
            c = _ceiling(task, n, threads, args.ceiling_seconds)
            print(
                f"{task:>9} {n:>5}: {threads} independent one-thread solvers of {n // threads} worlds side by "
                f"side {c['ceiling']:.2f}x one alone; our {threads}-thread solver {c['ours']:.2f}x its one-thread "
                f"run; our {threads}-thread step takes {c['ours_vs_sides']:.2f}x the side-by-side replay's time "
                f"({c['sides_ms']:.2f} ms); one solver alone {c['alone_ms'][0]:.2f}-{c['alone_ms'][1]:.2f} ms "
                f"(10th-90th percentile of {c['blocks']} blocks)",
                flush=True,
            )


if __name__ == "__main__":
    main()
