"""World chunks on the CPU: SolverGeneralized stepping its worlds in chunks (``Option.world_chunk``, by default
as many worlds as hold ``CHUNK_DOFS`` DOFs, each chunk through every step before the next) against one pass
over every world (``world_chunk`` = the world count), in one run, on one thread.

bench_solver's model, settled state and controls (``--worlds`` copies); each side captures ``--steps`` steps
and replays them ``--repeats`` times, the two sides in turn within a repeat; printed: microseconds per
world-step (medians), the per-repeat ratio one pass / chunked (median) and whether both ended bitwise equal
(they take the same number of steps from the same state).

    python benchmarks/bench_chunks.py [--robots ant humanoid go1 g1] [--worlds 256] [--steps 20] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import warp as wp


def _row(robot: str, n: int, steps: int, repeats: int) -> str:
    import bench_stages as bs
    from bench_solver import _mujoco_model, _settled_state, settle_time

    m = _mujoco_model(robot)
    d0 = _settled_state(m, settle_time(robot, None))
    dt = float(m.opt.timestep)
    sides = {}
    for label in ("one pass", "chunked"):
        solver, state, _ = bs._solver(m, d0, n)
        if label == "one pass":
            solver.chunks = solver._chunk(n)
        solver.capture(state, state, None, dt, steps=steps)
        sides[label] = (solver, state)
    times = {label: [] for label in sides}
    for _ in range(repeats):
        for label, (solver, _) in sides.items():
            wp.synchronize()
            start = time.perf_counter()
            solver.replay()
            wp.synchronize()
            times[label].append(1e6 * (time.perf_counter() - start) / (steps * n))
    ratio = statistics.median(a / b for a, b in zip(times["one pass"], times["chunked"]))
    (_, one_state), (chunked_solver, chunked_state) = sides["one pass"], sides["chunked"]
    same = all(
        np.array_equal(getattr(one_state, name).numpy(), getattr(chunked_state, name).numpy())
        for name in ("joint_q", "joint_qd", "body_q")
    )
    chunk = chunked_solver.chunks[0][0].worlds[1]
    one, chunked = statistics.median(times["one pass"]), statistics.median(times["chunked"])
    return f"{robot:>9} {n:6d} {chunk:6d} {one:10.2f} {chunked:10.2f} {ratio:8.2f}x  {same}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots", nargs="+", default=["ant", "humanoid", "go1", "g1"])
    p.add_argument("--worlds", type=int, default=256)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args()
    wp.config.quiet = True
    print(f"one pass over {a.worlds} worlds vs world chunks, one thread, us per world-step, median of {a.repeats}")
    print(f"{'robot':>9} {'N':>6} {'chunk':>6} {'one pass':>10} {'chunked':>10} {'speedup':>9}  bitwise")
    for robot in a.robots:
        print(_row(robot, a.worlds, a.steps, a.repeats), flush=True)


if __name__ == "__main__":
    main()
