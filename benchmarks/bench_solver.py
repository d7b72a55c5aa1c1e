"""Ant physics throughput: SolverGeneralized vs MuJoCo C on the same ant.xml, same run.

Control dt 0.05 s. Ours: substeps of 0.002 s (25 per control step, what the Ant tests need), one
captured graph per control step, timed after ``--settle`` seconds so the ants stand on their feet (an
RL Ant spends its episodes in contact; timing the initial drop would mostly time free flight).
MuJoCo: its own RK4 at 0.01 s (5 steps per control step), through ``mujoco.rollout`` single-threaded
(from its initial state, so its figure includes the cheaper free fall) and a plain Python loop.
Figures are printed, not asserted.

    python benchmarks/bench_solver.py [--worlds 1 64 256 1024] [--control-steps 20] [--settle 1.0]
    python benchmarks/bench_solver.py --device cuda:0 --worlds 1024 4096 16384      (on a GPU)
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import warp as wp


def ours(n, control_steps, substeps, iterations, tolerance, settle, device, threads):
    import mujoco

    import newton_gym as ng
    from newton_gym.solvers import Actuators, SolverGeneralized
    from newton_gym.solvers.mjcf import builder_from_mujoco

    import gymnasium

    m = mujoco.MjModel.from_xml_path(os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets/ant.xml"))
    sub, act, _ = builder_from_mujoco(m)
    scene = ng.ModelBuilder()
    scene.replicate(sub, world_count=n)
    model = scene.finalize(device)
    dofs = np.concatenate([act.dof + w * sub.joint_dof_count for w in range(n)])
    acts = Actuators(dofs, np.tile(act.gear, n), np.tile(act.ctrl_range, (n, 1)), np.tile(act.force_range, (n, 1)))
    solver = SolverGeneralized(model, substeps=substeps, iterations=iterations, actuators=acts,
                               pgs_tolerance=tolerance, threads=threads)
    s0 = model.state()
    rng = np.random.default_rng(0)
    solver.ctrl.assign(rng.uniform(-0.1, 0.1, 8 * n).astype(np.float32))
    solver.capture(s0, s0, None, 0.05)  # one control step in place (loads the kernels first)
    for _ in range(int(round(settle / 0.05))):
        solver.replay()
    wp.synchronize()
    contacts = solver.world_contact_count.numpy()[:n].mean()
    t = time.perf_counter()
    for _ in range(control_steps):
        solver.replay()
    wp.synchronize()
    elapsed = time.perf_counter() - t
    arrays = [v for v in vars(solver.data).values() if isinstance(v, wp.array)]
    arrays += [v for v in vars(solver.rows).values() if isinstance(v, wp.array)]
    arrays += [v for v in vars(solver.contacts).values() if isinstance(v, wp.array)]
    scratch = sum(a.capacity for a in arrays)
    finite = bool(np.isfinite(s0.joint_q.numpy()).all())
    return n * control_steps / elapsed, scratch / n, finite, contacts


def mujoco_rates(n, control_steps):
    import mujoco
    from mujoco import rollout

    import gymnasium

    m = mujoco.MjModel.from_xml_path(os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets/ant.xml"))
    per = int(round(0.05 / m.opt.timestep))
    d = mujoco.MjData(m)
    state0 = np.zeros(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS))
    mujoco.mj_getState(m, d, state0, mujoco.mjtState.mjSTATE_FULLPHYSICS)
    nstep = control_steps * per
    states = np.tile(state0, (n, 1))
    ctrl = np.random.default_rng(0).uniform(-0.1, 0.1, (n, nstep, m.nu))
    t = time.perf_counter()
    rollout.rollout(m, d, states, ctrl)
    roll = n * control_steps / (time.perf_counter() - t)
    k = min(n, 8)
    datas = [mujoco.MjData(m) for _ in range(k)]
    t = time.perf_counter()
    for s in range(nstep):
        for i, dd in enumerate(datas):
            dd.ctrl[:] = ctrl[i, s]
            mujoco.mj_step(m, dd)
    loop = k * control_steps / (time.perf_counter() - t)
    return roll, loop


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worlds", type=int, nargs="+", default=[1, 64, 256, 1024])
    p.add_argument("--control-steps", type=int, default=10)
    p.add_argument("--substeps", type=int, default=25)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--tolerance", type=float, default=1.0e-6, help="SolverGeneralized pgs_tolerance")
    p.add_argument("--settle", type=float, default=1.0, help="simulated seconds before timing")
    p.add_argument("--device", default="cpu",
                   help="Warp device of our solver (cpu, cuda:0); MuJoCo stays on the CPU")
    p.add_argument("--threads", type=int, default=1,
                   help="CPU threads of our solver (1: the per-core figure the MuJoCo ratio compares)")
    a = p.parse_args()
    wp.config.quiet = True
    wp.init()
    print(f"Ant, control dt 0.05 s; ours: {a.substeps} substeps of {0.05 / a.substeps:.4f} s, PGS {a.iterations} "
          f"sweeps (tolerance {a.tolerance:g}) on {wp.get_device(a.device)}, {a.threads} thread(s), "
          f"timed after {a.settle} s; "
          f"MuJoCo: RK4 0.01 s, single thread")
    print(f"{'N':>6} {'ours env-steps/s':>17} {'MJ rollout':>11} {'MJ py loop':>11} {'ours/MJ':>8} "
          f"{'bytes/world':>12} {'contacts':>8} finite")
    for n in a.worlds:
        rate, mem, finite, contacts = ours(n, a.control_steps, a.substeps, a.iterations, a.tolerance, a.settle,
                                           a.device, a.threads)
        roll, loop = mujoco_rates(n, max(2, a.control_steps // 2))
        print(f"{n:>6} {rate:>17.1f} {roll:>11.1f} {loop:>11.1f} {rate / roll:>8.2f} {mem:>12.0f} "
              f"{contacts:>8.1f} {finite}")


if __name__ == "__main__":
    main()
