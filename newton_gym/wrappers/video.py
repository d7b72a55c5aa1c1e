"""RecordVideo over a newton_gym vector env: clips of every world's frames, tiled into one, written as MP4 or GIF."""

from __future__ import annotations

import gc
import math
import os
import warnings

import numpy as np
from gymnasium.vector import AutoresetMode, VectorWrapper

from ..errors import WrapperError
from .common import autoreset_mode_of

__all__ = ["RecordVideo", "capped_cubic_schedule"]

_FORMATS = ("mp4", "gif")


def capped_cubic_schedule(episode: int) -> bool:
    """Whether the default schedule records ``episode``: the perfect cubes 0, 1, 8, 27, ... below 1000, then
    every 1000th episode (Gymnasium's default)."""
    if episode >= 1000:
        return episode % 1000 == 0
    return round(episode ** (1.0 / 3.0)) ** 3 == episode


def _grid(count: int, height: int, width: int, aspect: tuple) -> tuple[int, int]:
    """(rows, cols) with rows * cols == count whose tiled width / height is nearest ``aspect`` (w, h)."""
    target = aspect[0] / aspect[1]
    shapes = [(rows, count // rows) for rows in range(1, count + 1) if count % rows == 0]
    return min(shapes, key=lambda rc: abs(rc[1] * width / (rc[0] * height) - target))


def _tile(frames: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(rows * H, cols * W, C) image of (rows * cols, H, W, C) frames, row by row."""
    _, h, w, c = frames.shape
    return frames.reshape(rows, cols, h, w, c).transpose(0, 2, 1, 3, 4).reshape(rows * h, cols * w, c)


class RecordVideo(VectorWrapper):
    """Gymnasium's vector ``RecordVideo`` for newton_gym's envs, torch or numpy, without moviepy.

    Same arguments and schedule as Gymnasium's: a clip starts at an episode of world 0 where
    ``episode_trigger(episode_id)`` holds (an episode starts at a full reset, a reset whose mask holds world 0,
    and where the autoreset mode restarts world 0: in the step that ended it under SAME_STEP, in the next one
    under NEXT_STEP) or at a step where ``step_trigger(step_id)`` holds; it holds the frame of the reset or step
    that started it and one per step after, and ends at the next episode start (``video_length`` 0) or after
    ``video_length`` more frames. Each frame tiles every world's frame (world 0's alone with
    ``record_first_only``) into a grid whose shape is nearest ``video_aspect_ratio``. Frames come from the base
    env's ``render_frames`` (or ``render()`` where it has none); clips are written on ending and on
    :meth:`close` as ``{video_folder}/{name_prefix}-episode-{id}.{video_format}`` (``-step-{id}``).

    Args:
        env: a vector env with render_mode "rgb_array".
        video_folder: where the clips are written (created if missing).
        video_aspect_ratio: (width, height) the tiled frame should be nearest to.
        record_first_only: record world 0 only.
        episode_trigger, step_trigger: start a clip at these episodes / steps; with neither,
            :func:`capped_cubic_schedule` of the episodes.
        video_length: frames after the first of a clip; 0 records whole episodes.
        name_prefix: file name prefix.
        fps: frames per second of the clip; None takes ``metadata["render_fps"]`` (30 where missing).
        disable_logger: accepted for Gymnasium's signature; the writers here log nothing.
        gc_trigger: run the garbage collector after the clip of an episode where it holds.
        video_format: "mp4" (needs imageio and its ffmpeg plugin) or "gif" (needs Pillow).
    """

    def __init__(
        self,
        env,
        video_folder: str,
        video_aspect_ratio: tuple = (1, 1),
        record_first_only: bool = False,
        episode_trigger=None,
        step_trigger=None,
        video_length: int = 0,
        name_prefix: str = "rl-video",
        fps: int | None = None,
        disable_logger: bool = True,
        gc_trigger=lambda episode: True,
        video_format: str = "mp4",
    ):
        super().__init__(env)
        if env.render_mode in (None, "human", "ansi"):
            raise WrapperError(
                f"RecordVideo needs frames: the env's render_mode is {env.render_mode!r}; make it with "
                "render_mode='rgb_array'"
            )
        if video_format not in _FORMATS:
            raise WrapperError(f"video_format must be one of {_FORMATS}, got {video_format!r}")
        _check_writer(video_format)
        if video_length < 0:
            raise WrapperError(f"video_length must be >= 0 (0: whole episodes), got {video_length!r}")
        self.autoreset_mode = autoreset_mode_of(env)
        if episode_trigger is None and step_trigger is None:
            episode_trigger = capped_cubic_schedule
        self.episode_trigger = episode_trigger
        self.step_trigger = step_trigger
        self.gc_trigger = gc_trigger
        self.disable_logger = disable_logger
        self.record_first_only = bool(record_first_only)
        self.video_aspect_ratio = tuple(video_aspect_ratio)
        self.video_folder = os.path.abspath(os.fspath(video_folder))
        os.makedirs(self.video_folder, exist_ok=True)
        self.frames_per_sec = fps if fps is not None else self.metadata.get("render_fps", 30)
        self.name_prefix = name_prefix
        self.video_format = video_format
        self.video_length = video_length if video_length != 0 else math.inf
        self.recording = False
        self.recorded_frames: list[np.ndarray] = []
        self.step_id = -1
        self.episode_id = -1
        self._video_name = None
        self._world0_ended = False  # NEXT_STEP: world 0's episode ended in the last step

    # ------------------------------------------------------------------ the gymnasium API
    def reset(self, *, seed=None, options=None):
        mask = None if not options else options.get("reset_mask")
        if mask is None or bool(mask[0]):
            self._episode_started()
        obs, info = self.env.reset(seed=seed, options=options)
        self._world0_ended = False
        self._after_frame_source()
        return obs, info

    def step(self, actions):
        obs, rewards, terminations, truncations, info = self.env.step(actions)
        self.step_id += 1
        ended = bool(terminations[0]) or bool(truncations[0])
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:
            if self._world0_ended:
                self._episode_started()
            self._world0_ended = ended
        elif self.autoreset_mode is AutoresetMode.SAME_STEP and ended:
            self._episode_started()
        if self.step_trigger is not None and self.step_trigger(self.step_id):
            self.start_recording(f"{self.name_prefix}-step-{self.step_id}")
        self._after_frame_source()
        return obs, rewards, terminations, truncations, info

    def close(self, **kwargs):
        if self.recording:
            self.stop_recording()
        return super().close(**kwargs)

    # ------------------------------------------------------------------ recording
    def start_recording(self, video_name: str) -> None:
        """Start a clip named ``video_name`` (ending the one being recorded, if any)."""
        if self.recording:
            self.stop_recording()
        self.recording = True
        self._video_name = video_name

    def stop_recording(self) -> None:
        """Write the clip being recorded (a warning instead where it holds no frame)."""
        if not self.recording:
            raise WrapperError("stop_recording() was called while no clip is being recorded")
        if self.recorded_frames:
            from ..render import write_gif, write_mp4

            write = write_mp4 if self.video_format == "mp4" else write_gif
            path = os.path.join(self.video_folder, f"{self._video_name}.{self.video_format}")
            write(self.recorded_frames, path, fps=self.frames_per_sec)
        else:
            warnings.warn(f"RecordVideo: clip {self._video_name!r} holds no frame; nothing written", stacklevel=2)
        self.recorded_frames = []
        self.recording = False
        self._video_name = None
        if self.gc_trigger is not None and self.gc_trigger(self.episode_id):
            gc.collect()

    def _episode_started(self) -> None:
        self.episode_id += 1
        if self.recording and self.video_length == math.inf:
            self.stop_recording()
        if self.episode_trigger is not None and self.episode_trigger(self.episode_id):
            self.start_recording(f"{self.name_prefix}-episode-{self.episode_id}")

    def _after_frame_source(self) -> None:
        """After a reset or step: capture its frame if recording, and end a clip that is long enough."""
        if not self.recording:
            return
        self.recorded_frames.append(self._frame())
        if len(self.recorded_frames) > self.video_length:
            self.stop_recording()

    def _frame(self) -> np.ndarray:
        """One (H', W', 3) uint8 frame tiling the recorded worlds' frames."""
        worlds = [0] if self.record_first_only else None
        render_frames = getattr(self.env.unwrapped, "render_frames", None)
        frames = render_frames(worlds) if render_frames is not None else self.env.render()
        if frames is None or len(frames) == 0:
            raise WrapperError("RecordVideo: the env rendered no frame (is its render_mode 'rgb_array'?)")
        frames = np.stack([np.asarray(f) for f in (frames[:1] if self.record_first_only else frames)])
        rows, cols = _grid(len(frames), frames.shape[1], frames.shape[2], self.video_aspect_ratio)
        return _tile(frames, rows, cols)

    def __del__(self):
        if getattr(self, "recorded_frames", None):
            warnings.warn("RecordVideo: the last clip was not written; call close()", stacklevel=2)


def _check_writer(video_format: str) -> None:
    """ImportError naming what to install where ``video_format``'s writer is missing."""
    try:
        if video_format == "mp4":
            import imageio  # noqa: F401
            import imageio_ffmpeg  # noqa: F401
        else:
            import PIL  # noqa: F401
    except ImportError:
        package = '"imageio[ffmpeg]"' if video_format == "mp4" else "pillow"
        raise ImportError(
            f"RecordVideo with video_format={video_format!r} needs {package}: pip install {package} "
            "(or pass video_format='gif', which needs Pillow only)"
        ) from None
