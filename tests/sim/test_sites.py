"""Sites: named frames fixed to bodies, carried through worlds and posed by site_transforms."""

import numpy as np
import pytest
import warp as wp

from newton_gym.errors import ModelBuildError
from newton_gym.sim import ModelBuilder, eval_fk, site_transforms
from newton_gym.sim.hostmath import quat_from_axis_angle, transform_mul


def _arm():
    """A world-anchored hinge arm with a site at its tip, plus a site fixed in the world."""
    b = ModelBuilder()
    link = b.add_link(xform=(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), mass=1.0, inertia=np.eye(3) * 0.1, key="arm")
    joint = b.add_joint_revolute(-1, link, parent_xform=(0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), axis=(0.0, 1.0, 0.0))
    b.add_articulation([joint])
    tip = np.concatenate([[0.5, 0.0, 0.0], quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), 0.3)])
    b.add_site(link, tip, key="tip")
    b.add_site(-1, (1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0), key="target")
    return b, tip


def _close_transforms(a, b, atol=1e-5):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert np.allclose(a[..., :3], b[..., :3], atol=atol)
    # q and -q are one rotation
    dots = np.abs(np.sum(a[..., 3:] * b[..., 3:], axis=-1))
    assert np.allclose(dots, 1.0, atol=atol)


def test_site_world_poses_follow_forward_kinematics():
    b, tip = _arm()
    assert b.site_count == 2 and b.site_key == ["tip", "target"]
    m = b.finalize("cpu")
    assert m.site_count == 2 and m.site_key == ["tip", "target"]
    assert m.site_body.numpy().tolist() == [0, -1]
    state = m.state()
    for angle in (0.0, 0.7, -1.2):
        q = wp.array([angle], dtype=wp.float32, device="cpu")
        eval_fk(m, q, m.joint_qd, state)
        poses = site_transforms(m, state).numpy()
        body = np.concatenate([[0.0, 0.0, 1.0], quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), angle)])
        _close_transforms(poses[0], transform_mul(body, tip))
        _close_transforms(poses[1], (1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    out = wp.zeros(2, dtype=wp.transform, device="cpu")
    assert site_transforms(m, state, out=out) is out
    with pytest.raises(ModelBuildError, match="out must be"):
        site_transforms(m, state, out=wp.zeros(3, dtype=wp.transform, device="cpu"))


def test_replicate_keeps_sites_per_world():
    arm, tip = _arm()
    b = ModelBuilder()
    b.add_site(-1, key="global_origin")
    b.replicate(arm, world_count=3, spacing=(2.0, 0.0, 0.0))
    m = b.finalize("cpu")
    assert m.site_count == 1 + 3 * 2
    assert m.site_world.numpy().tolist() == [-1, 0, 0, 1, 1, 2, 2]
    assert m.site_world_start.numpy().tolist() == [1, 3, 5, 7, 7]
    assert m.site_body.numpy().tolist() == [-1, 0, -1, 1, -1, 2, -1]
    assert m.site_key == ["global_origin"] + ["tip", "target"] * 3
    poses = site_transforms(m, m.state()).numpy()
    offsets = np.array([-2.0, 0.0, 2.0])
    for w in range(3):
        # the world-fixed site moves with its world's copy; the body site rides on the copied body
        _close_transforms(poses[2 + 2 * w], (1.0 + offsets[w], 2.0, 0.0, 0.0, 0.0, 0.0, 1.0))
        body = np.array([offsets[w], 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
        _close_transforms(poses[1 + 2 * w], transform_mul(body, tip))


def test_add_world_and_add_builder_carry_sites():
    arm, _ = _arm()
    b = ModelBuilder()
    assert b.add_world(arm) == 0
    b.add_world(arm, xform=(0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    b.add_builder(arm)  # global
    m = b.finalize("cpu")
    assert m.site_world.numpy().tolist() == [0, 0, 1, 1, -1, -1]
    assert m.site_world_start.numpy().tolist() == [0, 2, 4, 6]
    assert m.site_body.numpy().tolist() == [0, -1, 1, -1, 2, -1]
    assert np.allclose(m.site_xform.numpy()[3, :3], (1.0, 7.0, 0.0))


def test_add_site_checks_its_body_and_world():
    b = ModelBuilder()
    with pytest.raises(ModelBuildError, match="site foot: body 0 does not exist"):
        b.add_site(0, key="foot")
    b.begin_world()
    body = b.add_body(mass=1.0, inertia=np.eye(3))
    b.end_world()
    with pytest.raises(ModelBuildError, match="world -1 but its body 0 belongs to world 0"):
        b.add_site(body, key="foot")
    m = ModelBuilder().finalize("cpu")
    assert m.site_count == 0 and m.site_world_start.numpy().tolist() == [0, 0]
    assert site_transforms(m, m.state()).shape == (0,)
