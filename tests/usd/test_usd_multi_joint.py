"""Several joints between the same two bodies (project issue 13, F2): what MuJoCo's USD converter writes
for a body with several joints, and what was rejected as a kinematic loop. They import as a chain
through massless links, composed in stage order; the oracle is MuJoCo C simulating the same body with
the same joints natively."""

import numpy as np
import pytest
from usd_helpers import HEADER, assert_fk_matches_authored

import newton_gym as ng
from newton_gym.solvers import SolverGeneralized

mujoco = pytest.importorskip("mujoco")

DT, STEPS = 0.002, 500  # 1 s at MuJoCo's default Euler step

# Hinge "ja" about y at the body origin, hinge "jb" about x 5 cm further out; the COM is off both axes.
HINGES = {"ja": ('axis="0 1 0"', "Y", (0.0, 0.0, 0.0)), "jb": ('axis="1 0 0" pos="0.05 0 0"', "X", (0.05, 0.0, 0.0))}
ARM_INERTIAL = '<inertial pos="0.15 0.05 -0.02" mass="0.5" diaginertia="0.004 0.003 0.002"/>'
ARM_MASS = """    float physics:mass = 0.5
    point3f physics:centerOfMass = (0.15, 0.05, -0.02)
    float3 physics:diagonalInertia = (0.004, 0.003, 0.002)
"""


def _mjcf(order, on_world):
    joints = "".join(f'<joint name="{n}" type="hinge" {HINGES[n][0]}/>' for n in order)
    arm = f'<body name="arm" pos="0.2 0 {0 if not on_world else 1}">{joints}{ARM_INERTIAL}</body>'
    if not on_world:
        arm = (
            '<body name="base" pos="0 0 1"><joint name="j0" type="hinge" axis="0 0 1"/>'
            f'<inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>{arm}</body>'
        )
    return f'<mujoco><option timestep="{DT}" gravity="0 0 -9.81"/><worldbody>{arm}</worldbody></mujoco>'


def _usd_joint(name, token, body0, body1, pos0, pos1):
    rels = "".join(f"    rel physics:body{k} = <{b}>\n" for k, b in ((0, body0), (1, body1)) if b)
    return (
        f'def PhysicsRevoluteJoint "{name}" {{\n{rels}    uniform token physics:axis = "{token}"\n'
        f"    point3f physics:localPos0 = {tuple(pos0)}\n    point3f physics:localPos1 = {tuple(pos1)}\n}}\n"
    )


def _usd(order, on_world, reverse=()):
    """The MJCF above by hand: bodies at their world poses, the arm's joints between the same pair
    (those named in ``reverse`` written from the arm to its parent)."""
    text, parent = HEADER, None
    if not on_world:
        parent = "/base"
        text += """def Xform "base" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
    double3 xformOp:translate = (0, 0, 1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 1
    point3f physics:centerOfMass = (0.1, 0, 0)
    float3 physics:diagonalInertia = (0.01, 0.02, 0.02)
}
""" + _usd_joint("j0", "Z", None, "/base", (0.0, 0.0, 1.0), (0.0, 0.0, 0.0))
    text += f"""def Xform "arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {{
    double3 xformOp:translate = (0.2, 0, 1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
{ARM_MASS}}}
"""
    for name in order:
        _, token, anchor = HINGES[name]
        # the joint's anchor in the parent frame: the arm sits at (0.2, 0, 0) on the base, (0.2, 0, 1) in the world
        in_parent = tuple(float(a + o) for a, o in zip(anchor, (0.2, 0.0, 1.0 if on_world else 0.0)))
        if name in reverse:
            text += _usd_joint(name, token, "/arm", parent, anchor, in_parent)
        else:
            text += _usd_joint(name, token, parent, "/arm", in_parent, anchor)
    return text


def _import(write_usda, text):
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    return builder.finalize("cpu"), result


def _mujoco_qpos(xml) -> np.ndarray:
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    out = []
    for _ in range(STEPS):
        mujoco.mj_step(m, d)
        out.append(d.qpos.copy())
    return np.array(out)


def _our_qpos(model, result, names) -> np.ndarray:
    """Joint angles of the named joints per step, SolverGeneralized at MuJoCo's step."""
    starts = model.joint_q_start.numpy()
    cols = [int(starts[result["path_joint_map"][f"/{n}"]]) for n in names]
    solver = SolverGeneralized(model)
    s0, s1 = model.state(), model.state()
    out = []
    for _ in range(STEPS):
        solver.step(s0, s1, None, DT)
        s0, s1 = s1, s0
        out.append(s0.joint_q.numpy()[cols].astype(np.float64))
    return np.array(out)


@pytest.mark.parametrize("on_world", [False, True], ids=["body_pair", "world_pair"])
@pytest.mark.parametrize("order", [("ja", "jb"), ("jb", "ja")], ids=["y_then_x", "x_then_y"])
def test_stacked_hinges_follow_mujoco(write_usda, order, on_world):
    model, result = _import(write_usda, _usd(order, on_world))
    names = list(order) if on_world else ["j0", *order]
    ref = _mujoco_qpos(_mjcf(order, on_world))
    ours = _our_qpos(model, result, names)
    assert np.ptp(ref, axis=0).min() > 0.3  # every joint really moves
    np.testing.assert_allclose(ours, ref, atol=1e-3)


def test_composition_order_changes_the_motion():
    """The oracle can tell the orders apart, so the test above checks that stage order is honoured."""
    a, b = _mujoco_qpos(_mjcf(("ja", "jb"), False)), _mujoco_qpos(_mjcf(("jb", "ja"), False))
    assert np.abs(a[:, [0, 1, 2]] - b[:, [0, 2, 1]]).max() > 0.1


def test_a_joint_authored_from_child_to_parent_keeps_its_coordinate(write_usda):
    # jb written body0 = arm, body1 = base: its coordinate is the base's rotation about the arm's X, -qpos.
    model, result = _import(write_usda, _usd(("ja", "jb"), False, reverse=("jb",)))
    ref = _mujoco_qpos(_mjcf(("ja", "jb"), False)) * np.array([1.0, 1.0, -1.0])
    np.testing.assert_allclose(_our_qpos(model, result, ["j0", "ja", "jb"]), ref, atol=1e-3)


def test_links_are_reported_apart_and_keep_the_authored_poses(write_usda):
    model, result = _import(write_usda, _usd(("ja", "jb"), False))
    assert set(result["path_body_map"]) == {"/base", "/arm"}
    assert list(result["auto_body_map"]) == ["/ja:link"]
    link = result["auto_body_map"]["/ja:link"]
    assert model.body_mass.numpy()[link] == 0.0
    assert model.body_mass.numpy()[result["path_body_map"]["/arm"]] == pytest.approx(0.5)
    assert_fk_matches_authored(model)


def test_parent_and_child_colliders_stay_filtered(write_usda):
    collider = """    def Sphere "ball" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double radius = 0.1
    }
"""
    text = _usd(("ja", "jb"), False).replace(ARM_MASS, ARM_MASS + collider)
    text = text.replace("float physics:mass = 1\n", "float physics:mass = 1\n" + collider)
    builder = ng.ModelBuilder()
    result = builder.add_usd(write_usda(text))
    pair = tuple(sorted((result["path_shape_map"]["/base/ball"], result["path_shape_map"]["/arm/ball"])))
    assert pair in {tuple(sorted(p)) for p in builder.shape_collision_filter_pairs}
