"""Construction time of N worlds: builder replicate, finalize and SolverGeneralized (with its big parts), and
the bytes per world of the solver's device arrays.

Robots: ``ant`` (the Newton/Ant-v0 USD), ``go1``, ``g1``, ``humanoid`` (shipped USD, imported with add_usd
as the tasks do) and ``ant_like`` (a 9-body Ant-sized builder, no USD). Times are medians of ``--repeat``
runs, after one untimed 2-world construction that loads the kernels. Solver parts: ``layout``
(build_tree_layout), ``contacts`` (build_contacts: candidate pairs and slots), ``rows`` (build_rows),
``world`` (WorldSolver: the world solve's buffers), ``invw`` (MuJoCo's inverse weights at the initial
pose); ``other`` is the rest of the constructor. ``rows/w``: constraint rows per world, ``budget/w``: those
whose terms the world solve stores. ``solver B/w``: the capacity of every Warp array the
solver owns (its scratch, tree tables, contacts, rows and world-solve buffers; the model's and the
state's arrays are not counted) divided by the worlds; ``state B/w`` the State's, for scale.
``--loop`` adds the time of building the same scene with a Python loop of add_world() calls.
Targets (issue 12): 4096 Go1 or Ant worlds replicated, finalized and the solver built in under 2 s.

    python benchmarks/bench_replicate.py [--robots ant go1 g1] [--worlds 1024 4096] [--repeat 3] [--loop]
"""

from __future__ import annotations

import argparse
import statistics
import time
from contextlib import contextmanager

import warp as wp

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized, generalized
from newton_gym.solvers.collision import driver as collision_driver
from newton_gym.solvers.constraint import rows as constraint

_PARTS = ("layout", "contacts", "rows", "world", "invw")


def _robot(name: str) -> ng.ModelBuilder:
    if name == "ant_like":
        from newton_gym.sim.examples import ant_like_builder

        return ant_like_builder()
    from newton_gym.assets import robot_path

    robot = ng.ModelBuilder()
    robot.add_usd(robot_path(name))
    return robot


def _scene(robot: ng.ModelBuilder, n: int, ground: bool) -> ng.ModelBuilder:
    """``n`` copies of ``robot``, on a global ground plane when ``ground`` (the USD robots, converted from
    MJCF, bring their own floor)."""
    scene = ng.ModelBuilder(up_axis=robot.up_axis, gravity=robot.gravity)
    if ground:
        scene.add_ground_plane()
    scene.replicate(robot, n)
    return scene


@contextmanager
def _timed_parts(times: dict):
    """Wrap the solver constructor's big steps so each adds its wall time to ``times[part]``."""

    def wrap(owner, attr, part):
        inner = getattr(owner, attr)

        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                times[part] = times.get(part, 0.0) + time.perf_counter() - t

        setattr(owner, attr, timed)
        return owner, attr, inner

    saved = [
        wrap(generalized, "build_tree_layout", "layout"),
        wrap(collision_driver, "build_contacts", "contacts"),
        wrap(constraint, "build_rows", "rows"),
        wrap(generalized, "WorldSolver", "world"),
        wrap(SolverGeneralized, "_init_invweights", "invw"),
    ]
    try:
        yield
    finally:
        for owner, attr, inner in saved:
            setattr(owner, attr, inner)


def _arrays(obj) -> list:
    """Every Warp array reachable from ``obj`` through attributes, dicts and Warp structs (one level each)."""
    found = []
    values = obj.values() if isinstance(obj, dict) else [getattr(obj, k, None) for k in _fields(obj)]
    for v in values:
        if isinstance(v, wp.array):
            found.append(v)
        elif isinstance(v, dict) or hasattr(type(v), "vars") or hasattr(v, "__dataclass_fields__"):
            found.extend(_arrays(v))
    return found


def _fields(obj) -> list:
    if hasattr(type(obj), "vars"):  # a Warp struct instance
        return list(type(obj).vars)
    if hasattr(obj, "__dataclass_fields__"):
        return list(obj.__dataclass_fields__)
    return list(vars(obj))


def _solver_bytes(solver) -> int:
    owned = [solver, solver.data, solver.tree, solver.actuator_table, solver.contacts, solver.rows]
    ws = solver.world_solver
    owned += [ws.rm, ws.rd, ws.cm, ws.tm]
    model_ptrs = {a.ptr for a in _arrays(solver.model)}
    unique = {a.ptr: a for obj in owned for a in _arrays(obj) if a.ptr not in model_ptrs}
    return sum(a.capacity for a in unique.values())


def _measure(robot, n: int, ground: bool) -> dict:
    out = {}
    t = time.perf_counter()
    scene = _scene(robot, n, ground)
    out["replicate"] = time.perf_counter() - t
    t = time.perf_counter()
    model = scene.finalize("cpu")
    out["finalize"] = time.perf_counter() - t
    parts = {}
    with _timed_parts(parts):
        t = time.perf_counter()
        solver = SolverGeneralized(model)
        out["solver"] = time.perf_counter() - t
    out.update(parts)
    out["other"] = out["solver"] - sum(parts.get(p, 0.0) for p in _PARTS)
    out["total"] = out["replicate"] + out["finalize"] + out["solver"]
    out["solver B/w"] = _solver_bytes(solver) / n
    state = model.state()
    out["state B/w"] = sum(a.capacity for a in _arrays(state)) / n
    out["rows/w"] = solver.rows.count / n
    budget = getattr(solver.rows, "budget_host", None)  # the rows whose terms the solve stores (all: no budget)
    out["budget/w"] = float(budget.mean()) if budget is not None else out["rows/w"]
    return out


def _loop(robot, n: int) -> float:
    t = time.perf_counter()
    scene = ng.ModelBuilder(up_axis=robot.up_axis, gravity=robot.gravity)
    for _ in range(n):
        scene.add_world(robot)
    return time.perf_counter() - t


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots", nargs="+", default=["ant", "go1", "g1"])
    p.add_argument("--worlds", type=int, nargs="+", default=[1024, 4096])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--loop", action="store_true", help="also time a Python loop of add_world() calls")
    a = p.parse_args()
    wp.config.quiet = True
    wp.init()
    cols = ["replicate", "finalize", *_PARTS, "other", "solver", "total"]
    print(f"CPU, seconds (median of {a.repeat}); bytes per world of the solver's device arrays and of the State")
    head = f"{'robot':>9} {'N':>6} " + " ".join(f"{c:>9}" for c in cols)
    head += f" {'rows/w':>7} {'budget/w':>8} {'solver B/w':>11} {'state B/w':>10}" + (f" {'loop':>8}" if a.loop else "")
    print(head)
    for name in a.robots:
        robot, ground = _robot(name), name == "ant_like"
        SolverGeneralized(_scene(robot, 2, ground).finalize("cpu"))  # load the kernels outside the timings
        for n in a.worlds:
            runs = [_measure(robot, n, ground) for _ in range(a.repeat)]
            med = {k: statistics.median(r.get(k, 0.0) for r in runs) for k in runs[0]}
            line = f"{name:>9} {n:>6} " + " ".join(f"{med.get(c, 0.0):>9.3f}" for c in cols)
            line += f" {med['rows/w']:>7.0f} {med['budget/w']:>8.0f}"
            line += f" {med['solver B/w']:>11.0f} {med['state B/w']:>10.0f}"
            if a.loop:
                line += f" {statistics.median(_loop(robot, n) for _ in range(a.repeat)):>8.3f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
