"""The cost of one constraint row, or of one elliptic contact's three rows, as a function of its jar (the
primal Newton solve's terms, :mod:`.newton`): zones, forces and local Hessians, and a row's gain between two
jars in closed form.

A row with regularizer r and force bounds [lo, hi] costs s(x) = max over f in [lo, hi] of (-f x - r f^2 / 2):
quadratic x^2 / (2 r) while f = -x / r lies inside the bounds, linear beyond. An elliptic contact's rows share
one cost with MuJoCo's three zones (:func:`cone`).
"""

from __future__ import annotations

import warp as wp

from ..constraint.tables import RowData, WorldBlock
from ..items import item

__all__ = ["row_zone", "cone", "triple", "dvec", "cone_at", "row_gain", "row_at"]

wp.set_module_options({"enable_backward": False})


@wp.func(inline=True)
def row_zone(x: float, r: float, lo: float, hi: float):
    """(s(x), f, s''(x)) of a row with regularizer r and force bounds [lo, hi] at jar = x."""
    f = -x / r
    if f < lo:
        return wp.vec3(-lo * x - 0.5 * r * lo * lo, lo, 0.0)
    if f > hi:
        return wp.vec3(-hi * x - 0.5 * r * hi * hi, hi, 0.0)
    return wp.vec3(-0.5 * x * f, f, 1.0 / r)


@wp.func(inline=True)
def cone(x: wp.vec3, mu: float, fr: float, d: wp.vec3):
    """(cost, force, local Hessian d^2 s / d jar^2) of an elliptic contact (condim 3, friction ``fr`` on both
    tangents) at jar = x, with its rows' D = 1 / R in ``d`` and the regularized cone's mu = fr sqrt(R_t / R_n)
    (fr / sqrt(impratio)) (MuJoCo computation: "elliptic cones"; U = (mu jar_n, fr jar_t1, fr jar_t2))."""
    n = mu * x[0]
    u = wp.vec2(fr * x[1], fr * x[2])
    t = wp.length(u)
    if n >= mu * t or (t <= 0.0 and n >= 0.0):
        return 0.0, wp.vec3(0.0), wp.mat33(0.0)
    if mu * n + t <= 0.0 or (t <= 0.0 and n < 0.0):
        cost = 0.5 * (d[0] * x[0] * x[0] + d[1] * x[1] * x[1] + d[2] * x[2] * x[2])
        return cost, wp.vec3(-d[0] * x[0], -d[1] * x[1], -d[2] * x[2]), wp.diag(d)
    dm = d[0] / (mu * mu * (1.0 + mu * mu))
    nmt = n - mu * t
    f0 = -dm * nmt * mu
    force = wp.vec3(f0, -f0 / t * u[0] * fr, -f0 / t * u[1] * fr)
    # d^2 / dU^2 of (N - mu T)^2 / 2, then scaled by dU / djar = (mu, fr, fr) on both sides and by Dm.
    a = mu * n / (t * t * t)
    b = mu * mu - mu * n / t
    h = wp.mat33(
        1.0,
        -mu / t * u[0],
        -mu / t * u[1],
        -mu / t * u[0],
        a * u[0] * u[0] + b,
        a * u[0] * u[1],
        -mu / t * u[1],
        a * u[0] * u[1],
        a * u[1] * u[1] + b,
    )
    s = wp.vec3(dm * mu, dm * fr, dm * fr)
    scale = wp.mat33(s[0] * mu, s[0] * fr, s[0] * fr, s[1] * mu, s[1] * fr, s[1] * fr, s[2] * mu, s[2] * fr, s[2] * fr)
    return 0.5 * dm * nmt * nmt, force, wp.cw_mul(h, scale)


@wp.func(inline=True)
def triple(v: wp.array(dtype=float), r: int):
    return wp.vec3(v[r], v[r + 1], v[r + 2])


@wp.func(inline=True)
def dvec(rd: RowData, r: int):
    """D = 1 / R of compact rows r .. r + 2."""
    return wp.vec3(1.0 / item(rd.reg, r), 1.0 / item(rd.reg, r + 1), 1.0 / item(rd.reg, r + 2))


@wp.func(inline=True)
def cone_at(c: int, b: WorldBlock, rd: RowData, jar: wp.vec3):
    """(cost, force, local Hessian) of the elliptic contact whose normal is compact row c at ``jar``."""
    r = b.r0 + c
    fr = item(rd.cone_mu, r)
    return cone(jar, fr * wp.sqrt(item(rd.reg, r + 1) / item(rd.reg, r)), fr, dvec(rd, r))


@wp.func(inline=True)
def row_gain(x: float, dx: float, r: float, lo: float, hi: float):
    """s(x) - s(x + dx) of a row (:func:`row_zone`), in closed form where both ends lie in one zone (no
    difference of two rounded costs): -dx (2 x + dx) / (2 r) inside the bounds, -bound dx on a bound."""
    f0 = -x / r
    f1 = -(x + dx) / r
    if f0 < lo and f1 < lo:
        return lo * dx
    if f0 > hi and f1 > hi:
        return hi * dx
    if f0 >= lo and f0 <= hi and f1 >= lo and f1 <= hi:
        return -dx * (2.0 * x + dx) / (2.0 * r)
    return row_zone(x, r, lo, hi)[0] - row_zone(x + dx, r, lo, hi)[0]


@wp.func(inline=True)
def row_at(c: int, b: WorldBlock, rd: RowData, x: float):
    """(s(x), f, s''(x)) of compact row c at jar = x."""
    r = b.r0 + c
    return row_zone(x, item(rd.reg, r), item(rd.lo, r), item(rd.hi, r))
