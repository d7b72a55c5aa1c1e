"""NewtonVectorEnv: a Gymnasium VectorEnv stepping N worlds of one model, with torch tensors.

Autoreset follows Gymnasium's ``autoreset_mode`` (:mod:`newton_gym.envs.autoreset`): SAME_STEP by default,
NEXT_STEP or DISABLED on request (``gym.make_vec(id, n, autoreset_mode="next_step")``); the instance's
``metadata["autoreset_mode"]`` says which. In a step where some world finished (in every step when
``sync_free``), ``info`` holds, as (N, ...) torch tensors with a bool mask beside each key (the masks of one
step may be one shared tensor: read them, do not write them):

- ``final_obs`` (N, obs) last observation of the finished episode (0 elsewhere), ``_final_obs`` (N,);
- ``final_info`` the finished step's per-world info (``reward_terms``), ``_final_info`` (N,);
- ``newton_episode`` = {"r": return, "l": length, "t": wall time [s], and "_r" / "_l" / "_t"},
  ``_newton_episode`` (N,): the env's own episode statistics, under a key of its own so that Gymnasium's
  ``RecordEpisodeStatistics`` (which writes ``episode``) can wrap the env.

``final_obs`` and ``final_info`` are SAME_STEP keys only. Every step's ``info`` holds ``reward_terms`` (named
(N,) terms), ``nan_actions`` (0-d count of worlds whose action was non-finite) and ``unhealthy_worlds`` (0-d
count of worlds terminated because their state or reward went non-finite). No NaN reaches an observation,
reward or final observation: non-finite entries are zeroed and the world is terminated (and reset as its
autoreset mode says).

On CUDA a sync-free step is one CUDA graph (``graph`` setting, :mod:`newton_gym.envs.step_graph`):
captured in the first step, replayed in every later one; its returned tensors are fresh each step.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..errors import ConfigError, EnvError, EnvTypeError
from .autoreset import autoreset_mode_from
from .config import apply_overrides, config_from
from .finite import finite_rows, zero_nonfinite
from .randomization import Randomizer
from .simulation import Simulation
from .step_graph import make_step_graph
from .world_rng import WorldRng

__all__ = ["NewtonVectorEnv"]

_NAN_POLICIES = ("raise", "zero", "clip")
_INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


class NewtonVectorEnv(VectorEnv):
    """N copies of a task stepped as N worlds of one Model.

    Args:
        task_class: a :class:`~newton_gym.envs.task.Task` subclass.
        num_envs: number of worlds.
        device: Warp device ("cpu", "cuda:0"); tensors live on the matching torch device.
        config: task config overrides: a dict, a TOML path or a config instance (unknown keys are errors).
        max_episode_steps: overrides the config's episode length.
        render_mode: None or "rgb_array": :meth:`render` gives world 0's frame, :meth:`render_frames` one
            frame per world.
        autoreset_mode: an AutoresetMode or its name ("same_step", "next_step", "disabled"); see
            :mod:`newton_gym.envs.autoreset`.
        render_width, render_height: size of a rendered frame [pixels].
        **overrides: further config fields, e.g. ``seed=3`` or ``randomization={"gravity_z": (-10, -1)}``.

    Observations, rewards, terminations and truncations are torch tensors on the device; actions may be
    torch tensors or numpy arrays of shape (num_envs, action_size).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["rgb_array"]}

    def __init__(
        self,
        task_class,
        num_envs: int = 1,
        device=None,
        config=None,
        max_episode_steps=None,
        render_mode=None,
        autoreset_mode=AutoresetMode.SAME_STEP,
        render_width: int = 320,
        render_height: int = 240,
        **overrides,
    ):
        num_envs = _positive_int(num_envs, "num_envs", "number of worlds")
        self.autoreset_mode = autoreset_mode_from(autoreset_mode)
        self._render_size = (
            _positive_int(render_width, "render_width", "pixels"),
            _positive_int(render_height, "render_height", "pixels"),
        )
        cfg = config_from(task_class.cfg_class, config)
        if max_episode_steps is not None:
            overrides["max_episode_steps"] = int(max_episode_steps)
        cfg = apply_overrides(cfg, overrides)
        if cfg.nan_action not in _NAN_POLICIES:
            raise ConfigError(f"nan_action must be one of {_NAN_POLICIES}, got {cfg.nan_action!r}")
        if render_mode not in (None, "rgb_array"):
            raise ConfigError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.cfg = cfg
        self.render_mode = render_mode
        self.task = task_class(cfg)
        robot = self.task.build_robot()
        self.sim = Simulation(
            robot, self.task.actuators, num_envs, cfg.sim, device, self.task.ground_friction, self.task.add_static_scene
        )
        self.task.setup(robot, self.sim)
        self.num_envs = num_envs
        self.device = self.sim.torch_device
        self.metadata = dict(
            type(self).metadata, autoreset_mode=self.autoreset_mode, render_fps=int(round(1.0 / self.sim.dt))
        )
        self.single_action_space = self.task.action_space()
        self.single_observation_space = self.task.observation_space()
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        # bounds in float64 too: a float64 action beyond float32's range is clipped before the cast
        # (an unbounded action is clipped to float32's largest value, so it stays finite after the cast)
        f32 = float(np.finfo(np.float32).max)
        low, high = (np.clip(b, -f32, f32) for b in (self.single_action_space.low, self.single_action_space.high))
        self._bounds = {  # (low, high) by the checked action's dtype
            dtype: tuple(torch.as_tensor(b, dtype=dtype, device=self.device) for b in (low, high))
            for dtype in (torch.float32, torch.float64)
        }
        self.rng = WorldRng(cfg.seed, self.num_envs, self.device)
        self.randomizer = Randomizer(cfg.randomization, self.sim)
        self.task.randomizer = self.randomizer  # privileged observations may report the sampled physics
        self.episode_length = torch.zeros(self.num_envs, dtype=torch.long, device=self.device)
        self.episode_return = torch.zeros(self.num_envs, dtype=torch.float32, device=self.device)
        self.episode_start = torch.zeros(self.num_envs, dtype=torch.float64, device=self.device)
        # the wall clock [s] as a device tensor, filled before each step: a captured step reads it there
        self._clock = time.perf_counter
        self._now = torch.zeros((), dtype=torch.float64, device=self.device)
        self._all = torch.ones(self.num_envs, dtype=torch.bool, device=self.device)
        # (N,) worlds whose episode ended in the last step and that are not reset yet (NEXT_STEP, DISABLED),
        # and whether any could be (a host bool, kept where the step reads ``done`` back anyway)
        self._ended = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)
        self._ended_any = False
        self.sync_free = self.sim.device.is_cuda if cfg.sync_free is None else bool(cfg.sync_free)
        self._renderer = None
        self._now.fill_(self._clock())
        self._reset_worlds(self._all)
        self.step_graph = make_step_graph(self, cfg.graph)

    # ------------------------------------------------------------------ raw state (zero-copy)
    body_q = property(lambda self: self.sim.views.body_q, doc="(N, bodies, 7) body-origin poses (p, quat xyzw)")
    body_qd = property(
        lambda self: self.sim.views.body_qd, doc="(N, bodies, 6) COM twists, world frame, linear first [m/s, rad/s]"
    )
    joint_q = property(lambda self: self.sim.views.joint_q, doc="(N, coords) joint coordinates")
    joint_qd = property(lambda self: self.sim.views.joint_qd, doc="(N, dofs) joint velocities")

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed=None, options=None):
        """Reset all worlds, or those of ``options["reset_mask"]`` ((N,) bool); returns (obs, info)."""
        if seed is not None:
            self.rng.seed(seed)
            self.task.seed(seed)
            if self.step_graph is not None:
                self.step_graph.invalidate()  # the seed is a constant of the captured step
        mask = self._all
        if options and "reset_mask" in options:
            mask = self._reset_mask(options["reset_mask"])
        self._now.fill_(self._clock())
        if self.step_graph is None:
            self._reset_worlds(mask)
        else:
            with self.step_graph.kept():  # state the graph reads stays in the tensors it captured
                self._reset_worlds(mask)
        return self._observe(), {}

    def step(self, actions):
        action, nan_rows = self._check_action(actions)
        if self.autoreset_mode is AutoresetMode.DISABLED and not self.sync_free and self._ended_any:
            self._check_reset_done()
        self._now.fill_(self._clock())  # a kernel argument, no host sync
        if self.step_graph is not None:
            return self.step_graph.step(action, nan_rows)
        return self._step(action, nan_rows)

    def _step(self, action, nan_rows):
        """The step after the action check: what :class:`.step_graph.StepGraph` captures when sync_free."""
        self.sim.ctrl.copy_(self.task.ctrl_from_action(action))
        pre = self.task.pre_step(self.sim)
        self.sim.step()
        with self.task.layout.cached():  # qpos / qvel / health computed once for obs, reward and termination
            obs = self.task.observe(self.sim).float()
            terms = self.task.reward_terms(self.sim, action, pre)
            terminated = self.task.terminated(self.sim)
            task_info = self.task.step_info(self.sim)
        terms = {name: term.float() for name, term in terms.items()}
        stacked = torch.stack(list(terms.values()))  # (terms, N): one op masks them all
        reward = stacked.sum(dim=0)
        # A world whose state, observation or reward went non-finite ends its episode here; its non-finite
        # entries are zeroed so that no NaN reaches obs, reward, final_obs or the episode return (a finite
        # reward has finite terms: their sum would not be). Unless sync_free (the step reads done back below
        # anyway), the zeroing is skipped in the usual step whose numbers are all finite.
        finite = finite_rows(obs, reward)
        unhealthy = (self.sim.unhealthy != 0) | ~finite
        if self.sync_free or not bool(finite.all()):
            obs, reward, stacked = zero_nonfinite(obs), zero_nonfinite(reward), zero_nonfinite(stacked)
            terms = dict(zip(terms, stacked.unbind(0)))
        terminated = terminated | unhealthy
        self.episode_length += 1
        self.episode_return += reward
        truncated = (self.episode_length >= self.cfg.max_episode_steps) & ~terminated
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:  # worlds that ended last step are reset, not stepped
            live = ~self._ended
            terminated, truncated, unhealthy = terminated & live, truncated & live, unhealthy & live
            reward, stacked = torch.where(live, reward, 0.0), torch.where(live, stacked, 0.0)
            terms = dict(zip(terms, stacked.unbind(0)))
            obs = self._reset_ended(obs)
        # Counts stay 0-d tensors on the device; int() them when needed.
        info = {"reward_terms": terms, "nan_actions": nan_rows, "unhealthy_worlds": unhealthy.sum()}
        if task_info:
            info["task"] = task_info
        done = terminated | truncated
        same_step = self.autoreset_mode is AutoresetMode.SAME_STEP
        # Unless sync_free, one host sync per step: the reset work and the end-of-episode info are skipped
        # in the (most) steps where no world finished, as Gymnasium's vector envs leave those keys out then.
        ended_any = self.sync_free or bool(done.any())
        if ended_any:
            self._end_episodes(done, obs, terms, stacked, info, final=same_step)
            if same_step:
                self._reset_worlds(done)
                obs = torch.where(done[:, None], self._observe(), obs)
        if not same_step:
            self._ended.copy_(done)
            self._ended_any = ended_any
        return obs, reward, terminated, truncated, info

    def _reset_ended(self, obs: torch.Tensor) -> torch.Tensor:
        """NEXT_STEP: reset the worlds whose episode ended in the previous step; ``obs`` (N, obs) with their rows
        replaced by the new episodes' first observations."""
        if not (self.sync_free or self._ended_any):
            return obs
        ended = self._ended.clone()
        self._reset_worlds(ended)
        return torch.where(ended[:, None], self._observe(), obs)

    def _observe(self) -> torch.Tensor:
        """(N, obs) float32 observation of the current state, non-finite entries zeroed (qpos / qvel read
        once)."""
        with self.task.layout.cached():
            return zero_nonfinite(self.task.observe(self.sim).float())

    def _check_reset_done(self):
        """DISABLED: refuse a step while a world whose episode ended has not been reset (Gymnasium's
        SyncVectorEnv asserts the same)."""
        if bool(self._ended.any()):
            worlds = torch.nonzero(self._ended).reshape(-1)[:8].tolist()
            raise EnvError(
                f"autoreset_mode is DISABLED and the episodes of worlds {worlds} ended: reset them first with "
                "env.reset(options={'reset_mask': terminated | truncated})"
            )
        self._ended_any = False

    def critic_observation(self) -> torch.Tensor | None:
        """(N, critic obs) privileged observation of the current state (after autoreset, so it matches the
        observation the last ``reset`` / ``step`` returned), or None when the task defines none."""
        value = self.task.critic_observe(self.sim)
        return None if value is None else zero_nonfinite(value.float())

    def render(self):
        """(H, W, 3) uint8 frame of world 0 (None unless render_mode is "rgb_array"); :meth:`render_frames`
        gives every world's, as Gymnasium's vector envs' ``render()`` does."""
        frames = self.render_frames([0])
        return None if frames is None else frames[0]

    def render_frames(self, worlds=None) -> tuple[np.ndarray, ...] | None:
        """One (render_height, render_width, 3) uint8 frame per world of ``worlds`` (indices; None: all), each
        from a camera tracking that world's root; None unless render_mode is "rgb_array"."""
        if self.render_mode != "rgb_array":
            return None
        from ..render import Camera, RayCaster

        if self._renderer is None:
            width, height = self._render_size
            self._renderer = RayCaster(self.sim.model, width=width, height=height)
        worlds = range(self.num_envs) if worlds is None else [int(w) for w in worlds]
        roots = self.task.layout.root_pose()[:, :3].cpu().numpy()
        return tuple(
            self._renderer.render(
                self.sim.state,
                world=w,
                camera=Camera.tracking(roots[w], distance=4.0, elevation_deg=25.0, azimuth_deg=45.0),
            )
            for w in worlds
        )

    def close(self, **kwargs):
        self._renderer = None

    # ------------------------------------------------------------------ internals
    def _check_action(self, actions):
        """(N, action) float32 actions inside the action space, and the 0-d count of non-finite rows.
        Non-float32 input is clipped in float64 before the cast, so 1e39 becomes the bound, not inf."""
        a = _action_tensor(actions)
        a = a.to(device=self.device, dtype=torch.float32 if a.dtype == torch.float32 else torch.float64)
        if a.shape != (self.num_envs,) + self.single_action_space.shape:
            raise EnvError(
                f"actions must have shape {(self.num_envs,) + self.single_action_space.shape}, got {tuple(a.shape)}"
            )
        bad_rows = ~finite_rows(a)
        policy = self.cfg.nan_action
        if policy == "raise":
            if bool(bad_rows.any()):  # a host sync, only in "raise" mode
                rows = torch.nonzero(bad_rows).reshape(-1)[:8].tolist()
                raise EnvError(f"non-finite actions in envs {rows}; set nan_action='zero' or 'clip' to repair")
        elif policy == "zero":
            a = torch.nan_to_num(a, nan=0.0, posinf=0.0, neginf=0.0)
        else:
            a = torch.nan_to_num(a, nan=0.0)
        low, high = self._bounds[a.dtype]
        return torch.clamp(a, low, high).to(torch.float32), bad_rows.sum()

    def _reset_mask(self, value) -> torch.Tensor:
        mask = value if torch.is_tensor(value) else torch.as_tensor(np.asarray(value))
        if mask.dtype != torch.bool or mask.shape != (self.num_envs,):
            raise EnvError(
                f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), got "
                f"{mask.dtype} {tuple(mask.shape)}"
            )
        return mask.to(self.device)

    def _end_episodes(self, done, obs, terms, stacked, info, final: bool):
        """Add the finished worlds' episode statistics to ``info``, and with ``final`` (SAME_STEP) their final
        observation and final step info (``stacked``: the named ``terms`` as one (terms, N) tensor).
        The bool mask beside each key is one tensor, ``done``'s copy, shared by all of them."""
        mask = done.clone()
        if final:
            info["final_obs"] = torch.where(done[:, None], obs, 0.0)
            info["_final_obs"] = mask
            final_terms = dict(zip(terms, torch.where(done, stacked, 0.0).unbind(0)))
            final_terms.update({f"_{name}": mask for name in terms})
            info["final_info"] = {"reward_terms": final_terms, "_reward_terms": mask}
            info["_final_info"] = mask
        elapsed = self._now - self.episode_start
        info["newton_episode"] = {
            "r": torch.where(done, self.episode_return, 0.0),
            "l": torch.where(done, self.episode_length, 0),
            "t": torch.where(done, elapsed, 0.0),
            "_r": mask,
            "_l": mask,
            "_t": mask,
        }
        info["_newton_episode"] = mask

    def _reset_worlds(self, mask):
        # forward kinematics once, after the task has written the new joint state
        self.sim.reset_worlds(mask, kinematics=False)
        self.randomizer.apply(mask, self.rng)
        self.task.reset_state(self.sim, mask, self.rng)
        self.rng.advance(mask)
        self.episode_length.masked_fill_(mask, 0)  # no index list, no host sync
        self.episode_return.masked_fill_(mask, 0.0)
        self.episode_start.copy_(torch.where(mask, self._now, self.episode_start))
        self._ended.masked_fill_(mask, False)


def _positive_int(value, name: str, unit: str) -> int:
    """``value`` as an int >= 1, else ConfigError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ConfigError(f"{name} must be an integer >= 1 ({unit}), got {value!r}")
    return int(value)


def _action_tensor(actions) -> torch.Tensor:
    """Actions as a torch tensor of real numbers (any float or integer dtype)."""
    if torch.is_tensor(actions):
        a = actions
    else:
        try:
            arr = np.asarray(actions)
        except (ValueError, TypeError) as exc:  # ragged nested lists, unconvertible objects
            raise EnvError(f"actions must be an array of numbers: {exc}") from None
        if arr.dtype.kind not in "iuf":
            raise EnvTypeError(f"actions must hold real numbers (float or int), got numpy dtype {arr.dtype}")
        a = torch.as_tensor(arr)
    if not (a.is_floating_point() or a.dtype in _INT_DTYPES):  # bool, complex, quantized
        raise EnvTypeError(f"actions must hold real numbers (float or int), got torch dtype {a.dtype}")
    return a
