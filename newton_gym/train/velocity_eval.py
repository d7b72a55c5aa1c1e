"""Velocity-tracking error of a legged policy in newton_gym and in MuJoCo C on the same MJCF (sim to sim).

Both simulators start at the robot's home keyframe and run the deterministic policy for a fixed list of
velocity commands, without observation noise, pushes or randomization; the error of one command is the
mean over time (after a settling period) and over worlds of |cmd_xy - v_xy|, v_xy the base's horizontal
velocity in its own frame [m/s]. The MuJoCo side builds the observation from ``MjData`` exactly as
:mod:`newton_gym.envs.locomotion` defines it and applies ``target = home + scale * action`` to the MJCF's
position actuators, 4 ``mj_step`` per control step (50 Hz at the MJCF's 0.005 s).

| function | returns |
|---|---|
| ``tracking_error_newton(policy, task, commands, ...)`` | (C,) mean error per command in newton_gym |
| ``tracking_error_mujoco(policy, robot, commands, ...)`` | (C,) mean error per command in MuJoCo |
| ``DEFAULT_COMMANDS`` | the (C, 3) commands both use by default |

A fall ends a robot's walk the same way in both: the task's termination rule (the base touching anything
with more than 1 N, or tilted past ``max_tilt_deg``, 60 degrees) read in each simulator, after which every
step counts the error of standing still, |cmd_xy|. (newton_gym resets a fallen world elsewhere on the terrain
and MuJoCo C leaves it lying; counting either one's motion after the fall compared different things.) With
``return_falls`` both also return (C,) bool: which commands' robots fell.

On a rough task (``Newton/Go1-Rough-v0``) both start on the same patch of the task's terrain
(``ROUGH_PATCH``: level, column), yaw 0, base 0.278 m above its platform, and the MuJoCo side runs the MJCF
with the terrain added as an ``<hfield>`` (the same elevations, :meth:`Heightfield.to_mujoco`) and its own
floor disabled; its height scan is the task's (:func:`newton_gym.sensors.height_scan.grid_pattern` around
the base, yaw only, ``clip(base z - ground z - 0.5, -1, 1)``) read from the same field.
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = [
    "DEFAULT_COMMANDS",
    "ROBOT_OF_TASK",
    "ROUGH_PATCH",
    "policy_ground",
    "tracking_error_newton",
    "tracking_error_mujoco",
]

#: (vx [m/s], vy [m/s], wz [rad/s]) commands of the evaluation: forward, backward, sideways, turning.
DEFAULT_COMMANDS = np.array(
    [
        [0.5, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [-0.5, 0.0, 0.0],
        [0.0, 0.4, 0.0],
        [0.0, -0.4, 0.0],
        [0.5, 0.0, 0.5],
        [0.0, 0.0, -0.8],
        [0.0, 0.0, 0.0],
    ],
    dtype=np.float32,
)

#: Legged task id -> the shipped robot whose MJCF the MuJoCo side runs.
ROBOT_OF_TASK = {"Newton/Go1-Flat-v0": "go1", "Newton/G1-Flat-v0": "g1", "Newton/Go1-Rough-v0": "go1"}

#: (level, column) of the rough terrain's patch where the evaluation starts: level 4 of the first
#: random-rough column of the default mix (columns 12-15).
ROUGH_PATCH = (4, 12)
_SCAN_OFFSET = 0.5  # [m] the height scan's offset (newton_gym.envs.go1_rough)


def policy_ground(policy):
    """(terrain setting, Terrain, height scan in the policy observation) of the task a loaded ``policy``
    (``checkpoint.load_policy``) trained on: the terrain of its training config (the task's default where it
    names none) and whether it saw the scan, for a rough task; (None, None, True) for a flat one."""
    if not policy.meta["task"].endswith("Rough-v0"):
        return None, None, True
    from ..envs.go1_rough import Go1RoughCfg, task_terrain

    env_cfg = policy.meta.get("train_config", {}).get("env", {})
    terrain_cfg = env_cfg.get("terrain")
    return (
        terrain_cfg,
        task_terrain(terrain_cfg),
        bool(env_cfg.get("height_scan_policy", Go1RoughCfg.height_scan_policy)),
    )


def tracking_error_newton(
    policy,
    task: str = "Newton/Go1-Flat-v0",
    commands=DEFAULT_COMMANDS,
    seconds: float = 6.0,
    settle: float = 1.0,
    seed: int = 0,
    action_clip: float | None = None,
    terrain=None,
    patch=ROUGH_PATCH,
    height_scan: bool | None = None,
    return_falls: bool = False,
):
    """(C,) mean |cmd_xy - v_xy| [m/s] per command, one world per command stepped together (a fallen world
    counts |cmd_xy|: module docstring); with ``return_falls`` also (C,) bool, the worlds that fell.

    Args:
        policy: callable (N, obs) torch -> (N, action) torch (e.g. ``checkpoint.load_policy(...)``).
        task: a legged velocity task id.
        commands: (C, 3) commands.
        seconds: length of each run [s]; settle: seconds not counted at the start.
        action_clip: the task's action clip the policy was trained with (None: the task's default).
        terrain: a rough task's terrain setting (None: the task's default terrain).
        patch: (level, column) of the terrain patch where a rough run starts.
        height_scan: whether a rough task's policy observation holds the height scan (its
            ``height_scan_policy``; None: the task's default).
    """
    import gymnasium as gym

    import newton_gym  # noqa: F401

    commands = torch.as_tensor(np.asarray(commands, dtype=np.float32))
    extra = {} if action_clip is None else {"action_clip": float(action_clip)}
    if task.endswith("Rough-v0"):
        extra["curriculum"] = False
        extra["heading_command"] = False  # the evaluation's commands hold their yaw rate
        if terrain is not None:
            extra["terrain"] = terrain
        if height_scan is not None:
            extra["height_scan_policy"] = bool(height_scan)
    env = gym.make_vec(
        task,
        num_envs=len(commands),
        device="cpu",
        noise=False,
        push_interval=(1e9, 1e9),
        randomization={"friction": None, "mass_scale": None, "actuator_kp_scale": None, "actuator_kd_scale": None},
        **extra,
    )
    task_obj = env.task
    env.reset(seed=seed)
    home = task_obj.init_qpos.expand(len(commands), -1).clone()
    terrain = getattr(task_obj, "terrain", None)
    if terrain is not None:
        home[:, :3] = torch.as_tensor(_rough_start(terrain, patch), dtype=home.dtype)
        home[:, 3:7] = torch.tensor([1.0, 0.0, 0.0, 0.0])
    task_obj.layout.set_state(
        home, torch.zeros(len(commands), task_obj.layout.nv), torch.ones(len(commands), dtype=bool)
    )
    task_obj.command = commands.clone()
    obs = task_obj.observe(env.sim)
    steps = int(round(seconds / env.sim.dt))
    first = int(round(settle / env.sim.dt))
    errors = []
    fallen = torch.zeros(len(commands), dtype=torch.bool)
    standing = commands[:, :2].norm(dim=1)  # the error of a robot that does not move
    with torch.no_grad():
        for i in range(steps):
            obs, _, terminated, _, _ = env.step(policy(obs))
            fallen |= terminated
            task_obj.command = commands.clone()  # a world that fell and reset keeps its command
            obs[:, 9:12] = commands
            if i >= first:
                v = task_obj._base()["lin_vel"][:, :2]
                errors.append(torch.where(fallen, standing, (commands[:, :2] - v).norm(dim=1)))
    env.close()
    error = torch.stack(errors).mean(dim=0).numpy()
    return (error, fallen.numpy()) if return_falls else error


def _base_rotation(d) -> np.ndarray:
    """(3, 3) rotation of the free root's frame in the world, from MuJoCo's qpos quaternion (w, x, y, z)."""
    import mujoco

    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, d.qpos[3:7])
    return rot.reshape(3, 3)


def _rough_start(terrain, patch) -> np.ndarray:
    """(3,) base position of the rough evaluation: 0.278 m above the platform of ``patch`` (level, column)."""
    from ..envs.go1 import GO1_HOME

    origin = np.asarray(terrain.origins[tuple(patch)], dtype=np.float64)
    return origin + np.array([0.0, 0.0, GO1_HOME[0]])


def _with_terrain(path: str, terrain):
    """MjModel of the MJCF at ``path`` with ``terrain``'s heightfield added on the world body (the floor planes
    stop colliding; the field takes their contype / conaffinity)."""
    import mujoco

    spec = mujoco.MjSpec.from_file(path)
    contype, conaffinity = 1, 1
    for geom in spec.worldbody.geoms:
        if geom.type == mujoco.mjtGeom.mjGEOM_PLANE:
            contype, conaffinity = geom.contype, geom.conaffinity
            geom.contype, geom.conaffinity = 0, 0
    data, size, z0 = terrain.heightfield.to_mujoco()
    field = spec.add_hfield(name="terrain", nrow=data.shape[0], ncol=data.shape[1], size=size.tolist())
    field.userdata = data.reshape(-1).astype(np.float32).tolist()
    center = np.asarray(terrain.field_center, dtype=np.float64) + [0.0, 0.0, z0]
    spec.worldbody.add_geom(
        type=mujoco.mjtGeom.mjGEOM_HFIELD,
        hfieldname="terrain",
        pos=center.tolist(),
        contype=contype,
        conaffinity=conaffinity,
    )
    return spec.compile()


def _scan(terrain, d, rays) -> np.ndarray:
    """The rough task's height scan from MuJoCo's state: ``rays`` (R, 3) grid points around the base, turned
    by its yaw, each clip(base z - ground z - 0.5, -1, 1)."""
    rot = _base_rotation(d)
    yaw = np.arctan2(rot[1, 0], rot[0, 0])
    c, s = np.cos(yaw), np.sin(yaw)
    x = d.qpos[0] + c * rays[:, 0] - s * rays[:, 1]
    y = d.qpos[1] + s * rays[:, 0] + c * rays[:, 1]
    cx, cy, cz = np.asarray(terrain.field_center, dtype=np.float64)
    ground = cz + terrain.heightfield.height_at(x - cx, y - cy)
    return np.clip(d.qpos[2] - ground - _SCAN_OFFSET, -1.0, 1.0).astype(np.float32)


def _observation(m, d, command, home, last_action) -> np.ndarray:
    """The locomotion task's noise-free observation from MuJoCo's state (free root + hinge joints)."""
    rot = _base_rotation(d)
    return np.concatenate(
        [
            rot.T @ d.qvel[0:3],  # base linear velocity, base frame
            d.qvel[3:6],  # angular velocity (MuJoCo: already in the base frame)
            rot.T @ np.array([0.0, 0.0, -1.0]),
            command,
            d.qpos[7:] - home,
            d.qvel[6:],
            last_action,
        ]
    ).astype(np.float32)


def tracking_error_mujoco(
    policy,
    robot: str = "go1",
    commands=DEFAULT_COMMANDS,
    seconds: float = 6.0,
    settle: float = 1.0,
    action_clip: float = 5.0,
    frame_skip: int = 4,
    terrain=None,
    patch=ROUGH_PATCH,
    height_scan: bool = True,
    max_tilt_deg: float = 60.0,
    return_falls: bool = False,
):
    """(C,) mean |cmd_xy - v_xy| [m/s] per command in MuJoCo C on the shipped MJCF of ``robot`` (a fallen robot
    counts |cmd_xy|: module docstring); with ``return_falls`` also (C,) bool, the robots that fell.

    Args:
        policy: as for :func:`tracking_error_newton`.
        robot: "go1" or "g1" (the shipped MJCF, with its home keyframe and position actuators).
        action_clip: the action box the policy was trained with (actions are clipped to it).
        terrain: a rough task's :class:`newton_gym.terrain.Terrain`: the MJCF gets its heightfield, the run
            starts on ``patch`` and the observation ends with the height scan where ``height_scan``; None:
            flat ground.
        patch: (level, column) of the terrain patch where a rough run starts.
        height_scan: whether the policy's observation ends with the height scan on a terrain (the rough
            task's ``height_scan_policy``).
        max_tilt_deg: the task's tilt limit of the fall rule [deg].
    """
    import mujoco

    from ..assets.robots import robot_source_path
    from ..sensors.height_scan import grid_pattern

    if terrain is None:
        m = mujoco.MjModel.from_xml_path(robot_source_path(robot))
    else:
        m = _with_terrain(robot_source_path(robot), terrain)
        rays = grid_pattern()
    key = m.key("home").id
    home = m.key_qpos[key][7:].copy()
    scale = 0.25 * m.actuator_forcerange[:, 1] / m.actuator_gainprm[:, 0]
    out, falls = [], []
    for command in np.asarray(commands, dtype=np.float32):
        d = mujoco.MjData(m)
        mujoco.mj_resetDataKeyframe(m, d, key)
        if terrain is not None:
            d.qpos[:3] = _rough_start(terrain, patch)
            d.qpos[3:7] = [1.0, 0.0, 0.0, 0.0]
            mujoco.mj_forward(m, d)
        last = np.zeros(m.nu, dtype=np.float32)
        errors = []
        fallen = False
        steps = int(round(seconds / (m.opt.timestep * frame_skip)))
        for i in range(steps):
            obs = _observation(m, d, command, home, last)
            if terrain is not None and height_scan:
                obs = np.concatenate([obs, _scan(terrain, d, rays)])
            with torch.no_grad():
                action = policy(torch.as_tensor(obs)[None])[0].numpy().astype(np.float32)
            action = np.clip(action, -action_clip, action_clip)
            d.ctrl[:] = home + scale * action
            for _ in range(frame_skip):
                mujoco.mj_step(m, d)
            last = action
            fallen = fallen or _fell(m, d, max_tilt_deg)
            if i * m.opt.timestep * frame_skip >= settle:
                v = _base_rotation(d).T @ d.qvel[0:3]
                errors.append(np.linalg.norm(command[:2] if fallen else command[:2] - v[:2]))
        out.append(float(np.mean(errors)))
        falls.append(fallen)
    return (np.array(out), np.array(falls)) if return_falls else np.array(out)


def _fell(m, d, max_tilt_deg: float) -> bool:
    """The legged tasks' termination rule in MuJoCo C: the contact force on the free root's body (the base)
    above 1 N, or its z axis tilted more than ``max_tilt_deg`` from world z."""
    import mujoco

    if _base_rotation(d)[2, 2] < np.cos(np.radians(max_tilt_deg)):
        return True
    base = 1  # the free root's body: the first child of the world
    force = np.zeros(3)
    local = np.zeros(6)
    for k in range(d.ncon):
        contact = d.contact[k]
        b1, b2 = m.geom_bodyid[contact.geom1], m.geom_bodyid[contact.geom2]
        if base not in (b1, b2):
            continue
        mujoco.mj_contactForce(m, d, k, local)
        on_second = contact.frame.reshape(3, 3).T @ local[:3]  # the force of geom1 on geom2, world frame
        force += on_second if b2 == base else -on_second
    return float(np.linalg.norm(force)) > 1.0
