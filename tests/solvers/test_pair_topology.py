"""Contact pair tables stored once per distinct world layout: replicated worlds share one template,
different worlds get their own, and every world's pairs and slots decode to the model's shapes, bodies
and slots (compared with the host tables of the whole model)."""

import numpy as np
import pytest
import warp as wp

import newton_gym as ng
from newton_gym.sim.examples import ant_like_builder
from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.collision.candidates import decode
from newton_gym.solvers.collision.pairs import (
    PairTopology,
    block_of,
    decode_pair,
    find_templates,
    pair_bodies,
    pair_shapes,
    slot_pair,
    world_pairs,
)


@wp.kernel
def _decode_pairs(
    topo: PairTopology,
    shapes: wp.array(dtype=wp.vec2i),
    bodies: wp.array(dtype=wp.vec2i),
    slots: wp.array(dtype=wp.vec2i),
    world: wp.array(dtype=int),
):
    p = wp.tid()
    w = block_of(topo.block_pair_start, p)
    tp = topo.template_pair_start[topo.block_template[w]] + p - topo.block_pair_start[w]
    pair = decode_pair(topo, world_pairs(topo, w), p - topo.block_pair_start[w])  # the collision kernels' way
    shapes[p] = pair.shapes
    bodies[p] = pair.bodies
    slots[p] = pair.slots
    world[p] = w
    # the per-pair lookups of the row and parameter kernels agree with it
    s = pair_shapes(topo, w, tp)
    b = pair_bodies(topo, w, tp)
    if s[0] != pair.shapes[0] or s[1] != pair.shapes[1] or b[0] != pair.bodies[0] or b[1] != pair.bodies[1]:
        world[p] = -1


@wp.kernel
def _decode_slots(topo: PairTopology, pair: wp.array(dtype=int)):
    s = wp.tid()
    w = block_of(topo.block_slot_start, s)
    pair[s] = slot_pair(topo, w, s)[0]


def _check_decodes(solver):
    """Every pair and slot of the model, decoded on the device from the template tables, equals the
    host tables laid out per world."""
    c = solver.contacts
    n = c.pair_count
    shapes, bodies, slots = (wp.zeros(n, dtype=wp.vec2i, device="cpu") for _ in range(3))
    world = wp.zeros(n, dtype=int, device="cpu")
    wp.launch(_decode_pairs, dim=n, inputs=[c.topology, shapes, bodies, slots, world], device="cpu")
    np.testing.assert_array_equal(shapes.numpy(), c.pair_shape_host)
    np.testing.assert_array_equal(bodies.numpy(), c.pair_body_host)
    np.testing.assert_array_equal(slots.numpy()[:, 0], c.pair_slot_start_host[:-1])
    np.testing.assert_array_equal(slots.numpy()[:, 1], c.pair_slots_host)
    np.testing.assert_array_equal(world.numpy(), c.pair_world_host)
    pair = wp.zeros(c.slot_count, dtype=int, device="cpu")
    wp.launch(_decode_slots, dim=c.slot_count, inputs=[c.topology, pair], device="cpu")
    np.testing.assert_array_equal(pair.numpy(), c.slot_pair_host)


def _ball_chain(links: int, radius: float = 0.1, self_collisions: bool = True) -> ng.ModelBuilder:
    b = ng.ModelBuilder()
    parent = -1
    joints = []
    for i in range(links):
        body = b.add_link(xform=[0.3 * i, 0, 0.5, 0, 0, 0, 1], mass=1.0, inertia=np.eye(3) * 0.01)
        b.add_shape_sphere(body, radius=radius)
        if parent < 0:
            joints.append(b.add_joint_free(body))
        else:
            joints.append(b.add_joint_revolute(parent, body, axis=(0, 1, 0), parent_xform=[0.3, 0, 0, 0, 0, 0, 1]))
        parent = body
    b.add_articulation(joints, enable_self_collisions=self_collisions)
    return b


def test_replicated_worlds_share_one_template():
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(ant_like_builder(), world_count=8)
    solver = SolverGeneralized(scene.finalize("cpu"))
    c = solver.contacts
    assert c.template_count == 1
    per_world = c.pair_count // 8
    assert per_world * 8 == c.pair_count and per_world > 0
    # the tables are one world's, not eight
    assert c.topology.shape.shape[0] == per_world
    assert c.topology.slot_pair.shape[0] == c.slot_count // 8
    assert solver.rows.slot_row.shape[0] == c.slot_count // 8
    _check_decodes(solver)


def test_different_worlds_get_their_own_templates():
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    for links, radius in ((2, 0.1), (3, 0.1), (2, 0.1), (3, 0.12), (3, 0.1)):
        scene.add_world(_ball_chain(links, radius))
    solver = SolverGeneralized(scene.finalize("cpu"))
    c = solver.contacts
    # 2 links (worlds 0, 2), 3 links r 0.1 (1, 4), 3 links r 0.12 (3: its self-collision pair's bounding radius differs)
    assert c.template_count == 3
    np.testing.assert_array_equal(c.templates.block_template, [0, 1, 0, 2, 1])
    np.testing.assert_array_equal(c.templates.template_block, [0, 1, 3])
    _check_decodes(solver)


def test_a_model_without_worlds_is_one_block():
    b = _ball_chain(3)
    b.add_ground_plane()
    solver = SolverGeneralized(b.finalize("cpu"))
    c = solver.contacts
    assert c.template_count == 1 and c.pair_count > 0
    _check_decodes(solver)


def test_shared_templates_step_like_one_world_each():
    """Worlds of a replicated scene step exactly as a scene of one such world (same contacts, bitwise)."""

    def run(worlds):
        scene = ng.ModelBuilder()
        scene.add_ground_plane()
        scene.replicate(_ball_chain(3), world_count=worlds)
        model = scene.finalize("cpu")
        solver = SolverGeneralized(model)
        s0, s1, control = model.state(), model.state(), model.control()
        for _ in range(100):
            solver.step(s0, s1, control, 0.005)
            s0, s1 = s1, s0
        return s0.joint_q.numpy().reshape(worlds, -1), solver.contacts.active.numpy()

    q1, active1 = run(1)
    q4, active4 = run(4)
    assert active1.sum() > 0  # the chain rests on the ground
    for w in range(4):
        np.testing.assert_array_equal(q4[w], q1[0])
    np.testing.assert_array_equal(active4.reshape(4, -1), np.tile(active1, (4, 1)))


@pytest.mark.parametrize("counts", [(3, 3, 3), (0, 2, 0, 2), (1,)])
def test_find_templates_groups_equal_worlds(counts):
    rng = np.random.default_rng(0)
    start = np.concatenate([[0], np.cumsum(counts)])
    table = rng.integers(0, 5, size=(start[-1], 2))
    for w in range(1, len(counts)):  # every world a copy of the first one with its count
        same = [v for v in range(w) if counts[v] == counts[w]]
        if same:
            table[start[w] : start[w + 1]] = table[start[same[0]] : start[same[0] + 1]]
    t = find_templates([table], start)
    for w in range(len(counts)):
        rep = t.template_block[t.block_template[w]]
        np.testing.assert_array_equal(table[start[w] : start[w + 1]], table[start[rep] : start[rep + 1]])
    assert len(t.template_block) == len(set(counts))


def test_collide_refuses_worlds_outside_the_model():
    from newton_gym.errors import SolverError
    from newton_gym.solvers.collision import driver as collision_driver

    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(_ball_chain(2), world_count=3)
    model = scene.finalize("cpu")
    c = SolverGeneralized(model).contacts
    with pytest.raises(SolverError, match=r"worlds \(2, 2\)"):
        collision_driver.collide(model, c, model.state().body_q, (2, 2))
    collision_driver.collide(model, c, model.state().body_q, (1, 2))  # the last two worlds


def test_pairs_enumerated_per_template_equal_every_world_enumerated():
    """The pairs of worlds enumerated once per group of equal worlds and expanded (candidates) equal the pairs
    of every world enumerated on its own, in order, over worlds that differ in shape count, a filter pair, a
    collide flag and the self-collision switch, with global shapes before and after the worlds."""
    from newton_gym.sim.types import GeoType
    from newton_gym.solvers.collision import candidates
    from newton_gym.solvers.collision.primitive import feature_count

    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    firsts = []
    for k, robot in enumerate(
        [
            _ball_chain(3),
            _ball_chain(3),
            _ball_chain(3),
            _ball_chain(3),
            _ball_chain(2),
            _ball_chain(3, self_collisions=False),
        ]
    ):
        firsts.append(scene.shape_count)
        scene.begin_world()
        scene.add_builder(robot)
        if k == 1:  # world 1 never collides its first and last links
            scene.add_shape_collision_filter_pair(firsts[-1], firsts[-1] + 2)
        scene.end_world()
    scene.add_shape_box(-1, xform=[0, 0, 0.2, 0, 0, 0, 1], hx=0.1, hy=0.1, hz=0.1)  # a global shape after the worlds
    model = scene.finalize("cpu")
    collide = model.shape_collide.numpy()
    collide[firsts[3] + 1] = 0  # world 3's middle link collides with nothing
    model.shape_collide.assign(collide)
    solver = SolverGeneralized(model)
    c = solver.contacts
    # every world enumerated on its own
    stype = model.shape_type.numpy().astype(np.int64)
    sh = candidates.shape_columns(model, solver.layout, stype, model.shape_body.numpy().astype(np.int64))
    kinds = len(GeoType)
    table = np.array([[feature_count(i, j) if j >= i else 0 for j in range(kinds)] for i in range(kinds)])
    sws = model.shape_world_start.numpy()
    glob = np.concatenate([np.arange(0, sws[0]), np.arange(sws[-2], sws[-1])])
    expected = [
        np.stack(candidates.world_pairs(np.arange(sws[w], sws[w + 1]), glob, sh, table)[:2], 1)
        for w in range(model.world_count)
    ]
    np.testing.assert_array_equal(c.pair_shape_host, np.concatenate(expected))
    np.testing.assert_array_equal(c.pair_world_host, np.repeat(np.arange(6), [len(e) for e in expected]))
    # worlds 0 and 2 are equal; world 5's switch drops the one pair world 1's filter pair drops (the links'
    # neighbours never collide), so their groups share one template
    np.testing.assert_array_equal(c.templates.block_template, [0, 1, 0, 2, 3, 1])
    assert len(expected[1]) == len(expected[0]) - 1 and len(expected[3]) < len(expected[0])
    _check_decodes(solver)


def _chains_and_ants():
    """Two self-colliding ball chains of different lengths, two ants, on a ground plane: several templates,
    runs of bundles per body, a static body A (the plane's)."""
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    for world in (_ball_chain(7), _ball_chain(5, 0.12), ant_like_builder(), ant_like_builder()):
        scene.add_world(world)
    return scene.finalize("cpu")


def test_bundle_centres_are_the_mean_shape_origins_of_their_bodies():
    """Each template bundle's A centre is the mean origin of the A shapes of every bundle of its template
    with the same moving body A (a static A: its own), its B centre the mean of its B shapes, on the host
    from the pair tables; the bundles of one template and body A are the consecutive run ``bundle_run``
    gives each of them."""
    model = _chains_and_ants()
    c = SolverGeneralized(model).contacts
    p = c.pairs
    origin = model.shape_transform.numpy()[:, :3].astype(np.float64)
    centre_a, centre_b = c.bundle_centre_a.numpy(), c.bundle_centre_b.numpy()
    run = c.bundle_run.numpy()
    assert np.array_equal(run, p.bundle_run)
    checked = 0
    for t in range(len(p.template_bundle_start) - 1):
        world = p.templates.template_block[t]
        b0, b1 = p.template_bundle_start[t], p.template_bundle_start[t + 1]

        def shapes(b, t=t, world=world):
            entries = p.bundle_pairs[p.bundle_start[b] : p.bundle_start[b + 1]] + p.template_pair_start[t]
            return decode(p.shape[entries], p.block_shape_offset[world])

        for b in range(b0, b1):
            body_a = p.bundle_body[b, 0]
            same = [o for o in range(b0, b1) if body_a >= 0 and p.bundle_body[o, 0] == body_a] or [b]
            assert list(range(*run[b])) == same
            a_shapes = np.concatenate([shapes(o)[:, 0] for o in same])
            np.testing.assert_allclose(centre_a[b], origin[a_shapes].mean(axis=0), rtol=1e-6, atol=1e-6)
            np.testing.assert_allclose(centre_b[b], origin[shapes(b)[:, 1]].mean(axis=0), rtol=1e-6, atol=1e-6)
            checked += 1
    assert checked == len(p.bundle_run) > 10


def _rotate(q, v):
    """Rotate the rows of v (n, 3) by the unit quaternions q (n, 4) in (x, y, z, w) order, float64."""
    u, w = q[:, :3], q[:, 3:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def test_bundles_beyond_reach_have_every_pair_beyond_its_own_bound():
    """Where body B's origin lies farther from a bundle's A centre than ``bundle_reach`` (the narrow phase's
    first test, which skips the bundle before B's centre is placed), the bundle's centres lie farther apart
    than ``bundle_bound`` and every pair's shape origins farther apart than the pair's own bound: the skip
    never drops a pair the pair test would keep. Random body poses in a 1 m box, every world's bound-tested
    bundles, float64 on the host; some bundles must be skipped by the reach and some kept."""
    model = _chains_and_ants()
    c = SolverGeneralized(model).contacts
    p = c.pairs
    rng = np.random.default_rng(3)
    shape_xf = model.shape_transform.numpy().astype(np.float64)
    centre_a, centre_b = c.bundle_centre_a.numpy(), c.bundle_centre_b.numpy()
    bound, reach = c.bundle_bound.numpy(), c.bundle_reach.numpy()
    margin = c.pair_margin.numpy()
    np.testing.assert_array_less(bound[bound >= 0.0], reach[bound >= 0.0])
    assert np.array_equal(reach[bound < 0.0], bound[bound < 0.0])
    skipped = kept = 0
    for _ in range(20):
        pos = rng.uniform(-0.5, 0.5, (model.body_count, 3))
        quat = rng.normal(size=(model.body_count, 4))
        quat /= np.linalg.norm(quat, axis=1, keepdims=True)

        def place(body, x, pos=pos, quat=quat):
            return x if body < 0 else pos[body] + _rotate(quat[body : body + 1], x[None])[0]

        for w in range(len(p.block_bundle_start) - 1):
            t = p.templates.block_template[w]
            for lb in range(p.block_bundle_start[w + 1] - p.block_bundle_start[w]):
                tb = p.template_bundle_start[t] + lb
                if p.bundle_class[tb] % 2 != 0:
                    continue  # plane bundles are not bound-tested
                body_a, body_b = decode(p.bundle_body[tb][None], p.block_body_offset[w])[0]
                ca = place(body_a, centre_a[tb].astype(np.float64))
                origin_b = pos[body_b] if body_b >= 0 else np.zeros(3)
                if np.linalg.norm(origin_b - ca) <= reach[tb]:
                    kept += 1
                    continue
                skipped += 1
                assert np.linalg.norm(place(body_b, centre_b[tb].astype(np.float64)) - ca) > bound[tb]
                for lp in p.bundle_pairs[p.bundle_start[tb] : p.bundle_start[tb + 1]]:
                    tp = p.template_pair_start[t] + lp
                    shapes = decode(p.shape[tp][None], p.block_shape_offset[w])[0]
                    pa = place(body_a, shape_xf[shapes[0], :3])
                    pb = place(body_b, shape_xf[shapes[1], :3])
                    assert np.linalg.norm(pb - pa) > p.radius[tp] + margin[p.block_pair_start[w] + lp]
    assert skipped > 100 and kept > 100
