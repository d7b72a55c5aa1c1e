"""GIF writing (Pillow) and the MP4 writer's dependency error."""

import numpy as np
import pytest

from newton_gym.render import GifWriter, RenderError, write_gif, write_mp4

PIL = pytest.importorskip("PIL")
from PIL import Image  # noqa: E402


def _frames(n, h=24, w=32):
    """n distinct frames: a red square sliding right over a grey background."""
    out = []
    for k in range(n):
        f = np.full((h, w, 3), 90, dtype=np.uint8)
        f[8:16, 2 + 3 * k : 10 + 3 * k] = (230, 20, 20)
        out.append(f)
    return out


def test_write_gif_frames_readable_by_pil(tmp_path):
    frames = _frames(6)
    path = write_gif(frames, tmp_path / "roll.gif", fps=20)
    with Image.open(path) as im:
        assert im.n_frames == 6
        assert im.size == (32, 24)
        assert im.info["duration"] == 50
        for k in range(6):
            im.seek(k)
            rgb = np.asarray(im.convert("RGB"))
            assert np.abs(rgb.astype(int) - frames[k]).max() <= 2


def test_gif_writer_context_and_generator(tmp_path):
    with GifWriter(tmp_path / "a.gif", fps=10) as gif:
        for f in _frames(3):
            gif.append(f)
        assert gif.frame_count == 3
    with Image.open(tmp_path / "a.gif") as im:
        assert im.n_frames == 3 and im.info.get("loop") == 0
    write_gif((f for f in _frames(2)), tmp_path / "b.gif")
    with Image.open(tmp_path / "b.gif") as im:
        assert im.n_frames == 2


def test_gif_writer_leaves_no_file_on_error(tmp_path):
    with pytest.raises(KeyError):
        with GifWriter(tmp_path / "c.gif") as gif:
            gif.append(_frames(1)[0])
            raise KeyError("boom")
    assert not (tmp_path / "c.gif").exists()


@pytest.mark.parametrize(
    "frames, match",
    [
        ([np.zeros((4, 4, 3), dtype=np.float32)], r"frames\[0\]"),
        ([np.zeros((4, 4), dtype=np.uint8)], r"frames\[0\]"),
        ([np.zeros((4, 4, 3), dtype=np.uint8), np.zeros((5, 4, 3), dtype=np.uint8)], r"frames\[1\]"),
        ([], "no frames"),
    ],
)
def test_bad_frames(tmp_path, frames, match):
    with pytest.raises(RenderError, match=match):
        write_gif(frames, tmp_path / "bad.gif")


@pytest.mark.parametrize("fps", [0, -1, float("nan"), "fast"])
def test_bad_fps(tmp_path, fps):
    with pytest.raises(ValueError, match="fps"):
        write_gif(_frames(1), tmp_path / "bad.gif", fps=fps)


def test_closed_writer_rejects_frames(tmp_path):
    gif = GifWriter(tmp_path / "d.gif")
    gif.append(_frames(1)[0])
    gif.close()
    with pytest.raises(RenderError, match="closed"):
        gif.append(_frames(1)[0])


def test_write_mp4(tmp_path):
    try:
        import imageio  # noqa: F401
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="write_gif"):
            write_mp4(_frames(2), tmp_path / "x.mp4")
        return
    path = write_mp4(_frames(4, 32, 32), tmp_path / "x.mp4", fps=10)
    assert (tmp_path / "x.mp4").stat().st_size > 0 and str(path).endswith("x.mp4")


def test_identical_frames_merge_but_keep_the_duration(tmp_path):
    """Pillow folds repeated frames into one longer frame (documented on GifWriter)."""
    a, b = _frames(2)
    write_gif([a, a, a, b], tmp_path / "rep.gif", fps=10)
    with Image.open(tmp_path / "rep.gif") as im:
        assert im.n_frames == 2
        durations = []
        for k in range(im.n_frames):
            im.seek(k)
            durations.append(im.info["duration"])
    assert durations == [300, 100]
