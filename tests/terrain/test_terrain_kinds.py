"""Each sub-terrain kind against its closed form, through the generator: one 8 x 8 m patch at a fixed
difficulty (difficulty_range = [d, d]) inside a 1 m border, read back from the assembled heightfield."""

import numpy as np
import pytest

from newton_gym.terrain import generate_terrain

H, V = 0.1, 0.005  # horizontal and vertical scale [m]
B = 10  # border points (1 m)
N = 80  # points along each side of a patch (8 m)


def one_patch(table: dict, difficulty: float, seed: int = 0):
    """(terrain, (80, 80) patch heights [m], patch-local coordinates x (1, 80) and y (80, 1) [m])."""
    cfg = {
        "seed": seed,
        "num_rows": 1,
        "num_cols": 1,
        "border_width": 1.0,
        "difficulty_range": [difficulty, difficulty],
        "sub_terrains": {"k": table},
    }
    terrain = generate_terrain(cfg)
    patch = terrain.heightfield.heights[B : B + N, B : B + N]
    x = np.arange(N)[None, :] * H
    return terrain, patch, x, x.T


def quantized(values):
    return np.rint(np.asarray(values) / V) * V


def test_pyramid_slope_faces_have_the_configured_slope_angle_and_a_flat_top():
    table = {"kind": "pyramid_slope", "slope_range": [0.1, 0.5], "platform_width": 2.0}
    terrain, patch, x, _ = one_patch(table, difficulty=0.5)
    slope = 0.3  # 0.1 + 0.5 (0.5 - 0.1)
    profile = patch[40, :31]  # centre line, from the patch edge to the platform edge at 3 m
    fitted = np.polyfit(x[0, :31], profile, 1)[0]
    assert np.degrees(np.arctan(fitted)) == pytest.approx(np.degrees(np.arctan(slope)), abs=0.02)
    np.testing.assert_allclose(profile, quantized(slope * x[0, :31]), atol=1e-12)
    top = patch[30:51, 30:51]  # the 2 m platform
    assert np.all(top == top[0, 0]) and top[0, 0] == pytest.approx(0.9)
    assert terrain.origins[0, 0, 2] == pytest.approx(0.9)
    _, pit, _, _ = one_patch({**table, "inverted": True}, difficulty=0.5)
    np.testing.assert_array_equal(pit, -patch)


def test_pyramid_stairs_rise_by_equal_steps_of_the_configured_width():
    table = {
        "kind": "pyramid_stairs",
        "step_height_range": [0.05, 0.23],
        "step_width": 0.3,
        "platform_width": 3.0,
        "border_width": 1.0,
    }
    terrain, patch, x, _ = one_patch(table, difficulty=0.5)
    rise = 0.14  # 0.05 + 0.5 (0.23 - 0.05)
    profile = patch[40, :41]  # centre line, edge to centre
    steps = np.diff(profile)
    assert set(np.round(steps, 9)) == {0.0, rise}
    # 5 rings of 0.3 m fit between the 1 m border and the 3 m platform; the platform is the 6th step up.
    where = x[0, 1:41][steps > 0]
    np.testing.assert_allclose(where, [1.0, 1.3, 1.6, 1.9, 2.2, 2.5], atol=0.5 * H + 1e-9)
    assert profile[0] == 0.0 and profile[-1] == pytest.approx(6 * rise)
    top = np.nonzero(patch[40] == patch[40].max())[0]
    assert (top[-1] - top[0]) * H >= 3.0 - H  # the platform is at least platform_width wide
    assert terrain.origins[0, 0, 2] == pytest.approx(6 * rise)
    _, down, _, _ = one_patch({**table, "inverted": True}, difficulty=0.5)
    np.testing.assert_array_equal(down, -patch)


def test_waves_follow_the_sinusoid_with_the_configured_amplitude():
    table = {"kind": "waves", "amplitude_range": [0.1, 0.3], "num_waves": 2, "platform_width": 1.0}
    terrain, patch, x, y = one_patch(table, difficulty=0.5)
    amplitude = 0.2
    expected = quantized(0.5 * amplitude * (np.sin(2 * np.pi * 2 * x / 8.0) + np.sin(2 * np.pi * 2 * y / 8.0)))
    outside = (np.abs(x - 4.0) > 0.5 + 1e-9) | (np.abs(y - 4.0) > 0.5 + 1e-9)
    np.testing.assert_allclose(patch[outside], expected[outside], atol=1e-12)
    assert patch.max() == pytest.approx(amplitude) and patch.min() == pytest.approx(-amplitude)
    assert np.all(patch[~outside] == 0.0)


def test_random_uniform_draws_levels_on_the_lattice_and_ignores_difficulty():
    table = {"kind": "random_uniform", "noise_range": [0.02, 0.1], "noise_step": 0.02, "downsampled_scale": 0.5}
    _, patch, x, y = one_patch(table, difficulty=0.0)
    assert patch.min() >= 0.02 - 1e-12 and patch.max() <= 0.1 + 1e-12
    lattice = patch[::5, ::5]  # every 0.5 m: the drawn levels themselves
    assert set(np.round(lattice[np.abs(lattice - 0.06) > 1e-9] / 0.02, 9)) <= {1.0, 2.0, 4.0, 5.0}
    assert len(np.unique(patch)) > 5  # interpolated between the levels
    _, hard, _, _ = one_patch(table, difficulty=1.0)
    np.testing.assert_array_equal(hard, patch)


@pytest.mark.parametrize("mode, levels", [("choice", (-1.0, -0.5, 0.0, 0.5, 1.0)), ("fixed", (0.0, 1.0))])
def test_discrete_obstacles_take_the_heights_of_their_mode(mode, levels):
    table = {
        "kind": "discrete_obstacles",
        "obstacle_height_mode": mode,
        "obstacle_height_range": [0.1, 0.3],
        "num_obstacles": 30,
    }
    _, patch, _, _ = one_patch(table, difficulty=0.5)
    h = 0.2
    assert set(np.round(np.unique(patch) / h, 9)) == set(levels)
    assert np.all(patch[35:46, 35:46] == 0.0)  # the 1 m platform


def test_stepping_stones_have_the_stone_size_and_gap_of_the_difficulty():
    table = {
        "kind": "stepping_stones",
        "stone_height_max": 0.1,
        "stone_width_range": [0.5, 1.5],
        "stone_distance_range": [0.1, 0.3],
        "holes_depth": -2.0,
    }
    terrain, patch, _, _ = one_patch(table, difficulty=1.0)  # stones 0.5 m (5 cells), gaps 0.3 m (3 cells)
    pit = patch == -2.0
    assert np.all(np.abs(patch[~pit]) <= 0.1 + 1e-12) and 0.2 < pit.mean() < 0.8
    runs, gaps = [], []
    for r in list(range(0, 30)) + list(range(50, 80)):  # rows away from the platform
        line = np.concatenate([[True], pit[r], [True]]).astype(np.int8)
        edges = np.nonzero(np.diff(line))[0]
        starts, ends = edges[::2], edges[1::2]
        inner = (starts > 0) & (ends < N)  # stones cut by the patch edge do not count
        runs += list((ends - starts)[inner])
        gaps += list(starts[1:] - ends[:-1])
    assert runs and set(runs) <= {4, 5, 6} and set(gaps) <= {2, 3, 4}
    assert np.mean(runs) == pytest.approx(5, abs=0.5) and np.mean(gaps) == pytest.approx(3, abs=0.5)
    assert terrain.origins[0, 0, 2] == 0.0


def test_random_grid_boxes_tile_the_patch_around_the_platform_over_a_pit():
    table = {
        "kind": "random_grid",
        "grid_width": 0.45,
        "grid_height_range": [0.05, 0.2],
        "platform_width": 2.0,
        "colliders": "boxes",
    }
    terrain, patch, _, _ = one_patch(table, difficulty=0.5)
    h, floor = 0.125, -0.225  # h = 0.05 + 0.5 (0.2 - 0.05); the pit 0.1 m below -h
    boxes = terrain.boxes
    assert len(boxes) == 17 * 17 - 5 * 5  # 17 boxes of 0.45 m fit in 8 m; 5 x 5 overlap the 2 m platform
    tops, bottoms = boxes[:, 2] + boxes[:, 5], boxes[:, 2] - boxes[:, 5]
    assert np.all(np.abs(tops) <= h + 1e-12) and tops.std() > 0.03
    np.testing.assert_allclose(tops / V, np.rint(tops / V), atol=1e-9)
    np.testing.assert_allclose(bottoms, floor, atol=1e-12)
    np.testing.assert_allclose(boxes[:, 3:5], 0.225) and np.testing.assert_array_equal(boxes[:, 6], 0.0)
    gap = np.maximum(np.abs(boxes[:, 0]) - boxes[:, 3], np.abs(boxes[:, 1]) - boxes[:, 4])  # patch centre: 0, 0
    # Box centres sit at k 0.45 m from the patch centre; k = 0..2 overlap the platform (1 m half width),
    # so the nearest kept boxes start at 3 x 0.45 - 0.225 = 1.125 m.
    assert gap.min() == pytest.approx(1.125)
    field = terrain.heightfield
    np.testing.assert_allclose(field.height_at(boxes[:, 0], boxes[:, 1]), floor, atol=1e-12)  # boxes stand in it
    assert np.all(patch[30:51, 30:51] == 0.0) and np.all(patch[:, :1] == 0.0)  # platform and edge ring


def test_random_grid_in_the_heightfield_puts_each_block_top_on_its_points():
    base = {"kind": "random_grid", "grid_width": 0.45, "grid_height_range": [0.05, 0.2], "platform_width": 2.0}
    terrain, patch, x, y = one_patch(base, difficulty=0.5)
    boxed, _, _, _ = one_patch({**base, "colliders": "boxes"}, difficulty=0.5)
    assert len(terrain.boxes) == 0 and len(boxed.boxes) == 17 * 17 - 5 * 5
    field, (fx, fy, _) = terrain.heightfield, terrain.field_center
    for bx, by, bz, _, _, hz, _ in boxed.boxes:  # the same draw: each block's top at its centre point
        assert field.height_at(bx - fx, by - fy) == pytest.approx(bz + hz, abs=1e-9)
    assert np.all(np.abs(patch) <= 0.125 + 1e-12) and np.all(patch[30:51, 30:51] == 0.0)


def test_flat_is_zero_and_every_platform_is_flat_at_its_origin():
    kinds = {
        "flat": {"kind": "flat"},
        "rough": {"kind": "random_uniform", "platform_width": 1.0},
        "slope": {"kind": "pyramid_slope", "platform_width": 1.0, "inverted": True},
        "waves": {"kind": "waves", "platform_width": 1.0},
        "obstacles": {"kind": "discrete_obstacles", "platform_width": 1.0},
        "stairs": {"kind": "pyramid_stairs", "platform_width": 1.0},
        "stones": {"kind": "stepping_stones", "platform_width": 1.0},
        "boxes": {"kind": "random_grid", "platform_width": 1.0},
    }
    cfg = {"num_rows": 3, "num_cols": 8, "border_width": 1.0, "sub_terrains": kinds}
    terrain = generate_terrain(cfg)
    assert list(terrain.kind_names[0]) == list(kinds)
    heights = terrain.heightfield.heights
    for i in range(3):
        for j in range(8):
            patch = heights[B + j * N : B + (j + 1) * N, B + i * N : B + (i + 1) * N]
            platform = patch[35:46, 35:46]  # 1 m square at the centre
            assert np.all(platform == terrain.origins[i, j, 2]), (i, kinds)
    assert np.all(heights[B : B + N, B : B + 3 * N] == 0.0)  # the flat column
