"""GJK on a near-flat tetrahedron: its face sign tests can all come out "inside" in float32 rounding while
the origin lies far outside (barycentric weights of +-3.6e6). The poses below, a box 18 mm and a mesh 6.6 mm
from a heightfield prism (exact QP distances, cores), made GJK report an overlap and EPA a 21 mm deep contact;
leaving such a tetrahedron, GJK must also keep its best simplex when the next one is farther (the mesh then
came out 74 mm away)."""

import numpy as np
import pytest
import warp as wp

from newton_gym.solvers.collision.gjk import gjk
from newton_gym.solvers.collision.primitive import BOX, HFIELD, MESH, Convex

# The poses as float32 values (the cases depend on their last bits): the shape's kind, scale and world pose
# (position, quaternion x y z w), its mesh points (none for the box), the field's pose (tilted about x), its
# cell's three top corners (field frame), and the exact distance of the cores (a QP over both hulls).
_FIELD_Q = (0.0998333990573883, 0.0, 0.0, 0.9950041770935059)
_MARGIN, _BOTTOM = 0.009999999776482582, -0.09997383505105972
_CASES = {
    "box": (
        BOX,
        (0.02666078880429268, 0.04431639984250069, 0.03820125386118889),
        (-13.05388355255127, 0.22181744873523712, 0.13118819892406464),
        (0.6491320729255676, 0.12208694964647293, 0.4630403518676758, 0.5910295844078064),
        [],
        [
            (-13.199999809265137, 0.0, 0.06710697710514069),
            (-13.0, 0.2, 0.056583307683467865),
            (-13.0, 0.0, 0.03697563335299492),
        ],
        0.018185844604597948,
    ),
    "mesh": (
        MESH,
        (0.058008041232824326, 0.03268381580710411, 0.013971659354865551),
        (-45.285667419433594, 0.15624240040779114, 0.09614540636539459),
        (-0.21783968806266785, 0.5576637387275696, 0.3008292615413666, 0.7423332929611206),
        [
            (-0.7587478160858154, 0.5639470219612122, -0.41541072726249695),
            (-0.7827256321907043, -0.01681528426706791, -0.5937554240226746),
            (0.9851744771003723, -0.021951856091618538, 0.34052518010139465),
            (0.7870147228240967, -0.03072666935622692, 0.4019196331501007),
            (-0.11059194058179855, 0.6726741194725037, -0.003076554974541068),
            (-0.12060344964265823, 0.8324522972106934, -0.11075883358716965),
            (-0.3620811998844147, 0.7512544393539429, 0.18107222020626068),
            (0.32527321577072144, -0.050044868141412735, -0.06269920617341995),
            (0.697040855884552, -0.8166850805282593, 0.8934692144393921),
            (0.20983317494392395, 0.48061177134513855, 0.9979678392410278),
            (0.5150569081306458, -0.9398714900016785, 0.6258200407028198),
            (0.5763993263244629, 0.8855111598968506, -0.47551652789115906),
        ],
        [
            (-45.400001525878906, 0.0, 0.09224548935890198),
            (-45.2, 0.2, 0.13165076076984406),
            (-45.2, 0.0, 0.03717320039868355),
        ],
        0.00655055574844257,
    ),
}


@wp.kernel
def _distance(
    kind: int,
    mesh_points: int,
    size: wp.vec3,
    shape_xf: wp.transform,
    prism_size: wp.vec3,
    field_xf: wp.transform,
    verts: wp.array(dtype=wp.vec3),
    out: wp.array(dtype=float),
):
    a = Convex()
    a.kind = kind
    a.size = size
    a.vert_start = 3  # a mesh's points follow the prism's corners
    a.vert_end = 3 + mesh_points
    a.xf = shape_xf
    a.radius = 0.5 * prism_size[0]  # inflated by half the margin, as the heightfield narrow phase does
    a.field = -1
    b = Convex()
    b.kind = HFIELD
    b.size = prism_size  # (margin, 0, bottom)
    b.xf = field_xf
    b.field = 0
    b.corners = wp.vec3i(0, 1, 2)
    dist, _wa, _wb, _sa, _sb, n = gjk(a, b, verts)
    out[0] = dist
    out[1] = float(n)


@pytest.mark.parametrize("case", sorted(_CASES))
def test_a_flat_tetrahedron_is_not_an_overlap(case):
    kind, size, pos, quat, mesh, top, exact = _CASES[case]
    field = wp.transform(wp.vec3(0.0), wp.quat(*_FIELD_Q))
    verts = wp.array(np.array(top + mesh, np.float32).reshape(-1, 3), dtype=wp.vec3, device="cpu")
    out = wp.zeros(2, dtype=float, device="cpu")
    prism = wp.vec3(_MARGIN, 0.0, _BOTTOM)
    shape = wp.transform(wp.vec3(*pos), wp.quat(*quat))
    wp.launch(_distance, dim=1, inputs=[kind, len(mesh), wp.vec3(*size), shape, prism, field, verts, out], device="cpu")
    dist, n = out.numpy()
    assert n < 4  # not an overlap
    np.testing.assert_allclose(dist, exact, atol=2e-5)  # the cores' distance: the exact one
