"""HeightScanner against host geometry: every ray of random scenes (random heightfields turned about z and
shifted, oriented boxes, planes; several worlds with bodies at different places and headings) compared
with ``Heightfield.height_at``, an exact ray-box slab test and the plane; the heightfield surface also
against a ray-triangle test on ``Heightfield.triangles()``; the grid layout against Isaac Lab's; misses,
per-world static shapes, zero-copy views and graph capture."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import warp as wp

import newton_gym as ng
from newton_gym.sensors import HeightScanner, SensorError, grid_pattern
from newton_gym.sim.hostmath import quat_from_axis_angle, quat_mul, quat_rotate

TOL = 2.0e-4  # [m] float32 ray origins 20 m up, poses and elevations in float32


def _yaw_quat(yaw):
    return np.array([0.0, 0.0, np.sin(0.5 * yaw), np.cos(0.5 * yaw)])


def _inv_rotate(q, v):
    return quat_rotate(np.concatenate([-np.asarray(q[:3]), [q[3]]]), v)


def _robot(mass=1.0):
    """One free body with a small sphere (the tracked base)."""
    b = ng.ModelBuilder()
    body = b.add_body(xform=[0, 0, 0.5, 0, 0, 0, 1], mass=mass, inertia=np.eye(3) * 0.01)
    b.add_shape_sphere(body, radius=0.05)
    return b


def _place_bodies(model, state, poses):
    """Write body-origin poses (N, 7) into state.body_q."""
    q = state.body_q.numpy()
    q[: len(poses)] = poses
    state.body_q.assign(q)


# ---------------------------------------------------------------- host reference
def _ref_field(field, pose, o):
    """Hit z of a downward ray from world point o on a field at pose, or None."""
    local = _inv_rotate(pose[3:7], o - pose[:3])
    if abs(local[0]) > field.hx or abs(local[1]) > field.hy:
        return None
    z = float(field.height_at(local[0], local[1])) + pose[2]
    return z if o[2] >= z else None


def _ref_box(pose, half, o):
    """Hit z of a downward ray on an oriented box (slab test in the box frame), or None."""
    ol = _inv_rotate(pose[3:7], o - pose[:3])
    dl = _inv_rotate(pose[3:7], np.array([0.0, 0.0, -1.0]))
    t0, t1 = -np.inf, np.inf
    for i in range(3):
        if abs(dl[i]) < 1e-12:
            if abs(ol[i]) > half[i]:
                return None
            continue
        a, b = (-half[i] - ol[i]) / dl[i], (half[i] - ol[i]) / dl[i]
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    if t0 > t1 or t1 < 0:
        return None
    return o[2] - (t0 if t0 >= 0 else t1)


def _ref_plane(pose, size, o):
    ol = _inv_rotate(pose[3:7], o - pose[:3])
    dl = _inv_rotate(pose[3:7], np.array([0.0, 0.0, -1.0]))
    if abs(dl[2]) < 1e-12:
        return None
    t = -ol[2] / dl[2]
    p = ol + t * dl
    if t < 0 or (size[0] > 0 and abs(p[0]) > 0.5 * size[0]) or (size[1] > 0 and abs(p[1]) > 0.5 * size[1]):
        return None
    return o[2] - t


def _reference_hits(model, world_of, origins, max_distance):
    """(N, R) host hit z for ray origins (N, R, 3): nearest static field, box or plane of the row's world
    or global; a miss reads origin z - max_distance."""
    kind, body = model.shape_type.numpy(), model.shape_body.numpy()
    pose, scale = model.shape_transform.numpy().astype(np.float64), model.shape_scale.numpy().astype(np.float64)
    sworld, field_of = model.shape_world.numpy(), model.shape_heightfield.numpy()
    out = origins[..., 2] - max_distance
    for n in range(origins.shape[0]):
        shapes = [s for s in range(model.shape_count) if body[s] == -1 and sworld[s] in (-1, world_of[n])]
        for r in range(origins.shape[1]):
            o = origins[n, r]
            zs = []
            for s in shapes:
                if kind[s] == ng.GeoType.HFIELD:
                    zs.append(_ref_field(model.heightfields[field_of[s]], pose[s], o))
                elif kind[s] == ng.GeoType.BOX:
                    zs.append(_ref_box(pose[s], scale[s], o))
                elif kind[s] == ng.GeoType.PLANE:
                    zs.append(_ref_plane(pose[s], scale[s], o))
            zs = [z for z in zs if z is not None and o[2] - z <= max_distance]
            if zs:
                out[n, r] = max(zs)
    return out


def _reference_origins(poses, pattern):
    """(N, R, 3) ray starts: body position + yaw rotation of the pattern (offset included)."""
    out = []
    for p in poses:
        q = p[3:7]
        yaw = np.arctan2(2 * (q[3] * q[2] + q[0] * q[1]), 1 - 2 * (q[1] ** 2 + q[2] ** 2))
        out.append(p[:3] + quat_rotate(_yaw_quat(yaw), pattern))
    return np.array(out)


# ---------------------------------------------------------------- tests
def test_grid_pattern_is_isaac_labs_xy_ordering():
    g = grid_pattern((1.6, 1.0), 0.1)
    assert g.shape == (187, 3)
    np.testing.assert_allclose(g[0], [-0.8, -0.5, 0.0], atol=1e-12)
    np.testing.assert_allclose(g[1], [-0.7, -0.5, 0.0], atol=1e-12)  # x runs fastest
    np.testing.assert_allclose(g[17], [-0.8, -0.4, 0.0], atol=1e-12)
    np.testing.assert_allclose(g[-1], [0.8, 0.5, 0.0], atol=1e-12)
    assert grid_pattern((0.0, 0.0), 0.1).shape == (1, 3)
    with pytest.raises(SensorError, match="resolution"):
        grid_pattern((1.0, 1.0), 0.0)


def _random_scene(rng, with_plane=True, worlds=3):
    b = ng.ModelBuilder()
    if with_plane:
        b.add_ground_plane(height=-0.4)
    fields = []
    for k in range(2):
        field = ng.Heightfield(rng.uniform(-0.2, 0.3, (int(rng.integers(5, 12)), int(rng.integers(5, 12)))), 1.3, 0.9)
        yaw = rng.uniform(-np.pi, np.pi)
        pose = np.concatenate([[-1.5 + 3.2 * k, rng.uniform(-0.3, 0.3), rng.uniform(-0.1, 0.1)], _yaw_quat(yaw)])
        b.add_shape_heightfield(-1, pose, field)
        fields.append(field)
    tilt = quat_mul(_yaw_quat(0.4), quat_from_axis_angle([1.0, 0.3, 0.0], 0.5))
    b.add_shape_box(-1, np.concatenate([[0.1, 0.2, 0.1], tilt]), 0.25, 0.2, 0.15)
    b.add_shape_box(-1, np.concatenate([[0.2, -0.6, 0.0], _yaw_quat(0.7)]), 0.3, 0.2, 0.35)
    for _ in range(8):  # small blocks: more items than one group tests one by one, so the BVH is searched
        q = quat_mul(_yaw_quat(rng.uniform(-np.pi, np.pi)), quat_from_axis_angle([0, 1, 0], rng.uniform(-0.5, 0.5)))
        centre = [rng.uniform(-2.5, 2.5), rng.uniform(-1.0, 1.0), rng.uniform(0.0, 0.3)]
        b.add_shape_box(-1, np.concatenate([centre, q]), *rng.uniform(0.05, 0.2, 3))
    b.replicate(_robot(), worlds)
    return b.finalize("cpu")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_fields_boxes_and_plane_match_host_geometry(seed):
    rng = np.random.default_rng(seed)
    model = _random_scene(rng)
    state = model.state()
    n = model.world_count
    poses = []
    for _ in range(n):
        q = quat_mul(_yaw_quat(rng.uniform(-np.pi, np.pi)), quat_from_axis_angle([1, 0, 0], rng.uniform(-0.3, 0.3)))
        poses.append(np.concatenate([[rng.uniform(-2.8, 2.8), rng.uniform(-1.2, 1.2), rng.uniform(0.3, 0.8)], q]))
    poses = np.array(poses)
    _place_bodies(model, state, poses)
    scanner = HeightScanner(model, np.arange(n), size=(2.0, 1.4), resolution=0.1)
    scanner.update(state)
    origins = _reference_origins(poses, scanner.pattern)
    np.testing.assert_allclose(scanner.ray_origins.numpy(), origins, atol=1e-5)
    expected = _reference_hits(model, np.zeros(n, dtype=int), origins, scanner.max_distance)
    got = scanner.hits_z.numpy()
    np.testing.assert_allclose(got, expected, atol=TOL)
    # The scene has rays on each kind of surface and off the fields (on the plane at -0.4).
    assert np.isclose(got, -0.4, atol=TOL).any() and (got > 0.0).any()


def _level_bodies_over_a_scene(seed: int):
    """A random scene (:func:`_random_scene`) with each world's body level at z 0.5 over a random (x, y), and a
    2.0 x 1.4 m scanner on them: (model, state, poses, scanner)."""
    rng = np.random.default_rng(seed)
    model = _random_scene(rng)
    state = model.state()
    n = model.world_count
    poses = np.array([[rng.uniform(-2.0, 2.0), rng.uniform(-1.0, 1.0), 0.5, 0.0, 0.0, 0.0, 1.0] for _ in range(n)])
    _place_bodies(model, state, poses)
    return model, state, poses, HeightScanner(model, np.arange(n), size=(2.0, 1.4), resolution=0.1)


def test_masked_update_recasts_the_masked_sensors_only():
    """update(state, mask) recasts the rays of the sensors where mask is True, bitwise as a full update does,
    and leaves the others' hits and origins as they were."""
    model, state, poses, scanner = _level_bodies_over_a_scene(5)
    n = model.world_count
    scanner.update(state)
    before = scanner.hits_z.numpy().copy(), scanner.ray_origins.numpy().copy()
    moved = poses.copy()
    moved[:, 0] += 0.37
    _place_bodies(model, state, moved)
    mask = np.arange(n) == 1
    scanner.update(state, mask=mask)
    masked = scanner.hits_z.numpy().copy(), scanner.ray_origins.numpy().copy()
    scanner.update(state)
    for got, old, full in zip(masked, before, (scanner.hits_z.numpy(), scanner.ray_origins.numpy())):
        np.testing.assert_array_equal(got[mask], full[mask])
        np.testing.assert_array_equal(got[~mask], old[~mask])
    assert not np.array_equal(before[1][mask], masked[1][mask])  # the masked sensor moved


def test_one_ray_per_thread_equals_every_ray_per_thread():
    """The GPU's launch shape (one ray per thread) gives bitwise the CPU's (a thread per body, all its rays),
    run here on the CPU with the kernel's chunk size set by hand."""
    from newton_gym.sensors.height_scan import _scan_kernel

    model, state, _, scanner = _level_bodies_over_a_scene(6)
    n = model.world_count
    outs = []
    for per_thread in (1, scanner.num_rays):
        hits = wp.zeros((n, scanner.num_rays), dtype=wp.float32)
        origins = wp.zeros((n, scanner.num_rays), dtype=wp.vec3)
        body_z = wp.zeros(n, dtype=wp.float32)
        wp.launch(
            _scan_kernel,
            dim=(n, -(-scanner.num_rays // per_thread)),
            inputs=[state.body_q, model.body_world, scanner._scene.scene, scanner.body_indices, scanner._ray_start]
            + [scanner.max_distance, per_thread, scanner._everyone],
            outputs=[origins, hits, body_z],
        )
        outs.append([a.numpy() for a in (hits, origins, body_z)])
    for one, every in zip(*outs):
        np.testing.assert_array_equal(one, every)
    assert (outs[0][0] > -50.0).any()  # rays hit the scene


def test_rays_off_every_shape_read_the_far_end_of_the_ray():
    model = _random_scene(np.random.default_rng(3), with_plane=False, worlds=2)
    state = model.state()
    poses = np.array([[0.0, 0.0, 0.5, 0, 0, 0, 1], [9.0, 9.0, 0.5, 0, 0, 0, 1]], dtype=np.float64)
    _place_bodies(model, state, poses)
    scanner = HeightScanner(model, [0, 1], max_distance=30.0)
    scanner.update(state)
    z = scanner.hits_z.numpy()
    origins = scanner.ray_origins.numpy()
    np.testing.assert_allclose(z[1], origins[1, :, 2] - 30.0, atol=1e-5)  # all misses, finite
    assert scanner.missed[1].all() and not scanner.missed[0].all()
    h = scanner.heights()
    assert torch.isfinite(h).all()
    assert torch.all(h[1] == 1.0)  # a miss reads as a pit below every clip
    np.testing.assert_allclose(z, _reference_hits(model, [0, 0], origins, 30.0), atol=TOL)


def test_field_surface_equals_its_triangles():
    """Each hit lies on the triangle of Heightfield.triangles() under the ray (vertical ray-triangle test)."""
    rng = np.random.default_rng(7)
    field = ng.Heightfield(rng.uniform(0.0, 0.5, (6, 8)), 0.7, 0.5)
    b = ng.ModelBuilder()
    pose = np.concatenate([[0.3, -0.2, 0.1], _yaw_quat(0.9)])
    b.add_shape_heightfield(-1, pose, field)
    b.replicate(_robot(), 1)
    model = b.finalize("cpu")
    state = model.state()
    _place_bodies(model, state, np.array([[0.3, -0.2, 0.6, *_yaw_quat(-0.3)]]))
    scanner = HeightScanner(model, [0], size=(1.2, 1.2), resolution=0.05)
    scanner.update(state)
    pts, tris = field.points(), field.triangles()
    a, bb, c = pts[tris[:, 0]], pts[tris[:, 1]], pts[tris[:, 2]]
    checked = 0
    for o, z in zip(scanner.ray_origins.numpy()[0], scanner.hits_z.numpy()[0]):
        x, y = _inv_rotate(pose[3:7], o - pose[:3])[:2]
        # 2-D barycentric coordinates of (x, y) in every triangle; keep the one that contains it.
        det = (bb[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (bb[:, 1] - a[:, 1])
        l1 = ((x - a[:, 0]) * (c[:, 1] - a[:, 1]) - (c[:, 0] - a[:, 0]) * (y - a[:, 1])) / det
        l2 = ((bb[:, 0] - a[:, 0]) * (y - a[:, 1]) - (x - a[:, 0]) * (bb[:, 1] - a[:, 1])) / det
        inside = (l1 >= -1e-9) & (l2 >= -1e-9) & (l1 + l2 <= 1 + 1e-9)
        if not inside.any():
            assert z <= o[2] - 99.0  # off the field: a miss
            continue
        k = np.flatnonzero(inside)[0]
        surface = a[k, 2] + l1[k] * (bb[k, 2] - a[k, 2]) + l2[k] * (c[k, 2] - a[k, 2])
        assert abs(z - (surface + pose[2])) < TOL
        checked += 1
    assert checked > 100


def test_box_top_and_yaw_turn_the_pattern():
    b = ng.ModelBuilder()
    b.add_ground_plane()
    b.add_shape_box(-1, [1.0, 0.0, 0.1, 0, 0, 0, 1], 0.3, 0.3, 0.1)  # top at z = 0.2
    b.replicate(_robot(), 1)
    model = b.finalize("cpu")
    state = model.state()
    yaw = np.radians(30.0)
    q = quat_mul(_yaw_quat(yaw), quat_from_axis_angle([0, 1, 0], 0.4))  # pitch must not tilt the grid
    _place_bodies(model, state, np.array([[0.6, 0.1, 0.45, *q]]))
    scanner = HeightScanner(model, [0])
    scanner.update(state)
    origins = scanner.ray_origins.numpy()[0]
    grid = grid_pattern((1.6, 1.0), 0.1)
    c, s = np.cos(yaw), np.sin(yaw)
    expected_xy = np.array([0.6, 0.1]) + grid[:, :2] @ np.array([[c, s], [-s, c]])
    np.testing.assert_allclose(origins[:, :2], expected_xy, atol=1e-5)
    np.testing.assert_allclose(origins[:, 2], 20.45, atol=1e-5)
    over_box = (np.abs(origins[:, 0] - 1.0) < 0.29) & (np.abs(origins[:, 1]) < 0.29)
    off_box = (np.abs(origins[:, 0] - 1.0) > 0.31) | (np.abs(origins[:, 1]) > 0.31)
    assert over_box.sum() > 10
    z = scanner.hits_z.numpy()[0]
    np.testing.assert_allclose(z[over_box], 0.2, atol=TOL)
    np.testing.assert_allclose(z[off_box], 0.0, atol=TOL)
    h = scanner.heights(offset=0.5, clip=None).numpy()[0]
    np.testing.assert_allclose(h[over_box], 0.45 - 0.2 - 0.5, atol=TOL)


def test_finite_plane_has_edges():
    b = ng.ModelBuilder()
    b.add_shape_plane(-1, [0.0, 0.0, 0.3, 0, 0, 0, 1], width=1.0, length=0.4)  # full extents
    b.replicate(_robot(), 1)
    model = b.finalize("cpu")
    state = model.state()
    scanner = HeightScanner(model, [0], max_distance=50.0)
    scanner.update(state)
    origins, z = scanner.ray_origins.numpy()[0], scanner.hits_z.numpy()[0]
    inside = (np.abs(origins[:, 0]) < 0.49) & (np.abs(origins[:, 1]) < 0.19)
    outside = (np.abs(origins[:, 0]) > 0.51) | (np.abs(origins[:, 1]) > 0.21)
    assert inside.sum() == 9 * 3 and outside.sum() == 187 - 11 * 5
    np.testing.assert_allclose(z[inside], 0.3, atol=TOL)
    np.testing.assert_allclose(z[outside], origins[outside, 2] - 50.0, atol=1e-5)


def test_static_shapes_of_a_world_are_seen_by_that_world_only():
    robot = _robot()
    robot.add_shape_box(-1, [0.0, 0.0, 0.05, 0, 0, 0, 1], 2.0, 2.0, 0.05)  # a per-world floor slab
    robot.add_ground_plane(height=-0.2)  # a per-world infinite plane (an MJCF floor)
    for k in range(6):  # per-world posts far off the grid: more items than one group tests one by one
        robot.add_shape_box(-1, [3.0, -1.5 + 0.6 * k, 1.0, 0, 0, 0, 1], 0.1, 0.1, 1.0)
    b = ng.ModelBuilder()
    b.add_shape_box(-1, [0.0, 0.0, -0.5, 0, 0, 0, 1], 50.0, 50.0, 0.1)  # global
    b.replicate(robot, 3, spacing=(0.0, 10.0, 0.0))
    model = b.finalize("cpu")
    state = model.state()
    scanner = HeightScanner(model, [0, 1, 2])
    scanner.update(state)
    z = scanner.hits_z.numpy()
    np.testing.assert_allclose(z, 0.1, atol=TOL)  # each world's slab top, under its own robot
    # World 1's body moved over world 0's slab sees only its own plane at -0.2 there.
    q = state.body_q.numpy()
    q[1, :3] = q[0, :3]
    state.body_q.assign(q)
    scanner.update(state)
    np.testing.assert_allclose(scanner.hits_z.numpy()[1], -0.2, atol=TOL)
    origins = scanner.ray_origins.numpy()
    np.testing.assert_allclose(scanner.hits_z.numpy(), _reference_hits(model, [0, 1, 2], origins, 100.0), atol=TOL)


def test_outputs_have_world_by_ray_shapes_and_share_memory(torch_device):
    b = ng.ModelBuilder()
    b.add_ground_plane()
    b.replicate(_robot(), 4)
    model = b.finalize(torch_device)
    scanner = HeightScanner(model, np.arange(4))
    scanner.update(model.state())
    assert scanner.num_rays == 187
    assert scanner.hits_z.shape == (4, 187) and scanner.views.hits_z.shape == (4, 187)
    h = scanner.heights()
    assert h.shape == (4, 187) and h.device == scanner.views.hits_z.device
    torch.testing.assert_close(h, torch.full_like(h, 0.0))  # body at 0.5 above the ground, offset 0.5
    scanner.views.hits_z[2, 5] = 7.5
    assert scanner.hits_z.numpy()[2, 5] == 7.5
    assert scanner.views.hits_z.data_ptr() == wp.to_torch(scanner.hits_z).data_ptr()


def test_update_replays_from_a_captured_graph():
    b = ng.ModelBuilder()
    b.add_ground_plane()
    b.add_shape_box(-1, [2.0, 0.0, 0.25, 0, 0, 0, 1], 1.0, 1.0, 0.25)
    b.replicate(_robot(), 1)
    model = b.finalize("cpu")
    state = model.state()
    scanner = HeightScanner(model, [0])
    scanner.update(state)  # loads the module
    with wp.ScopedCapture(device="cpu", force_module_load=True) as cap:
        scanner.update(state)
    _place_bodies(model, state, np.array([[2.0, 0.0, 1.0, 0, 0, 0, 1]]))
    wp.capture_launch(cap.graph)
    np.testing.assert_allclose(scanner.hits_z.numpy(), 0.5, atol=TOL)


def test_tilted_heightfield_and_bad_arguments_raise():
    b = ng.ModelBuilder()
    field = ng.Heightfield(np.zeros((3, 3)), 1.0, 1.0)
    b.add_shape_heightfield(-1, [0, 0, 0, *quat_from_axis_angle([1, 0, 0], 0.2)], field, key="tilted")
    b.replicate(_robot(), 1)
    model = b.finalize("cpu")
    with pytest.raises(SensorError, match="tilted"):
        HeightScanner(model, [0])
    with pytest.raises(SensorError, match="body_indices"):
        HeightScanner(model, [5])
    with pytest.raises(SensorError, match="max_distance"):
        HeightScanner(model, [0], max_distance=-1.0)


def test_visual_only_shapes_are_not_seen_and_unsupported_kinds_warn():
    b = ng.ModelBuilder()
    b.add_ground_plane()
    visual = ng.ModelBuilder.ShapeConfig(collide=False)
    b.add_shape_box(-1, [0.0, 0.0, 0.2, 0, 0, 0, 1], 2.0, 2.0, 0.2, cfg=visual)
    b.add_shape_sphere(-1, [5.0, 0.0, 0.0, 0, 0, 0, 1], radius=0.3)
    b.replicate(_robot(), 1)
    model = b.finalize("cpu")
    with pytest.warns(UserWarning, match="SPHERE"):
        scanner = HeightScanner(model, [0])
    scanner.update(model.state())
    np.testing.assert_allclose(scanner.hits_z.numpy(), 0.0, atol=TOL)  # through the visual box onto the ground
    assert scanner.scene_shapes.tolist() == [0]
