"""The one host quaternion module, (x, y, z, w): checked against MuJoCo's quaternion routines (which
use (w, x, y, z)) and closed-form rotations."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from newton_gym.sim import hostmath as hm

mujoco = pytest.importorskip("mujoco")


def _wxyz(q):
    return np.array([q[3], q[0], q[1], q[2]])


def test_mul_rotate_and_matrix_match_mujoco():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = (q / np.linalg.norm(q) for q in rng.normal(size=(2, 4)))
        v = rng.normal(size=3)
        ref = np.zeros(4)
        mujoco.mju_mulQuat(ref, _wxyz(a), _wxyz(b))
        np.testing.assert_allclose(_wxyz(hm.quat_mul(a, b)), ref, atol=1e-12)
        rotated = np.zeros(3)
        mujoco.mju_rotVecQuat(rotated, v, _wxyz(a))
        np.testing.assert_allclose(hm.quat_rotate(a, v), rotated, atol=1e-12)
        mat = np.zeros(9)
        mujoco.mju_quat2Mat(mat, _wxyz(a))
        np.testing.assert_allclose(hm.quat_to_matrix(a), mat.reshape(3, 3), atol=1e-12)
        back = hm.quat_from_matrix(mat.reshape(3, 3))
        np.testing.assert_allclose(back, hm.quat_canonical(a), atol=1e-9)


def test_rotate_keeps_torch_dtype_and_device():
    q = torch.tensor([[0.0, 0.0, np.sin(np.pi / 4), np.cos(np.pi / 4)]], dtype=torch.float32)
    v = torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float32)
    out = hm.quat_rotate(q, v)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), [[0.0, 1.0, 0.0]], atol=1e-6)  # 90 deg about z


def test_canonical_has_non_negative_w_and_unit_norm():
    q = hm.quat_canonical([0.0, 0.0, 2.0, -2.0])
    assert q[3] >= 0.0 and np.isclose(np.linalg.norm(q), 1.0)
    np.testing.assert_allclose(q, [0.0, 0.0, -np.sqrt(0.5), np.sqrt(0.5)])


@pytest.mark.parametrize("a, b", [([1, 0, 0], [0, 1, 0]), ([0, 0, 1], [0, 0, -1]), ([1, 0, 0], [-1, 0, 0])])
def test_between_maps_a_onto_b_including_opposite_vectors(a, b):
    q = hm.quat_between(np.array(a, float), np.array(b, float))
    np.testing.assert_allclose(hm.quat_rotate(q, np.array(a, float)), b, atol=1e-12)
    assert np.isclose(np.linalg.norm(q), 1.0)
