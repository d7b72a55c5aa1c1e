"""NewtonVectorEnv: a Gymnasium VectorEnv stepping N worlds of one model, with torch tensors.

Autoreset is Gymnasium's SAME_STEP mode: a world that terminates or truncates is reset inside the same
``step()``; the returned observation is the new episode's first, and the last one of the finished
episode is in ``info["final_obs"]`` with ``info["_final_obs"]`` marking which rows hold one.
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..errors import ConfigError
from .config import apply_overrides, config_from
from .randomization import Randomizer
from .simulation import Simulation

__all__ = ["NewtonVectorEnv"]

_NAN_POLICIES = ("raise", "zero", "clip")


class NewtonVectorEnv(VectorEnv):
    """N copies of a task stepped as N worlds of one Model.

    Args:
        task_class: a :class:`~newton_gym.envs.task.Task` subclass.
        num_envs: number of worlds.
        device: Warp device ("cpu", "cuda:0"); tensors live on the matching torch device.
        config: task config overrides: a dict, a TOML path or a config instance (unknown keys are errors).
        max_episode_steps: overrides the config's episode length.
        render_mode: None or "rgb_array" (renders world 0).
        **overrides: further config fields, e.g. ``seed=3`` or ``randomization={"gravity_z": (-10, -1)}``.

    Observations, rewards, terminations and truncations are torch tensors on the device; actions may be
    torch tensors or numpy arrays of shape (num_envs, action_size).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, task_class, num_envs: int = 1, device=None, config=None, max_episode_steps=None,
                 render_mode=None, **overrides):
        cfg = config_from(task_class.cfg_class, config)
        if max_episode_steps is not None:
            overrides["max_episode_steps"] = int(max_episode_steps)
        cfg = apply_overrides(cfg, overrides)
        if cfg.nan_action not in _NAN_POLICIES:
            raise ConfigError(f"nan_action must be one of {_NAN_POLICIES}, got {cfg.nan_action!r}")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.cfg = cfg
        self.render_mode = render_mode
        self.task = task_class(cfg)
        robot = self.task.build_robot()
        self.sim = Simulation(robot, self.task.actuators, num_envs, cfg.sim, device, self.task.ground_friction)
        self.task.setup(robot, self.sim)
        self.num_envs = int(num_envs)
        self.device = self.sim.torch_device
        self.single_action_space = self.task.action_space()
        self.single_observation_space = self.task.observation_space()
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._low = torch.as_tensor(self.single_action_space.low, device=self.device)
        self._high = torch.as_tensor(self.single_action_space.high, device=self.device)
        self.generator = torch.Generator().manual_seed(int(cfg.seed))
        self.randomizer = Randomizer(cfg.randomization, self.sim, self.generator)
        self.episode_length = torch.zeros(self.num_envs, dtype=torch.long, device=self.device)
        self.episode_return = torch.zeros(self.num_envs, dtype=torch.float32, device=self.device)
        self._all = torch.ones(self.num_envs, dtype=torch.bool, device=self.device)
        self._renderer = None
        self._reset_worlds(self._all)

    # ------------------------------------------------------------------ raw state (zero-copy)
    body_q = property(lambda self: self.sim.views.body_q, doc="(N, bodies, 7) body-origin poses (p, quat xyzw)")
    body_qd = property(lambda self: self.sim.views.body_qd,
                       doc="(N, bodies, 6) COM twists, world frame, linear first [m/s, rad/s]")
    joint_q = property(lambda self: self.sim.views.joint_q, doc="(N, coords) joint coordinates")
    joint_qd = property(lambda self: self.sim.views.joint_qd, doc="(N, dofs) joint velocities")

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed=None, options=None):
        """Reset all worlds, or those of ``options["reset_mask"]`` ((N,) bool); returns (obs, info)."""
        if seed is not None:
            self.generator.manual_seed(int(seed))
        mask = self._all
        if options and "reset_mask" in options:
            mask = torch.as_tensor(np.asarray(options["reset_mask"]) if not torch.is_tensor(options["reset_mask"])
                                   else options["reset_mask"], dtype=torch.bool, device=self.device)
            if mask.shape != (self.num_envs,):
                raise ValueError(f"options['reset_mask'] must have shape ({self.num_envs},), got {tuple(mask.shape)}")
        self._reset_worlds(mask)
        return self.task.observe(self.sim).float(), {}

    def step(self, actions):
        action, nan_rows = self._check_action(actions)
        self.sim.ctrl.copy_(action)
        pre = self.task.pre_step(self.sim)
        self.sim.step()
        with self.task.layout.cached():  # qpos / qvel / health computed once for obs, reward and termination
            obs = self.task.observe(self.sim).float()
            terms = self.task.reward_terms(self.sim, action, pre)
            terminated = self.task.terminated(self.sim)
        reward = torch.stack(list(terms.values())).sum(dim=0).float()
        unhealthy = self.sim.unhealthy != 0
        terminated = terminated | unhealthy
        self.episode_length += 1
        self.episode_return += reward
        truncated = (self.episode_length >= self.cfg.max_episode_steps) & ~terminated
        # Counts stay 0-d tensors on the device (no host sync); int() them when needed.
        info = {"reward_terms": terms, "nan_actions": nan_rows, "unhealthy_worlds": unhealthy.sum()}
        done = terminated | truncated
        if bool(done.any()):
            info["final_obs"] = torch.where(done[:, None], obs, torch.zeros_like(obs))
            info["_final_obs"] = done.clone()
            info["episode"] = {"r": self.episode_return.clone(), "l": self.episode_length.clone(), "_r": done.clone()}
            self._reset_worlds(done)
            obs = torch.where(done[:, None], self.task.observe(self.sim).float(), obs)
        return obs, reward, terminated, truncated, info

    def render(self):
        if self.render_mode != "rgb_array":
            return None
        from ..render import Camera, RayCaster

        if self._renderer is None:
            self._renderer = RayCaster(self.sim.model, width=320, height=240)
        root = self.task.layout.root_pose()[0, :3].cpu().numpy()
        return self._renderer.render(self.sim.state, world=0,
                                     camera=Camera.tracking(root, distance=4.0, elevation_deg=25.0, azimuth_deg=45.0))

    def close(self, **kwargs):
        self._renderer = None

    # ------------------------------------------------------------------ internals
    def _check_action(self, actions):
        a = actions if torch.is_tensor(actions) else torch.as_tensor(np.asarray(actions))
        a = a.to(device=self.device, dtype=torch.float32)
        if a.shape != (self.num_envs,) + self.single_action_space.shape:
            raise ValueError(f"actions must have shape {(self.num_envs,) + self.single_action_space.shape}, "
                             f"got {tuple(a.shape)}")
        bad_rows = (~torch.isfinite(a)).any(dim=1)
        policy = self.cfg.nan_action
        if policy == "raise":
            if bool(bad_rows.any()):  # the only host sync here, and only in "raise" mode
                rows = torch.nonzero(bad_rows).reshape(-1)[:8].tolist()
                raise ValueError(f"non-finite actions in envs {rows}; set nan_action='zero' or 'clip' to repair")
        elif policy == "zero":
            a = torch.nan_to_num(a, nan=0.0, posinf=0.0, neginf=0.0)
        else:
            a = torch.nan_to_num(a, nan=0.0)
        nan_rows = bad_rows.sum()
        return torch.maximum(torch.minimum(a, self._high), self._low), nan_rows

    def _reset_worlds(self, mask):
        self.sim.reset_worlds(mask)
        self.randomizer.apply(mask)
        self.task.reset_state(self.sim, mask, self.generator)
        self.episode_length.masked_fill_(mask, 0)  # no index list, no host sync
        self.episode_return.masked_fill_(mask, 0.0)
