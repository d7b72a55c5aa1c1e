"""The viewer's loop: N worlds of a task stepped by a policy in real time, drawn by a SceneServer, with
browser controls (world picker, play / pause, single step, reset, speed).

The environment is stepped only by the thread that calls :meth:`Viewer.run`; the browser's controls run
on viser's threads and merely set flags the loop reads.
"""

from __future__ import annotations

import threading
import time

import torch

from ..errors import ConfigError, ViewError
from .policy import LoadedPolicy, PolicyFollower, load_checkpoint_policy, zero_policy
from .scene import ViewScene
from .server import SceneServer

__all__ = ["Viewer", "DEFAULT_TASK"]

DEFAULT_TASK = "Newton/Ant-v0"
_ALL = "all"


class Viewer:
    """A live browser view of ``num_envs`` worlds of ``task``.

    Args:
        task: task id; default the checkpoint's task, else ``DEFAULT_TASK``.
        num_envs: worlds to simulate and show, >= 1.
        checkpoint: a skrl or rsl_rl checkpoint of ``newton-gym train`` whose deterministic policy acts;
            None (and no ``follow``): zero actions.
        follow: a training run's directory; its newest checkpoint is loaded and reloaded when a newer
            one appears (checked every ``follow_every`` seconds).
        host, port: where the page is served (see :class:`~newton_gym.view.server.SceneServer`).
        device: Warp device of the simulation.
        seed: reset seed.
        spacing: [m] distance between worlds on the layout grid (None: from the robot's size).
        follow_every: [s] between two looks for a newer checkpoint.
        log: prints status lines.

    Attributes:
        env: the task's NewtonVectorEnv.
        view: the SceneServer.
        policy: the LoadedPolicy acting now.
        steps: control steps taken since the start.
        body_q: (body_count, 7) numpy body poses last drawn.
        playing: whether :meth:`run` advances the simulation.
        speed: simulated seconds per wall-clock second that :meth:`run` aims for.
    """

    def __init__(
        self,
        task: str | None = None,
        num_envs: int = 4,
        checkpoint: str | None = None,
        follow: str | None = None,
        host: str = "127.0.0.1",
        port: int = 8080,
        device: str = "cpu",
        seed: int = 0,
        spacing: float | None = None,
        follow_every: float = 5.0,
        log=print,
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ViewError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if checkpoint is not None and follow is not None:
            raise ViewError("give either checkpoint or follow, not both")
        self.log = log
        self.follower = PolicyFollower(follow, log=log) if follow is not None else None
        self.follow_every = float(follow_every)
        loaded = load_checkpoint_policy(checkpoint) if checkpoint is not None else None
        if self.follower is not None:
            loaded = self.follower.poll()
        self.task = task or (loaded.meta.get("task") if loaded else None) or DEFAULT_TASK
        self.env = _make_env(self.task, num_envs, device, seed, loaded.meta if loaded else {})
        try:
            self.action_size = int(self.env.single_action_space.shape[0])
            self.policy = zero_policy(self.action_size)
            if loaded is not None:
                self._use(loaded)
            scene = ViewScene(self.env.sim.model, spacing=spacing)
            self.view = SceneServer(scene, host, port, f"newton_gym: {self.task}")
        except BaseException:
            self.env.close()
            raise
        self.seed, self.steps, self.playing, self.speed = seed, 0, True, 1.0
        self._stop = threading.Event()
        self._step_once = self._reset = False
        self._add_controls()
        self.obs, _ = self.env.reset(seed=seed)
        self._draw()

    # ---------------------------------------------------------------- public
    @property
    def url(self) -> str:
        """Address of the page."""
        return self.view.url

    def step(self) -> None:
        """One control step of every world under the current policy; the browsers see the new poses."""
        with torch.no_grad():
            actions = self.policy.act(self.obs)
        self.obs, _, _, _, _ = self.env.step(actions)
        self.steps += 1
        self._draw()
        self._status.content = self._status_text()

    def reset(self) -> None:
        """Reset every world (seeded as at the start)."""
        self.obs, _ = self.env.reset(seed=self.seed)
        self._draw()

    def run(self, max_steps: int | None = None) -> None:
        """Step in real time (times ``speed``) while playing, until :meth:`stop` or ``max_steps`` steps."""
        dt = float(self.env.sim.dt)
        next_poll = time.monotonic() + self.follow_every
        while not self._stop.is_set() and (max_steps is None or self.steps < max_steps):
            start = time.monotonic()
            if self.follower is not None and start >= next_poll:
                next_poll = start + self.follow_every
                loaded = self.follower.poll()
                if loaded is not None:
                    try:
                        self._use(loaded)
                    except ConfigError as exc:  # a checkpoint of another task: keep the policy in use
                        self.log(f"newton-gym view: {exc}")
            if self._reset:
                self._reset = False
                self.reset()
            if self.playing or self._step_once:
                self._step_once = False
                self.step()
            period = dt / self.speed if self.playing else 0.05
            self._stop.wait(max(0.0, period - (time.monotonic() - start)))

    def stop(self) -> None:
        """Make :meth:`run` return after its current step (callable from any thread)."""
        self._stop.set()

    def close(self) -> None:
        """Stop the server and close the environment."""
        self.stop()
        self.view.close()
        self.env.close()

    # ---------------------------------------------------------------- internals
    def _use(self, loaded: LoadedPolicy) -> None:
        size = loaded.meta.get("action_size")
        if size is not None and int(size) != self.action_size:
            raise ConfigError(
                f"checkpoint {loaded.source!r} acts with {size} actions, task {self.task!r} takes {self.action_size}"
            )
        self.policy = loaded
        if hasattr(self, "_status"):  # not yet during __init__
            self._status.content = self._status_text()

    def _draw(self) -> None:
        self.body_q = self.env.sim.state.body_q.numpy()
        self.view.update(self.body_q)
        if self.view.world is not None:  # the camera tracks the picked world's robot
            self.view.focus(self.view.world, self.body_q)

    def _status_text(self) -> str:
        follow = f" (following `{self.follower.run_dir}`)" if self.follower is not None else ""
        return (
            f"**{self.task}**, {self.env.num_envs} world(s)  \n"
            f"policy: `{self.policy.source}`{follow}  \n"
            f"step {self.steps} ({self.steps * float(self.env.sim.dt):.1f} s)"
        )

    def _add_controls(self) -> None:
        gui = self.view.server.gui
        self._status = gui.add_markdown(self._status_text())
        worlds = gui.add_dropdown("World", [_ALL] + [str(w) for w in range(self.view.scene.world_count)])
        play = gui.add_button("Pause")
        step = gui.add_button("Step")
        reset = gui.add_button("Reset")
        speed = gui.add_slider("Speed", min=0.1, max=4.0, step=0.1, initial_value=1.0)

        @worlds.on_update
        def _(_event) -> None:
            world = None if worlds.value == _ALL else int(worlds.value)
            self.view.highlight(world)
            self.view.focus(world, self.body_q)

        @play.on_click
        def _(_event) -> None:
            self.playing = not self.playing
            play.label = "Pause" if self.playing else "Play"

        @step.on_click
        def _(_event) -> None:
            self._step_once = True

        @reset.on_click
        def _(_event) -> None:
            self._reset = True

        @speed.on_update
        def _(_event) -> None:
            self.speed = float(speed.value)


def _make_env(task: str, num_envs: int, device: str, seed: int, meta: dict):
    """The task's vector env, with the task settings the checkpoint was trained with."""
    import gymnasium as gym

    import newton_gym  # noqa: F401  (registers the task ids)

    overrides = dict(meta.get("train_config", {}).get("env", {}))
    overrides["seed"] = seed
    return gym.make_vec(task, num_envs=num_envs, device=device, **overrides)
