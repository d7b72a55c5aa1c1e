"""MuJoCo's inverse weights (body_invweight0, dof_invweight0), computed once at the authored pose (MuJoCo's
qpos0: each hinge and slide at its ref), whatever state the model starts in, and only for articulations
equal to the first of their batch: replicated worlds get exactly a one-world model's weights, a world whose
ref differs gets its own, and converted MJCF robots get MuJoCo C's numbers even where a ``home`` keyframe
starts them bent."""

import os

import numpy as np
import pytest

import newton_gym as ng
from newton_gym.sim.examples import ant_like_builder
from newton_gym.solvers import SolverGeneralized


def _weights(worlds: int, bent: dict | None = None, ref: dict | None = None):
    """(body_invweight (worlds, bodies, 2), dof_invweight (worlds, dofs)) of ``worlds`` Ants; ``bent`` maps a
    world to the hip angle its first hinge starts at, ``ref`` to that hinge's ref (its authored angle)."""
    scene = ng.ModelBuilder()
    scene.add_ground_plane()
    scene.replicate(ant_like_builder(), world_count=worlds)
    model = scene.finalize("cpu")
    q = model.joint_q.numpy().reshape(worlds, -1)
    for w, angle in (bent or {}).items():
        q[w, 7] = angle
    model.joint_q.assign(q.reshape(-1))
    refs = model.joint_ref.numpy().reshape(worlds, -1)
    for w, angle in (ref or {}).items():
        refs[w, 6] = angle
    model.joint_ref.assign(refs.reshape(-1))
    rows = SolverGeneralized(model).rows
    return rows.body_invweight.numpy().reshape(worlds, -1, 2), rows.dof_invweight.numpy().reshape(worlds, -1)


def test_replicated_worlds_get_one_worlds_weights():
    body1, dof1 = _weights(1)
    body4, dof4 = _weights(4)
    assert (body1 > 0).all() and (dof1 > 0).all()
    for w in range(4):
        np.testing.assert_array_equal(body4[w], body1[0])
        np.testing.assert_array_equal(dof4[w], dof1[0])


def test_the_start_state_leaves_the_weights_alone():
    body1, dof1 = _weights(1)
    body3, dof3 = _weights(3, bent={1: 0.5})
    for w in range(3):
        np.testing.assert_array_equal(body3[w], body1[0])
        np.testing.assert_array_equal(dof3[w], dof1[0])


def test_a_world_with_another_ref_gets_its_own_weights():
    body1, dof1 = _weights(1)
    body_ref, dof_ref = _weights(1, ref={0: 0.5})
    body3, dof3 = _weights(3, ref={1: 0.5})
    assert np.abs(body_ref - body1).max() > 1e-3  # the hip authored bent moves the weights
    for w, (body, dof) in enumerate([(body1, dof1), (body_ref, dof_ref), (body1, dof1)]):
        np.testing.assert_array_equal(body3[w], body[0])
        np.testing.assert_array_equal(dof3[w], dof[0])


ARM = """<mujoco model="arm">
<worldbody>
 <body name="base" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.2 0.05"/>
  <body name="l1" pos="0.1 0 0"><joint name="hinge" axis="0 1 0" ref="0.6"/>
   <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
   <body name="l2" pos="0.3 0 0"><joint name="slide" type="slide" axis="1 0 0" ref="0.1"/>
    <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.05"/></body>
  </body>
 </body>
</worldbody>
<keyframe>
 <key name="home" qpos="0.5 -0.2 0.7 0.9238795 0 0 0.3826834 -0.9 0.25"/>
</keyframe>
</mujoco>"""


@pytest.mark.parametrize("name", ["go1", "g1", "arm", "hopper"])
def test_converted_robots_get_mujocos_weights(tmp_path, name):
    """Go1 and G1 start at their ``home`` keyframe (legs bent), the arm at a keyframe away from its hinge's
    and slide's refs, Gymnasium's Hopper at its root slide's ref 1.25 m: the weights are MuJoCo C's, taken at
    qpos0, by body name and in DOF order."""
    mujoco = pytest.importorskip("mujoco")
    import gymnasium

    from newton_gym.assets import MjcfConverter, MjcfConverterCfg, robot_path
    from newton_gym.assets.robots import robot_source_path

    if name in ("go1", "g1"):
        usd, m = robot_path(name), mujoco.MjModel.from_xml_path(robot_source_path(name))
    else:
        if name == "arm":
            xml = tmp_path / "arm.xml"
            xml.write_text(ARM)
        else:
            xml = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", "hopper.xml")
        conv = MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(tmp_path / "out")))
        usd, m = conv.usd_path, mujoco.MjModel.from_xml_path(str(xml))
    builder = ng.ModelBuilder()
    builder.add_usd(usd)
    model = builder.finalize("cpu")
    rows = SolverGeneralized(model).rows
    body = rows.body_invweight.numpy()
    ours = {key.split("/")[-1]: i for i, key in enumerate(model.body_key)}
    bodies = [b for b in range(1, m.nbody) if m.body_dofnum[b] > 0 or m.body_weldid[b] != b]
    assert len(bodies) > 2
    for b in bodies:
        np.testing.assert_allclose(body[ours[m.body(b).name]], m.body_invweight0[b], rtol=2e-4, err_msg=m.body(b).name)
    np.testing.assert_allclose(rows.dof_invweight.numpy(), m.dof_invweight0, rtol=2e-4)
