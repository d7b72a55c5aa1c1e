"""The factorization helpers of :mod:`newton_gym.solvers.spatial` that do several rows at once give bitwise
what one row at a time gives: the dense Cholesky's four running sums below each pivot, and the three-row
L^-T solve of a pyramid's basis rows (:func:`ltl_solve_t3`); the tree factor's rank-one update
(:func:`ltl_update`) gives the factor of the updated matrix, on the tree's pattern, for any number of lanes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import warp as wp

from newton_gym.solvers.lanes import sync_lanes
from newton_gym.solvers.solve.pattern import on_path
from newton_gym.solvers.spatial import (
    dense_cholesky_solve,
    ltl_factor,
    ltl_solve,
    ltl_solve_t,
    ltl_solve_t3,
    ltl_update,
)

wp.set_module_options({"enable_backward": False})


@wp.func
def _cholesky_row_by_row(a: wp.array(dtype=Any), off: int, n: int, b: wp.array(dtype=Any), x: wp.array(dtype=Any)):
    """The dense Cholesky and solve one row below the pivot at a time (the reference order), in the arrays'
    element type."""
    for j in range(n):
        rj = off + j * n
        p = a[rj + j]
        for t in range(j):
            p -= a[rj + t] * a[rj + t]
        d = wp.sqrt(wp.max(p, type(p)(1.0e-20)))
        for i in range(j + 1, n):
            ri = off + i * n
            v = a[ri + j]
            for t in range(j):
                v -= a[ri + t] * a[rj + t]
            a[ri + j] = v / d
        a[rj + j] = d
    for i in range(n):
        ri = off + i * n
        v = b[i]
        for t in range(i):
            v -= a[ri + t] * x[t]
        x[i] = v / a[ri + i]
    for ii in range(n):
        i = n - 1 - ii
        v = x[i]
        for t in range(i + 1, n):
            v -= a[off + t * n + i] * x[t]
        x[i] = v / a[off + i * n + i]


@wp.kernel
def _cholesky_both(
    n: int,
    a1: wp.array(dtype=Any),
    a2: wp.array(dtype=Any),
    b: wp.array(dtype=Any),
    x1: wp.array(dtype=Any),
    x2: wp.array(dtype=Any),
):
    dense_cholesky_solve(a1, 0, n, b, 0, x1, 0, 0, 1)
    _cholesky_row_by_row(a2, 0, n, b, x2)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 9, 18, 23])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_cholesky_four_rows_is_row_by_row(n, dtype):
    """Bitwise the row-by-row order in float32 (the Newton Hessian's) and float64 (the capacitance matrix of
    rows across branches, :func:`newton_gym.solvers.solve.pattern.cross_direction`), and a solution."""
    rng = np.random.default_rng(n)
    g = rng.standard_normal((n, n + 3))
    a = (g @ g.T + 0.1 * np.eye(n)).astype(dtype)
    low = np.tril(a).reshape(-1)
    a1 = wp.array(low)
    a2 = wp.array(low)
    b = wp.array(rng.standard_normal(n).astype(dtype))
    x1 = wp.zeros(n, dtype=a1.dtype)
    x2 = wp.zeros(n, dtype=a1.dtype)
    wp.launch(_cholesky_both, dim=1, inputs=[n, a1, a2, b, x1, x2])
    assert np.array_equal(a1.numpy(), a2.numpy())
    assert np.array_equal(x1.numpy(), x2.numpy())
    tol = 1e-3 if dtype == np.float32 else 1e-9
    assert np.allclose(a @ x1.numpy(), b.numpy(), atol=tol)


@wp.kernel
def _factor(lf: wp.array(dtype=wp.float64), n: int, parent: wp.array(dtype=int)):
    ltl_factor(lf, 0, n, 0, parent, 0, 1)


@wp.kernel
def _solve_three_ways(
    lf: wp.array(dtype=wp.float64),
    n: int,
    parent: wp.array(dtype=int),
    x1: wp.array(dtype=wp.float32),
    x3: wp.array(dtype=wp.float32),
    leaf: int,
):
    for r in range(3):
        ltl_solve_t(lf, 0, n, 0, parent, x1, r * n)
    ltl_solve_t3(lf, 0, n, 0, parent, x3, wp.vec3i(0, n, 2 * n), leaf)


@pytest.mark.parametrize("leaf", [-1, 8])
def test_three_row_solve_is_three_solves(leaf):
    """Bitwise three single-row solves, walking every DOF (leaf -1) or only the path of DOF 8 (the rows are
    zero off it: a body's Jacobian)."""
    # A floating base (6 DOFs in a chain) with two legs of three, numbered parents first.
    parent = np.array([-1, 0, 1, 2, 3, 4, 5, 6, 7, 5, 9, 10], dtype=np.int32)
    n = len(parent)
    rng = np.random.default_rng(3)
    g = rng.standard_normal((n, n + 2))
    m = g @ g.T + n * np.eye(n)
    anc = np.zeros((n, n), bool)  # keep M's tree pattern: entry (k, i) only where i is k or an ancestor
    for k in range(n):
        i = k
        while i >= 0:
            anc[k, i] = anc[i, k] = True
            i = parent[i]
    lf = wp.array((m * anc).reshape(-1), dtype=wp.float64)
    wp.launch(_factor, dim=1, inputs=[lf, n, wp.array(parent, dtype=int)])
    rhs = rng.standard_normal((3, n)).astype(np.float32)
    rhs[0, 7:9] = 0.0  # a row off one leg, a row that is zero at a DOF the others are not
    rhs[1, 4] = 0.0
    rhs[2, 9:] = 0.0
    if leaf >= 0:
        rhs[:, 9:] = 0.0  # the path of DOF 8: the base and the first leg
    x1 = wp.array(rhs.reshape(-1), dtype=wp.float32)
    x3 = wp.array(rhs.reshape(-1), dtype=wp.float32)
    wp.launch(_solve_three_ways, dim=1, inputs=[lf, n, wp.array(parent, dtype=int), x1, x3, leaf])
    assert np.array_equal(x1.numpy(), x3.numpy())
    # L^T z = b: z is L^-T b, so L^T z reproduces b.
    low = np.tril(lf.numpy().reshape(n, n) * anc)
    assert np.allclose(low.T @ x3.numpy().reshape(3, n).T, rhs.T, atol=1e-4)


# A forest of 14 DOFs numbered parents first: a base chain 0-5, two limbs 6-8 and 9-11 hanging off DOF 5,
# and a second articulation 12-13 (the shape of a legged robot's DOF tree, plus a free body).
_FOREST = np.array([-1, 0, 1, 2, 3, 4, 5, 6, 7, 5, 9, 10, -1, 12], np.int32)


def _root_path(parent, leaf):
    path = []
    while leaf >= 0:
        path.append(int(leaf))
        leaf = parent[leaf]
    return path


@wp.kernel
def _tree_solve(n: int, parent: wp.array(dtype=int), h: wp.array(dtype=float), x: wp.array(dtype=float)):
    ltl_factor(h, 0, n, 0, parent, 0, 1)
    ltl_solve_t(h, 0, n, 0, parent, x, 0)
    ltl_solve(h, 0, n, 0, parent, x, 0)


def test_tree_factor_solves_a_float32_hessian_on_the_tree_pattern():
    """A Newton Hessian I + sum D y y^T of rows along root paths (non-zero at (descendant, ancestor) entries
    only) factored in float32 by the tree factorization, leaves first, without fill-in: H x = g as NumPy
    solves it, and the lower triangle off the pattern stays untouched (zero)."""
    rng = np.random.default_rng(3)
    n = len(_FOREST)
    h = np.eye(n)
    for leaf in (8, 11, 8, 4, 13, 10):  # limb tips, a base DOF, the free body: rows along each root path
        y = np.zeros(n)
        y[_root_path(_FOREST, leaf)] = rng.normal(size=len(_root_path(_FOREST, leaf)))
        h += rng.uniform(0.5, 50.0) * np.outer(y, y)
    g = rng.normal(size=n)
    lower = np.tril(h).astype(np.float32)
    pattern = np.zeros((n, n), bool)
    for k in range(n):
        pattern[k, _root_path(_FOREST, k)] = True
    assert np.all(lower[~pattern] == 0.0)  # the rows' terms lie on the pattern
    ha = wp.array(lower.ravel(), dtype=float)
    xa = wp.array(g.astype(np.float32), dtype=float)
    wp.launch(_tree_solve, dim=1, inputs=[n, wp.array(_FOREST, dtype=int), ha, xa])
    x = xa.numpy()
    ref = np.linalg.solve(h, g)
    assert np.abs(x - ref).max() < 1e-4 * np.abs(ref).max()
    assert np.all(ha.numpy().reshape(n, n)[~pattern] == 0.0)


@wp.kernel
def _on_path_kernel(
    ynz: wp.array(dtype=wp.int16),
    start: wp.array(dtype=int),
    count: wp.array(dtype=int),
    deep: wp.array(dtype=int),
    parent: wp.array(dtype=int),
    wd0: int,
    out: wp.array(dtype=int),
):
    i = wp.tid()
    out[i] = on_path(ynz, start[i], count[i], deep[i], parent, wd0)


def test_on_path_tells_root_paths_from_branches():
    """A row's non-zero columns lie on one root path (its deepest column's) or they do not: a limb with the
    base, a subset of a path, across two limbs, across two articulations, and columns below the deepest."""
    wd0 = 2  # the world's DOFs start at global DOF 2: the forest shifted by it
    parent = np.concatenate([[-1, 0], np.where(_FOREST >= 0, _FOREST + wd0, -1)]).astype(np.int32)
    cases = [
        ([0, 1, 2, 3, 4, 5, 6, 7, 8], 8, 1),  # base and limb one: a root path
        ([2, 5, 10], 10, 1),  # a subset of limb two's path (zero entries between)
        ([5, 8, 11], 11, 0),  # both limbs
        ([3, 12, 13], 13, 0),  # the base and the free body: two articulations
        ([12, 13], 13, 1),  # the free body alone
        ([0, 5, 6], 6, 1),
        ([0, 5, 6], 9, 0),  # column 6 is not on DOF 9's path
        ([], -1, 1),  # a row of zeros
    ]
    flat, start, count, deep = [], [], [], []
    for cols, d, _expect in cases:
        start.append(len(flat))
        count.append(len(cols))
        deep.append(d)
        flat += cols
    out = wp.zeros(len(cases), dtype=int)
    wp.launch(
        _on_path_kernel,
        dim=len(cases),
        inputs=[
            wp.array(np.array(flat + [0], np.int16), dtype=wp.int16),
            wp.array(np.array(start, np.int32), dtype=int),
            wp.array(np.array(count, np.int32), dtype=int),
            wp.array(np.array(deep, np.int32), dtype=int),
            wp.array(parent, dtype=int),
            wd0,
        ],
        outputs=[out],
    )
    assert out.numpy().tolist() == [c[2] for c in cases]


@wp.kernel
def _factor32(lf: wp.array(dtype=float), n: int, parent: wp.array(dtype=int)):
    ltl_factor(lf, 0, n, 0, parent, 0, 1)


@wp.kernel
def _updates(
    lanes: int,
    lf: wp.array(dtype=float),
    n: int,
    parent: wp.array(dtype=int),
    xs: wp.array(dtype=float),
    deeps: wp.array(dtype=int),
    signs: wp.array(dtype=float),
    x: wp.array(dtype=float),
    ok: wp.array(dtype=int),
):
    """Each update in turn (x: its own copy of the vector, overwritten) by the block's lanes."""
    _block, lane = wp.tid()
    for u in range(deeps.shape[0]):
        for a in range(lane, n, lanes):
            x[a] = xs[u * n + a]
        sync_lanes(lanes)
        ok[u] = ltl_update(lf, 0, n, 0, parent, x, 0, deeps[u], signs[u], lane, lanes)


def _path_row(rng, leaf, n):
    y = np.zeros(n)
    y[_root_path(_FOREST, leaf)] = rng.normal(size=len(_root_path(_FOREST, leaf)))
    return y


def _tree_hessian(rng):
    """(H, rows, D): a Newton Hessian I + sum D y y^T of rows along root paths of _FOREST."""
    n = len(_FOREST)
    rows = [_path_row(rng, leaf, n) for leaf in (8, 11, 8, 4, 13, 10)]
    d = rng.uniform(0.5, 20.0, len(rows))
    return np.eye(n) + sum(di * np.outer(y, y) for di, y in zip(d, rows)), rows, d


def _run_updates(lower, vectors, deeps, signs, lanes):
    n = len(_FOREST)
    lf = wp.array(lower.ravel(), dtype=float)
    parent = wp.array(_FOREST, dtype=int)
    wp.launch(_factor32, dim=1, inputs=[lf, n, parent])
    ok = wp.zeros(len(deeps), dtype=int)
    xs = wp.array(np.concatenate(vectors).astype(np.float32), dtype=float)
    inputs = [lanes, lf, n, parent, xs, wp.array(deeps, dtype=int), wp.array(signs, dtype=float)]
    wp.launch_tiled(_updates, dim=[1], inputs=[*inputs, wp.zeros(n, dtype=float), ok], block_dim=lanes)
    return lf.numpy().reshape(n, n), ok.numpy()


def test_rank_one_updates_give_the_factor_of_the_new_hessian():
    """Add a row on a limb (update), remove two rows of H (downdates, one of them on the free body's
    articulation): the factor equals the fresh factor of the new H to float32 rounding, and nothing is
    written off the tree's pattern."""
    rng = np.random.default_rng(5)
    n = len(_FOREST)
    h, rows, d = _tree_hessian(rng)
    new = _path_row(rng, 11, n)
    vectors = [np.sqrt(7.0) * new, np.sqrt(d[1]) * rows[1], np.sqrt(d[4]) * rows[4]]
    target = h + 7.0 * np.outer(new, new) - d[1] * np.outer(rows[1], rows[1]) - d[4] * np.outer(rows[4], rows[4])
    lf, ok = _run_updates(np.tril(h).astype(np.float32), vectors, [11, 11, 13], [1.0, -1.0, -1.0], 1)
    assert ok.tolist() == [1, 1, 1]
    pattern = np.zeros((n, n), bool)
    for k in range(n):
        pattern[k, _root_path(_FOREST, k)] = True
    assert np.all(lf[~pattern] == 0.0)
    ref = np.linalg.cholesky(target[::-1, ::-1])[::-1, ::-1].T  # H = L^T L, L lower: the reversed Cholesky
    assert np.abs(lf - ref).max() < 1e-4 * np.abs(ref).max()
    assert np.allclose(lf.T @ lf, target, atol=1e-3)


def test_rank_one_update_lanes_equal_one_lane(monkeypatch):
    """The same updates by a block of 4 lanes: bitwise the one-lane factor."""
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    rng = np.random.default_rng(6)
    h, rows, d = _tree_hessian(rng)
    vectors = [np.sqrt(3.0) * _path_row(rng, 8, len(_FOREST)), np.sqrt(d[0]) * rows[0]]
    one, ok1 = _run_updates(np.tril(h).astype(np.float32), vectors, [8, 8], [1.0, -1.0], 1)
    four, ok4 = _run_updates(np.tril(h).astype(np.float32), vectors, [8, 8], [1.0, -1.0], 4)
    assert ok1.tolist() == ok4.tolist() == [1, 1]
    assert np.array_equal(one, four)


def test_rank_one_downdate_that_breaks_down_says_so():
    """Removing far more than H holds (H - 100 y y^T is indefinite): the update reports the breakdown (the
    caller then forms H afresh) instead of writing a NaN or a negative pivot's square root."""
    rng = np.random.default_rng(7)
    h, rows, _d = _tree_hessian(rng)
    _lf, ok = _run_updates(np.tril(h).astype(np.float32), [10.0 * rows[0]], [8], [-1.0], 1)
    assert ok.tolist() == [0]
