"""Bitwise guard for solver refactors: step fixed scenes and save, or compare, every output array.

Scenes (each from the MJCF MuJoCo compiles, several worlds with their own gravity, a ground plane): Ant,
Humanoid, Go1, G1, a mixed scene (worlds of different robots, one world with three articulations) and a
scene whose worlds share a global articulation. Each runs ``--steps`` steps under seeded random controls with
Newton and PGS, pyramidal and elliptic cones, 1 and 32 lanes per world (CPU blocks), plus Ant with tiles and
with two CPU threads. A refactor that claims "behaviour unchanged" saves at the commit before and compares
after:

    python scripts/bitwise_guard.py --save /tmp/before.npz      # at the commit before
    python scripts/bitwise_guard.py --compare /tmp/before.npz   # after: exit 1 on any difference
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import warp as wp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "solvers"))


def _mjcf(robot: str) -> str:
    import gymnasium

    if robot in ("go1", "g1"):
        from newton_gym.assets.robots import robot_source_path

        return robot_source_path(robot)
    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", f"{robot}.xml")


def _pendulum(links: int) -> str:
    from solver_helpers import pendulum_xml

    return pendulum_xml(links)


def _scene(kind: str):
    """(model, actuators, base controls, dt) of a guard scene."""
    import mujoco
    from mujoco_builder import builder_from_mujoco

    import newton_gym as ng
    from newton_gym.solvers import Actuators

    def load(robot):
        m = mujoco.MjModel.from_xml_path(_mjcf(robot))
        b, act, _ = builder_from_mujoco(m)
        base = m.key_ctrl[0].copy() if m.nkey else np.zeros(m.nu)
        return b, act, base, float(m.opt.timestep)

    def pend(links):
        b, _, _ = builder_from_mujoco(mujoco.MjModel.from_xml_string(_pendulum(links)))
        return b, None, np.zeros(0), 0.01

    robots = {"ant": ["ant"] * 3, "humanoid": ["humanoid"] * 2, "go1": ["go1"] * 2, "g1": ["g1"] * 2}
    if kind in robots:
        worlds = [[load(r)] for r in robots[kind]]
    elif kind == "mixed":
        ant = load("ant")
        worlds = [[ant], [ant, pend(2), pend(3)], [pend(2)]]
    else:  # shared: a global double pendulum beside two Ant worlds
        ant = load("ant")
        worlds = [[ant], [ant]]
    dt = worlds[0][0][3]
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    if kind == "shared":
        scene.add_builder(pend(2)[0], xform=wp.transform((0.0, -3.0, 0.0), wp.quat_identity()), world=-1)
    dof0, placed, records = 0, 0, []
    if kind == "shared":
        dof0 = scene.joint_dof_count
    for w, members in enumerate(worlds):
        scene.begin_world(gravity=(0.0, 0.0, -9.81 + 0.2 * w))
        for b, act, base, _ in members:
            scene.add_builder(b, xform=wp.transform((0.0, 2.0 * placed, 0.0), wp.quat_identity()))
            placed += 1
            if act is not None and act.count:
                records.append((act, dof0, base))
            dof0 += b.joint_dof_count
        scene.end_world()
    model = scene.finalize("cpu")
    acts = Actuators(
        np.concatenate([a.dof + d0 for a, d0, _ in records]),
        np.concatenate([a.gear for a, _, _ in records]),
        np.concatenate([a.ctrl_range for a, _, _ in records]),
        np.concatenate([a.force_range for a, _, _ in records]),
        np.concatenate([a.gain for a, _, _ in records]),
        np.concatenate([a.bias for a, _, _ in records]),
    )
    base = np.concatenate([b for _, _, b in records])
    return model, acts, base, dt


def _run(kind: str, steps: int, **options) -> dict:
    from newton_gym.solvers import SolverGeneralized

    model, acts, base, dt = _scene(kind)
    solver = SolverGeneralized(model, substeps=2, actuators=acts, **options)
    state = model.state()
    rng = np.random.default_rng(7)
    for _ in range(steps):
        solver.ctrl.assign((base + rng.uniform(-0.3, 0.3, acts.count)).astype(np.float32))
        solver.step(state, state, None, dt)
    out = {
        "joint_q": state.joint_q,
        "joint_qd": state.joint_qd,
        "body_q": state.body_q,
        "body_qd": state.body_qd,
        "body_contact_wrench": solver.body_contact_wrench,
        "world_contact_count": solver.world_contact_count,
        "world_unhealthy": solver.world_unhealthy,
    }
    return {k: v.numpy().copy() for k, v in out.items()}


def _cases():
    for kind in ("ant", "humanoid", "go1", "g1", "mixed", "shared"):
        for solver in ("newton", "pgs"):
            for cone in ("pyramidal", "elliptic"):
                for lanes in (1, 32):
                    yield f"{kind}/{solver}/{cone}/{lanes}", kind, dict(solver=solver, cone=cone, block_dim=lanes)
    for lanes in (1, 32):
        yield f"ant/newton/tiles/{lanes}", "ant", dict(tiles=True, block_dim=lanes)
    yield "ant/newton/threads2", "ant", dict(threads=2)
    yield "go1/pgs/threads2", "go1", dict(threads=2, solver="pgs")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", help="write every case's outputs to this .npz")
    group.add_argument("--compare", help="compare every case's outputs with this .npz")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--only", default="", help="run only cases whose name contains this")
    args = parser.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    wp.config.quiet = True
    wp.config.enable_cpu_blocks = True
    wp.init()
    ref = dict(np.load(args.compare)) if args.compare else None
    saved, failed = {}, 0
    for name, kind, options in _cases():
        if args.only not in name:
            continue
        out = _run(kind, args.steps, **options)
        for key, value in out.items():
            saved[f"{name}:{key}"] = value
        if ref is None:
            print(f"{name}: saved, contacts {int(out['world_contact_count'].sum())}", flush=True)
            continue
        diffs = [k for k, v in out.items() if not np.array_equal(ref[f"{name}:{k}"], v, equal_nan=True)]
        failed += bool(diffs)
        print(f"{name}: {'DIFFERS in ' + ', '.join(diffs) if diffs else 'bitwise equal'}", flush=True)
    if args.save:
        np.savez(args.save, **saved)
    print(f"{len(saved) // 7} cases, {failed} differ" if ref is not None else f"{len(saved) // 7} cases saved")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
