"""The Go1 on a flat heightfield against the plane, in newton_gym and in MuJoCo C: the figures the README's
rough-terrain section quotes.

1. Random actions: ``--episodes`` runs of ``--steps`` control steps (4 solver steps each) from the home pose,
   standard-normal actions (targets home + scale x action), no resets, randomization and pushes off; the same
   actions in both simulators, on the shipped MJCF's plane and on an all-flat terrain added as an ``<hfield>``.
   Printed per ground: mean base height above the ground [m], share of feet touching it, and the mean control
   step of the first tilt past 60 degrees (the tasks' termination; the run's length where it never tilts).
2. The shipped flat policy (blind) on the lowest random-rough patches of Isaac Lab's general mix and of its
   Go1 mix (the task's default terrain): mean tracking error [m/s] over four commands.

    python scripts/field_vs_plane.py [--episodes 40] [--steps 300]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FLAT = {"num_rows": 10, "num_cols": 20, "sub_terrains": {"flat": {"kind": "flat", "proportion": 1.0}}}
FEET = ("FR", "FL", "RR", "RL")
_NO_RANDOMIZATION = {"friction": None, "mass_scale": None, "actuator_kp_scale": None, "actuator_kd_scale": None}


def _summary(height, feet, up_z):
    """(mean height, mean feet share, mean first-tilt step) of (E, T) arrays; up_z: the base's up axis z."""
    tilted = up_z < np.cos(np.radians(60.0))
    first = np.where(tilted.any(axis=1), tilted.argmax(axis=1), tilted.shape[1])
    return float(height.mean()), float(feet.mean()), float(first.mean())


def mujoco_run(actions, terrain):
    import mujoco

    from newton_gym.assets.robots import robot_source_path
    from newton_gym.train.velocity_eval import _rough_start, _with_terrain

    path = robot_source_path("go1")
    m = mujoco.MjModel.from_xml_path(path) if terrain is None else _with_terrain(path, terrain)
    key = m.key("home").id
    home = m.key_qpos[key][7:].copy()
    scale = 0.25 * m.actuator_forcerange[:, 1] / m.actuator_gainprm[:, 0]
    feet = [m.geom(f"{f}_foot_collision").id for f in FEET]
    trunk = m.body("trunk").id
    episodes, steps = actions.shape[:2]
    height, touch, up = (np.zeros((episodes, steps)) for _ in range(3))
    for e in range(episodes):
        d = mujoco.MjData(m)
        mujoco.mj_resetDataKeyframe(m, d, key)
        ground = 0.0
        if terrain is not None:
            d.qpos[:3] = _rough_start(terrain, (0, 0))
            ground = d.qpos[2] - m.key_qpos[key][2]
            mujoco.mj_forward(m, d)
        for t in range(steps):
            d.ctrl[:] = home + scale * actions[e, t]
            for _ in range(4):
                mujoco.mj_step(m, d)
            geoms = {g for c in d.contact[: d.ncon] for g in (c.geom1, c.geom2)}
            height[e, t] = d.qpos[2] - ground
            touch[e, t] = np.mean([f in geoms for f in feet])
            up[e, t] = d.xmat[trunk][8]
    return _summary(height, touch, up)


def newton_run(actions, field: bool):
    import gymnasium as gym

    from newton_gym.train.velocity_eval import _rough_start

    n, steps = actions.shape[:2]
    task, extra = "Newton/Go1-Flat-v0", {}
    if field:
        task, extra = "Newton/Go1-Rough-v0", {"terrain": FLAT, "curriculum": False}
    env = gym.make_vec(
        task, num_envs=n, device="cpu", noise=False, push_interval=(1e9, 1e9), randomization=_NO_RANDOMIZATION, **extra
    )
    t = env.task
    env.reset(seed=0)
    t._terminated = lambda sim: torch.zeros(n, dtype=torch.bool)  # no resets: as the MuJoCo runs
    home = t.init_qpos.expand(n, -1).clone()
    ground = torch.zeros(n)
    if field:
        home[:, :3] = torch.as_tensor(_rough_start(t.terrain, (0, 0)), dtype=home.dtype)
        ground = home[:, 2] - t.init_qpos[2]
    t.layout.set_state(home, torch.zeros(n, t.layout.nv), torch.ones(n, dtype=bool))
    t.observe(env.sim)
    height, touch, up = (np.zeros((n, steps)) for _ in range(3))
    for i in range(steps):
        env.step(torch.as_tensor(actions[:, i], dtype=torch.float32))
        height[:, i] = (t.layout.qpos()[:, 2] - ground).numpy()
        touch[:, i] = t._foot_contact(env.sim).float().mean(dim=1).numpy()
        up[:, i] = -t._base()["gravity"][:, 2].numpy()
    env.close()
    return _summary(height, touch, up)


def flat_policy_on_rough_patches():
    """{mix: mean tracking error} of the shipped flat policy on level 0 of the first random-rough column."""
    from newton_gym.terrain import TerrainCfg, go1_rough_sub_terrains, rough_sub_terrains
    from newton_gym.train.checkpoint import load_policy
    from newton_gym.train.velocity_eval import tracking_error_newton

    policy = load_policy(os.path.join("newton_gym", "assets", "policies", "go1_newton.pt"))
    commands = np.array([[0.5, 0, 0], [1.0, 0, 0], [0, 0.4, 0], [0.5, 0, 0.5]], np.float32)
    out = {}
    for name, subs in (("general", rough_sub_terrains()), ("go1", go1_rough_sub_terrains())):
        terrain = dataclasses.replace(TerrainCfg(), sub_terrains=subs)
        error = tracking_error_newton(
            policy, "Newton/Go1-Rough-v0", commands, 5.0, 1.0, terrain=terrain, patch=(0, 12), height_scan=False
        )
        out[name] = float(error.mean())
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args(argv)
    from newton_gym.terrain import generate_terrain

    actions = np.random.default_rng(0).standard_normal((args.episodes, args.steps, 12))
    flat_field = generate_terrain(FLAT)
    print(f"random actions, {args.episodes} x {args.steps} control steps from the home pose, no resets")
    print("ground       simulator    base height [m]   feet down   first tilt > 60 deg [step]")
    for ground in ("plane", "flat field"):
        field = ground == "flat field"
        for sim, row in (
            ("newton_gym", newton_run(actions, field)),
            ("MuJoCo C", mujoco_run(actions, flat_field if field else None)),
        ):
            print(f"{ground:12s} {sim:12s} {row[0]:15.3f} {row[1]:11.2f} {row[2]:14.1f}")
    errors = flat_policy_on_rough_patches()
    print(
        "shipped flat policy, lowest random-rough patches: tracking error "
        f"{errors['general']:.2f} m/s on the general mix, {errors['go1']:.2f} on the Go1 mix"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
