"""Write rendered frames to an animated GIF (Pillow) or an MP4 (imageio + ffmpeg, when installed)."""

from __future__ import annotations

import os

import numpy as np

from .errors import RenderError, check_positive

__all__ = ["GifWriter", "write_gif", "write_mp4"]


def _check_frame(frame, index: int, size: tuple | None) -> np.ndarray:
    f = np.asarray(frame)
    if f.dtype != np.uint8 or f.ndim != 3 or f.shape[2] != 3 or f.shape[0] == 0 or f.shape[1] == 0:
        raise RenderError(f"frames[{index}] must be an (H, W, 3) uint8 RGB image, got shape {f.shape} dtype {f.dtype}")
    if size is not None and f.shape[:2] != size:
        raise RenderError(
            f"frames[{index}] has size {f.shape[:2]} but the first frame has {size}; all frames must have the same size"
        )
    return f


class GifWriter:
    """Collects frames and writes them as one looping animated GIF on :meth:`close`.

    Frames are reduced to a 256-colour palette each (1 byte per pixel kept in memory). GIF stores
    delays in 1/100 s, so ``fps`` is rounded to the nearest delay; Pillow merges identical consecutive
    frames into one longer frame, so such a GIF reports fewer frames with the same total duration.

    Args:
        path: output file, normally ending in ``.gif``.
        fps: frames per second, > 0.
        loop: number of repeats, 0 = forever.

    Example::

        with GifWriter("out.gif", fps=30) as gif:
            for frame in frames:
                gif.append(frame)
    """

    def __init__(self, path, fps: float = 30.0, loop: int = 0):
        try:
            from PIL import Image  # noqa: F401
        except ImportError:
            raise ImportError("GifWriter needs Pillow: pip install pillow") from None
        self.path = os.fspath(path)
        self.fps = check_positive(fps, "fps", "frames per second")
        if isinstance(loop, bool) or not isinstance(loop, (int, np.integer)) or loop < 0:
            raise RenderError(f"loop must be a non-negative int (0 = forever), got {loop!r}")
        self.loop = int(loop)
        self._frames: list = []
        self._size: tuple | None = None
        self._closed = False

    @property
    def frame_count(self) -> int:
        """Number of frames appended so far."""
        return len(self._frames)

    def append(self, frame) -> None:
        """Add one (H, W, 3) uint8 RGB frame; every frame must have the first one's size."""
        from PIL import Image

        if self._closed:
            raise RenderError(f"GifWriter for {self.path} is closed; create a new one to write more frames")
        f = _check_frame(frame, len(self._frames), self._size)
        self._size = f.shape[:2]
        image = Image.fromarray(np.ascontiguousarray(f))
        self._frames.append(image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE))

    def close(self) -> str:
        """Write the GIF and return its path; later calls do nothing."""
        if self._closed:
            return self.path
        if not self._frames:
            raise RenderError(f"no frames to write to {self.path}: append at least one frame")
        first, rest = self._frames[0], self._frames[1:]
        first.save(
            self.path,
            format="GIF",
            save_all=True,
            append_images=rest,
            duration=max(1, round(1000.0 / self.fps)),
            loop=self.loop,
            disposal=1,
            optimize=False,
        )
        self._closed = True
        self._frames = []
        return self.path

    def __enter__(self) -> GifWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:  # leave no half-written file behind an error
            self._closed = True
            self._frames = []


def write_gif(frames, path, fps: float = 30.0, loop: int = 0) -> str:
    """Write ``frames`` (an iterable of (H, W, 3) uint8 RGB images) as an animated GIF; returns the path."""
    writer = GifWriter(path, fps=fps, loop=loop)
    for frame in frames:
        writer.append(frame)
    return writer.close()


def write_mp4(frames, path, fps: float = 30.0) -> str:
    """Write ``frames`` (an iterable of (H, W, 3) uint8 RGB images) as an H.264 MP4; returns the path.

    Needs ``imageio`` with its ffmpeg plugin (``pip install "imageio[ffmpeg]"``); without them it raises
    ImportError, and :func:`write_gif` still works.
    """
    fps = check_positive(fps, "fps", "frames per second")
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg  # noqa: F401  (the backend imageio uses for .mp4)
    except ImportError:
        raise ImportError(
            'write_mp4 needs imageio and its ffmpeg plugin: pip install "imageio[ffmpeg]"; write_gif works without them'
        ) from None
    path = os.fspath(path)
    frames = iter(frames)
    first = next(frames, None)
    if first is None:
        raise RenderError(f"no frames to write to {path}: pass at least one frame")
    size = _check_frame(first, 0, None).shape[:2]
    with imageio.get_writer(path, fps=fps, codec="libx264", quality=8) as writer:
        writer.append_data(np.asarray(first))
        for k, frame in enumerate(frames, start=1):
            writer.append_data(_check_frame(frame, k, size))
    return path
