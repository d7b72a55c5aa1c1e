"""Heightfield colliders in hand-written USD: a Mesh grid with newton:heightfield:* becomes a static HFIELD
shape whose Heightfield matches the authored points; bad grids name the prim."""

import numpy as np
import pytest
from usd_helpers import HEADER

from newton_gym import ModelBuilder
from newton_gym.errors import ImportFailedError
from newton_gym.sim.types import GeoType
from newton_gym.usd import UsdImportWarning

# 2 rows (y) x 3 columns (x); elevations z[r][c] = 0.1 * (3 r + c) + 0.05 * (c == 1)
HEIGHTS = np.array([[0.0, 0.15, 0.2], [0.3, 0.45, 0.5]])


def _points(x0=-1.0, x1=1.0, y0=-0.5, y1=0.5, heights=HEIGHTS) -> str:
    rows, columns = heights.shape
    xs, ys = np.linspace(x0, x1, columns), np.linspace(y0, y1, rows)
    return ", ".join(f"({x:g}, {y:g}, {heights[r, c]:g})" for r, y in enumerate(ys) for c, x in enumerate(xs))


_COLUMN_BY_COLUMN = ", ".join(f"({x:g}, {y:g}, 0)" for x in (-1, 0, 1) for y in (-0.5, 0.5))


def _field(points=None, rows=2, columns=3, extra="", translate="(0, 0, 0)") -> str:
    return f"""
        def Mesh "terrain" (
            prepend apiSchemas = ["PhysicsCollisionAPI"]
        )
        {{
            point3f[] points = [{points or _points()}]
            int[] faceVertexCounts = [3, 3, 3, 3]
            int[] faceVertexIndices = [3, 0, 4, 0, 1, 4, 4, 1, 5, 1, 2, 5]
            custom uniform int newton:heightfield:rows = {rows}
            custom uniform int newton:heightfield:columns = {columns}
            {extra}
            double3 xformOp:translate = {translate}
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }}"""


def _stage(body_text: str, header: str = HEADER) -> str:
    return f"""{header}
def Xform "World"
{{
{body_text}
}}
"""


def test_static_grid_becomes_a_heightfield_shape(write_usda):
    base = "custom uniform double newton:heightfield:base = 0.25"
    path = write_usda(_stage(_field(extra=base, translate="(1, 2, 3)")))
    builder = ModelBuilder()
    result = builder.add_usd(path)
    model = builder.finalize()
    shape = result["path_shape_map"]["/World/terrain"]
    assert model.shape_type.numpy()[shape] == GeoType.HFIELD and model.shape_body.numpy()[shape] == -1
    field = model.heightfields[model.shape_heightfield.numpy()[shape]]
    np.testing.assert_allclose(field.heights, HEIGHTS, atol=1e-7)
    assert (field.hx, field.hy, field.base) == (1.0, 0.5, 0.25)
    np.testing.assert_allclose(model.shape_transform.numpy()[shape], [1, 2, 3, 0, 0, 0, 1], atol=1e-7)
    assert result["resolved"]["/World/terrain"]["heightfield_rows"][0] == 2


def test_inspect_reports_the_grid(write_usda):
    from newton_gym.usd.report import inspect_usd

    text = inspect_usd(write_usda(_stage(_field(extra="custom uniform double newton:heightfield:base = 0.25"))))
    assert "/World/terrain  HFIELD  body static  grid 2 x 3  half extents (1, 0.5) m  base 0.25 m" in text
    assert "heightfield_rows = 2  <- newton:heightfield:rows (newton)" in text


def test_an_off_centre_grid_keeps_its_place_and_base_defaults(write_usda):
    path = write_usda(_stage(_field(points=_points(0.0, 2.0, 1.0, 2.0), translate="(1, 0, 0)")))
    builder = ModelBuilder()
    shape = builder.add_usd(path)["path_shape_map"]["/World/terrain"]
    model = builder.finalize()
    np.testing.assert_allclose(model.shape_transform.numpy()[shape][:3], [2.0, 1.5, 0.0], atol=1e-7)
    field = model.heightfields[0]
    assert (field.hx, field.hy, field.base) == (1.0, 0.5, 0.1)


def test_stage_units_scale_points_and_base(write_usda):
    header = HEADER.replace("metersPerUnit = 1", "metersPerUnit = 0.01")
    path = write_usda(_stage(_field(extra="custom uniform double newton:heightfield:base = 20"), header))
    builder = ModelBuilder()
    builder.add_usd(path)
    field = builder.finalize().heightfields[0]
    np.testing.assert_allclose(field.heights, 0.01 * HEIGHTS, atol=1e-9)
    assert field.hx == pytest.approx(0.01) and field.hy == pytest.approx(0.005) and field.base == pytest.approx(0.2)


def test_a_field_under_a_rigid_body_is_skipped_with_a_warning(write_usda):
    body = f"""
        def Xform "body" (
            prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]
        )
        {{
            float physics:mass = 1
            float3 physics:diagonalInertia = (1, 1, 1)
            point3f physics:centerOfMass = (0, 0, 0)
            {_field()}
        }}"""
    path = write_usda(_stage(body))
    builder = ModelBuilder()
    with pytest.warns(UsdImportWarning, match=r"/World/body/terrain: heightfield under rigid body"):
        result = builder.add_usd(path)
    assert "/World/body/terrain" not in result["path_shape_map"] and builder.shape_count == 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"rows": 3}, r"has 6 points; a 3 x 3 grid needs 9"),
        ({"points": _points().replace("(1, -0.5", "(0.9, -0.5")}, r"not a regular 2 x 3 grid"),
        ({"points": _COLUMN_BY_COLUMN}, r"not a regular 2 x 3 grid"),
        ({"rows": 1, "columns": 6}, r"rows and columns must both be >= 2"),
        ({"extra": "custom uniform double newton:heightfield:base = -1"}, r"base must be a positive"),
    ],
)
def test_bad_grids_name_the_prim(write_usda, kwargs, message):
    path = write_usda(_stage(_field(**kwargs)))
    builder = ModelBuilder()
    with pytest.raises(ImportFailedError, match=rf"/World/terrain: .*{message}"):
        builder.add_usd(path)
    assert builder.shape_count == 0 and not builder.heightfields
