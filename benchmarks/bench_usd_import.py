"""USD import time (issue 4): add_usd of a 9-body and a 100-body robot, and add_usd once + replicate to
4096 worlds + finalize. Prints medians over repeats.

The robots are generated here as MuJoCo-converter-style stages (bodies as flat Xforms with world poses,
capsule colliders, revolute joints with limits, drives and mjc: attributes, a free root without a joint
prim, one MjcActuator per hinge), once with every body's mass fully authored (the fast path) and once
with masses left to UsdPhysics.ComputeMassProperties.

Run: python benchmarks/bench_usd_import.py
"""

from __future__ import annotations

import math
import os
import tempfile
import warnings

import warp as wp
from _timing import median_time

from newton_gym import ModelBuilder

HEADER = '#usda 1.0\n(\n    metersPerUnit = 1\n    kilogramsPerUnit = 1\n    upAxis = "Z"\n)\n'
SCENE = """def PhysicsScene "physicsScene" {
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 9.81
    custom uniform double mjc:option:timestep = 0.01
    custom uniform int mjc:option:iterations = 100
}
"""


def _body(name, pos, authored_mass, radius, half):
    mass = (
        """        point3f physics:centerOfMass = (0, 0, 0)
        float3 physics:diagonalInertia = (0.001, 0.004, 0.004)
        float physics:mass = 0.1
        quatf physics:principalAxes = (1, 0, 0, 0)
"""
        if authored_mass
        else ""
    )
    return f'''    def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {{
{mass}        double3 xformOp:translate = ({pos[0]:.6f}, {pos[1]:.6f}, {pos[2]:.6f})
        uniform token[] xformOpOrder = ["xformOp:translate"]
        def Capsule "geom" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {{
            uniform token axis = "X"
            double radius = {radius}
            double height = {2 * half}
            custom uniform int mjc:contype = 1
            custom uniform int mjc:conaffinity = 0
            custom uniform double mjc:margin = 0.01
        }}
    }}
'''


def _joint(name, parent, child, offset, seg):
    return f'''    def PhysicsRevoluteJoint "{name}" (prepend apiSchemas = ["PhysicsDriveAPI:angular"]) {{
        rel physics:body0 = </robot/{parent}>
        rel physics:body1 = </robot/{child}>
        point3f physics:localPos0 = ({offset:.6f}, 0, 0)
        point3f physics:localPos1 = ({-seg / 2:.6f}, 0, 0)
        uniform token physics:axis = "{"ZY"[len(name) % 2]}"
        float physics:lowerLimit = -40
        float physics:upperLimit = 40
        float drive:angular:physics:stiffness = 1
        float drive:angular:physics:damping = 0.1
        custom uniform double mjc:armature = 1
        custom uniform double mjc:damping = 1
        custom uniform double[] mjc:solreflimit = [0.02, 1]
    }}
    def MjcActuator "act_{name}" {{
        custom uniform double[] mjc:gear = [150, 0, 0, 0, 0, 0]
        custom uniform token mjc:ctrlLimited = "true"
        custom uniform double mjc:ctrlRange:min = -1
        custom uniform double mjc:ctrlRange:max = 1
        custom rel mjc:target = </robot/{name}>
    }}
'''


def robot_usda(body_count: int, authored_mass: bool = True) -> str:
    """A torso with legs of equal length radiating in the XY plane: body_count bodies in all."""
    legs = 4 if body_count <= 9 else 11
    per_leg = (body_count - 1) // legs
    seg = 0.2
    parts = [
        HEADER,
        SCENE,
        'def Xform "robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"]) {\n',
        _body("torso", (0, 0, 0.75), authored_mass, 0.25, 0.01),
    ]
    for leg in range(legs):
        yaw = 2 * math.pi * leg / legs
        for k in range(per_leg):
            r = 0.25 + seg * (k + 0.5)
            pos = (r * math.cos(yaw), r * math.sin(yaw), 0.75)
            parts.append(_body(f"l{leg}_{k}", pos, authored_mass, 0.04, seg / 2 - 0.04))
            parent = "torso" if k == 0 else f"l{leg}_{k - 1}"
            offset = 0.25 if k == 0 else seg / 2
            parts.append(_joint(f"j{leg}_{k}", parent, f"l{leg}_{k}", offset, seg))
    parts.append("}\n")
    return "".join(parts)


def main():
    wp.config.quiet = True
    wp.init()
    warnings.simplefilter("ignore")
    tmp = tempfile.mkdtemp(prefix="bench_usd_")
    files = {}
    for n in (9, 100):
        for authored in (True, False):
            path = os.path.join(tmp, f"robot_{n}_{'authored' if authored else 'density'}.usda")
            with open(path, "w") as f:
                f.write(robot_usda(n, authored))
            files[(n, authored)] = path
    ModelBuilder().add_usd(files[(9, True)])  # warm-up: first pxr use and plugin loading

    print(
        f"{'robot':>10} {'bodies':>7} {'joints':>7} {'shapes':>7} {'mass authored [ms]':>19} {'mass computed [ms]':>19}"
    )
    for n in (9, 100):
        b = ModelBuilder()
        b.add_usd(files[(n, True)])
        t_auth = median_time(lambda n=n: ModelBuilder().add_usd(files[(n, True)]), 30 if n == 9 else 10)
        t_dens = median_time(lambda n=n: ModelBuilder().add_usd(files[(n, False)]), 30 if n == 9 else 10)
        print(
            f"{f'{n}-body':>10} {b.body_count:>7} {b.joint_count:>7} {b.shape_count:>7} "
            f"{1e3 * t_auth:>19.2f} {1e3 * t_dens:>19.2f}"
        )

    print("\nadd_usd once + replicate to 4096 worlds + finalize (9-body robot, medians of 3):")
    t_import = median_time(lambda: ModelBuilder().add_usd(files[(9, True)]), 3)
    robot = ModelBuilder()
    robot.add_usd(files[(9, True)])

    def replicate():
        scene = ModelBuilder()
        scene.add_ground_plane()
        scene.replicate(robot, 4096, spacing=(2.0, 2.0, 0.0))
        return scene

    t_rep = median_time(replicate, 3)
    scene = replicate()
    t_fin = median_time(lambda: scene.finalize("cpu"), 3)
    model = scene.finalize("cpu")
    print(
        f"  add_usd {1e3 * t_import:.2f} ms, replicate {1e3 * t_rep:.1f} ms, finalize {1e3 * t_fin:.1f} ms, "
        f"total {1e3 * (t_import + t_rep + t_fin):.1f} ms  ({model.body_count} bodies, "
        f"{model.joint_dof_count} DOFs)"
    )


if __name__ == "__main__":
    main()
