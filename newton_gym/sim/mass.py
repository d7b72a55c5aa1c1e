"""Mass properties of collision primitives and their accumulation onto bodies.

Shape conventions: box by half extents; ellipsoid by its semi-axes along x, y, z; capsule, cylinder
and cone along local Z with ``half_height`` (capsule excludes its caps); the cone's base lies at
-half_height and its COM at -half_height / 2.
"""

from __future__ import annotations

import numpy as np

from .grouping import group_rows
from .hostmath import quat_rotate, quat_to_matrix
from .types import GeoType

__all__ = ["unit_mass_properties", "accumulate_body_mass"]


def unit_mass_properties(geo_type: int, scale, mesh=None):
    """Volume [m^3], COM in the shape frame (3,) [m], inertia about the COM (3, 3) at unit density.

    Formulas: standard solids (e.g. Gere & Goodno, appendix D); the capsule adds two hemispheres whose
    centroids sit 3 r / 8 beyond the cylinder ends.
    """
    g = GeoType(geo_type)
    s = np.asarray(scale, dtype=np.float64)
    com = np.zeros(3)
    if g == GeoType.SPHERE:
        r = s[0]
        v = 4.0 / 3.0 * np.pi * r**3
        return v, com, np.eye(3) * 0.4 * v * r * r
    if g == GeoType.ELLIPSOID:
        a, b, c = s
        v = 4.0 / 3.0 * np.pi * a * b * c
        return v, com, np.diag([b * b + c * c, a * a + c * c, a * a + b * b]) * 0.2 * v
    if g == GeoType.BOX:
        hx, hy, hz = s
        v = 8.0 * hx * hy * hz
        return v, com, np.diag([hy * hy + hz * hz, hx * hx + hz * hz, hx * hx + hy * hy]) * v / 3.0
    if g == GeoType.CYLINDER:
        r, h = s[0], s[1]
        v = np.pi * r * r * 2.0 * h
        ixx = v * (r * r / 4.0 + h * h / 3.0)
        return v, com, np.diag([ixx, ixx, 0.5 * v * r * r])
    if g == GeoType.CAPSULE:
        r, h = s[0], s[1]
        vc = np.pi * r * r * 2.0 * h
        vs = 4.0 / 3.0 * np.pi * r**3
        ixx = vc * (r * r / 4.0 + h * h / 3.0) + vs * (0.4 * r * r + h * h + 0.75 * h * r)
        izz = 0.5 * vc * r * r + 0.4 * vs * r * r
        return vc + vs, com, np.diag([ixx, ixx, izz])
    if g == GeoType.CONE:
        r, h = s[0], s[1]
        height = 2.0 * h
        v = np.pi * r * r * height / 3.0
        ixx = v * (3.0 / 20.0 * r * r + 3.0 / 80.0 * height * height)
        return v, np.array([0.0, 0.0, -0.5 * h]), np.diag([ixx, ixx, 0.3 * v * r * r])
    if g == GeoType.MESH:
        v, c, inertia = mesh.unit_mass_properties()
        # Non-uniform scale: vertices scale by S, volume by det S, second moments by S C S.
        det = float(np.prod(s))
        cov = 0.5 * np.trace(inertia) * np.eye(3) - inertia
        cov = np.diag(s) @ cov @ np.diag(s) * det
        return v * abs(det), c * s, np.trace(cov) * np.eye(3) - cov
    return 0.0, com, np.zeros((3, 3))  # plane: no mass


def accumulate_body_mass(
    body_count, shape_body, shape_type, shape_xform, shape_scale, shape_mesh, shape_density, meshes
):
    """Sum shape masses onto bodies.

    Returns per body: mass (body_count,) [kg], COM in body frame (body_count, 3) [m], inertia about
    that COM in body frame (body_count, 3, 3) [kg m^2]. Shapes with body -1 or zero density are skipped.
    Vectorised per (type, scale, mesh) group so thousands of replicated shapes cost a few numpy calls.
    """
    mass = np.zeros(body_count)
    first = np.zeros((body_count, 3))
    second = np.zeros((body_count, 3, 3))  # inertia about the body origin
    sel = np.nonzero((shape_body >= 0) & (shape_density > 0))[0]
    if len(sel) == 0:
        return mass, np.zeros((body_count, 3)), second
    keys = np.concatenate(
        [shape_type[sel, None].astype(np.float64), shape_scale[sel], shape_mesh[sel, None].astype(np.float64)], axis=1
    )
    order, starts = group_rows(keys)  # groups of equal keys in ascending key order, each in shape order
    sorted_keys = keys[order]
    for k0, k1 in zip(starts[:-1], starts[1:]):
        key = sorted_keys[k0]
        idx = sel[order[k0:k1]]
        mesh = meshes[int(key[4])] if int(key[4]) >= 0 else None
        v, c, inertia = unit_mass_properties(int(key[0]), key[1:4], mesh)
        m = shape_density[idx] * v
        xf = shape_xform[idx]
        rot = quat_to_matrix(xf[:, 3:])
        c_body = xf[:, :3] + quat_rotate(xf[:, 3:], c)
        inertia_body = np.einsum("nij,jk,nlk->nil", rot, inertia, rot) * shape_density[idx, None, None]
        shift = (
            np.einsum("ni,ni->n", c_body, c_body)[:, None, None] * np.eye(3) - np.einsum("ni,nj->nij", c_body, c_body)
        ) * m[:, None, None]
        b = shape_body[idx]
        np.add.at(mass, b, m)
        np.add.at(first, b, m[:, None] * c_body)
        np.add.at(second, b, inertia_body + shift)
    com = np.divide(first, mass[:, None], out=np.zeros_like(first), where=mass[:, None] > 0)
    back = (np.einsum("ni,ni->n", com, com)[:, None, None] * np.eye(3) - np.einsum("ni,nj->nij", com, com)) * mass[
        :, None, None
    ]
    return mass, com, second - back
