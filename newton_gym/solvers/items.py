"""Element access of the solver's contiguous 1-D arrays without Warp's index arithmetic, for the hottest loops.

Warp's ``a[i]`` wraps a negative i (``i += shape[0]``) and scales i by the array's run-time stride; on the CPU
that is about seven instructions per access, which bound the tree factorization, the triangular solves and
the dense Cholesky (``perf`` on the factorization's inner loop: each update ran at the cost of its address
arithmetic, and removing its ``dof_parent`` chase changed nothing). ``item(a, i)`` and ``item_set(a, i, v)``
read and write ``a.data[i]``: one instruction. They are used on the solver's own buffers and the model's
tables only, which it allocates contiguous (never strided views) and indexes from 0; arrays of the user's
State keep Warp's indexing, which honours a view's strides. A debug build (``wp.config.mode = "debug"``)
asserts the bounds and the contiguity. The arithmetic of a loop is unchanged, so its results are bitwise
the same.

For the same reason the hot loops of the Newton solve, the smooth pass, the integration and the tree
factorizations are ``while`` loops, not ``for ... in range(...)``: Warp's CPU build of a range loop keeps a
range iterator whose step sign it tests at every iteration, and does not vectorize the loop (a dense rank-one
update of an 18 x 18 block: 741 ns as range loops, 183 ns as while loops; the Newton solve's loops alone made
the CPU step 6-10 % faster, bitwise the same). Loops over a literal or module-constant count stay ``range``
loops: Warp unrolls those.
"""

from __future__ import annotations

import warp as wp

__all__ = ["WIDE", "item", "item_set", "wide64"]

# Articulations whose numbers a wide pass holds side by side, one float64 each (:mod:`.smooth.wide_factor`):
# eight fill an AVX-512 register, two AVX2 ones.
WIDE = 8
wide64 = wp.types.vector(length=WIDE, dtype=wp.float64)

_READ = """
assert(a.ndim == 1 && a.strides[0] == sizeof(a.data[0]) && i >= 0 && i < a.shape[0]);
return a.data[i];
"""
_WRITE = """
assert(a.ndim == 1 && a.strides[0] == sizeof(a.data[0]) && i >= 0 && i < a.shape[0]);
a.data[i] = v;
"""


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.float64), i: int) -> wp.float64:
    """a[i] of a contiguous array (float64)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.float32), i: int) -> wp.float32:  # noqa: F811
    """a[i] of a contiguous array (float32)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.int32), i: int) -> wp.int32:  # noqa: F811
    """a[i] of a contiguous array (int32)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.int16), i: int) -> wp.int16:  # noqa: F811
    """a[i] of a contiguous array (int16)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.float64), i: int, v: wp.float64):
    """a[i] = v in a contiguous array (float64)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.float32), i: int, v: wp.float32):  # noqa: F811
    """a[i] = v in a contiguous array (float32)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.int32), i: int, v: wp.int32):  # noqa: F811
    """a[i] = v in a contiguous array (int32)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.int16), i: int, v: wp.int16):  # noqa: F811
    """a[i] = v in a contiguous array (int16)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wide64), i: int) -> wide64:  # noqa: F811
    """a[i] of a contiguous array (wide64: one float64 per articulation of a wide pass)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wide64), i: int, v: wide64):  # noqa: F811
    """a[i] = v in a contiguous array (wide64)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.vec3), i: int) -> wp.vec3:  # noqa: F811
    """a[i] of a contiguous array (vec3)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.vec2), i: int) -> wp.vec2:  # noqa: F811
    """a[i] of a contiguous array (vec2)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.vec2), i: int, v: wp.vec2):  # noqa: F811
    """a[i] = v in a contiguous array (vec2)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.vec2i), i: int) -> wp.vec2i:  # noqa: F811
    """a[i] of a contiguous array (vec2i)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.transform), i: int) -> wp.transform:  # noqa: F811
    """a[i] of a contiguous array (transform)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.vec3), i: int, v: wp.vec3):  # noqa: F811
    """a[i] = v in a contiguous array (vec3)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.spatial_vector), i: int) -> wp.spatial_vector:  # noqa: F811
    """a[i] of a contiguous array (spatial_vector)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.spatial_vector), i: int, v: wp.spatial_vector):  # noqa: F811
    """a[i] = v in a contiguous array (spatial_vector)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.mat33), i: int) -> wp.mat33:  # noqa: F811
    """a[i] of a contiguous array (mat33)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.vec3d), i: int) -> wp.vec3d:  # noqa: F811
    """a[i] of a contiguous array (vec3d)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.vec3d), i: int, v: wp.vec3d):  # noqa: F811
    """a[i] = v in a contiguous array (vec3d)."""
    ...


@wp.func_native(_READ)
def item(a: wp.array(dtype=wp.mat33d), i: int) -> wp.mat33d:  # noqa: F811
    """a[i] of a contiguous array (mat33d)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.mat33d), i: int, v: wp.mat33d):  # noqa: F811
    """a[i] = v in a contiguous array (mat33d)."""
    ...


@wp.func_native(_WRITE)
def item_set(a: wp.array(dtype=wp.mat33), i: int, v: wp.mat33):  # noqa: F811
    """a[i] = v in a contiguous array (mat33)."""
    ...
