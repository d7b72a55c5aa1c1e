"""Two revisions of the solver in one process: SolverGeneralized of the working tree against the one of
``--base`` (a git revision), on the same model, settled state and controls, their steps timed in turn.

A change of a few percent does not show between two runs of a benchmark on a shared machine, whose speed
drifts by more than that within minutes (and by 2x within an hour on the developers' VM). Here both solvers
live in one process and their captured steps alternate, each repeat timing one replay of each from the same
settled state, so a drift affects both alike: the figure is the median over the repeats of the per-repeat
ratio base / working tree (above 1: the working tree is faster), each side timed first in every other
repeat.

The base revision's ``newton_gym`` package is exported with ``git archive`` into a cache folder and imported as
``newton_gym_base`` (every ``newton_gym`` in its sources renamed, so that its Warp modules are its own); its
solver steps the working tree's model (the model's arrays, read by name: the two revisions must agree on
them). The model, settled state and controls are bench_stages' (the MJCF compiled by MuJoCo, implicitfast,
Newton, its dt; ``--worlds`` copies, each under its own random controls). After the timing the two final
joint states are compared: bitwise equal, or the largest difference.

``--envs Go1-Rough`` times a task's scene as well (after the robots; ``--robots`` may be empty): both solvers,
built with the env's solver settings and actuators, step its model from its state after 60 env steps of random
actions, under the controls of the last one (the heightfield terrain, where bench_stages' robots stand on a
plane).

    python benchmarks/ab_solver.py --base HEAD~1 [--robots go1 ant] [--envs Go1-Rough] [--worlds 64] [--steps 50]
                                   [--repeats 21]
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys
import tarfile
import time

import numpy as np
import warp as wp
from bench_solver import _mujoco_model, _settled_state, settle_time  # also puts tests/solvers on sys.path
from bench_stages import actuator_tables, stepped_env

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NAME = "newton_gym_base"


def _export(rev: str) -> str:
    """The folder holding ``rev``'s package as ``newton_gym_base`` (exported once per commit)."""
    sha = subprocess.run(
        ["git", "-C", _ROOT, "rev-parse", rev], check=True, capture_output=True, text=True
    ).stdout.strip()
    home = os.path.join(os.path.expanduser("~"), ".cache", "newton_gym", "ab_solver", sha)
    if os.path.isdir(os.path.join(home, _NAME)):
        return home
    os.makedirs(home, exist_ok=True)
    archive = os.path.join(home, "src.tar")
    subprocess.run(["git", "-C", _ROOT, "archive", "-o", archive, sha, "newton_gym"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(home, filter="data")
    os.remove(archive)
    word = re.compile(r"\bnewton_gym\b")
    for folder, _, files in os.walk(os.path.join(home, "newton_gym")):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                with open(path, "w", encoding="utf-8") as f:
                    f.write(word.sub(_NAME, text))
    os.rename(os.path.join(home, "newton_gym"), os.path.join(home, _NAME))
    return home


def _solver(package, model, act, n: int):
    """``package``'s SolverGeneralized on ``model`` (Newton, MuJoCo's iteration cap, one thread) with the
    actuators of ``act`` (mujoco_builder's) in each of the ``n`` worlds."""
    solvers = importlib.import_module(f"{package}.solvers")
    actuators = solvers.Actuators(*actuator_tables(act, n, model.joint_dof_count // n))
    return solvers.SolverGeneralized(model, iterations=100, actuators=actuators, solver="newton", threads=1)


def _robot(robot: str, n: int, steps: int, repeats: int):
    """(base us per world-step, ours, median per-repeat ratio base / ours, final states' comparison)."""
    from mujoco_builder import builder_from_mujoco, mujoco_qpos_to_joint_q

    import newton_gym as ng
    from newton_gym.sim.hostmath import quat_to_matrix

    m = _mujoco_model(robot)
    d0 = _settled_state(m, settle_time(robot, None))
    world, act, _ = builder_from_mujoco(m)
    scene = ng.ModelBuilder(gravity=float(m.opt.gravity[2]))
    scene.replicate(world, world_count=n)
    model = scene.finalize("cpu")
    q = mujoco_qpos_to_joint_q(m, d0.qpos)
    qd = d0.qvel.copy()
    qd[3:6] = quat_to_matrix(q[3:7].astype(np.float64)) @ qd[3:6]  # free joint's angular velocity: body to world
    q0, qd0 = np.tile(q, n).astype(np.float32), np.tile(qd, n).astype(np.float32)
    ctrl = (np.tile(m.key_ctrl[0], (n, 1)) if m.nkey else np.zeros((n, m.nu))) + np.random.default_rng(0).uniform(
        -0.1, 0.1, (n, m.nu)
    )
    dt = float(m.opt.timestep)
    sides = {}
    for package in (_NAME, "newton_gym"):
        solver = _solver(package, model, act, n)
        solver.ctrl.assign(ctrl.reshape(-1).astype(np.float32))
        state = model.state()
        state.joint_q.assign(q0)
        state.joint_qd.assign(qd0)
        solver.capture(state, state, None, dt, steps=steps)
        sides[package] = (solver, state)
    return _time_sides(sides, q0, qd0, n, steps, repeats)


def _time_sides(sides: dict, q0, qd0, n: int, steps: int, repeats: int):
    """Time each side's captured steps from (q0, qd0) in turn: (base us per world-step, ours, median per-repeat
    ratio base / ours, final states' comparison)."""
    times = {package: [] for package in sides}
    order = list(sides.items())
    for r in range(repeats):
        for package, (solver, state) in order if r % 2 == 0 else order[::-1]:  # each side first in turn
            state.joint_q.assign(q0)
            state.joint_qd.assign(qd0)
            wp.synchronize()
            start = time.perf_counter()
            solver.replay()
            wp.synchronize()
            times[package].append(1e6 * (time.perf_counter() - start) / (steps * n))
    base, ours = times[_NAME], times["newton_gym"]
    ratio = statistics.median(b / o for b, o in zip(base, ours))
    qa, qb = (sides[p][1].joint_q.numpy() for p in (_NAME, "newton_gym"))
    same = "bitwise equal" if np.array_equal(qa, qb) else f"differ by up to {np.nanmax(np.abs(qa - qb)):.3g}"
    return statistics.median(base), statistics.median(ours), ratio, same


def _env(task: str, n: int, steps: int, repeats: int):
    """:func:`_robot` on the scene of ``gym.make_vec("Newton/<task>-v0")`` (``n`` worlds, one solver thread): both
    revisions' solvers, with the env's solver settings and actuators, step its model from its state after 60
    env steps of uniform random actions (seeded), under the controls of the last one."""
    env = stepped_env(task, n)
    sim, cfg = env.unwrapped.sim, env.unwrapped.cfg.sim
    model, records = sim.model, env.unwrapped.task.actuators
    q0, qd0 = sim.state.joint_q.numpy().copy(), sim.state.joint_qd.numpy().copy()
    ctrl = sim.solver.ctrl.numpy().copy()
    sides = {}
    for package in (_NAME, "newton_gym"):
        solvers = importlib.import_module(f"{package}.solvers")
        actuators = solvers.Actuators.from_records(records, n, sim.dofs_per_world, model.tendon_count // max(n, 1))
        solver = solvers.SolverGeneralized(
            model,
            iterations=cfg.iterations,
            solver=cfg.solver,
            actuators=actuators,
            threads=1,
            row_budget=cfg.row_budget or None,
        )
        solver.ctrl.assign(ctrl)
        state = model.state()
        state.joint_q.assign(q0)
        state.joint_qd.assign(qd0)
        solver.capture(state, state, sim.control, cfg.sim_dt, steps=steps)
        sides[package] = (solver, state)
    return _time_sides(sides, q0, qd0, n, steps, repeats)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True, help="git revision of the solver to compare with (e.g. HEAD, main~3)")
    p.add_argument("--robots", nargs="*", default=["ant", "humanoid", "go1", "g1"])
    p.add_argument("--envs", nargs="*", default=[], help="Newton tasks (Go1-Rough, ...) timed after the robots")
    p.add_argument("--worlds", type=int, default=64)
    p.add_argument("--steps", type=int, default=50, help="physics steps per timed replay")
    p.add_argument("--repeats", type=int, default=21)
    a = p.parse_args()
    sys.path.insert(0, _export(a.base))
    # The working tree registers the tasks first, so that --envs scenes are its own (the base's registration
    # then skips ids already held; its model may lack fields the working tree's solver reads)
    importlib.import_module("newton_gym")
    importlib.import_module(_NAME)
    wp.config.quiet = True
    wp.init()
    print(
        f"SolverGeneralized of the working tree against {a.base} in one process: {a.worlds} worlds, one thread, "
        f"{a.steps} steps per replay, median of {a.repeats} alternating repeats"
    )
    print(f"| robot | {a.base} us/world-step | working tree | {a.base} / working tree | final joint_q |")
    print("|---|---|---|---|---|")
    for robot in a.robots:
        base, ours, ratio, same = _robot(robot, a.worlds, a.steps, a.repeats)
        print(f"| {robot} | {base:.2f} | {ours:.2f} | {ratio:.3f} | {same} |")
    for task in a.envs:
        base, ours, ratio, same = _env(task, a.worlds, a.steps, a.repeats)
        print(f"| {task} env | {base:.2f} | {ours:.2f} | {ratio:.3f} | {same} |")


if __name__ == "__main__":
    main()
