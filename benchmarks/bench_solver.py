"""Physics throughput: SolverGeneralized vs MuJoCo C on the same MJCF, same integrator (implicitfast),
same time step and the same number of threads, in one run.

Both start from a state MuJoCo reaches after ``--settle`` seconds of weak random control (so the
robots are on the floor: an RL episode is spent in contact), then step ``--steps`` physics steps of
every world, each world under its own constant controls (home controls + a draw in [-0.1, 0.1]), the same
on both sides. Each repeat starts again from the settled state. Ours: every world at once, the steps
captured as one graph and replayed (Newton, and PGS for comparison). MuJoCo: ``mujoco.rollout`` over the
same worlds (one MjData per thread). Figures are world physics steps per second, the median of
``--repeats`` timings; each repeat times ours (Newton, then PGS) and MuJoCo in turn, seconds apart, and the
ratio ours / MuJoCo is the median of the per-repeat ratios (a machine whose speed drifts moves both sides
of a repeat alike), printed with their range over the repeats (``range``: a shared host that switches a
thread between two speeds, as this project's 2-core machine does about 1.7x apart, moves single repeats far
from the median: Ant at 64 worlds read 0.76-1.68 over 25 repeats, median 1.25). Bytes of solver scratch +
state per world are printed, and MuJoCo's base height and contacts at the start and end of the timed steps.

The settle time is per robot unless ``--settle`` is given (:data:`SETTLE`): Ant and Go1 are on their
legs (the Ant hops under its random controls), gymnasium's Humanoid (no controller) lies where it fell
within its first second, and the G1, whose servos hold its home pose with no balance controller, stands
for about 0.8 s and then falls: it is timed at 0.3 s, standing on both feet.

    python benchmarks/bench_solver.py [--robots ant humanoid go1 g1] [--worlds 1 64 256] [--threads 1]
    python benchmarks/bench_solver.py --device cuda:0 --worlds 1024 4096      (on a GPU)
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import time

import numpy as np
import warp as wp

# the MjModel -> ModelBuilder utility the solver tests use (same model as MuJoCo, compiled values)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "solvers"))


def _mjcf(robot: str) -> str:
    """The shipped MJCF of go1 / g1 (position servos, home keyframe), else gymnasium's of that name."""
    import gymnasium

    if robot in ("go1", "g1"):
        from newton_gym.assets.robots import robot_source_path

        return robot_source_path(robot)
    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", f"{robot}.xml")


def _mujoco_model(robot: str):
    import mujoco

    m = mujoco.MjModel.from_xml_path(_mjcf(robot))
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    return m


SETTLE = {"ant": 1.0, "humanoid": 1.0, "go1": 1.0, "g1": 0.3}  # [s] default settle time per robot


def settle_time(robot: str, settle: float | None) -> float:
    """``settle`` where given, else the robot's :data:`SETTLE` (1 s for a robot not listed)."""
    return SETTLE.get(robot, 1.0) if settle is None else settle


def _settled_state(m, settle: float):
    import mujoco

    d = mujoco.MjData(m)
    if m.nkey:  # robots with a home keyframe start there, their servos holding it
        mujoco.mj_resetDataKeyframe(m, d, 0)
    rng = np.random.default_rng(1)
    for _ in range(int(round(settle / m.opt.timestep))):
        d.ctrl[:] = _base_ctrl(m) + rng.uniform(-0.1, 0.1, m.nu)
        mujoco.mj_step(m, d)
    return d


def _base_ctrl(m) -> np.ndarray:
    """The controls the random ones are added to: the home keyframe's (servo targets), else 0."""
    return m.key_ctrl[0].copy() if m.nkey else np.zeros(m.nu)


def _ours(m, d0, n, steps, solver_name, device, threads):
    """(rate, bytes per world, finite): rate() times one replay of ``steps`` steps of the ``n`` worlds from the
    settled state (world steps/s); finite() whether the last replay's joint state is finite."""
    from mujoco_builder import builder_from_mujoco, mujoco_qpos_to_joint_q

    import newton_gym as ng
    from newton_gym.sim.hostmath import quat_to_matrix
    from newton_gym.solvers import Actuators, SolverGeneralized

    sub, act, _ = builder_from_mujoco(m)
    scene = ng.ModelBuilder(gravity=float(m.opt.gravity[2]))
    scene.replicate(sub, world_count=n)
    model = scene.finalize(device)
    dofs = np.concatenate([act.dof + w * sub.joint_dof_count for w in range(n)])
    acts = Actuators(
        dofs,
        np.tile(act.gear, n),
        np.tile(act.ctrl_range, (n, 1)),
        np.tile(act.force_range, (n, 1)),
        np.tile(act.gain, n),
        np.tile(act.bias, (n, 1)),
    )
    solver = SolverGeneralized(
        model, iterations=100 if solver_name == "newton" else 50, actuators=acts, solver=solver_name, threads=threads
    )
    state = model.state()
    q = mujoco_qpos_to_joint_q(m, d0.qpos)
    qd = d0.qvel.copy()
    qd[3:6] = quat_to_matrix(q[3:7].astype(np.float64)) @ qd[3:6]  # root COM = body origin (asserted)
    state.joint_q.assign(np.tile(q, n).astype(np.float32))
    state.joint_qd.assign(np.tile(qd, n).astype(np.float32))
    solver.ctrl.assign(_world_ctrl(m, n).reshape(-1).astype(np.float32))
    solver.capture(state, state, None, m.opt.timestep, steps=steps)

    def rate():
        state.joint_q.assign(np.tile(q, n).astype(np.float32))  # each repeat from the settled state
        state.joint_qd.assign(np.tile(qd, n).astype(np.float32))
        wp.synchronize()
        t = time.perf_counter()
        solver.replay()
        wp.synchronize()
        return n * steps / (time.perf_counter() - t)

    def finite():
        return bool(np.isfinite(state.joint_q.numpy()).all())

    objs = (solver.data, solver.rows, solver.contacts, solver.world_solver.rd, state)  # rd: the world solve's buffers
    arrays = list({v.ptr: v for obj in objs for v in vars(obj).values() if isinstance(v, wp.array)}.values())
    return rate, sum(a.capacity for a in arrays) / n, finite


def _mujoco(m, d0, n, steps, threads):
    """(rate, pool): rate() times one ``mujoco.rollout`` of ``steps`` steps of the ``n`` worlds from the settled
    state (world steps/s); close the pool when done."""
    import mujoco
    from mujoco import rollout

    state0 = np.zeros(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS))
    mujoco.mj_getState(m, d0, state0, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    states = np.tile(state0, (n, 1))
    ctrl = np.repeat(_world_ctrl(m, n)[:, None, :], steps, axis=1)  # (n, steps, nu): constant per world
    datas = [mujoco.MjData(m) for _ in range(threads)]
    pool = rollout.Rollout(nthread=threads)

    def rate():
        t = time.perf_counter()
        pool.rollout(m, datas, states, ctrl)
        return n * steps / (time.perf_counter() - t)

    return rate, pool


def _world_ctrl(m, n: int) -> np.ndarray:
    """(n, nu) each world's constant controls: the home controls + a draw in [-0.1, 0.1]."""
    return _base_ctrl(m) + np.random.default_rng(0).uniform(-0.1, 0.1, (n, m.nu))


def _window(m, d0, steps: int) -> str:
    """MuJoCo's base height and contact count at the start and the end of ``steps`` steps of world 0."""
    import mujoco

    d = copy.copy(d0)
    d.ctrl[:] = _world_ctrl(m, 1)[0]
    start = (float(d.qpos[2]), d.ncon)
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return f"base z {start[0]:.3f} -> {float(d.qpos[2]):.3f} m, contacts {start[1]} -> {d.ncon}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots", nargs="+", default=["ant"])
    p.add_argument("--worlds", type=int, nargs="+", default=[1, 64, 256])
    p.add_argument("--steps", type=int, default=50, help="physics steps per timing")
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--settle", type=float, default=None, help="simulated seconds before timing (SETTLE)")
    p.add_argument("--device", default="cpu", help="Warp device of our solver; MuJoCo stays on the CPU")
    p.add_argument("--threads", type=int, default=1, help="CPU threads, ours and MuJoCo's alike")
    a = p.parse_args()
    wp.config.quiet = True
    wp.init()
    print(
        f"implicitfast, MuJoCo's own dt, {a.threads} thread(s) each, ours on {wp.get_device(a.device)}; "
        f"world physics steps/s, median of {a.repeats}"
    )
    print(
        f"{'robot':>9} {'N':>6} {'ours Newton':>12} {'ours PGS':>10} {'MuJoCo':>10} {'Newton/MJ':>10} "
        f"{'range':>10} {'PGS/MJ':>8} {'bytes/world':>12} finite"
    )
    for robot in a.robots:
        m = _mujoco_model(robot)
        settle = settle_time(robot, a.settle)
        d0 = _settled_state(m, settle)
        print(f"{robot:>9}: settled {settle:g} s; MuJoCo over the timed steps: {_window(m, d0, a.steps)}")
        for n in a.worlds:
            run_newton, mem, finite = _ours(m, d0, n, a.steps, "newton", a.device, a.threads)
            run_pgs, _, finite_pgs = _ours(m, d0, n, a.steps, "pgs", a.device, a.threads)
            run_ref, pool = _mujoco(m, d0, n, a.steps, a.threads)
            newton, pgs, ref = [], [], []
            for _ in range(a.repeats):  # the three in turn within each repeat, seconds apart
                newton.append(run_newton())
                pgs.append(run_pgs())
                ref.append(run_ref())
            pool.close()
            ratios_n = [x / y for x, y in zip(newton, ref)]
            ratio_n = statistics.median(ratios_n)
            range_n = f"{min(ratios_n):.2f}-{max(ratios_n):.2f}"
            ratio_p = statistics.median(x / y for x, y in zip(pgs, ref))
            print(
                f"{robot:>9} {n:>6} {statistics.median(newton):>12.0f} {statistics.median(pgs):>10.0f} "
                f"{statistics.median(ref):>10.0f} {ratio_n:>10.2f} {range_n:>10} {ratio_p:>8.2f} {mem:>12.0f} "
                f"{finite() and finite_pgs()}"
            )


if __name__ == "__main__":
    main()
