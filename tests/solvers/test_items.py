"""``item`` / ``item_set`` (:mod:`newton_gym.solvers.items`) read and write what Warp's indexing does, for each
element type the solver's hot loops use."""

from __future__ import annotations

import numpy as np
import pytest
import warp as wp

from newton_gym.solvers.items import item, item_set

wp.set_module_options({"enable_backward": False})


@wp.kernel
def _copy_f64(src: wp.array(dtype=wp.float64), dst: wp.array(dtype=wp.float64), idx: wp.array(dtype=int)):
    t = wp.tid()
    item_set(dst, t, item(src, idx[t]) * wp.float64(2.0) + src[idx[t]])


@wp.kernel
def _copy_f32(src: wp.array(dtype=wp.float32), dst: wp.array(dtype=wp.float32), idx: wp.array(dtype=int)):
    t = wp.tid()
    item_set(dst, t, item(src, idx[t]) * 2.0 + src[idx[t]])


@wp.kernel
def _copy_i32(src: wp.array(dtype=wp.int32), dst: wp.array(dtype=wp.int32), idx: wp.array(dtype=int)):
    t = wp.tid()
    item_set(dst, t, item(src, idx[t]) * 2 + src[idx[t]])


@wp.kernel
def _copy_i16(src: wp.array(dtype=wp.int16), dst: wp.array(dtype=wp.int32), idx: wp.array(dtype=int)):
    t = wp.tid()
    dst[t] = int(item(src, idx[t])) * 2 + int(src[idx[t]])


@pytest.mark.parametrize(
    ("kernel", "src_type", "dst_type"),
    [
        (_copy_f64, np.float64, np.float64),
        (_copy_f32, np.float32, np.float32),
        (_copy_i32, np.int32, np.int32),
        (_copy_i16, np.int16, np.int32),
    ],
)
def test_item_reads_and_writes_as_indexing(kernel, src_type, dst_type):
    rng = np.random.default_rng(0)
    src = (rng.standard_normal(37) * 100).astype(src_type)
    idx = rng.integers(0, 37, 64).astype(np.int32)
    dst = wp.zeros(64, dtype=wp.dtype_from_numpy(np.dtype(dst_type)))
    wp.launch(kernel, dim=64, inputs=[wp.array(src), dst, wp.array(idx)])
    assert np.array_equal(dst.numpy(), (src[idx].astype(dst_type) * 3))
