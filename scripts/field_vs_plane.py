"""The Go1 on a flat heightfield against the plane, in newton_gym and in MuJoCo C: the figures the README's
rough-terrain section quotes.

1. Random actions: ``--episodes`` runs of ``--steps`` control steps (4 solver steps each) from the home pose,
   standard-normal actions (targets home + scale x action), no resets, randomization and pushes off; the same
   actions in both simulators, on the shipped MJCF's plane and on an all-flat terrain added as an ``<hfield>``.
   Printed per ground: mean base height above the ground [m], share of feet touching it, and the mean control
   step of the first tilt past 60 degrees (the tasks' termination; the run's length where it never tilts).
2. The shipped flat policy (blind) on the lowest random-rough patches of Isaac Lab's general mix and of its
   Go1 mix (the task's default terrain): mean tracking error [m/s] over four commands.
3. Feet stuck in the field: 16 reset poses (the tasks' joint scaling, 0.5 to 1.5 of home, at the home base
   height) held at the home targets for 0.5 s, without and with the rough task's spawn lift
   (:mod:`newton_gym.envs.spawn_clearance`): how many leave a foot more than 1 cm below the ground, and the
   deepest foot [m]. MuJoCo C (its own draws of the scaling) and newton_gym's envs.
4. The shipped flat policy in the envs as a training run sees them (their resets, noise, pushes and
   randomization; 64 worlds x 500 steps, random commands): mean tracking error [m/s] and base-contact
   terminations, Go1-Flat on the plane and Go1-Rough on an all-flat field with and without the spawn lift.

    python scripts/field_vs_plane.py [--episodes 40] [--steps 300]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import newton_gym  # noqa: E402, F401  (before torch's threads start: newton_gym.openmp_wait)

# isort: split
import torch  # noqa: E402

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


def _deepest_mujoco(terrain, lift: bool, trials: int = 16, seed: int = 0) -> np.ndarray:
    """(trials,) deepest foot below the ground [m] after 0.5 s at the home targets, MuJoCo C."""
    import mujoco

    from newton_gym.assets.robots import robot_source_path
    from newton_gym.train.velocity_eval import _rough_start, _with_terrain

    path = robot_source_path("go1")
    m = mujoco.MjModel.from_xml_path(path) if terrain is None else _with_terrain(path, terrain)
    key = m.key("home").id
    home = m.key_qpos[key][7:].copy()
    feet = [m.geom(f"{f}_foot_collision").id for f in FEET]
    rng = np.random.default_rng(seed)
    out = np.zeros(trials)
    for i in range(trials):
        d = mujoco.MjData(m)
        mujoco.mj_resetDataKeyframe(m, d, key)
        d.qpos[7:] = home * (0.5 + rng.uniform(size=home.shape))
        ground = 0.0
        if terrain is not None:
            d.qpos[:3] = _rough_start(terrain, (0, 0))
            ground = d.qpos[2] - m.key_qpos[key][2]
        mujoco.mj_forward(m, d)
        low = min(d.geom_xpos[g][2] - m.geom_size[g][0] for g in feet)
        if lift and low < ground:
            d.qpos[2] += ground - low
        d.ctrl[:] = home
        mujoco.mj_forward(m, d)
        for _ in range(int(round(0.5 / m.opt.timestep))):
            mujoco.mj_step(m, d)
        out[i] = max(ground - (d.geom_xpos[g][2] - m.geom_size[g][0]) for g in feet)
    return out


def _deepest_newton(field: bool, lift: bool, worlds: int = 16) -> np.ndarray:
    """(worlds,) deepest foot below the ground [m] after 0.5 s at the home targets, newton_gym's envs."""
    import gymnasium as gym

    task, extra = "Newton/Go1-Flat-v0", {}
    if field:
        task, extra = "Newton/Go1-Rough-v0", {"terrain": FLAT, "curriculum": False, "max_init_level": 0}
    env = gym.make_vec(task, num_envs=worlds, device="cpu", noise=False, push_interval=(1e9, 1e9), **extra)
    t = env.task
    if field and not lift:
        t.spawn_lift = lambda sim, mask: None
    env.reset(seed=0)
    ground = t.origins[t.terrain_level, t.terrain_type][:, 2] if field else torch.zeros(worlds)
    for _ in range(int(round(0.5 / env.sim.dt))):
        env.step(torch.zeros(worlds, len(t.servos)))
    from newton_gym.sim.hostmath import quat_rotate

    q = env.sim.views.body_q[:, t.foot_index].double()  # calf frames; the foot sphere 0.213 m down, r 0.023
    down = torch.tensor([0.0, 0.0, -0.213], dtype=torch.float64).expand(*q.shape[:-1], 3)
    bottom = (q[..., :3] + quat_rotate(q[..., 3:7], down))[..., 2] - 0.023
    env.close()
    return (ground[:, None].double() - bottom).amax(dim=1).numpy()


def policy_in_envs(lift_cases=(True, False), worlds: int = 64, steps: int = 500) -> list:
    """[(label, mean tracking error [m/s], base-contact terminations)] of the shipped flat policy."""
    import gymnasium as gym

    from newton_gym.train.checkpoint import load_policy

    policy = load_policy(os.path.join("newton_gym", "assets", "policies", "go1_newton.pt"))
    cases = [("Go1-Flat, plane", "Newton/Go1-Flat-v0", {}, True)]
    for lift in lift_cases:
        label = f"Go1-Rough, flat field, {'with' if lift else 'without'} the lift"
        extra = {"terrain": FLAT, "curriculum": False, "height_scan_policy": False}
        cases.append((label, "Newton/Go1-Rough-v0", extra, lift))
    rows = []
    for label, task, extra, lift in cases:
        env = gym.make_vec(task, num_envs=worlds, device="cpu", **extra)
        t = env.task
        if not lift:
            t.spawn_lift = lambda sim, mask: None
        base_contacts = [0]
        terminated = t._terminated

        def spy(sim, t=t, terminated=terminated, count=base_contacts):
            count[0] += int((sim.contact_wrench[:, t.base_index, :3].norm(dim=1) > 1.0).sum())
            return terminated(sim)

        t._terminated = spy
        obs, _ = env.reset(seed=0)
        errors = []
        with torch.no_grad():
            for i in range(steps):
                obs, _, _, _, info = env.step(policy(obs))
                if i >= 50:
                    errors.append(float(info["task"]["lin_vel_error"]))
        env.close()
        rows.append((label, float(np.mean(errors)), base_contacts[0]))
    return rows


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
    print("reset poses held at the home targets for 0.5 s: poses with a foot > 1 cm below the ground, deepest [m]")
    for ground in ("plane", "flat field"):
        field = ground == "flat field"
        for lift in (False, True) if field else (False,):
            label = f"{ground}{', spawn lift' if lift else ''}"
            mj = _deepest_mujoco(flat_field if field else None, lift)
            ours = _deepest_newton(field, lift)
            print(
                f"{label:24s} MuJoCo C {int((mj > 0.01).sum()):2d} / {mj.size} ({mj.max():.3f})   "
                f"newton_gym {int((ours > 0.01).sum()):2d} / {ours.size} ({ours.max():.3f})"
            )
    print("shipped flat policy in the envs (64 worlds x 500 steps): tracking error, base-contact terminations")
    for label, error, contacts in policy_in_envs():
        print(f"{label:42s} {error:.3f} m/s {contacts:5d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
