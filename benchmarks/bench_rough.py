"""Newton/Go1-Rough-v0 against Newton/Go1-Flat-v0 in one run, on the CPU: env-steps per second, bytes per world
and shared by all of them (the terrain), and the construction time of many worlds on the full 10 x 20 terrain.

Both envs are built once and timed in turn within each of ``--repeats`` repeats (zero actions plus uniform
noise in [-1, 1], the task's randomization and pushes as shipped); the medians of the rates and of the per-
repeat ratios rough / flat are printed. Bytes: every distinct Warp array of the model, state, control,
solver (its row buffers included: :func:`_memory.array_bytes`) and height scanner, built at N / 4 and N
worlds: the slope is the bytes per world, the intercept what every world shares (the terrain's points,
stored once). Construction: ``gym.make_vec`` of ``--build-worlds`` worlds, split into terrain generation,
scene build + finalize, solver and scanner, timed from the task's own steps.

Physics on the same states (needs ``mujoco``): after the rates, each env's physics alone (its step graph:
``frame_skip`` substeps, no env work) is timed over ``--physics-steps`` env steps from its worlds' states,
and MuJoCo C steps the same states (qpos, qvel, ctrl of every world, one ``MjData`` after another, the same
number of steps) on the same MJCF: the shipped Go1 for flat, the same file with the terrain's heightfield
(``newton_gym.train.velocity_eval``'s sim2sim model) for rough, at the env's dt, integrator, cone and
iterations. Its rough / flat time ratio is what the rough physics costs MuJoCo C itself. Then, by stage (per
substep per world): ours from bench_stages' per-launch graphs replayed on each env's solver and state (smooth
pass, collision, constraint + solve, integrate with the step's outputs: ``bench_stages._time_step``), MuJoCo's
from its own stage timers over the same runs (smooth: kinematics + inertia + velocity + actuation; collision;
constraint: make + project + solve; advance), so the table says which stage the rough ground makes dearer.
The physics runs ``--physics-repeats`` rounds, flat then rough in each; the tables print medians over the
rounds and the rough / flat speeds the median of the rounds' ratios.

    python benchmarks/bench_rough.py [--worlds 256] [--repeats 5] [--steps 50] [--physics-steps 20]
                                     [--physics-repeats 3] [--build-worlds 4096]

"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# As `import newton_gym` before torch would: torch's OpenMP workers sleep between operations instead of
# spinning on the cores the solver's threads step on (newton_gym.openmp_wait).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import bench_stages
import gymnasium as gym
import numpy as np
import torch
import warp as wp
from _memory import array_bytes

import newton_gym  # noqa: F401


def _env(task, n, threads):
    env = gym.make_vec(task, num_envs=n, device="cpu", sim={"threads": threads})
    env.reset(seed=0)
    gen = torch.Generator().manual_seed(0)

    def step():
        env.step(2.0 * torch.rand((n, 12), generator=gen) - 1.0)

    return env, step


def _rate(step, n, steps):
    step()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    return n * steps / (time.perf_counter() - t0)


def _bytes(env) -> int:
    """Bytes of the env's Warp arrays: model, state, control, solver (its row buffers included) and scanner."""
    roots = [env.sim.model, env.sim.state, env.sim.control, env.sim.solver]
    if hasattr(env.task, "scanner"):
        roots.append(env.task.scanner)
    return array_bytes(roots)


def _memory(task, n):
    """(bytes per world, bytes shared by every world): the slope and intercept of the Warp bytes of ``task``
    built with n / 4 and n worlds (the terrain is stored once: it lands in the shared part)."""
    sizes = (max(n // 4, 1), n)
    totals = []
    for k in sizes:
        env = gym.make_vec(task, num_envs=k, device="cpu")
        totals.append(_bytes(env))
        env.close()
    per_world = (totals[1] - totals[0]) / (sizes[1] - sizes[0])
    return per_world, totals[1] - per_world * sizes[1]


def _env_mujoco_model(env):
    """MjModel of the env's robot and ground (the terrain's heightfield for a rough env) at the env's physics
    settings."""
    import mujoco

    from newton_gym.assets.robots import robot_source_path
    from newton_gym.train.velocity_eval import _with_terrain

    terrain = getattr(env.task, "terrain", None)
    path = robot_source_path("go1")
    m = mujoco.MjModel.from_xml_path(path) if terrain is None else _with_terrain(path, terrain)
    option = env.sim.solver.option
    m.opt.timestep = env.sim.cfg.sim_dt
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    m.opt.cone = mujoco.mjtCone.mjCONE_PYRAMIDAL if option.cone == "pyramidal" else mujoco.mjtCone.mjCONE_ELLIPTIC
    m.opt.iterations = int(option.iterations)
    m.opt.ls_iterations = int(option.ls_iterations)
    assert option.integrator == "implicitfast" and option.solver == "newton", option
    return m


def _physics(env, steps):
    """(ours, MuJoCo C) physics of ``steps`` env steps from the env's current world states: each a dict of us
    per substep per world and contact-and-limit rows per substep per world."""
    import mujoco

    sim = env.sim
    substeps = sim.cfg.frame_skip * steps
    qpos = env.task.layout.qpos().numpy().astype(np.float64)
    qvel = env.task.layout.qvel().numpy().astype(np.float64)
    ctrl = sim.ctrl.numpy().astype(np.float64)
    m = _env_mujoco_model(env)
    d = mujoco.MjData(m)
    seconds, rows = 0.0, 0
    timers = dict.fromkeys(_MJ_TIMERS, 0.0)
    with bench_stages._mujoco_clock(m):
        for i in range(len(qpos)):
            d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
            d.qacc_warmstart[:] = 0.0
            mujoco.mj_forward(m, d)
            for t in d.timer:
                t.duration, t.number = 0.0, 0
            start = time.perf_counter()
            for _ in range(substeps):
                mujoco.mj_step(m, d)
            seconds += time.perf_counter() - start
            rows += d.nefc
            for name in timers:
                timers[name] += d.timer[getattr(mujoco.mjtTimer, f"mjTIMER_{name}")].duration
    theirs = {"us": 1e6 * seconds / (len(qpos) * substeps), "rows": rows / len(qpos)}
    scale = 1e6 / (len(qpos) * substeps)
    theirs["stages"] = {stage: scale * sum(timers[t] for t in names) for stage, (_, names) in _STAGES.items()}
    solver = sim.solver
    sim.step()
    wp.synchronize()
    seconds, rows = 0.0, 0
    for _ in range(steps):
        start = time.perf_counter()
        sim.step()
        wp.synchronize()
        seconds += time.perf_counter() - start
        rows += int(solver.world_solver.rd.nactive.numpy().sum())
    ours = {"us": 1e6 * seconds / (len(qpos) * substeps), "rows": rows / (steps * len(qpos))}
    graphs = bench_stages._stage_graphs(solver, sim.state, sim.cfg.sim_dt)
    launches, _stats = bench_stages._time_step(graphs, solver, substeps)
    ours["stages"] = {stage: sum(launches[k] for k in keys) for stage, (keys, _) in _STAGES.items()}
    return ours, theirs


def _median_round(rounds, name):
    """(ours, MuJoCo C) of env ``name``: each figure of :func:`_physics` as its median over ``rounds``."""

    def median(sides):
        out = {key: statistics.median(side[key] for side in sides) for key in ("us", "rows")}
        out["stages"] = {k: statistics.median(side["stages"][k] for side in sides) for k in sides[0]["stages"]}
        return out

    return tuple(median([r[name][i] for r in rounds]) for i in (0, 1))


# stage: (our launches in bench_stages' graphs, MuJoCo's timers)
_STAGES = {
    "smooth pass": (("smooth",), ("POS_KINEMATICS", "POS_INERTIA", "VELOCITY", "ACTUATION")),
    "collision": (("collide",), ("POS_COLLISION",)),
    "constraint + solve": (("solve",), ("POS_MAKE", "POS_PROJECT", "CONSTRAINT")),
    "integrate (+ outputs: ours)": (("finish",), ("ADVANCE",)),
}
_MJ_TIMERS = tuple(sorted({t for _, names in _STAGES.values() for t in names}))


def _construction(n):
    """Seconds of each stage of building ``n`` worlds of Go1-Rough on the default 10 x 20 terrain."""
    from newton_gym.envs.go1_rough import Go1RoughCfg, Go1RoughTask
    from newton_gym.envs.simulation import Simulation
    from newton_gym.sensors import HeightScanner

    cfg = Go1RoughCfg()
    t0 = time.perf_counter()
    task = Go1RoughTask(cfg)
    t1 = time.perf_counter()
    robot = task.build_robot()
    t2 = time.perf_counter()
    sim = Simulation(robot, task.actuators, n, cfg.sim, "cpu", None, task.add_static_scene)
    t3 = time.perf_counter()
    base = sim.model.body_world_start.numpy()[:n]
    HeightScanner(sim.model, base)
    t4 = time.perf_counter()
    return {"terrain": t1 - t0, "robot import": t2 - t1, "scene + solver": t3 - t2, "scanner": t4 - t3}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=256)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--physics-steps", type=int, default=20)
    parser.add_argument("--physics-repeats", type=int, default=3)
    parser.add_argument("--build-worlds", type=int, default=4096)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"load average {os.getloadavg()[0]:.2f}, {args.worlds} worlds, {args.threads} solver thread(s), CPU")
    envs = {name: _env(f"Newton/Go1-{name}-v0", args.worlds, args.threads) for name in ("Flat", "Rough")}
    rates = {name: [] for name in envs}
    for _ in range(args.repeats):
        for name, (_, step) in envs.items():
            rates[name].append(_rate(step, args.worlds, args.steps))
    ratios = [r / f for r, f in zip(rates["Rough"], rates["Flat"])]
    print("| env | env-steps/s (median) | bytes per world | shared bytes |")
    print("|---|---|---|---|")
    for name in envs:
        per_world, shared = _memory(f"Newton/Go1-{name}-v0", args.worlds)
        print(f"| Go1-{name} | {statistics.median(rates[name]):,.0f} | {per_world:,.0f} | {shared / 1e6:,.1f} MB |")
    print(f"rough / flat: {statistics.median(ratios):.2f} (median of {args.repeats} paired repeats)")
    try:
        import mujoco  # noqa: F401
    except ImportError:
        print("physics on the same states: skipped (mujoco is not installed)")
    else:
        # flat and rough in turn within each round, as the env rates: a slow phase of the machine hits both
        rounds = [
            {name: _physics(env, args.physics_steps) for name, (env, _) in envs.items()}
            for _ in range(args.physics_repeats)
        ]
        physics = {name: _median_round(rounds, name) for name in envs}
        print(
            f"physics alone on the envs' states ({args.physics_steps} env steps; medians of "
            f"{args.physics_repeats} rounds, flat and rough in turn), per substep per world:"
        )
        print("| ground | ours us | MuJoCo C us | ours / MuJoCo | rows ours | rows MuJoCo (last substep) |")
        print("|---|---|---|---|---|---|")
        for name, (ours, theirs) in physics.items():
            print(
                f"| {name} | {ours['us']:.2f} | {theirs['us']:.2f} | {ours['us'] / theirs['us']:.2f} "
                f"| {ours['rows']:.1f} | {theirs['rows']:.1f} |"
            )
        speed = [[r["Flat"][side]["us"] / r["Rough"][side]["us"] for r in rounds] for side in (0, 1)]
        print(
            f"physics speed rough / flat (median of the rounds' ratios): ours {statistics.median(speed[0]):.2f}, "
            f"MuJoCo C {statistics.median(speed[1]):.2f}"
        )
        print("by stage, us per substep per world (ours: each launch replayed alone, bench_stages' graphs):")
        print("| stage | flat ours | flat MuJoCo C | rough ours | rough MuJoCo C | rough ours / MuJoCo |")
        print("|---|---|---|---|---|---|")
        for stage in _STAGES:
            (fo, fm), (ro, rm) = ((side["stages"][stage] for side in physics[g]) for g in ("Flat", "Rough"))
            print(f"| {stage} | {fo:.2f} | {fm:.2f} | {ro:.2f} | {rm:.2f} | {ro / rm:.2f} |")
    field = envs["Rough"][0].sim.model.heightfields[0]
    points = field.nrow * field.ncol
    print(
        f"terrain: {field.nrow} x {field.ncol} points, stored once for every world: {points * 12 / 1e6:.1f} MB of "
        f"float32 points (the collider's), {points * 4 / 1e6:.1f} MB of heights (the height scan's)"
    )
    for env, _ in envs.values():
        env.close()
    if args.build_worlds < 1:
        print("construction: skipped (--build-worlds 0)")
        return
    stages = _construction(args.build_worlds)
    total = sum(stages.values())
    parts = ", ".join(f"{k} {v:.2f} s" for k, v in stages.items())
    print(f"construction of {args.build_worlds} worlds on the 10 x 20 terrain: {total:.2f} s ({parts})")


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
