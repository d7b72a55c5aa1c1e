"""``newton-gym terrain`` and the top-down drawing."""

import numpy as np
import pytest

from newton_gym.cli import main
from newton_gym.terrain import generate_terrain
from newton_gym.terrain.draw import top_surface

SMALL_TOML = """
num_rows = 2
num_cols = 5
border_width = 2.0
"""
BOXES = {"kind": "random_grid", "proportion": 1.0, "colliders": "boxes"}


def test_cli_prints_the_summary_and_writes_a_png(tmp_path, capsys):
    config, png = tmp_path / "t.toml", tmp_path / "terrain.png"
    config.write_text(SMALL_TOML)
    assert main(["terrain", "--config", str(config), "--out", str(png), "--seed", "3", "--dpi", "40"]) == 0
    out = capsys.readouterr().out
    terrain = generate_terrain({"num_rows": 2, "num_cols": 5, "border_width": 2.0, "seed": 3})
    assert "2 x 5 patches of 8 x 8 m (curriculum, seed 3)" in out
    assert f"field: 201 x 441 points at 0.1 m ({201 * 441 * 8 / 1e6:.1f} MB)" in out
    assert f"boxes: {len(terrain.boxes)}\n" in out and "generated in" in out and f"wrote {png}" in out
    from PIL import Image

    with Image.open(png) as image:
        assert image.format == "PNG" and image.size[0] >= 400 and image.size[1] > image.size[0]


def test_cli_reports_a_bad_config_and_exits_1(tmp_path, capsys):
    config = tmp_path / "bad.toml"
    config.write_text('[sub_terrains.x]\nkind = "lava"\n')
    assert main(["terrain", "--config", str(config), "--out", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err
    assert str(config) in err and "sub_terrains.x.kind" in err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("seed", [0, 1])
def test_the_drawn_surface_is_the_field_raised_to_the_box_tops(seed):
    cfg = {"num_rows": 1, "num_cols": 5, "border_width": 1.0, "seed": seed, "sub_terrains": {"boxes": BOXES}}
    terrain = generate_terrain(cfg)
    top, field = top_surface(terrain), terrain.heightfield
    assert np.all(top >= field.heights)
    x, y, z, hx, hy, hz, _ = terrain.boxes[0]
    c = int(round((x + field.hx) / field.spacing[0]))
    r = int(round((y + field.hy) / field.spacing[1]))
    assert top[r, c] == pytest.approx(max(z + hz, field.heights[r, c]))
    covered = top != field.heights
    assert covered.sum() > 0.5 * len(terrain.boxes) * (2 * hx / field.spacing[0]) ** 2
