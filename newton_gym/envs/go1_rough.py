"""Newton/Go1-Rough-v0: Unitree Go1 velocity tracking on rough terrain with a terrain-level curriculum (as
Isaac-Velocity-Rough-Unitree-Go1 and mjlab's rough velocity task).

The flat task's robot, servos, command, reward table and randomization (:mod:`.go1`, :mod:`.locomotion`),
on a generated terrain (:mod:`newton_gym.terrain`: stairs up and down, block grids, random roughness,
slopes up and down; ``configs/terrain_go1_rough.toml``'s mix, 10 levels x 20 columns of 8 m patches) shared
by every world, with a height scan of the ground around the base in the observations.

- terrain: one global heightfield (one copy, whatever the world count); the robot USD's own floor is
  disabled. By default the mix of Isaac Lab's rough Go1 task (:func:`task_terrain`): block grids of
  0.025-0.1 m and random roughness of 0.01-0.06 m, where ``configs/terrain_rough.toml``'s general mix has
  0.05-0.2 m and 0.02-0.10 m.
- spawn: each world on the platform of its patch: column = world index spread over the columns (Isaac Lab's
  terrain types), row = its terrain level; base 0.278 m above the platform, x, y U(-0.5, 0.5) m, yaw
  U(-pi, pi); then raised until no foot starts inside the terrain (:mod:`.spawn_clearance`: the reset's
  joint scaling stretches legs below the ground, and a foot inside the heightfield stays pinned by its
  prisms' side walls).
- command: the flat task's; with ``heading_command`` (Isaac Lab's; off by default, on in the recipe's second
  stage) the yaw rate instead steers toward a heading drawn per episode, U(-pi, pi): 0.5 x the heading error,
  clipped to [-1, 1] rad/s, every step.
- curriculum (Isaac Lab's rule, at each reset): a world that walked farther than half a patch (4 m) from its
  spawn moves one level up, one that walked less than half of what its command asked over an episode
  (|cmd_xy| 20 s / 2) one level down; past the top level it goes to a random level. Levels start in
  [0, ``max_init_level``].
- height scan: 17 x 11 rays on a 1.6 x 1.0 m grid at 0.1 m around the base (yaw-aligned), each clip(base z -
  ground z - 0.5, -1, 1) [m] (Isaac Lab's term); in the policy observation (``height_scan_policy``) and
  always in the critic's.
- observation (48 + 187): the flat task's 48 terms, then the height scan (noise U(-0.1, 0.1), Isaac Lab's; drawn
  in the scan's own launch, :mod:`.scan_observation`).
- critic observation (54 + 187): the flat critic's terms with the base height taken above the ground under
  the base, then the clean height scan.
- reward: the flat table (``feet_air_time`` 0.25, the flat task's: Isaac Lab's rough Go1 has 0.01, which left a
  one-hour CPU run standing still).
- info: ``info["task"]`` holds ``terrain_level``, the mean level of all worlds, and the flat task's
  ``lin_vel_error`` (0-d tensors), every step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from ..errors import ConfigError
from ..sim import ModelBuilder
from ..sim.types import GeoType
from .go1 import Go1Cfg, Go1Task

__all__ = ["Go1RoughCfg", "Go1RoughTask", "task_terrain"]

# WorldRng streams (locomotion uses 11-14, reset noise 1-2, the randomizer 3-5)
_SPAWN_STREAM = 21
_LEVEL_STREAM = 22
_HEADING_STREAM = 23
_SCAN_NOISE = 0.1  # [m] half width of the policy's height-scan noise (Isaac Lab's)
_SCAN_OFFSET = 0.5  # [m] subtracted from the base height above each ray's hit (Isaac Lab's)


@dataclass
class Go1RoughCfg(Go1Cfg):
    """Go1-Rough settings: the flat ones, the terrain, the curriculum and the height scan."""

    terrain: object = None  # a TOML path, table or TerrainCfg; None: Isaac Lab's Go1 mix (task_terrain)
    max_init_level: int = 5  # levels drawn in [0, max_init_level] at the start (at most the top level)
    curriculum: bool = True
    height_scan_policy: bool = True  # the scan in the policy observation too (Isaac Lab's rough tasks)
    scan_size: tuple = (1.6, 1.0)  # [m] x, y extent of the ray grid
    scan_resolution: float = 0.1  # [m]
    spawn_xy: float = 0.5  # [m] half width of the uniform spawn offset
    # The flat task's weight: Isaac Lab's rough Go1 uses 0.01 with ~150 M samples; with 0.01 a 256-world CPU
    # run stood still for 870 iterations (5.4 M steps: tracking error 0.55 m/s, every world back on level 0),
    # though that run's resets still left feet pinned inside the field (before .spawn_clearance).
    w_feet_air_time: float = 0.25
    # Isaac Lab's heading command (UniformVelocityCommand, heading_command=True): each episode draws a heading
    # U(-pi, pi) and the yaw-rate command is heading_stiffness x the heading error, clipped to command_wz.
    # Drawn yaw rates make the robot walk in circles, which the curriculum's distance rule seldom promotes
    # (scripts/rough_curriculum.py). Off by default, for the recipe's first stage (configs/train_go1_rough.toml):
    # from scratch, heading commands learned to walk slower (one CPU hour stood still for 1,100 iterations, another
    # left the plateau near 1,300); its second stage (train_go1_rough_heading.toml) turns them on.
    heading_command: bool = False
    heading_stiffness: float = 0.5


class Go1RoughTask(Go1Task):
    cfg_class = Go1RoughCfg

    def __init__(self, cfg):
        super().__init__(cfg)
        self.terrain = task_terrain(cfg.terrain)
        if isinstance(cfg.max_init_level, bool) or int(cfg.max_init_level) != cfg.max_init_level:
            raise ConfigError(f"max_init_level must be an integer level >= 0, got {cfg.max_init_level!r}")
        if cfg.max_init_level < 0:
            raise ConfigError(f"max_init_level must be an integer level >= 0, got {cfg.max_init_level}")
        # Isaac Lab's: no higher than the terrain's top level
        self.max_init_level = min(int(cfg.max_init_level), self.terrain.cfg.num_rows - 1)

    # ------------------------------------------------------------------ setup
    def build_robot(self):
        builder = super().build_robot()
        shapes = builder.tables["shape"]
        floors = np.nonzero((shapes.get("type") == int(GeoType.PLANE)) & (shapes.get("body") == -1))[0]
        for s in floors:  # the robot USD's floor: the terrain replaces it
            shapes.set("collide", int(s), False)
        return builder

    def add_static_scene(self, scene: ModelBuilder):
        self.terrain.add_to(scene, cfg=ModelBuilder.ShapeConfig(mu=1.0))

    def setup(self, robot, sim):
        from ..sensors import HeightScanner
        from .scan_observation import ScanObservation
        from .spawn_clearance import SpawnClearance

        super().setup(robot, sim)
        dev, n = sim.torch_device, sim.num_envs
        t = self.terrain
        self.origins = torch.as_tensor(t.origins, dtype=torch.float32, device=dev)  # (rows, cols, 3)
        self.num_levels, num_cols = t.origins.shape[:2]
        self.terrain_type = torch.div(torch.arange(n, device=dev) * num_cols, n, rounding_mode="floor")
        self.terrain_level = torch.zeros(n, dtype=torch.long, device=dev)
        self.spawn_xy = torch.zeros(n, 2, device=dev)
        self.root_xy = torch.zeros(n, 2, device=dev)  # the last step's root position, for the curriculum
        self._started = False
        base = sim.model.body_world_start.numpy()[:n] + self.base_index
        c = self.cfg
        self.scanner = HeightScanner(sim.model, base, size=tuple(c.scan_size), resolution=float(c.scan_resolution))
        self.clearance = SpawnClearance(sim.model, self.foot_index.tolist(), n)
        self.num_rays = self.scanner.num_rays
        # the height scan of the last observe(), clean (the critic's) and noisy (the policy's), (N, rays) [m]
        self.scan = ScanObservation(self.scanner, _SCAN_OFFSET, (-1.0, 1.0), _SCAN_NOISE, int(c.seed) + 7919)
        self.heading = torch.zeros(n, device=dev)  # (N,) each episode's target heading [rad]
        self.standing = torch.zeros(n, dtype=torch.bool, device=dev)  # (N,) the episode's command is zero
        # Whether the scanner's hits are the current state's, but for the worlds of _rescan (reset since),
        # so that the observation after a reset recasts the rays of the reset worlds only.
        self._scan_current = False
        self._rescan = None

    # ------------------------------------------------------------------ observations
    def observation_size(self) -> int:
        return super().observation_size() + (self.num_rays if self.cfg.height_scan_policy else 0)

    def critic_observation_size(self) -> int:
        return super().critic_observation_size() + self.num_rays

    def observe(self, sim):
        # The scan of this state, once: the critic's observation of the same state (which the env asks for
        # after the observation, outside the step's cached block) reads it back. After a reset of some worlds
        # (the step's observation already scanned the others' state) only theirs are recast.
        mask = self._rescan if self._scan_current else None
        self.scanner.update(sim.state, mask=mask)
        self.scan.update(mask)
        self._scan_current, self._rescan = True, None
        if self.cfg.heading_command:
            self._steer()
        obs = super().observe(sim)
        if not self.cfg.height_scan_policy:
            return obs
        return torch.cat([obs, self.scan.noisy if self.cfg.noise else self.scan.clean], dim=1)

    def critic_observe(self, sim):
        critic = super().critic_observe(sim)
        scan = self.scan.clean  # the last observe()'s
        # base height above the ground under the base: the centre ray's clip(z - ground - 0.5) + 0.5
        centre = self.num_rays // 2
        height_col = 12 + 3 * len(self.servos)
        critic[:, height_col] = scan[:, centre] + _SCAN_OFFSET
        return torch.cat([critic, scan], dim=1)

    def step_info(self, sim) -> dict:
        return {**super().step_info(sim), "terrain_level": self.terrain_level.float().mean()}

    def seed(self, seed: int):
        super().seed(seed)
        self.scan.seed(int(seed) + 7919)

    def pre_step(self, sim):
        self._scan_current = False  # the step moves every world
        return super().pre_step(sim)

    # ------------------------------------------------------------------ curriculum and spawn
    def reward_terms(self, sim, action, pre):
        self.root_xy.copy_(self.layout.qpos()[:, :2])
        return super().reward_terms(sim, action, pre)

    def _update_levels(self, mask):
        """Isaac Lab's terrain_levels_vel rule for the worlds of ``mask`` (their episode just ended)."""
        distance = (self.root_xy - self.spawn_xy).norm(dim=1)
        half_patch = 0.5 * float(self.terrain.cfg.size[0])
        episode_s = self.cfg.max_episode_steps * self.cfg.sim.sim_dt * self.cfg.sim.frame_skip
        up = distance > half_patch
        down = (distance < self.command[:, :2].norm(dim=1) * episode_s * 0.5) & ~up
        level = self.terrain_level + up.long() - down.long()
        past_top = level >= self.num_levels
        random_level = (self._rand(_LEVEL_STREAM, 1)[:, 0] * self.num_levels).long()
        level = torch.where(past_top, random_level, level.clamp(min=0))
        self.terrain_level = torch.where(mask, level, self.terrain_level)

    def spawn_lift(self, sim, mask):
        # a foot that starts inside the heightfield stays stuck in its prisms (.spawn_clearance)
        return self.clearance.lift(sim.state, mask)

    def _steer(self):
        """The yaw-rate command of every moving world: heading_stiffness x its heading error, clipped to
        command_wz (Isaac Lab's heading command); standing worlds keep 0."""
        q = self.layout.qpos()[:, 3:7]  # (w, x, y, z)
        yaw = torch.atan2(2.0 * (q[:, 0] * q[:, 3] + q[:, 1] * q[:, 2]), 1.0 - 2.0 * (q[:, 2] ** 2 + q[:, 3] ** 2))
        error = torch.remainder(self.heading - yaw + math.pi, 2.0 * math.pi) - math.pi
        lo, hi = (float(v) for v in self.cfg.command_wz)
        wz = (float(self.cfg.heading_stiffness) * error).clamp(lo, hi)
        self.command[:, 2] = torch.where(self.standing, torch.zeros_like(wz), wz)

    def reset_state(self, sim, mask, rng):
        super().reset_state(sim, mask, rng)
        if self.cfg.heading_command:
            heading = (2.0 * rng.uniform(_HEADING_STREAM, 1, mask)[:, 0] - 1.0) * math.pi
            self.heading = torch.where(mask, heading, self.heading)
            self.standing = torch.where(mask, (self.command == 0.0).all(dim=1), self.standing)
        if self._scan_current:
            self._rescan = mask.clone() if self._rescan is None else self._rescan | mask

    def spawn(self, qpos, mask, rng):
        if not self._started:
            first = (rng.uniform(_LEVEL_STREAM, 1, mask)[:, 0] * (self.max_init_level + 1)).long()
            self.terrain_level = torch.where(mask, first, self.terrain_level)
            self._started = True
        elif self.cfg.curriculum:
            self._update_levels(mask)
        origin = self.origins[self.terrain_level, self.terrain_type]  # (N, 3)
        u = rng.uniform(_SPAWN_STREAM, 3, mask)
        xy = origin[:, :2] + (2.0 * u[:, :2] - 1.0) * float(self.cfg.spawn_xy)
        yaw = (2.0 * u[:, 2] - 1.0) * math.pi
        qpos[:, 0:2] = xy
        qpos[:, 2] = qpos[:, 2] + origin[:, 2]
        qpos[:, 3] = torch.cos(0.5 * yaw)
        qpos[:, 4:6] = 0.0
        qpos[:, 6] = torch.sin(0.5 * yaw)
        self.spawn_xy = torch.where(mask[:, None], xy, self.spawn_xy)
        self.root_xy = torch.where(mask[:, None], xy, self.root_xy)


def task_terrain(source=None):
    """The generated terrain of the task's ``terrain`` setting: a TOML path or a TerrainCfg as given; a table
    over the defaults; None the defaults. Where neither names ``sub_terrains``, the mix is Isaac Lab's rough
    Go1 one (:func:`newton_gym.terrain.go1_rough_sub_terrains`: lower block grids and roughness than the
    ``ROUGH_TERRAINS_CFG`` of ``configs/terrain_rough.toml``)."""
    import dataclasses

    from ..terrain import generate_terrain, go1_rough_sub_terrains, load_terrain_config

    cfg = load_terrain_config(source)
    if source is None or (isinstance(source, dict) and "sub_terrains" not in source):
        cfg = dataclasses.replace(cfg, sub_terrains=go1_rough_sub_terrains())
    return generate_terrain(cfg)
