"""Stage by stage: SolverGeneralized against MuJoCo C's own stage timers, on the same model, state and
controls, one thread each, in one run.

The model, settled state and controls are bench_solver's: the MJCF compiled by MuJoCo (implicitfast, Newton,
its own dt), ``--settle`` seconds under weak random control (bench_solver's per-robot SETTLE unless given),
then each of the ``--worlds`` worlds under its own random controls (home controls + a draw in [-0.1, 0.1]);
each repeat starts again from the settled state, on both sides. MuJoCo steps one MjData per world, ``--steps``
times each with ``mj_step``; its figures are ``mjData.timer`` durations over the calls (MuJoCo 4 keeps
them by itself; older MuJoCo only with an ``mjcb_time`` callback, which this script installs and removes),
in microseconds per step. Ours steps every world on the CPU with ``threads=1``, in the solver's world chunks
(``Option.world_chunk``: the worlds whose arrays fit in the cache, taken through every step before the next
chunk's); each launch of :func:`newton_gym.solvers.forward.substep` over a chunk is captured as a graph of its
own and the four are replayed in order, ``--steps`` times, each replay timed (so the solve sees a real step's
warm start and the finish pass integrates once per step), in microseconds per world-step. The finer rows
launch one kernel alone ``--steps`` times on the same state (between two synchronizations), chunk by chunk.
Every figure is the median of ``--repeats``; ratios are ours / MuJoCo, taken within the same repeat, then the
median.

=============================  ==========================================  ===================================
row                            ours: what is timed                         MuJoCo: timers (mjTIMER_*)
=============================  ==========================================  ===================================
smooth pass                    ``forward.launch_smooth``                   POS_KINEMATICS + POS_INERTIA +
                                                                           VELOCITY + ACTUATION
  kinematics                   ``eval_fk`` + ``compute_subspaces``         POS_KINEMATICS
  inertia + factor             ``compute_mass_matrix`` +                   POS_INERTIA
                               ``factor_and_solve``
  RNE + passive                ``compute_bias`` + ``compute_passive``      VELOCITY
  actuation                    ``apply_actuators``                         ACTUATION
  kernels alone, summed        the seven kernels above                     as the smooth pass
collision                      ``collision.driver.collide``                POS_COLLISION
constraint + solve             ``WorldSolver.solve``                       POS_MAKE + POS_PROJECT + CONSTRAINT
  rows, 0 iterations           ``WorldSolver.solve`` with iterations=0     POS_MAKE + POS_PROJECT
  Newton iterations            constraint + solve - rows, 0 iterations     CONSTRAINT
integrate                      ``forward.launch_finish`` (last substep)    ADVANCE
  integrate alone              ``forward.launch_finish`` (not the last     ADVANCE
                               substep: no outputs)
  outputs                      integrate - integrate alone                 -
sum of the stages              the four (five) launches                    the nine stage timers
step                           ``solver.capture`` / ``replay`` of          STEP
                               ``--steps`` steps (bench_solver's figure
                               is 1e6 / this, in world steps/s)
=============================  ==========================================  ===================================

Where the two divide the work differently:

- Kinematics: MuJoCo's POS_KINEMATICS also holds ``mj_comPos`` (com-based inertias and motion DOFs) and
  the actuator transmission; ours ``compute_subspaces`` computes the motion DOFs, their time derivatives
  (MuJoCo: ``mj_comVel``, under VELOCITY) and the body twists about the reference point.
- Inertia: ``factor_and_solve`` also solves qacc_smooth (MuJoCo's ``mj_fwdAcceleration``, untimed) and,
  where a DOF has damping or actuator velocity feedback, factors M + dt D as well (MuJoCo: in ADVANCE).
  Where the solver factors several articulations of one shape at a time (``solver.wide_factor``, CPU: the
  smooth pass is then two launches), the factor row times that launch (``WideFactor.launch``) instead.
- The kernels alone run one thread per articulation (per DOF for the passive forces, per actuator for
  actuation) over every world; the smooth pass calls the same ``@wp.func`` per world block, so the two rows
  show what fusing them into one launch costs or saves.
- Collision: ours runs the narrow phase of every candidate pair found when the solver was built (a bounding
  test per pair, no broad phase); MuJoCo's POS_COLLISION holds its broad phase (COL_BROAD) and the narrow
  phase of the pairs it keeps (COL_NARROW).
- Constraint: with 0 iterations the world solve lists its active rows (every contact slot is tested) and
  fills them (Jacobian, Y = L^-T J^T, soft-constraint terms), evaluates the warm start and, for its
  zero-iteration exit test, the first gradient, Hessian and Newton direction (MuJoCo: under CONSTRAINT), and
  writes the forces and qacc_constraint; MuJoCo's POS_MAKE + POS_PROJECT hold ``mj_makeConstraint``, ``mj_island`` and
  ``mj_projectConstraint``, its warm start is under CONSTRAINT, and its constraint references
  (``mj_referenceConstraint``) under VELOCITY.
- Integrate: the finish pass of a step's last substep also writes the outputs: the contact forces (over
  every contact slot), forward kinematics into the State (MuJoCo: the next step's POS_KINEMATICS) and the
  health flags. "integrate alone" is the pass without them (as every substep but a frame's last runs it),
  which is what MuJoCo's ADVANCE holds.
- MuJoCo's STEP also holds what no stage timer covers (state checks, sensors, qacc_smooth): the step
  row minus the sum of the stages.
- Step: the captured ``--steps`` steps write their outputs at the last one only (``SolverGeneralized.capture``,
  as an env's frame skip), so the step row holds the outputs row once per ``--steps`` steps, while the sum
  of the stages holds it at every step. Work that only a step with outputs does (or saves) shows in the
  outputs row, not in the step row.

The header line of each robot gives the bytes of our solver's Warp arrays and State per world (as
bench_solver), and per world-step the active constraint rows and Newton iterations of each side (MuJoCo's
summed over its islands). CPU only: both sides are timed per thread.

    python benchmarks/bench_stages.py [--robots ant humanoid go1 g1] [--worlds 64] [--steps 100] [--repeats 3]
                                      [--no-wide-factor]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from contextlib import contextmanager
from types import SimpleNamespace

import numpy as np
import warp as wp
from bench_solver import _base_ctrl, _mujoco_model, _settled_state, settle_time  # also puts tests/solvers on sys.path

# Our timings: the four launches of one substep, and the kernels timed alone (in the order they run).
_STEP = ("smooth", "collide", "solve", "finish")
_SMOOTH = ("fk", "subspaces", "mass_matrix", "bias", "factor", "passive", "actuators")
_MJ_STAGES = ("POS_KINEMATICS", "POS_INERTIA", "VELOCITY", "ACTUATION", "POS_COLLISION", "POS_MAKE")
_MJ_STAGES += ("POS_PROJECT", "CONSTRAINT", "ADVANCE")
_MJ_SMOOTH = ("POS_KINEMATICS", "POS_INERTIA", "VELOCITY", "ACTUATION")

# (label, our timings summed, MuJoCo timers summed); no timers: MuJoCo has no figure for the row.
_ROWS = (
    ("smooth pass", ("smooth",), _MJ_SMOOTH),
    ("  kinematics", ("fk", "subspaces"), ("POS_KINEMATICS",)),
    ("    forward kinematics", ("fk",), ()),
    ("    motion subspaces", ("subspaces",), ()),
    ("  inertia + factor", ("mass_matrix", "factor"), ("POS_INERTIA",)),
    ("    CRB mass matrix", ("mass_matrix",), ()),
    ("    factor, qacc_smooth", ("factor",), ()),
    ("  RNE + passive", ("bias", "passive"), ("VELOCITY",)),
    ("    RNE bias forces", ("bias",), ()),
    ("    passive forces", ("passive",), ()),
    ("  actuation", ("actuators",), ("ACTUATION",)),
    ("  kernels alone, summed", _SMOOTH, _MJ_SMOOTH),
    ("collision", ("collide",), ("POS_COLLISION",)),
    ("constraint + solve", ("solve",), ("POS_MAKE", "POS_PROJECT", "CONSTRAINT")),
    ("  rows, 0 iterations", ("rows",), ("POS_MAKE", "POS_PROJECT")),
    ("  Newton iterations", ("newton",), ("CONSTRAINT",)),
    ("integrate", ("finish",), ("ADVANCE",)),
    ("  integrate alone", ("advance",), ("ADVANCE",)),
    ("  outputs", ("outputs",), ()),
    ("sum of the stages", _STEP, _MJ_STAGES),
    ("step", ("step",), ("STEP",)),
)


@contextmanager
def _mujoco_clock(m):
    """MuJoCo's stage timers running; yields the clock's name. MuJoCo 4 times its stages by itself; older
    versions only with an ``mjcb_time`` callback: libgomp's ``omp_get_wtime`` where it loads (native, so
    no Python call per timer), else ``time.perf_counter`` (whose Python call the timers then include).
    The callback in place before is restored."""
    import ctypes
    import ctypes.util

    import mujoco

    before = mujoco.get_mjcb_time()
    mujoco.set_mjcb_time(None)
    probe = mujoco.MjData(m)
    mujoco.mj_step(m, probe)
    name, clock = "MuJoCo's own", None
    if probe.timer[mujoco.mjtTimer.mjTIMER_STEP].duration <= 0.0:
        lib = ctypes.util.find_library("gomp")
        if lib is not None:
            clock = ctypes.CDLL(lib).omp_get_wtime
            clock.restype = ctypes.c_double
            name = "omp_get_wtime (mjcb_time)"
        else:
            clock, name = time.perf_counter, "time.perf_counter (mjcb_time, its Python call included)"
    mujoco.set_mjcb_time(clock)
    try:
        yield name
    finally:
        mujoco.set_mjcb_time(before)


def _time_mujoco(m, datas, steps: int):
    """MuJoCo's stage timers over ``steps`` steps of each MjData in ``datas``, one after another on this
    thread: ({timer: us per step}, (active rows, solver iterations) per step)."""
    import mujoco

    ids = {name: int(getattr(mujoco.mjtTimer, f"mjTIMER_{name}")) for name in _MJ_STAGES + ("STEP",)}
    total = dict.fromkeys(ids, 0.0)
    rows = iterations = 0
    for d in datas:
        start = {name: d.timer[i].duration for name, i in ids.items()}
        for _ in range(steps):
            mujoco.mj_step(m, d)
            rows += d.nefc
            iterations += int(d.solver_niter[: max(d.nisland, 1)].sum())
        for name, i in ids.items():
            total[name] += d.timer[i].duration - start[name]
    count = len(datas) * steps
    return {name: 1e6 * t / count for name, t in total.items()}, (rows / count, iterations / count)


def _solver(m, d0, n: int):
    """SolverGeneralized (Newton, MuJoCo's iteration cap, one thread) on ``n`` copies of ``m`` at the state of
    ``d0``, each world's controls its home controls + a draw in [-0.1, 0.1]: (solver, state, (n, nu) controls)."""
    from mujoco_builder import builder_from_mujoco, mujoco_qpos_to_joint_q

    import newton_gym as ng
    from newton_gym.sim.hostmath import quat_to_matrix
    from newton_gym.solvers import Actuators, SolverGeneralized

    world, act, _ = builder_from_mujoco(m)
    scene = ng.ModelBuilder(gravity=float(m.opt.gravity[2]))
    scene.replicate(world, world_count=n)
    model = scene.finalize("cpu")
    actuators = Actuators(*actuator_tables(act, n, world.joint_dof_count))
    solver = SolverGeneralized(model, iterations=100, actuators=actuators, solver="newton", threads=1)
    state = model.state()
    q = mujoco_qpos_to_joint_q(m, d0.qpos)
    qd = d0.qvel.copy()
    qd[3:6] = quat_to_matrix(q[3:7].astype(np.float64)) @ qd[3:6]  # free joint's angular velocity: body to world
    state.joint_q.assign(np.tile(q, n).astype(np.float32))
    state.joint_qd.assign(np.tile(qd, n).astype(np.float32))
    ctrl = _base_ctrl(m) + np.random.default_rng(0).uniform(-0.1, 0.1, (n, m.nu))
    solver.ctrl.assign(ctrl.reshape(-1).astype(np.float32))
    return solver, state, ctrl


def stepped_env(task: str, worlds: int):
    """``gym.make_vec("Newton/<task>-v0")`` with ``worlds`` worlds on one solver thread, after 60 env steps of
    uniform random actions in its action space (seeded): a task's own scene in a state its steps reach, for
    the tools that time or profile the solver there (profile_cpu.py --env, ab_solver.py --envs)."""
    import gymnasium as gym
    import torch

    import newton_gym  # noqa: F401  (registers the tasks)

    env = gym.make_vec(f"Newton/{task}-v0", num_envs=worlds, sim={"threads": 1})
    env.reset(seed=0)
    space = env.single_action_space
    rng = np.random.default_rng(0)
    for _ in range(60):
        env.step(torch.as_tensor(rng.uniform(space.low, space.high, (worlds,) + space.shape).astype(np.float32)))
    return env


def actuator_tables(act, n: int, dofs: int) -> tuple:
    """The arrays of an ``Actuators`` (DOF, gear, ctrl range, force range, gain, bias) of mujoco_builder's one-
    world actuators ``act`` in each of ``n`` worlds of ``dofs`` DOFs."""
    offsets = np.repeat(np.arange(n) * dofs, len(act.dof))
    return (
        np.tile(act.dof, n) + offsets,
        np.tile(act.gear, n),
        np.tile(act.ctrl_range, (n, 1)),
        np.tile(act.force_range, (n, 1)),
        np.tile(act.gain, n),
        np.tile(act.bias, (n, 1)),
    )


def _graph(launch) -> wp.Graph:
    """``launch()`` captured as a graph of its own."""
    with wp.ScopedCapture(device="cpu", force_module_load=True) as capture:
        launch()
    return capture.graph


def _stage_graphs(solver, state, dt: float) -> list:
    """Per world chunk of the solver (``solver.chunks``: the worlds its step takes through every stage before
    the next chunk's), a graph of each of :data:`_STEP` (the launches of ``forward.substep``, one substep a
    step), of each of :data:`_SMOOTH` (the smooth pass's per-stage kernels), of the world solve with 0
    iterations (``rows``) and of the finish pass without outputs (``advance``), bound to ``state`` and the
    solver's controls: [(chunk span, {name: graph})]."""
    return [(span, _chunk_graphs(solver, state, dt, span)) for span in solver.chunks[0]]


def _chunk_graphs(solver, state, dt: float, span) -> dict:
    """:func:`_stage_graphs` of the worlds of ``span``."""
    from newton_gym.sim.kinematics import eval_fk
    from newton_gym.solvers import forward
    from newton_gym.solvers.collision.driver import collide
    from newton_gym.solvers.smooth import dynamics, passive

    model, tree, data = solver.model, solver.tree, solver.data
    control = model.control()
    a = forward.bind(solver, state, state.body_f, control, solver.ctrl, dt)
    dev, lanes, ranges, ws = solver.device, solver.block_dim, solver.block_ranges, solver.world_solver
    q, qd, arts = state.joint_q, state.joint_qd, span.articulations
    scratch = SimpleNamespace(body_q=data.body_q, body_qd=data.body_qd)  # the smooth pass's bodies
    midpoint = solver.integrator == "midpoint"
    smooth_args = (a.fk, a.sub, a.ten, a.crb, a.rne, a.pas, a.act, a.fac)
    launches = {
        "smooth": lambda: forward.launch_smooth(
            dev, span.blocks, lanes, ranges, *smooth_args, None, solver.wide_factor, span
        ),
        "collide": lambda: collide(model, solver.contacts, data.body_q, span.worlds, lanes),
        "solve": lambda: ws.solve(data, q, qd, dt, solver.iterations, span.worlds, lanes),
        "finish": lambda: forward.launch_finish(
            dev, span.blocks, lanes, ranges, True, a.out, a.integ, a.fk_state, a.health
        ),
        "fk": lambda: eval_fk(model, q, qd, scratch, articulations=arts),
        "subspaces": lambda: dynamics.compute_subspaces(model, tree, data, data.body_q, data.body_qd, q, qd, arts),
        "mass_matrix": lambda: dynamics.compute_mass_matrix(model, tree, solver.tendon_tables, data, arts),
        "bias": lambda: dynamics.compute_bias(model, tree, data, data.body_q, state.body_f, qd, dt, arts, midpoint),
        "factor": (
            (lambda: solver.wide_factor.launch(span, a.fac))
            if solver.wide_factor is not None
            else (lambda: dynamics.factor_and_solve(model, tree, solver.tendon_tables, data, arts))
        ),
        "passive": lambda: passive.compute_passive(
            model, tree, solver.tendon_tables, data, q, qd, control, dt, span.dofs
        ),
        "actuators": lambda: passive.apply_actuators(
            model,
            tree,
            solver.tendon_tables,
            solver.actuator_table,
            solver.ctrl,
            solver.act,
            q,
            qd,
            dt,
            data,
            span.actuators,
        ),
        "rows": lambda: ws.solve(data, q, qd, dt, 0, span.worlds, lanes),
        "advance": lambda: forward.launch_finish(
            dev, span.blocks, lanes, ranges, False, a.out, a.integ, a.fk_state, a.health
        ),
    }
    return {name: _graph(launch) for name, launch in launches.items()}


def _replay(graphs: list, name: str):
    """The graph ``name`` of every chunk, chunk after chunk."""
    for _, chunk in graphs:
        wp.capture_launch(chunk[name])


def _time_step(graphs: list, solver, steps: int):
    """``steps`` steps as the four launch graphs replayed in order, each timed, chunk by chunk (every step of
    a chunk's worlds before the next chunk's, as the solver's own step): ({launch: us per world-step},
    (active rows, Newton iterations) per world-step)."""
    n = solver.world_count
    total = dict.fromkeys(_STEP, 0.0)
    rows = iterations = 0
    nactive, niter = solver.world_solver.rd.nactive.numpy(), solver.newton_iterations.numpy()  # views (CPU)
    wp.synchronize()
    for span, chunk in graphs:
        w0, w1 = span.worlds[0], span.worlds[0] + span.worlds[1]
        for _ in range(steps):
            for name in _STEP:
                start = time.perf_counter()
                wp.capture_launch(chunk[name])
                total[name] += time.perf_counter() - start
            rows += int(nactive[w0:w1].sum())
            iterations += int(niter[w0:w1].sum())
    wp.synchronize()
    return {name: 1e6 * t / (steps * n) for name, t in total.items()}, (rows / (steps * n), iterations / (steps * n))


def _time_alone(graphs: list, names, loops: int, world_count: int) -> dict:
    """{name: us per world} of each graph in ``names`` replayed ``loops`` times in a row on each chunk."""
    out = {}
    for name in names:
        wp.synchronize()
        start = time.perf_counter()
        for _, chunk in graphs:
            for _ in range(loops):
                wp.capture_launch(chunk[name])
        wp.synchronize()
        out[name] = 1e6 * (time.perf_counter() - start) / (loops * world_count)
    return out


def _time_ours(graphs: dict, solver, steps: int, restart):
    """One repeat of our timings: the step's launches, the kernels alone, the solve with 0 iterations and the
    solver's own captured step (from the settled state again: ``restart()``): ({name: us per world-step},
    (rows, iterations) per world-step)."""
    n = solver.world_count
    out, stats = _time_step(graphs, solver, steps)
    # The kernels alone see the state the last step left (the smooth pass and collision rerun on it first).
    # The actuator kernel adds into the forces the passive kernel sets: the smooth pass restores them.
    _replay(graphs, "smooth")
    _replay(graphs, "collide")
    out.update(_time_alone(graphs, _SMOOTH, steps, n))
    _replay(graphs, "smooth")
    out.update(_time_alone(graphs, ("rows",), steps, n))
    out["newton"] = out["solve"] - out["rows"]
    # Integration alone, on the step's last qacc (it moves the state: the timed step starts again below).
    out.update(_time_alone(graphs, ("advance",), steps, n))
    out["outputs"] = out["finish"] - out["advance"]
    restart()
    wp.synchronize()
    start = time.perf_counter()
    solver.replay()
    wp.synchronize()
    out["step"] = 1e6 * (time.perf_counter() - start) / (steps * n)
    return out, stats


def _bytes_per_world(solver, state) -> float:
    """Bytes of the distinct Warp arrays of the solver's scratch, rows, contacts, world-solve buffers and
    the State, over the world count (as bench_solver)."""
    objs = (solver.data, solver.rows, solver.contacts, solver.world_solver.rd, state)
    arrays = {v.ptr: v for obj in objs for v in vars(obj).values() if isinstance(v, wp.array) and v.ptr}
    return sum(a.capacity for a in arrays.values()) / solver.world_count


def _robot(robot: str, m, n: int, steps: int, repeats: int, settle: float):
    """Time ``robot`` (its MjModel ``m``) on both sides: (per-repeat MuJoCo timers, per-repeat ours, header
    line)."""
    d0 = _settled_state(m, settle)
    solver, state, ctrl = _solver(m, d0, n)
    dt = float(m.opt.timestep)
    q0, qd0 = state.joint_q.numpy().copy(), state.joint_qd.numpy().copy()  # numpy() of a CPU array is a view
    graphs = _stage_graphs(solver, state, dt)
    solver.capture(state, state, None, dt, steps=steps)
    mj, ours, mj_stats, our_stats = [], [], [], []

    def restart():
        state.joint_q.assign(q0)
        state.joint_qd.assign(qd0)

    for _ in range(repeats):  # each from the settled state
        datas = [copy.copy(d0) for _ in range(n)]
        for d, c in zip(datas, ctrl):
            d.ctrl[:] = c
        restart()
        for name in _STEP:  # one step untimed: the data the kernels alone read is a step's
            _replay(graphs, name)
        timers, stats = _time_mujoco(m, datas, steps)
        mj.append(timers)
        mj_stats.append(stats)
        figures, stats = _time_ours(graphs, solver, steps, restart)
        ours.append(figures)
        our_stats.append(stats)
    finite = bool(np.isfinite(state.joint_q.numpy()).all())
    rows, iterations = (statistics.median(s[i] for s in our_stats) for i in range(2))
    mj_rows, mj_iterations = (statistics.median(s[i] for s in mj_stats) for i in range(2))
    header = (
        f"{robot}: settled {settle:g} s, {n} worlds, {m.nv} DOFs, dt {dt:g} s, "
        f"ours {_bytes_per_world(solver, state):,.0f} bytes/world; "
        f"per world-step: rows ours {rows:.1f} / MuJoCo {mj_rows:.1f}, Newton iterations ours {iterations:.2f} / "
        f"MuJoCo {mj_iterations:.2f}; finite {finite and all(np.isfinite(d.qpos).all() for d in datas)}"
    )
    return mj, ours, header


def _print_table(mj: list, ours: list):
    """One line per row of :data:`_ROWS`: medians over the repeats and the median of the per-repeat ratios."""
    print(f"  {'stage':<28} {'MuJoCo us/step':>15} {'ours us/world-step':>19} {'ours/MuJoCo':>12}")
    for label, our_names, timers in _ROWS:
        our = [sum(r[k] for k in our_names) for r in ours]
        cells = [f"{'-':>15}", f"{statistics.median(our):>19.3f}", f"{'-':>12}"]
        if timers:
            ref = [sum(r[t] for t in timers) for r in mj]
            cells[0] = f"{statistics.median(ref):>15.3f}"
            if min(ref) > 0.0:
                cells[2] = f"{statistics.median(x / y for x, y in zip(our, ref)):>12.2f}"
        print(f"  {label:<28} " + " ".join(cells))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--robots", nargs="+", default=["ant"])
    p.add_argument("--worlds", type=int, default=64)
    p.add_argument("--steps", type=int, default=100, help="physics steps per timing (and loops of a kernel alone)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--settle", type=float, default=None, help="simulated seconds before timing (bench_solver.SETTLE)")
    p.add_argument(
        "--no-wide-factor",
        action="store_true",
        help="factor one articulation at a time (newton_gym.solvers.smooth.wide_factor off): the table before it",
    )
    a = p.parse_args()
    import mujoco

    from newton_gym.solvers.smooth import wide_factor

    wide_factor.ENABLED = not a.no_wide_factor

    wp.config.quiet = True
    wp.init()
    print(
        f"SolverGeneralized vs MuJoCo C {mujoco.__version__} by stage: implicitfast, Newton, MuJoCo's dt, one "
        f"thread each, ours on {wp.get_device('cpu')}; median of {a.repeats} repeats of {a.steps} steps"
    )
    for robot in a.robots:
        m = _mujoco_model(robot)
        with _mujoco_clock(m) as clock:
            mj, ours, header = _robot(robot, m, a.worlds, a.steps, a.repeats, settle_time(robot, a.settle))
        print(f"\n{header}\nMuJoCo timers: {clock} clock")
        _print_table(mj, ours)


if __name__ == "__main__":
    main()
