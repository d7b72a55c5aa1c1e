"""The generator: determinism, curriculum and random layouts, placement, origins on the surface,
quantization, and the shapes ``Terrain.add_to`` gives a ModelBuilder."""

from dataclasses import replace

import numpy as np
import pytest

import newton_gym
from newton_gym.terrain import generate_terrain, load_terrain_config, rough_sub_terrains


def _rough_with_boxes():
    """The rough mix with the random grid's blocks as BOX colliders."""
    subs = rough_sub_terrains()
    subs["boxes"] = replace(subs["boxes"], colliders="boxes")
    return subs


SMALL = {"num_rows": 4, "num_cols": 6, "border_width": 2.0, "sub_terrains": _rough_with_boxes()}


def arrays(terrain):
    return [terrain.heightfield.heights, terrain.boxes, terrain.origins, terrain.kinds, terrain.difficulty]


def test_the_same_seed_gives_bitwise_equal_arrays_and_another_seed_differs():
    first, again = generate_terrain({**SMALL, "seed": 5}), generate_terrain({**SMALL, "seed": 5})
    for a, b in zip(arrays(first), arrays(again)):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
    other = generate_terrain({**SMALL, "seed": 6})
    assert not np.array_equal(first.heightfield.heights, other.heightfield.heights)
    assert not np.array_equal(first.boxes, other.boxes) and not np.array_equal(first.difficulty, other.difficulty)


def test_curriculum_rows_rise_in_difficulty_and_columns_follow_proportions():
    terrain = generate_terrain({**SMALL, "num_rows": 10, "num_cols": 20, "difficulty_range": [0.2, 0.6]})
    rows = np.arange(10)[:, None]
    unit = (terrain.difficulty - 0.2) / 0.4  # back onto [0, 1]
    assert np.all(unit >= rows / 10 - 1e-12) and np.all(unit < (rows + 1) / 10)
    assert len(np.unique(terrain.difficulty)) == 200  # u is drawn per patch
    # Proportions 0.2, 0.2, 0.2, 0.2, 0.1, 0.1 of 20 columns: 4, 4, 4, 4, 2, 2, in order, the same in every row.
    assert np.all(terrain.kinds == terrain.kinds[0])
    np.testing.assert_array_equal(terrain.kinds[0], np.repeat(np.arange(6), [4, 4, 4, 4, 2, 2]))
    assert terrain.kind_names[3, 8] == "boxes"


def test_random_mode_draws_kinds_by_proportion_and_difficulty_uniformly():
    subs = {"a": {"kind": "flat", "proportion": 3.0}, "b": {"kind": "flat", "proportion": 1.0}}
    cfg = {"num_rows": 40, "num_cols": 50, "size": [1.0, 1.0], "border_width": 0.0, "curriculum": False}
    terrain = generate_terrain({**cfg, "sub_terrains": subs})
    assert np.mean(terrain.kinds == 0) == pytest.approx(0.75, abs=0.03)
    assert terrain.difficulty.min() >= 0.0 and terrain.difficulty.max() < 1.0
    assert np.mean(terrain.difficulty) == pytest.approx(0.5, abs=0.02)
    assert abs(np.corrcoef(np.arange(40), terrain.difficulty.mean(axis=1))[0, 1]) < 0.5  # no rise along rows


def test_the_field_covers_grid_and_border_centred_on_the_origin():
    terrain = generate_terrain(SMALL)
    field = terrain.heightfield
    # 4 rows of 8 m along x and 6 columns along y, a 2 m border on every side, 0.1 m apart.
    assert (field.ncol, field.nrow) == (2 * 20 + 4 * 80 + 1, 2 * 20 + 6 * 80 + 1)
    assert (field.hx, field.hy) == pytest.approx((18.0, 26.0))
    np.testing.assert_array_equal(terrain.field_center, 0.0)
    assert field.base == 1.0
    assert np.all(field.heights[:20] == 0.0) and np.all(field.heights[:, -21:] == 0.0)  # the flat border
    assert terrain.patch_bounds(0, 0) == (-16.0, -8.0, -24.0, -16.0)


def test_origins_are_patch_centres_on_the_surface():
    terrain = generate_terrain(SMALL)
    x, y, z = np.moveaxis(terrain.origins, -1, 0)
    np.testing.assert_allclose(x, (np.arange(4)[:, None] - 1.5) * 8.0 + 0 * y)
    np.testing.assert_allclose(y, (np.arange(6)[None, :] - 2.5) * 8.0 + 0 * x)
    center = terrain.field_center
    np.testing.assert_allclose(terrain.heightfield.height_at(x - center[0], y - center[1]) + center[2], z, atol=1e-12)
    assert len(np.unique(z)) > 4  # stairs, pits and rough patches put the platforms at different heights
    for dx, dy in ((0.3, 0.0), (0.0, -0.3), (0.2, 0.2)):  # the platform around the origin is flat
        np.testing.assert_allclose(terrain.heightfield.height_at(x + dx, y + dy), z, atol=1e-12)


def test_heights_and_box_tops_are_multiples_of_the_vertical_scale():
    terrain = generate_terrain({**SMALL, "vertical_scale": 0.01})
    steps = terrain.heightfield.heights / 0.01
    np.testing.assert_allclose(steps, np.rint(steps), atol=1e-9)
    tops = (terrain.boxes[:, 2] + terrain.boxes[:, 5]) / 0.01
    assert len(tops) and np.allclose(tops, np.rint(tops), atol=1e-9)


def test_add_to_gives_one_hfield_shape_and_the_boxes_shared_by_every_world():
    terrain = generate_terrain({**SMALL, "num_rows": 2, "num_cols": 5})  # column 4 (of 5) is boxes
    assert len(terrain.boxes) > 0
    builder = newton_gym.ModelBuilder()
    shapes = terrain.add_to(builder)
    model = builder.finalize(device="cpu")
    types = model.shape_type.numpy()
    assert shapes == list(range(1 + len(terrain.boxes))) and model.shape_count == len(shapes)
    assert types[0] == int(newton_gym.GeoType.HFIELD) and np.sum(types == int(newton_gym.GeoType.HFIELD)) == 1
    assert np.all(types[1:] == int(newton_gym.GeoType.BOX))
    assert len(model.heightfields) == 1 and model.heightfields[0] is terrain.heightfield
    assert np.all(model.shape_body.numpy() == -1) and np.all(model.shape_world.numpy() == -1)
    xforms = model.shape_transform.numpy()
    np.testing.assert_allclose(xforms[0], [0, 0, 0, 0, 0, 0, 1], atol=1e-7)
    np.testing.assert_allclose(xforms[1:, :3], terrain.boxes[:, :3], atol=1e-5)
    np.testing.assert_allclose(xforms[1:, 3:], np.tile([0, 0, 0, 1], (len(terrain.boxes), 1)), atol=1e-7)
    np.testing.assert_allclose(model.shape_scale.numpy()[1:], terrain.boxes[:, 3:6], atol=1e-6)


def test_a_config_object_and_its_dict_give_the_same_terrain():
    cfg = load_terrain_config(SMALL)
    a, b = generate_terrain(cfg), generate_terrain(SMALL)
    assert a.cfg == cfg and np.array_equal(a.heightfield.heights, b.heightfield.heights)
