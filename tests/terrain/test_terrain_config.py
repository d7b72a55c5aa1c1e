"""Terrain configs: the shipped TOML equals the code defaults; every bad input is a ConfigError naming the
file and the key."""

import os

import pytest

from newton_gym.errors import ConfigError, NewtonGymError
from newton_gym.terrain import (
    PyramidStairsCfg,
    RandomGridCfg,
    TerrainCfg,
    generate_terrain,
    load_terrain_config,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROUGH = os.path.join(ROOT, "configs", "terrain_rough.toml")

STAIRS = '[sub_terrains.s]\nkind = "pyramid_stairs"\n'


def test_shipped_rough_config_equals_the_code_defaults():
    cfg = load_terrain_config(ROUGH)
    assert cfg == TerrainCfg()
    assert (cfg.num_rows, cfg.num_cols, cfg.size, cfg.border_width) == (10, 20, (8.0, 8.0), 20.0)
    assert list(cfg.sub_terrains) == [
        "pyramid_stairs",
        "pyramid_stairs_inv",
        "boxes",
        "random_rough",
        "hf_pyramid_slope",
        "hf_pyramid_slope_inv",
    ]
    assert cfg.sub_terrains["pyramid_stairs_inv"] == PyramidStairsCfg(proportion=0.2, inverted=True)
    assert isinstance(cfg.sub_terrains["boxes"], RandomGridCfg)


def test_a_sub_terrains_table_replaces_the_mix_and_overrides_apply(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('num_rows = 2\n[sub_terrains.w]\nkind = "waves"\nnum_waves = 3\n')
    cfg = load_terrain_config(path, seed=7, num_cols=None)
    assert list(cfg.sub_terrains) == ["w"] and cfg.sub_terrains["w"].num_waves == 3
    assert (cfg.seed, cfg.num_rows, cfg.num_cols) == (7, 2, 20)  # None keeps the file's / default value


BAD = [
    # (TOML text, the key the message must name)
    ('[sub_terrains.x]\nkind = "lava"\n', "sub_terrains.x.kind"),
    ("[sub_terrains.x]\nproportion = 1.0\n", "sub_terrains.x.kind"),
    ("difficulty_range = [0.0, 1.5]\n", "difficulty_range"),
    ("difficulty_range = [-0.1, 0.5]\n", "difficulty_range"),
    ("difficulty_range = [0.8, 0.2]\n", "difficulty_range"),
    ("size = [8.0, 0.0]\n", "size[1]"),
    ("size = [-8.0, 8.0]\n", "size[0]"),
    ("size = [8.0, nan]\n", "size[1]"),
    ("size = [8.05, 8.0]\n", "size[0]"),
    ("horizontal_scale = 0.0\n", "horizontal_scale"),
    ("vertical_scale = -0.005\n", "vertical_scale"),
    ("base = inf\n", "base"),
    ("border_width = -1.0\n", "border_width"),
    ("num_rows = 0\n", "num_rows"),
    ("num_cols = 2.5\n", "num_cols"),
    ("num_row = 3\n", "num_row"),
    ('[sub_terrains.a]\nkind = "flat"\nproportion = -0.5\n', "sub_terrains.a.proportion"),
    (
        '[sub_terrains.a]\nkind = "flat"\nproportion = 0.0\n[sub_terrains.b]\nkind = "waves"\nproportion = 0\n',
        "proportion",
    ),
    (STAIRS + "step_hight_range = [0.05, 0.2]\n", "sub_terrains.s.step_hight_range"),
    (STAIRS + "step_width = 0.0\n", "sub_terrains.s.step_width"),
    (STAIRS + "step_height_range = [0.05, inf]\n", "sub_terrains.s.step_height_range[1]"),
    (STAIRS + "platform_width = 9.0\n", "sub_terrains.s.platform_width"),
    (STAIRS + "border_width = 3.0\n", "sub_terrains.s.border_width"),
    ('[sub_terrains.g]\nkind = "random_grid"\ngrid_width = -0.45\n', "sub_terrains.g.grid_width"),
    (
        '[sub_terrains.o]\nkind = "discrete_obstacles"\nobstacle_height_mode = "tall"\n',
        "sub_terrains.o.obstacle_height_mode",
    ),
    ('[sub_terrains.r]\nkind = "random_uniform"\nnoise_range = [0.1]\n', "sub_terrains.r.noise_range"),
    ('[sub_terrains.st]\nkind = "stepping_stones"\nholes_depth = 0.5\n', "sub_terrains.st.holes_depth"),
    ("sub_terrains = 3\n", "sub_terrains"),
]


@pytest.mark.parametrize("text, key", BAD, ids=[key for _, key in BAD])
def test_bad_input_is_a_config_error_naming_the_file_and_key(tmp_path, text, key):
    path = tmp_path / "bad_terrain.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        generate_terrain(str(path))
    message = str(info.value)
    assert isinstance(info.value, NewtonGymError)
    assert message.startswith(f"{path}: ") and key in message, message


def test_errors_without_a_file_name_the_key_and_a_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"sub_terrains\.x\.kind.*valid kinds"):
        load_terrain_config({"sub_terrains": {"x": {"kind": "lava"}}})
    with pytest.raises(ConfigError, match="unknown config key 'seeds'"):
        load_terrain_config({"seeds": 1})
    missing = tmp_path / "absent.toml"
    with pytest.raises(ConfigError, match="absent.toml"):
        load_terrain_config(missing)
