"""Velocity tracking for legged robots driven by position servos (the base of the Go1 and G1 tasks).

The structure follows Isaac Lab's Isaac-Velocity-Flat-* and mjlab's Mjlab-Velocity-Flat-* tasks: the
policy outputs joint-position targets around the home pose (``target = home + scale * action``), the
servos of the robot's USD (MJCF position actuators: stiffness, damping, effort limit, armature) track
them inside the solver, and the reward asks the base to follow a velocity command drawn per episode.

Observation (policy), each term with uniform noise of the given half-width:

| term | size | noise |
|---|---|---|
| base linear velocity, base frame [m/s] | 3 | 0.1 |
| base angular velocity, base frame [rad/s] | 3 | 0.2 |
| gravity direction in the base frame [-] | 3 | 0.05 |
| command (vx, vy [m/s], wz [rad/s]) | 3 | 0 |
| joint positions relative to home [rad] | J | 0.01 |
| joint velocities [rad/s] | J | 1.5 |
| last action | J | 0 |

The critic's privileged observation is the same without noise, plus the base height [m], the feet's
contact flags and the world's friction coefficient.

Reward terms (each multiplied by the control period, as Isaac Lab does; weights in the task's cfg):
``track_lin_vel_xy`` exp(-|cmd_xy - v_xy|^2 / sigma^2), ``track_ang_vel_z`` exp(-(cmd_wz - w_z)^2 /
sigma^2), ``lin_vel_z`` v_z^2, ``ang_vel_xy`` |w_xy|^2, ``joint_acc`` |qdd|^2, ``action_rate`` |a -
a_prev|^2, ``orientation`` |g_xy|^2, ``feet_air_time`` sum over touchdowns of (air time - threshold)
while the command asks to move, ``joint_limits`` how far joints go past 90 % of their range, and
``termination`` (not scaled by the period) in the step the episode ends early: without it a policy whose
penalties outweigh its tracking reward learns to fall at once.

Terminations: the base touches the ground, the base tilts past ``max_tilt``, or the state goes
non-finite. Truncation: ``max_episode_steps`` (1000 = 20 s at 50 Hz). Reset: home pose with joint angles scaled by U(0.5, 1.5),
base velocity U(-0.5, 0.5) per component, a new command (a fraction of worlds stands still). Pushes: every
``push_interval`` seconds (per world, jittered) the base gets a horizontal velocity kick of up to
``push_velocity`` per axis; each push of an episode has its own kick and wait, drawn when the episode starts.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np
import torch

from ..errors import ConfigError
from .settings import RandomizationCfg, SimCfg
from .task import Task, TaskCfg

__all__ = ["LeggedVelocityCfg", "LeggedVelocityTask"]

# WorldRng streams (the reset noise uses 1, 2; the randomizer 3-5)
_COMMAND_STREAM = 11
_JOINT_STREAM = 12
_BASE_STREAM = 13
_PUSH_STREAM = 14
_MAX_PUSH_SLOTS = 64  # most pushes drawn per episode


@dataclass
class LeggedVelocityCfg(TaskCfg):
    """Velocity-tracking settings (see the module docstring for the terms)."""

    sim: SimCfg = field(default_factory=lambda: SimCfg(sim_dt=0.005, frame_skip=4))
    max_episode_steps: int = 1000  # 20 s at 50 Hz
    action_clip: float = 5.0
    command_vx: tuple = (-1.0, 1.0)
    command_vy: tuple = (-0.5, 0.5)
    command_wz: tuple = (-1.0, 1.0)
    standing_fraction: float = 0.1
    push_interval: tuple = (10.0, 15.0)
    push_velocity: float = 0.5
    max_tilt_deg: float = 60.0
    tracking_sigma: float = 0.5
    air_time_threshold: float = 0.5
    w_track_lin_vel_xy: float = 1.5
    w_track_ang_vel_z: float = 0.75
    w_lin_vel_z: float = -2.0
    w_ang_vel_xy: float = -0.05
    w_joint_acc: float = -2.5e-7
    w_action_rate: float = -0.01
    w_orientation: float = -2.5
    w_feet_air_time: float = 0.25
    w_joint_limits: float = -10.0
    w_termination: float = -2.0
    noise: bool = True
    randomization: RandomizationCfg = field(
        default_factory=lambda: RandomizationCfg(
            friction=(0.4, 1.2), mass_scale=(0.9, 1.1), actuator_kp_scale=(0.9, 1.1), actuator_kd_scale=(0.9, 1.1)
        )
    )


class LeggedVelocityTask(Task):
    """Subclasses set ``robot``, ``cfg_class``, ``home`` (base height [m], {joint regex: angle [rad]}),
    ``base_body`` and ``foot_bodies`` (body name patterns whose contacts count as foot contacts)."""

    home: tuple = (0.0, {})
    base_body: str = ""
    foot_bodies: str = ""

    def __init__(self, cfg):
        super().__init__(cfg)
        self.command = None

    # ------------------------------------------------------------------ setup
    def build_robot(self):
        builder = super().build_robot()
        # Position servos: the robot's MjcActuator prims, else its USD joint drives (PhysX / UsdPhysics
        # DriveAPI robots), whose targets the actions then set through Control.joint_target_pos.
        self.drive_mode = not self.import_result["actuators"]
        self.servos = _drive_servos(builder) if self.drive_mode else self.import_result["actuators"]
        if not self.servos:
            raise ConfigError(
                f"{self.cfg.robot_usd or self.robot}: the robot has neither MjcActuator prims nor "
                "joint drives with a stiffness, so no action can reach its joints"
            )
        on_tendons = [a["target"] for a in self.servos if a.get("dof", -1) < 0]
        if on_tendons:
            raise ConfigError(
                f"{self.cfg.robot_usd or self.robot}: the velocity tasks drive joint servos; actuators "
                f"{on_tendons[:4]} act on tendons"
            )
        return builder

    def setup(self, robot, sim):
        super().setup(robot, sim)
        dev, n = sim.torch_device, sim.num_envs
        names = [a["target"].rsplit("/", 1)[-1] for a in self.servos]
        height, angles = self.home
        home = [next((v for pattern, v in angles.items() if re.fullmatch(pattern, name)), 0.0) for name in names]
        self.joint_names = names
        self.home_joint = torch.tensor(home, dtype=torch.float32, device=dev)
        kp = np.array([a["gain_prm"][0] for a in self.servos])
        effort = np.array([a["force_range"][1] if a["force_limited"] else np.inf for a in self.servos])
        # mjlab / Isaac Lab: one unit of action moves the target by a quarter of the effort-limited travel
        self.action_scale = torch.tensor(
            np.where(np.isfinite(effort), 0.25 * effort / kp, 0.5), dtype=torch.float32, device=dev
        )
        self.init_qpos[2] = height
        self.init_qpos[3:7] = torch.tensor([1.0, 0.0, 0.0, 0.0], device=dev)
        self.init_qpos[7:] = self.home_joint
        keys = [k.rsplit("/", 1)[-1] for k in robot.body_key]
        self.base_index = keys.index(self.base_body)
        self.foot_index = torch.tensor(
            [i for i, k in enumerate(keys) if re.fullmatch(self.foot_bodies, k)], dtype=torch.long, device=dev
        )
        lower, upper = self._joint_limits(robot)
        mid, half = 0.5 * (lower + upper), 0.5 * (upper - lower)
        self.soft_lower = torch.tensor(mid - 0.9 * half, dtype=torch.float32, device=dev)
        self.soft_upper = torch.tensor(mid + 0.9 * half, dtype=torch.float32, device=dev)
        j = len(names)
        self.command = torch.zeros(n, 3, device=dev)
        self.action = torch.zeros(n, j, device=dev)
        self.prev_action = torch.zeros(n, j, device=dev)
        self.prev_joint_vel = torch.zeros(n, j, device=dev)
        self.air_time = torch.zeros(n, len(self.foot_index), device=dev)
        self.push_timer = torch.zeros(n, device=dev)
        self.push_slots = _push_slots(self.cfg, sim.dt)
        self.push_kick = torch.zeros(n, 2 * self.push_slots, device=dev)  # per push: (vx, vy) kick [m/s]
        self.push_wait = torch.zeros(n, self.push_slots, device=dev)  # per push: seconds until it [s]
        self.push_count = torch.zeros(n, dtype=torch.long, device=dev)  # pushes so far this episode
        self.joint_target = sim.joint_target
        self.servo_dofs = torch.tensor([a["dof"] for a in self.servos], dtype=torch.long, device=dev)
        self.noise_gen = torch.Generator(device=dev).manual_seed(int(self.cfg.seed) + 7919)
        widths = [0.1] * 3 + [0.2] * 3 + [0.05] * 3 + [0.0] * 3 + [0.01] * j + [1.5] * j + [0.0] * j
        self.noise_half_width = torch.tensor(widths, device=dev)  # per observation entry (module table)

    def _joint_limits(self, robot):
        """(lower, upper) [rad] of the actuated joints; +-pi where a joint is unlimited."""
        dofs = [a["dof"] for a in self.servos]
        lower, upper = robot.tables["dof"].get("limit_lower")[dofs], robot.tables["dof"].get("limit_upper")[dofs]
        limited = (lower < upper) & (np.abs(lower) < 1e6) & (np.abs(upper) < 1e6)
        return np.where(limited, lower, -np.pi), np.where(limited, upper, np.pi)

    def seed(self, seed: int):
        self.noise_gen.manual_seed(int(seed) + 7919)

    # ------------------------------------------------------------------ spaces
    def action_space(self) -> gym.spaces.Box:
        c = float(self.cfg.action_clip)
        return gym.spaces.Box(-c, c, (len(self.servos),), dtype=np.float32)

    def observation_size(self) -> int:
        return 12 + 3 * len(self.servos)

    def critic_observation_size(self) -> int:
        return self.observation_size() + 2 + len(self.foot_index)

    # ------------------------------------------------------------------ kinematics
    def _base(self):
        def compute():
            qpos, qvel, frame = self.layout.qpos(), self.layout.qvel(), self.layout.root_frame()
            return {
                "height": frame[:, 0],
                "lin_vel": frame[:, 1:4],
                "ang_vel": frame[:, 4:7],
                "gravity": frame[:, 7:10],
                "joint_pos": qpos[:, 7:],
                "joint_vel": qvel[:, 6:],
            }

        return self.layout.memo("legged_base", compute)

    def _foot_contact(self, sim) -> torch.Tensor:
        return sim.contact_wrench[:, self.foot_index, 2].abs() > 1.0

    def _clean_obs(self) -> torch.Tensor:
        b = self._base()
        return torch.cat(
            [
                b["lin_vel"],
                b["ang_vel"],
                b["gravity"],
                self.command,
                b["joint_pos"] - self.home_joint,
                b["joint_vel"],
                self.action,
            ],
            dim=1,
        )

    # ------------------------------------------------------------------ per step
    def ctrl_from_action(self, action):
        self.prev_action.copy_(self.action)
        self.action.copy_(action)
        target = self.home_joint + self.action_scale * action
        if self.drive_mode:
            self.joint_target[:, self.servo_dofs] = target
            return action[:, :0]
        return target

    def observe(self, sim):
        obs = self._clean_obs()
        if not self.cfg.noise:
            return obs
        u = torch.rand(obs.shape, generator=self.noise_gen, device=obs.device)
        return obs + (2.0 * u - 1.0) * self.noise_half_width

    def critic_observe(self, sim):
        b = self._base()
        friction = sim_friction(self, sim)
        return torch.cat(
            [self._clean_obs(), b["height"][:, None], self._foot_contact(sim).float(), friction[:, None]], dim=1
        )

    def pre_step(self, sim):
        self.push_timer -= sim.dt
        push = self.push_timer <= 0.0
        slot = (self.push_count % self.push_slots)[:, None]
        kick = torch.gather(self.push_kick, 1, torch.cat([2 * slot, 2 * slot + 1], dim=1))
        qd = sim.views.joint_qd
        r = self.layout.root_qd
        qd[:, r : r + 2] = qd[:, r : r + 2] + torch.where(push[:, None], kick, torch.zeros_like(kick))
        self.push_count += push
        self.push_timer = torch.where(push, self._push_delay(), self.push_timer)
        return None

    def reward_terms(self, sim, action, pre):
        c, b, dt = self.cfg, self._base(), sim.dt
        sigma2 = c.tracking_sigma**2
        lin_err = ((self.command[:, :2] - b["lin_vel"][:, :2]) ** 2).sum(dim=1)
        ang_err = (self.command[:, 2] - b["ang_vel"][:, 2]) ** 2
        joint_acc = ((b["joint_vel"] - self.prev_joint_vel) / dt) ** 2
        self.prev_joint_vel = b["joint_vel"].clone()
        contact = self._foot_contact(sim)
        first_contact = contact & (self.air_time > 0.0)
        moving = (self.command[:, :2].norm(dim=1) > 0.1).float()
        air_reward = ((self.air_time - c.air_time_threshold) * first_contact.float()).sum(dim=1) * moving
        self.air_time = torch.where(contact, torch.zeros_like(self.air_time), self.air_time + dt)
        q = b["joint_pos"]
        over = (q - self.soft_upper).clamp(min=0.0) + (self.soft_lower - q).clamp(min=0.0)
        return {
            "track_lin_vel_xy": c.w_track_lin_vel_xy * dt * torch.exp(-lin_err / sigma2),
            "track_ang_vel_z": c.w_track_ang_vel_z * dt * torch.exp(-ang_err / sigma2),
            "lin_vel_z": c.w_lin_vel_z * dt * b["lin_vel"][:, 2] ** 2,
            "ang_vel_xy": c.w_ang_vel_xy * dt * (b["ang_vel"][:, :2] ** 2).sum(dim=1),
            "joint_acc": c.w_joint_acc * dt * joint_acc.sum(dim=1),
            "action_rate": c.w_action_rate * dt * ((action - self.prev_action) ** 2).sum(dim=1),
            "orientation": c.w_orientation * dt * (b["gravity"][:, :2] ** 2).sum(dim=1),
            "feet_air_time": c.w_feet_air_time * dt * air_reward,
            "joint_limits": c.w_joint_limits * dt * over.sum(dim=1),
            "termination": c.w_termination * self.terminated(sim).float(),
        }

    def step_info(self, sim) -> dict:
        """``lin_vel_error``: the mean over worlds of |cmd_xy - v_xy| [m/s] after this step."""
        error = (self.command[:, :2] - self._base()["lin_vel"][:, :2]).norm(dim=1)
        return {"lin_vel_error": error.mean()}

    def terminated(self, sim):
        return self.layout.memo("legged_terminated", lambda: self._terminated(sim))

    def _terminated(self, sim):
        b = self._base()
        base_contact = sim.contact_wrench[:, self.base_index, :3].norm(dim=1) > 1.0
        tilted = b["gravity"][:, 2] > -math.cos(math.radians(self.cfg.max_tilt_deg))
        return base_contact | tilted | ~self.layout.state_finite()

    # ------------------------------------------------------------------ reset
    def _rand(self, stream: int, width: int) -> torch.Tensor:
        """(N, width) uniform [0, 1): the vector env's per-world counter RNG (advanced on every reset)."""
        return self.rng.uniform(stream, width)

    def _push_delay(self) -> torch.Tensor:
        """(N,) seconds from each world's next push (its ``push_count``-th of the episode) to the one after."""
        slot = (self.push_count % self.push_slots)[:, None]
        return torch.gather(self.push_wait, 1, slot)[:, 0]

    def _draw_pushes(self, mask, u):
        """Set the kicks and waits of the reset worlds' pushes for their new episode: ``push_slots`` of each
        (every push of the episode its own draw), from their (N, 3 push_slots) uniform numbers ``u``."""
        c, k = self.cfg, self.push_slots
        lo, hi = c.push_interval
        m = mask[:, None]
        self.push_kick = torch.where(m, (2.0 * u[:, : 2 * k] - 1.0) * c.push_velocity, self.push_kick)
        self.push_wait = torch.where(m, lo + (hi - lo) * u[:, 2 * k :], self.push_wait)
        self.push_count = self.push_count.masked_fill(mask, 0)

    def spawn(self, qpos: torch.Tensor, mask: torch.Tensor, rng):
        """Place the root of each reset world (qpos (N, nq) MuJoCo layout, written in place) before the state
        is set. Default: where ``init_qpos`` has it (the flat ground's origin)."""

    def spawn_lift(self, sim, mask):
        """(N,) [m] to raise the reset worlds of ``mask`` by once their pose is written (body poses current),
        or None: none (the default; the plane pushes a foot that starts below it straight up)."""
        return None

    def reset_state(self, sim, mask, rng):
        self.rng = rng
        c, j = self.cfg, len(self.servos)
        qpos = self.init_qpos.expand(sim.num_envs, -1).clone()
        self.spawn(qpos, mask, rng)
        streams = ((_JOINT_STREAM, j), (_BASE_STREAM, self.layout.nv), (_COMMAND_STREAM, 4))
        u_joint, u_base, u, u_push = rng.uniforms(streams + ((_PUSH_STREAM, 3 * self.push_slots),), mask)
        qpos[:, 7:] = self.home_joint * (0.5 + u_joint)
        qvel = (2.0 * u_base - 1.0) * 0.5
        qvel[:, 6:] = 0.0
        self.layout.set_state(qpos, qvel, mask)
        lift = self.spawn_lift(sim, mask)
        if lift is not None:  # the feet start on the ground: the same pose, higher
            qpos[:, 2] = qpos[:, 2] + lift
            self.layout.set_state(qpos, qvel, mask)
        ranges = (c.command_vx, c.command_vy, c.command_wz)
        cmd = torch.stack([lo + (hi - lo) * u[:, i] for i, (lo, hi) in enumerate(ranges)], dim=1)
        cmd = torch.where((u[:, 3] < c.standing_fraction)[:, None], torch.zeros_like(cmd), cmd)
        m = mask[:, None]
        self.command = torch.where(m, cmd, self.command)
        for kept in (self.action, self.prev_action, self.prev_joint_vel, self.air_time):
            kept.masked_fill_(m, 0.0)
        self._draw_pushes(mask, u_push)
        self.push_timer = torch.where(mask, self._push_delay(), self.push_timer)


def _push_slots(cfg, dt: float) -> int:
    """How many pushes one episode holds (each drawn when the episode starts): the episode's length over the
    shortest push interval, plus one, at most _MAX_PUSH_SLOTS (an episode with more reuses them in turn).
    ConfigError where push_interval is not two finite seconds 0 < lo <= hi or push_velocity is not finite
    and >= 0."""
    try:
        lo, hi = (float(x) for x in cfg.push_interval)
    except (TypeError, ValueError):
        raise ConfigError(f"push_interval must be (lo, hi) in seconds, got {cfg.push_interval!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and 0.0 < lo <= hi):
        raise ConfigError(f"push_interval must be finite seconds with 0 < lo <= hi, got {cfg.push_interval!r}")
    v = cfg.push_velocity
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0.0:
        raise ConfigError(f"push_velocity must be a finite speed >= 0 [m/s], got {v!r}")
    steps = cfg.max_episode_steps
    if not steps:
        return _MAX_PUSH_SLOTS
    return int(min(_MAX_PUSH_SLOTS, math.floor(steps * dt / lo) + 1))


def _drive_servos(builder) -> list[dict]:
    """Servo records (as the importer's actuator records: target joint path, dof, gain_prm[0] = kp,
    force_range) of the one-DOF joints that carry a USD drive with a stiffness, in DOF order."""
    jt, dt = builder.tables["joint"], builder.tables["dof"]
    ke, effort = dt.get("target_ke"), dt.get("effort_limit")
    starts, counts = jt.get("qd_start"), jt.get("lin_count") + jt.get("ang_count")
    out = []
    for label, d, n in zip(jt.labels, starts, counts):
        if n == 1 and ke[d] > 0.0:
            limited = bool(effort[d] < 1e9)
            out.append(
                {
                    "target": label,
                    "dof": int(d),
                    "gain_prm": [float(ke[d])],
                    "force_limited": limited,
                    "force_range": (-float(effort[d]), float(effort[d])) if limited else (0.0, 0.0),
                }
            )
    return out


def sim_friction(task, sim) -> torch.Tensor:
    """(N,) the world's friction coefficient where it was randomized, else 1 (the MJCF floor's)."""
    randomizer = getattr(task, "randomizer", None)
    if randomizer is None:
        return torch.ones(sim.num_envs, device=sim.torch_device)
    mu = randomizer.world_friction
    return torch.where(torch.isnan(mu), torch.ones_like(mu), mu)
