"""Capsule-capsule, capsule-box and box-box contact sets (collision/capsule_pairs.py, collision/box_box.py)
against MuJoCo C (mjc_CapsuleCapsule, mjc_CapsuleBox, mjc_BoxBox of the installed ``mujoco``).

Scenes are MJCF with two free bodies, A (geom 0, MuJoCo's geom1) and B (geom 1), each holding one geom at an
offset pose in its body, built on our side once per pair type by ``mujoco_builder.builder_from_mujoco``. For
every pose MuJoCo runs mj_kinematics + mj_collision; our narrow phase runs on the same body poses (MuJoCo's
xpos / xquat) with its contact slots NaN-filled first (``active`` -1), so a slot it does not write fails.
Every contact is compared in MuJoCo's order: count, distance, position, frame normal (``frame[:3]``) and
first tangent (``frame[3:6]``), to 1e-5 m and 1e-4 (float32 against double).

1. Random poses: random orientations, B at a random offset from A (penetrating, touching within the margin,
   separated within and beyond it).
2. Chosen families, each at many seeded poses: capsules crossing, parallel and near-parallel (both sides of
   MuJoCo's parallel rule, sin^2 < 1e-8), coaxial and deep; a capsule lying on a box face, across a box
   edge, along an edge, standing on a face, tilted over an edge, deep in the box; boxes stacked with small
   rotations, face on face, edge on face, edge on edge, vertex on face, deep; dm_control stacker's cubes,
   which turn about y only. Poses that rest on a face get tilts of 1e-3 .. 2e-2 rad (see 3).
3. Exactly aligned poses: MuJoCo decides some ties by the sign of its double rounding noise (1e-17), which
   float32 cannot reproduce; we decide them as exact arithmetic does. A capsule lying exactly flat across
   both edges of a box face gets one contact from MuJoCo, two at a tilt of +-1e-6 rad (and from us);
   a box resting flat on a box, only yawed, ties the two boxes' face axes: the same contacts, in another
   order where MuJoCo's rounding picked B's face. Two equal boxes, one the mirror image of the other (the
   a1's left and right thighs at a symmetric pose), tie A's face with B's mirrored face: MuJoCo's rounding
   picks either, and the contacts of B's face are the mirror image of A's (which we take).
4. Slots: 2, 2 and 8 contact slots per pair (MuJoCo's maximum for these pairs); 8 lanes per world write
   the same slots, bit for bit, as one lane.
"""

from __future__ import annotations

import numpy as np
import pytest
import warp as wp
from mujoco_builder import builder_from_mujoco
from solver_helpers import collide_poisoned

from newton_gym.sim.types import GeoType
from newton_gym.solvers import SolverGeneralized
from newton_gym.solvers.collision import driver as collision_driver
from newton_gym.solvers.collision.primitive import feature_count

mujoco = pytest.importorskip("mujoco")

ATOL_POS, ATOL_DIST, ATOL_DIR = 1e-5, 1e-5, 1e-4
MARGIN = 0.004
# Geoms at an offset pose in their bodies (so that the shape transforms take part).
GEOMS = {
    "capsule": 'type="capsule" size=".05 .1" pos=".01 -.02 .015" quat="0.9659258 0 0.258819 0"',
    "capsule2": 'type="capsule" size=".03 .15" pos="-.01 .01 .02" quat="0.9238795 0.3826834 0 0"',
    "box": 'type="box" size=".12 .08 .06" pos=".02 .01 -.01" quat="0.9848078 0 0 0.1736482"',
    "box2": 'type="box" size=".1 .07 .05" pos="-.01 .02 .01" quat="0.9961947 0.0871557 0 0"',
    "cube": 'type="box" size=".022 .022 .022"',  # dm_control stacker's boxes
    "thigh": 'type="box" size=".1 .01225 .017"',  # the thighs of example-robot-data's a1 (URDF)
}
PAIRS = {"capsule-capsule": ("capsule", "capsule2"), "capsule-box": ("capsule", "box"), "box-box": ("box", "box2")}
_WORST: dict = {}


def _quat(axis, angle):
    axis = np.asarray(axis, dtype=float)
    return np.r_[np.cos(angle / 2), np.sin(angle / 2) * axis / np.linalg.norm(axis)]


def _mul(a, b):
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    return out


def _rotate(q, v):
    out = np.zeros(3)
    mujoco.mju_rotVecQuat(out, np.asarray(v, dtype=float), np.asarray(q, dtype=float))
    return out


def _random_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _tilt(rng, lo=1e-3, hi=2e-2):
    """Rotations by lo .. hi rad (either sign) about x, y and z in turn: every direction moves by at least
    ~lo, so that a pose near a face or an edge is decided by its geometry, not by rounding (see 3.)."""
    q = np.array([1.0, 0, 0, 0])
    for axis in np.eye(3):
        q = _mul(_quat(axis, rng.choice([-1, 1]) * rng.uniform(lo, hi)), q)
    return q


class Scene:
    """Two free bodies with geoms a and b, in MuJoCo and in our solver; :meth:`contacts` at given geom poses."""

    def __init__(self, a: str, b: str, margin: float = MARGIN):
        xml = f"""<mujoco><option><flag gravity="disable"/></option><worldbody>
          <body name="A"><freejoint/><geom name="a" {GEOMS[a]} margin="{margin}"/></body>
          <body name="B"><freejoint/><geom name="b" {GEOMS[b]}/></body></worldbody></mujoco>"""
        self.m = mujoco.MjModel.from_xml_string(xml)
        self.d = mujoco.MjData(self.m)
        builder, _, _ = builder_from_mujoco(self.m)
        self.model = builder.finalize("cpu")
        self.c = SolverGeneralized(self.model).contacts
        assert self.c.pair_count == 1 and (self.c.pair_shape_host == [[0, 1]]).all()  # A is shape 0

    def _body_pose(self, g, pos, quat):
        """qpos (position, quaternion) of geom g's body placing the geom at world pose (pos, quat)."""
        gq = self.m.geom_quat[g]
        inv = np.zeros(4)
        mujoco.mju_negQuat(inv, gq)
        bq = _mul(quat, inv)
        return np.r_[np.asarray(pos, dtype=float) - _rotate(bq, self.m.geom_pos[g]), bq]

    def contacts(self, pa, qa, pb, qb):
        """MuJoCo's and our contacts with geom a at world pose (pa, qa) and b at (pb, qb): two lists of
        (position, distance, normal, first tangent)."""
        m, d = self.m, self.d
        d.qpos[:] = np.r_[self._body_pose(0, pa, qa), self._body_pose(1, pb, qb)]
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        theirs = []
        for k in range(d.ncon):
            assert tuple(d.contact.geom[k]) == (0, 1)
            f = d.contact.frame[k]
            theirs.append((d.contact.pos[k].copy(), float(d.contact.dist[k]), f[:3].copy(), f[3:6].copy()))
        xf = np.zeros((2, 7), np.float32)
        for i in range(2):
            w, x, y, z = d.xquat[i + 1]
            xf[i] = np.r_[d.xpos[i + 1], x, y, z, w]
        c = self.c
        active = collide_poisoned(self.model, c, wp.array(xf, dtype=wp.transform, device="cpu"))
        assert set(np.unique(active)) <= {0, 1}, "slots not written"
        on = np.nonzero(active == 1)[0]
        point, dist, normal, tangent = (getattr(c, n).numpy() for n in ("point", "dist", "normal", "tangent"))
        ours = [(point[s], float(dist[s]), normal[s], tangent[s]) for s in on]
        return theirs, ours


def _in_order(theirs, ours):
    """True when contact k of ours equals MuJoCo's contact k for every k (and the counts agree)."""
    if len(ours) != len(theirs):
        return False
    for (p, dist, n, t), (q, e, m, u) in zip(theirs, ours):
        errs = (np.abs(q - p).max(), abs(e - dist), np.abs(m - n).max(), np.abs(u - t).max())
        if not (errs[0] < ATOL_POS and errs[1] < ATOL_DIST and errs[2] < ATOL_DIR and errs[3] < ATOL_DIR):
            return False
    return True


def _compare(what, theirs, ours, context=""):
    """Contact k of ours equals MuJoCo's contact k."""
    assert len(ours) == len(theirs), f"{what} {context}: {len(ours)} contacts, MuJoCo {len(theirs)}"
    w = _WORST.setdefault(what, [0.0, 0.0, 0.0, 0.0, 0, 0])
    for k, ((p, dist, n, t), (q, e, m, u)) in enumerate(zip(theirs, ours)):
        errs = (np.abs(q - p).max(), abs(e - dist), np.abs(m - n).max(), np.abs(u - t).max())
        w[:4] = np.maximum(w[:4], errs).tolist()
        w[5] += 1
        assert errs[0] < ATOL_POS, f"{what} {context}: contact {k} at {q}, MuJoCo {p}"
        assert errs[1] < ATOL_DIST, f"{what} {context}: contact {k} distance {e}, MuJoCo {dist}"
        assert errs[2] < ATOL_DIR, f"{what} {context}: contact {k} normal {m}, MuJoCo {n}"
        assert errs[3] < ATOL_DIR, f"{what} {context}: contact {k} tangent {u}, MuJoCo {t}"
    w[4] += 1


def _ill_conditioned(pair, scene, theirs):
    """A capsule-box contact whose ball centre lies within 10 um of two box faces (an edge or a corner):
    there the normal turns from the direction to the nearest box point (centre outside) to one of the two
    face normals (centre inside) over a distance that float32 rounding of the poses already spans. (A
    second ball placed on a side plane of the box by construction is near one face only: its normal is that
    face's either way.)"""
    if pair != "capsule-box":
        return False
    rot, centre, size = scene.d.geom_xmat[1].reshape(3, 3), scene.d.geom_xpos[1], scene.m.geom_size[1]
    for pos, dist, n, _ in theirs:
        ball = rot.T @ (pos - n * (dist + 0.1) / 2 - centre)  # ball centre in the box frame (radius 0.05)
        if (np.abs(np.abs(ball) - size) < 1e-5).sum() >= 2:
            return True
    return False


@pytest.fixture(scope="module")
def scenes():
    return {name: Scene(*geoms) for name, geoms in PAIRS.items()}


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    for what, (p, d, n, t, poses, count) in sorted(_WORST.items()):
        print(
            f"\n{what}: {poses} poses, {count} contacts, max error point {p:.2e} m, distance {d:.2e} m, "
            f"normal {n:.2e}, tangent {t:.2e}"
        )


@pytest.mark.parametrize("pair", list(PAIRS))
def test_random_poses_match_mujoco(scenes, pair):
    scene = scenes[pair]
    rng = np.random.default_rng([11, list(PAIRS).index(pair)])
    touching = skipped = 0
    for i in range(300):
        qa, qb = _random_quat(rng), _random_quat(rng)
        pa = rng.uniform(-0.3, 0.3, 3)
        pb = pa + rng.normal(size=3) * 0.12
        theirs, ours = scene.contacts(pa, qa, pb, qb)
        if _ill_conditioned(pair, scene, theirs):
            skipped += 1
            continue
        touching += bool(theirs)
        _compare(f"{pair} random", theirs, ours, f"pose {i}")
    assert touching > 60 and skipped <= 3


def _capsule_capsule_poses(rng):
    """(family, pa, qa, pb, qb) for capsule (r .05, half length .1) against capsule (r .03, half .15)."""
    for _ in range(40):
        qa = _random_quat(rng)
        za, xa = _rotate(qa, [0, 0, 1]), _rotate(qa, [1, 0, 0])
        side = xa * rng.uniform(0.07, 0.08 + MARGIN + 0.002)  # radii sum 0.08
        along = za * rng.uniform(-0.3, 0.3)
        yield "parallel", np.zeros(3), qa, side + along, qa
        yield "antiparallel", np.zeros(3), qa, side + along, _mul(qa, _quat([1, 0, 0], np.pi))
        for lo, hi, family in ((1e-6, 8e-5, "near-parallel, parallel rule"), (2e-4, 3e-2, "near-parallel")):
            tilt = _quat(rng.normal(size=3), rng.choice([-1, 1]) * rng.uniform(lo, hi))
            yield family, np.zeros(3), qa, side + along, _mul(tilt, qa)
        yield "coaxial", np.zeros(3), qa, za * rng.uniform(-0.3, 0.3), qa
        yield "end to end", np.zeros(3), qa, za * rng.uniform(0.3, 0.33) + xa * rng.uniform(-0.02, 0.02), qa
        yield "crossing", np.zeros(3), qa, side + za * rng.uniform(-0.12, 0.12), _random_quat(rng)
        yield "deep", np.zeros(3), qa, rng.normal(size=3) * 0.03, _random_quat(rng)


def _capsule_box_poses(rng):
    """Capsule (r .05, half length .1) against box (.12 .08 .06) at the origin, its frame the world's."""
    up = np.array([1.0, 0, 0, 0])
    flat = _quat([1, 0, 0], np.pi / 2)  # the capsule along y
    for _ in range(40):
        yaw = _quat([0, 0, 1], rng.uniform(-np.pi, np.pi))
        top = 0.06 + 0.05 + rng.uniform(-0.01, MARGIN + 0.002)
        q = _mul(_tilt(rng), _mul(yaw, flat))
        yield "lying on a face", [rng.uniform(-0.1, 0.1), rng.uniform(-0.07, 0.07), top], q, np.zeros(3), up
        q = _mul(_tilt(rng), _mul(_quat([0, 0, 1], rng.uniform(-0.6, 0.6)), _quat([0, 1, 0], np.pi / 2)))
        yield "across an edge", [0.12 + rng.uniform(-0.08, 0.08), rng.uniform(-0.06, 0.06), top], q, np.zeros(3), up
        q = _mul(_tilt(rng), _quat([0, 1, 0], np.pi / 2))
        pos = [rng.uniform(-0.15, 0.1), 0.08 + rng.uniform(-0.02, 0.03), 0.06 + rng.uniform(-0.01, 0.04)]
        yield "along an edge", pos, q, np.zeros(3), up
        q = _mul(_tilt(rng, 0.0, 0.2), up)
        pos = [rng.uniform(-0.12, 0.12), rng.uniform(-0.08, 0.08), 0.21 + rng.uniform(-0.01, 0.006)]
        yield "standing", pos, q, np.zeros(3), up
        q = _mul(_tilt(rng), _quat([1, 0, 0], np.pi / 4 + rng.uniform(-0.4, 0.4)))
        pos = [rng.uniform(-0.15, 0.15), 0.12 + rng.uniform(-0.03, 0.01), 0.1 + rng.uniform(-0.03, 0.01)]
        yield "tilted over an edge", pos, q, np.zeros(3), up
        corner = np.array([0.12, 0.08, 0.06]) * rng.choice([-1, 1], 3)
        yield "at a corner", corner * 1.2 + rng.normal(size=3) * 0.03, _random_quat(rng), np.zeros(3), up
        yield "deep", rng.normal(size=3) * 0.04, _random_quat(rng), np.zeros(3), _random_quat(rng)


def _box_box_poses(rng):
    """Box (.12 .08 .06) against box (.1 .07 .05); A at the origin unless rotated."""
    up = np.array([1.0, 0, 0, 0])
    for _ in range(40):
        yaw = _quat([0, 0, 1], rng.uniform(-np.pi, np.pi))
        top = 0.11 + rng.uniform(-0.006, MARGIN + 0.002)
        pos = [rng.uniform(-0.15, 0.15), rng.uniform(-0.1, 0.1), top]
        yield "stacked, small rotations", np.zeros(3), _tilt(rng, 1e-3, 1e-2), pos, _mul(_tilt(rng), yaw)
        pos = [rng.uniform(-0.2, 0.2), rng.uniform(-0.14, 0.14), top]
        yield "face on face, offset", np.zeros(3), up, pos, _tilt(rng)
        edge = _mul(_tilt(rng), _mul(_quat([0, 0, 1], rng.uniform(-0.5, 0.5)), _quat([1, 0, 0], np.pi / 4)))
        pos = [rng.uniform(-0.1, 0.1), rng.uniform(-0.06, 0.06), 0.06 + 0.0849 + rng.uniform(-0.006, 0.006)]
        yield "edge on face", np.zeros(3), up, pos, edge
        qa = _mul(_tilt(rng, 0, 0.2), _quat([0, 1, 0], np.pi / 4))
        qb = _mul(_tilt(rng, 0, 0.2), _mul(_quat([0, 0, 1], rng.uniform(-0.3, 0.3)), _quat([1, 0, 0], np.pi / 4)))
        pos = [rng.uniform(-0.03, 0.03), rng.uniform(-0.03, 0.03), 0.1273 + 0.0849 + rng.uniform(-0.01, 0.006)]
        yield "edge on edge", np.zeros(3), qa, pos, qb
        vertex = _mul(_tilt(rng), _quat([1, 1, 0], np.arctan(np.sqrt(2))))
        pos = [rng.uniform(-0.1, 0.1), rng.uniform(-0.06, 0.06), 0.06 + 0.13 + rng.uniform(-0.01, 0.006)]
        yield "vertex on face", np.zeros(3), up, pos, vertex
        yield "deep", np.zeros(3), _random_quat(rng), rng.normal(size=3) * 0.05, _random_quat(rng)


FAMILIES = {
    "capsule-capsule": _capsule_capsule_poses,
    "capsule-box": _capsule_box_poses,
    "box-box": _box_box_poses,
}


@pytest.mark.parametrize("pair", list(PAIRS))
def test_chosen_poses_match_mujoco(scenes, pair):
    scene = scenes[pair]
    rng = np.random.default_rng([12, list(PAIRS).index(pair)])
    seen: dict = {}
    skipped = 0
    for family, pa, qa, pb, qb in FAMILIES[pair](rng):
        theirs, ours = scene.contacts(np.zeros(3) + pa, qa, np.zeros(3) + pb, qb)
        if _ill_conditioned(pair, scene, theirs):
            skipped += 1
            continue
        seen.setdefault(family, [0, 0, 0])
        seen[family][0] += 1
        seen[family][1] += bool(theirs)
        seen[family][2] += len(theirs) > 1
        _compare(f"{pair} chosen", theirs, ours, f"{family}, pose {seen[family][0]}")
    for family, (poses, touching, _) in seen.items():  # every family touches, most with more than 1 contact
        assert touching >= poses // 4, f"{family}: {touching} of {poses} poses touch"
    assert skipped <= 3
    multi_families = {"parallel", "antiparallel", "lying on a face", "across an edge", "stacked, small rotations"}
    assert all(seen[f][2] > 0 for f in multi_families & set(seen))


def test_parallel_rule_and_order(scenes):
    """Capsules count as parallel below sin^2 = 1e-8 (two contacts at the ends of their overlap, the lower
    end along A's axis first), as MuJoCo 4.0; at 2e-4 rad they get one closest-point contact."""
    scene = scenes["capsule-capsule"]
    up = np.array([1.0, 0, 0, 0])
    for angle, count in ((0.0, 2), (5e-5, 2), (9e-5, 2), (2e-4, 1), (1e-2, 1)):
        qb = _mul(_quat([0, 1, 0], angle), up)
        theirs, ours = scene.contacts(np.zeros(3), up, [0.078, 0, 0.1], qb)
        assert len(theirs) == count
        _compare("capsule-capsule parallel rule", theirs, ours, f"angle {angle}")
    theirs, ours = scene.contacts(np.zeros(3), up, [0.078, 0, 0.2], up)  # B above: overlap z in [0.05, 0.1]
    assert [round(float(c[0][2]), 4) for c in ours] == [0.05, 0.1]


def test_stacker_cubes(scenes):
    """dm_control stacker's cubes (half size .022) turn about y only (slide x, slide z, hinge y): their y
    edges stay exactly parallel. One cube on another, on its edge, or side by side, at random angles."""
    scene = Scene("cube", "cube")
    rng = np.random.default_rng(15)
    touching = 0
    for _ in range(200):
        qa = _quat([0, 1, 0], rng.uniform(-0.5, 0.5))
        qb = _quat([0, 1, 0], rng.uniform(-0.8, 0.8))
        pb = _rotate(_quat([0, 1, 0], rng.uniform(-np.pi, np.pi)), [0, 0, rng.uniform(0.04, 0.065)])
        pb[1] = rng.uniform(-0.03, 0.03)
        theirs, ours = scene.contacts(np.zeros(3), qa, pb, qb)
        touching += bool(theirs)
        _compare("box-box stacker cubes", theirs, ours)
    assert touching > 50


def _as_sets(theirs, ours):
    """Both contact lists in one order (ours matched to MuJoCo's by position)."""
    assert len(theirs) == len(ours)
    left, out = list(range(len(ours))), []
    for p, _, _, _ in theirs:
        k = min(left, key=lambda k: np.linalg.norm(ours[k][0] - p))
        left.remove(k)
        out.append(ours[k])
    return out


def test_exactly_flat_capsule_across_a_face(scenes):
    """A capsule lying exactly flat across both edges of a box face touches the face over its whole width:
    MuJoCo gives 2 contacts (one at each edge) at a tilt of 1e-6 rad either way, but 1 at the exact pose,
    where the octant of its axis comes from the sign of rounding noise (1e-17) in a zero component. We
    take zero as zero and give the 2 contacts of the tilted poses."""
    scene = Scene("capsule", "box", 0.0)
    flat = _quat([1, 0, 0], np.pi / 2)  # along y, across the box's y extent (.08 < .1)
    box = np.array([1.0, 0, 0, 0])
    pos = np.array([-0.05, 0.0, 0.108])
    theirs, ours = scene.contacts(pos, flat, np.zeros(3), box)
    assert len(theirs) == 1 and len(ours) == 2  # MuJoCo's exact pose: one edge only
    for tilt in (-1e-6, 1e-6):
        t_theirs, t_ours = scene.contacts(pos, _mul(_quat([1, 0, 0], tilt), flat), np.zeros(3), box)
        assert len(t_theirs) == 2
        assert sorted(round(float(c[0][1]), 4) for c in t_theirs) == [-0.08, 0.08]
        assert sorted(round(float(c[0][1]), 4) for c in ours) == [-0.08, 0.08]
        for (p, d, n, _), (q, e, m, _) in zip(t_theirs, _as_sets(t_theirs, ours)):  # = MuJoCo 1e-6 rad off
            assert np.abs(q - p).max() < 2e-5 and abs(e - d) < 1e-6 and np.abs(m - n).max() < 1e-4


def test_box_resting_flat_yawed(scenes):
    """A box resting flat on a box and only yawed: A's top face and B's bottom face separate them equally
    (an exact tie; MuJoCo's double rounding picks either). Both faces give the same clipped polygon, so the
    contacts are MuJoCo's, in its order where it picked A's face (as we do) and otherwise as a set."""
    scene = scenes["box-box"]
    rng = np.random.default_rng(13)
    up = np.array([1.0, 0, 0, 0])
    in_order = 0
    for _ in range(30):
        qb = _quat([0, 0, 1], rng.uniform(-np.pi, np.pi))
        pos = [rng.uniform(-0.15, 0.15), rng.uniform(-0.1, 0.1), 0.11 + rng.uniform(-0.004, 0.003)]
        theirs, ours = scene.contacts(np.zeros(3), up, pos, qb)
        assert theirs
        if _in_order(theirs, ours):
            _compare("box-box flat, yawed", theirs, ours)
            in_order += 1
        else:
            _compare("box-box flat, yawed (as a set)", theirs, _as_sets(theirs, ours))
    assert in_order > 0


def _mirrored(contacts):
    """Contacts reflected in the plane y = 0, A and B swapped: point (x, -y, z), normal -(nx, -ny, nz)."""
    flip = np.array([1.0, -1.0, 1.0])
    return [(p * flip, d, -n * flip, t) for p, d, n, t in contacts]


def _settled(contacts, margin):
    """Contacts without the ones decided by rounding: near-duplicates (within 1e-5 m; MuJoCo's duplicate
    radius is 1e-7 of the face size, below float32's resolution) merged, and at margin 0 the points at
    zero depth (|dist| < 1e-6 m) left out."""
    out = []
    for c in contacts:
        if margin == 0.0 and abs(c[1]) < 1e-6:
            continue
        if all(np.abs(c[0] - o[0]).max() > 1e-5 for o in out):
            out.append(c)
    return out


def test_mirror_image_boxes():
    """Two equal boxes (the a1's thighs), B the mirror image of A in the plane y = 0, at random
    orientations, A crossing the plane by up to 4 mm or up to 2 mm short of it (B likewise). Where a face
    axis separates them best,
    A's face and B's mirrored face tie exactly and MuJoCo's double rounding (noise of 1e-16 in its poses)
    picks either. At a pose of the a1 that is symmetric but for one ulp in a hip angle it picked B's face
    where we pick A's: the normals are mirror images (~35 degrees off the plane), so the two legs then move
    as each other's mirror image. Where an edge of the face crosses the plane, the crossing lies on both
    faces at zero depth, and at margin 0 rounding keeps it or not (on either side).

    Our contacts are MuJoCo's, in its order, or (rounding ties) equal as a set, after :func:`_settled`, to
    MuJoCo's where it picked A's face and to their mirror image where it picked B's. Margin 0, as the a1's:
    with a margin more ties open (an edge axis within 8 degrees of B's tied face gives way to that face in
    MuJoCo where B's face won, not where A's did)."""
    margin = 0.0
    scene = Scene("thigh", "thigh", margin)
    rng = np.random.default_rng(16)
    size = scene.m.geom_size[0]
    counts = {"in order": 0, "as a set": 0, "mirrored": 0}
    for i in range(300):
        qa = _random_quat(rng)
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, qa)
        if np.abs(rot.reshape(3, 3)[1]).min() < 0.01:
            # an edge within 0.6 degrees of the plane: where it crosses its mirror image (a contact at zero
            # depth) is ill-conditioned, float32 puts it 1e-5 m off
            continue
        half = np.abs(rot.reshape(3, 3)[1]) @ size  # A's half extent along y
        apart = rng.uniform(-0.004, 0.002)
        pa = np.array([rng.uniform(-0.2, 0.2), half + apart, rng.uniform(-0.2, 0.2)])
        pb = pa * [1, -1, 1]
        qb = qa * [1, -1, 1, -1]  # the reflection M R M
        theirs, ours = scene.contacts(pa, qa, pb, qb)
        if apart < -1e-6:
            assert theirs and ours, f"pose {i}: the boxes overlap, {len(theirs)} contacts, ours {len(ours)}"
        if _in_order(theirs, ours):
            _compare("box-box mirror image", theirs, ours, f"pose {i}")
            counts["in order"] += 1
            continue
        ours = _settled(ours, margin)
        same = bool(theirs) and bool(ours) and np.abs(theirs[0][2] - ours[0][2]).max() < ATOL_DIR
        theirs = _settled(theirs if same or not theirs else _mirrored(theirs), margin)
        counts["as a set" if same else "mirrored"] += 1
        assert len(ours) == len(theirs), f"pose {i}: {len(ours)} contacts, MuJoCo {len(theirs)}"
        for k, ((p, d, n, _), (q, e, m, _)) in enumerate(zip(theirs, _as_sets(theirs, ours))):
            assert np.abs(q - p).max() < ATOL_POS, f"pose {i}: contact {k} at {q}, MuJoCo {p}"
            assert abs(e - d) < ATOL_DIST, f"pose {i}: contact {k} distance {e}, MuJoCo {d}"
            assert np.abs(m - n).max() < ATOL_DIR, f"pose {i}: contact {k} normal {m}, MuJoCo {n}"
    print(f"\nmirror-image boxes: {counts}")
    assert counts["in order"] > 100 and counts["mirrored"] > 0


def test_edge_axis_within_rounding_of_tied_faces():
    """Mirror-image boxes (as above) whose A edge 1 lies 0.15 degrees off the plane: the cross product of
    that edge with B's edge 2 is within 0.3 degrees of B's face 0 normal and separates the boxes by 1.4e-9 m
    less than A's and B's tied faces 0 (exact: the face wins, two contacts, and at zero depth the two points
    where the face edges cross the plane, by rounding). float32 rounds the separations by ~1e-8 m: an edge
    axis has to beat the best face by 2e-7 of the summed half sizes too, else it wins on rounding here and
    gives one edge contact."""
    scene = Scene("thigh", "thigh", 0.0)
    qa = np.array([0.48063622588514293, 0.38936891767987186, -0.517420500535343, -0.5913177571639855])
    pa = np.array([-0.180936087335243, 0.10018775844196963, -0.19663498491548445])
    theirs, ours = scene.contacts(pa, qa, pa * [1, -1, 1], qa * [1, -1, 1, -1])
    same = np.abs(theirs[0][2] - ours[0][2]).max() < ATOL_DIR
    theirs = _settled(theirs if same else _mirrored(theirs), 0.0)
    ours = _settled(ours, 0.0)
    assert len(theirs) == len(ours) == 2
    for (p, d, n, _), (q, e, m, _) in zip(theirs, _as_sets(theirs, ours)):
        assert np.abs(q - p).max() < ATOL_POS and abs(e - d) < ATOL_DIST and np.abs(m - n).max() < ATOL_DIR


def test_slots_per_pair(scenes):
    """MuJoCo's maximum contact counts of these pairs."""
    assert feature_count(GeoType.CAPSULE, GeoType.CAPSULE) == 2
    assert feature_count(GeoType.CAPSULE, GeoType.BOX) == 2
    assert feature_count(GeoType.BOX, GeoType.BOX) == 8
    assert [scenes[p].c.slot_count for p in PAIRS] == [2, 2, 8]


def test_lanes_equal_one_lane(monkeypatch):
    """Several capsules and boxes in one world: 8 lanes per world (cooperative CPU fibers) write the same
    contact slots, bit for bit, as one lane."""
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    bodies = "".join(
        f'<body><freejoint/><geom {GEOMS[g]} margin="{MARGIN}"/></body>'
        for g in ("capsule", "box", "capsule2", "box2", "capsule", "box")
    )
    m = mujoco.MjModel.from_xml_string(f"<mujoco><worldbody>{bodies}</worldbody></mujoco>")
    d = mujoco.MjData(m)
    rng = np.random.default_rng(14)
    for b in range(m.nbody - 1):
        d.qpos[7 * b : 7 * b + 7] = np.r_[rng.uniform(-0.12, 0.12, 3), _random_quat(rng)]
    mujoco.mj_kinematics(m, d)
    builder, _, _ = builder_from_mujoco(m)
    model = builder.finalize("cpu")
    xf = np.array([np.r_[d.xpos[i], d.xquat[i][1:], d.xquat[i][0]] for i in range(1, m.nbody)], np.float32)
    body_q = wp.array(xf, dtype=wp.transform, device="cpu")
    out = []
    for lanes in (1, 8):
        c = SolverGeneralized(model).contacts
        collision_driver.collide(model, c, body_q, block_dim=lanes)
        out.append([getattr(c, n).numpy().copy() for n in ("active", "point", "normal", "dist", "tangent")])
    assert out[0][0].sum() > 10  # contacts of several pairs
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)
