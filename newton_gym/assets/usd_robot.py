"""Writing a :class:`~.description.RobotDesc` as a UsdPhysics articulation.

Layout (``<robot>`` is ``RobotDesc.name``)::

    /physicsScene                      UsdPhysics.Scene (see usd_common.write_scene)
    /<robot>                           Xform, defaultPrim, ArticulationRootAPI
        world/<geom>                   static geoms of MuJoCo's world body, and the heightfields of
                                       bodies welded to it (no RigidBodyAPI)
        <body>                         Xform, RigidBodyAPI + MassAPI, world pose at qpos0
            <geom>                     Sphere | Capsule | Cylinder | Cube | Plane | Mesh
            <site>                     Xform, ``mjc:site = true`` (MJCF <site>: a named frame)
        joints/<joint>                 Revolute | Prismatic | Spherical | Fixed joint
        tendons/<tendon>               MjcTendon (MJCF <tendon>: fixed, or spatial through sites)
        actuators/<actuator>           MjcActuator, rel mjc:target -> joint or tendon
        equalities/<equality>          MJCF <equality> (and URDF <mimic>): a loop-closing SphericalJoint
                                       (connect) or FixedJoint (weld), or a joint-equality prim
        materials/friction_<k>         UsdShade.Material + MaterialAPI, one per distinct friction

Order: bodies, joints, tendons and actuators follow MuJoCo's order (so USD joint order = MuJoCo qpos order);
massless links come just before their body; property order in the file is USD's (alphabetical).

Bodies: ``xformOp:translate`` (double3) + ``xformOp:orient`` (quatd), world frame at qpos0 (the root
prim has no transform); ``physics:mass``, ``physics:centerOfMass``, ``physics:diagonalInertia``,
``physics:principalAxes`` always authored (MuJoCo's ``body_mass``, ``body_ipos``, ``body_inertia``,
``body_iquat``); ``physics:filteredPairs`` to the real parent below stacked joints and for MJCF
``<exclude>`` pairs.

Shapes: Sphere ``radius``; ellipsoid = Sphere of radius 1 with ``xformOp:scale`` = radii; Capsule and
Cylinder with ``axis = "Z"``, ``radius``, ``height`` = full length without caps; box = Cube of
``size = 2`` with ``xformOp:scale`` = half extents; Plane with ``axis = "Z"`` and ``width``/``length``
= full extents (unauthored for MuJoCo's infinite planes of size 0); Mesh with triangle faces (MuJoCo's
compiled, re-centred vertices); hfield (static geoms only, under ``world/``) = Mesh in the heightfield
form of :func:`.usd_common.write_heightfield` (the grid as points, MuJoCo's triangles as faces,
``newton:heightfield:rows`` / ``columns`` / ``base``; as a collider with approximation "none", so
other engines see a triangle mesh of the same surface). Pose in the body frame (translate + orient
[+ scale]). Colliders (contype or conaffinity non-zero) carry ``CollisionAPI`` (+ ``MeshCollisionAPI`` approximation and
``mjc:maxhullvert`` (int, MJCF ``<mesh maxhullvert>``, -1: no limit) for meshes) and
``material:binding:physics``; visual-only geoms (contype = conaffinity = 0) carry none.
Every geom carries ``mjc:contype``, ``mjc:conaffinity``, ``mjc:condim``, ``mjc:priority``,
``mjc:group`` (int), ``mjc:solmix``, ``mjc:margin``, ``mjc:gap`` (double), ``mjc:solref``,
``mjc:solimp`` (double[]).

Materials: ``physics:staticFriction = physics:dynamicFriction = geom_friction[0]``;
``mjc:torsionalfriction``, ``mjc:rollingfriction`` = ``geom_friction[1:3]``.

Sites (and the world body's, under ``world/``): an Xform with ``xformOp:translate`` +
``xformOp:orient``, the site's pose in its body's frame (MuJoCo's ``site_pos``, ``site_quat``), and the
custom attribute ``mjc:site = true`` (bool) that tells the importer it is a site, not geometry.

Joints: ``physics:body0`` (unset = world), ``physics:body1``, ``physics:localPos0/localRot0/
localPos1/localRot1``, ``physics:axis = "X"`` (the frames' X is the MuJoCo axis); revolute limits in
degrees, prismatic in metres, authored only when ``jnt_limited``; spherical: ``coneAngle0Limit =
coneAngle1Limit`` [deg]. MuJoCo values in compiled SI units (radians; the scene says
``mjc:compiler:angle = "radian"``): ``mjc:damping`` (per radian), ``mjc:armature``,
``newton:armature``, ``mjc:frictionloss``, ``mjc:stiffness``, ``mjc:springref``, ``mjc:ref``,
``mjc:margin``, ``mjc:solreflimit``, ``mjc:solimplimit``, ``mjc:solreffriction``,
``mjc:solimpfriction``, ``mjc:actuatorfrclimited`` (token), ``mjc:actuatorfrcrange:min/max``,
``mjc:group``. Optional ``DriveAPI`` (URDF ``joint_drive``), gains per degree for angular drives.

Equalities (README, "Conventions"): connect and weld are UsdPhysics joints with
``physics:excludeFromArticulation = true`` (loop closures), ``physics:body0`` = MuJoCo's body2 (unset for
the world), ``physics:body1`` = MuJoCo's body1, ``physics:localPos0/localRot0/localPos1/localRot1`` from
:mod:`.mujoco_equality` (the anchors, the weld's relpose, or the sites' poses in their bodies),
``physics:jointEnabled`` = MuJoCo's ``active``, the applied schema ``MjcEqualityConnectAPI`` /
``MjcEqualityWeldAPI`` (MuJoCo's mjcPhysics names) and ``mjc:solref``, ``mjc:solimp`` (double[]), weld
``mjc:torqueScale`` (double). A joint equality is a typeless prim with ``newton:equality:type = "joint"``
(token), ``rel newton:equality:joint1`` (the constrained joint) and ``rel newton:equality:joint2`` (the
leading one; absent: q1 is held at the constant), ``newton:equality:polycoef`` (double[5], q1 = sum_k
c_k q2^k in the joints' USD position units: degrees for revolute joints, as UsdPhysics' joint states,
metres for prismatic ones), ``newton:equality:active`` (bool), ``mjc:solref`` and ``mjc:solimp``. A
tendon equality is the same with ``newton:equality:type = "tendon"``, ``rel newton:equality:tendon1`` /
``tendon2`` (MjcTendon prims) and the polynomial L1 = sum_k c_k L2^k in the tendons' length units.

Tendons (README, "Conventions"; MuJoCo's own ``MjcTendon`` schema): ``mjc:type`` (token "fixed" or
"spatial"), ``rel mjc:path`` to the joint prims (fixed) or to the site prims in path order (spatial; a
relationship holds a target once, so a path that repeats one adds ``mjc:path:indices``, int[], the path
as indices into the targets), ``mjc:path:coef`` (double[], fixed: one per path element; length = sum
coef q with revolute coordinates in radians, whatever ``mjc:compiler:angle`` says, as MJCF's ``coef``),
and the compiled values in SI units (lengths in metres, a fixed tendon's in its coefficients' units):
``mjc:stiffness``, ``mjc:springlength`` (double[2], the spring's rest lengths, MuJoCo's
``tendon_lengthspring``), ``mjc:damping``, ``mjc:frictionloss``, ``mjc:armature``, ``mjc:limited``
(token), ``mjc:range:min/max``, ``mjc:margin``, ``mjc:solreflimit``, ``mjc:solimplimit``,
``mjc:solreffriction``, ``mjc:solimpfriction`` (double[]), ``mjc:group``.

Actuators (``MjcActuator``): ``mjc:target`` (rel to the joint or tendon prim), ``mjc:gear`` (double[6]),
``mjc:ctrlLimited`` / ``mjc:forceLimited`` / ``mjc:actLimited`` (tokens "true"/"false", as in
MuJoCo's MjcPhysics schema), ``mjc:ctrlRange:min/max``, ``mjc:forceRange:min/max``,
``mjc:actRange:min/max``, ``mjc:gainType`` / ``mjc:biasType`` / ``mjc:dynType`` (tokens),
``mjc:gainPrm`` / ``mjc:biasPrm`` / ``mjc:dynPrm`` (double[10]), ``mjc:group``.
"""

from __future__ import annotations

import math

import numpy as np

from ._imports import require
from .description import BodyDesc, EqualityDesc, GeomDesc, JointDesc, RobotDesc, SiteDesc, TendonDesc
from .usd_common import (
    add_reference,
    degrees,
    new_stage,
    quatf,
    set_attr,
    set_pose,
    tidy,
    vec3f,
    write_heightfield,
    write_mesh_data,
    write_scene,
)

__all__ = ["write_robot"]

_JOINT_SCHEMAS = {
    "revolute": "RevoluteJoint",
    "prismatic": "PrismaticJoint",
    "spherical": "SphericalJoint",
    "fixed": "FixedJoint",
}


def write_robot(robot: RobotDesc, meshes_asset_path: str | None):
    """Builds the USD layers of a robot in memory.

    Args:
        robot: The description.
        meshes_asset_path: Where the mesh layer will be written, relative to the main layer (e.g.
            "./Props/ant_meshes.usda"): mesh geoms then reference ``/meshes/<mesh>`` in it. None: mesh
            data is written inline on every mesh geom.

    Returns:
        ``(main_layer, mesh_layer)``; ``mesh_layer`` is None when there is no separate mesh layer.
    """
    stage, layer = new_stage()
    writer = _RobotWriter(stage, robot, inline_meshes=meshes_asset_path is None)
    writer.write()
    references = writer.mesh_references
    del writer, stage
    mesh_layer = None
    if meshes_asset_path is not None and robot.meshes:
        mesh_layer = _write_mesh_layer(robot)
        for prim_path, mesh_index in references:
            add_reference(
                layer, prim_path, meshes_asset_path, f"/meshes/{robot.meshes[mesh_index].name}", instanceable=False
            )
    return layer, mesh_layer


def _write_mesh_layer(robot: RobotDesc):
    UsdGeom = require("pxr.UsdGeom")
    stage, layer = new_stage()
    scope = UsdGeom.Scope.Define(stage, "/meshes")
    stage.SetDefaultPrim(scope.GetPrim())
    for mesh in robot.meshes:
        write_mesh_data(UsdGeom.Mesh.Define(stage, f"/meshes/{mesh.name}"), mesh)
    return layer


class _RobotWriter:
    """Authors one robot on a stage; see the module docstring for the layout."""

    def __init__(self, stage, robot: RobotDesc, inline_meshes: bool):
        self.stage, self.robot, self.inline_meshes = stage, robot, inline_meshes
        self.root = f"/{robot.name}"
        self.mesh_references: list[tuple[str, int]] = []
        self._materials: dict[tuple[float, ...], object] = {}

    def body_path(self, index: int) -> str:
        return f"{self.root}/{self.robot.bodies[index].name}"

    def joint_path(self, index: int) -> str:
        return f"{self.root}/joints/{self.robot.joints[index].name}"

    def tendon_path(self, index: int) -> str:
        return f"{self.root}/tendons/{self.robot.tendons[index].name}"

    def site_path(self, body: int | None, name: str) -> str:
        return f"{self.root}/world/{name}" if body is None else f"{self.body_path(body)}/{name}"

    def write(self) -> None:
        UsdGeom, UsdPhysics = require("pxr.UsdGeom"), require("pxr.UsdPhysics")
        root = UsdGeom.Xform.Define(self.stage, self.root)
        self.stage.SetDefaultPrim(root.GetPrim())
        UsdPhysics.ArticulationRootAPI.Apply(root.GetPrim())
        if self.robot.self_collision is not None:
            set_attr(root.GetPrim(), "newton:selfCollisionEnabled", "Bool", bool(self.robot.self_collision))
        write_scene(self.stage, self.robot.scene)
        if self.robot.world_geoms or self.robot.world_sites:
            UsdGeom.Xform.Define(self.stage, f"{self.root}/world")
            for geom in self.robot.world_geoms:
                self._write_geom(f"{self.root}/world", geom)
            for site in self.robot.world_sites:
                self._write_site(f"{self.root}/world", site)
        for index, body in enumerate(self.robot.bodies):
            self._write_body(index, body)
        if self.robot.joints:
            UsdGeom.Scope.Define(self.stage, f"{self.root}/joints")
        for index, joint in enumerate(self.robot.joints):
            self._write_joint(index, joint)
        if self.robot.tendons:
            UsdGeom.Scope.Define(self.stage, f"{self.root}/tendons")
        for index, tendon in enumerate(self.robot.tendons):
            self._write_tendon(index, tendon)
        if self.robot.actuators:
            UsdGeom.Scope.Define(self.stage, f"{self.root}/actuators")
        for actuator in self.robot.actuators:
            self._write_actuator(actuator)
        if self.robot.equalities:
            UsdGeom.Scope.Define(self.stage, f"{self.root}/equalities")
        for equality in self.robot.equalities:
            self._write_equality(equality)

    # ------------------------------------------------------------------------------------- bodies
    def _write_body(self, index: int, body: BodyDesc) -> None:
        UsdGeom, UsdPhysics = require("pxr.UsdGeom"), require("pxr.UsdPhysics")
        path = self.body_path(index)
        xform = UsdGeom.Xform.Define(self.stage, path)
        set_pose(xform, body.pos, body.quat)
        prim = xform.GetPrim()
        UsdPhysics.RigidBodyAPI.Apply(prim)
        mass_api = UsdPhysics.MassAPI.Apply(prim)
        mass_api.CreateMassAttr(float(body.mass))
        mass_api.CreateCenterOfMassAttr(vec3f(body.com))
        mass_api.CreateDiagonalInertiaAttr(vec3f(body.inertia))
        mass_api.CreatePrincipalAxesAttr(quatf(body.principal_axes))
        if body.filtered:
            filtered = UsdPhysics.FilteredPairsAPI.Apply(prim)
            filtered.CreateFilteredPairsRel().SetTargets([self.body_path(i) for i in body.filtered])
        for geom in body.geoms:
            self._write_geom(path, geom)
        for site in body.sites:
            self._write_site(path, site)

    def _write_site(self, parent: str, site: SiteDesc) -> None:
        xform = require("pxr.UsdGeom").Xform.Define(self.stage, f"{parent}/{site.name}")
        set_pose(xform, site.pos, site.quat)
        set_attr(xform.GetPrim(), "mjc:site", "Bool", True)

    # ------------------------------------------------------------------------------------- shapes
    def _write_geom(self, parent: str, geom: GeomDesc) -> None:
        UsdGeom, UsdPhysics = require("pxr.UsdGeom"), require("pxr.UsdPhysics")
        path = f"{parent}/{geom.name}"
        gprim, scale = self._define_shape(path, geom)
        set_pose(gprim, geom.pos, geom.quat, scale)
        gprim.CreateDisplayColorAttr([vec3f(geom.rgba[:3])])
        if geom.rgba[3] < 1.0:
            gprim.CreateDisplayOpacityAttr([float(geom.rgba[3])])
        if geom.guide:
            gprim.CreatePurposeAttr(UsdGeom.Tokens.guide)
        prim = gprim.GetPrim()
        if geom.collider:
            collision = UsdPhysics.CollisionAPI.Apply(prim)
            if not self.robot.scene.contact_enabled:  # MuJoCo's <flag contact="disable">
                collision.CreateCollisionEnabledAttr(False)
            if geom.kind == "mesh":
                UsdPhysics.MeshCollisionAPI.Apply(prim).CreateApproximationAttr(geom.approximation)
                set_attr(prim, "mjc:maxhullvert", "Int", self.robot.meshes[geom.mesh].maxhullvert)
            elif geom.kind == "hfield":
                UsdPhysics.MeshCollisionAPI.Apply(prim).CreateApproximationAttr(UsdPhysics.Tokens.none)
            self._bind_material(prim, geom.friction)
        _write_contact_attrs(prim, geom)

    def _define_shape(self, path: str, geom: GeomDesc):
        """Defines the gprim for a geom; returns it and the scale op value (or None)."""
        UsdGeom = require("pxr.UsdGeom")
        size, kind, scale = geom.size, geom.kind, None
        if kind in ("sphere", "ellipsoid"):
            gprim = UsdGeom.Sphere.Define(self.stage, path)
            gprim.CreateRadiusAttr(float(size[0]) if kind == "sphere" else 1.0)
            scale = size[:3] if kind == "ellipsoid" else None
        elif kind in ("capsule", "cylinder"):
            schema = UsdGeom.Capsule if kind == "capsule" else UsdGeom.Cylinder
            gprim = schema.Define(self.stage, path)
            gprim.CreateAxisAttr(UsdGeom.Tokens.z)
            gprim.CreateRadiusAttr(float(size[0]))
            gprim.CreateHeightAttr(2.0 * float(size[1]))
        elif kind == "box":
            gprim = UsdGeom.Cube.Define(self.stage, path)
            gprim.CreateSizeAttr(2.0)
            scale = size[:3]
        elif kind == "plane":
            gprim = UsdGeom.Plane.Define(self.stage, path)
            gprim.CreateAxisAttr(UsdGeom.Tokens.z)
            if size[0] > 0.0 and size[1] > 0.0:
                gprim.CreateWidthAttr(2.0 * float(size[0]))
                gprim.CreateLengthAttr(2.0 * float(size[1]))
        elif kind == "hfield":
            gprim = UsdGeom.Mesh.Define(self.stage, path)
            write_heightfield(gprim, geom.heightfield)
            return gprim, None
        else:
            gprim = UsdGeom.Mesh.Define(self.stage, path)
            if self.inline_meshes:
                write_mesh_data(gprim, self.robot.meshes[geom.mesh])
            else:
                self.mesh_references.append((path, geom.mesh))
            return gprim, None
        _author_extent(gprim)
        return gprim, scale

    def _bind_material(self, prim, friction) -> None:
        UsdShade, UsdPhysics = require("pxr.UsdShade"), require("pxr.UsdPhysics")
        key = tuple(float(f) for f in friction)
        material = self._materials.get(key)
        if material is None:
            if not self._materials:
                require("pxr.UsdGeom").Scope.Define(self.stage, f"{self.root}/materials")
            path = f"{self.root}/materials/friction_{len(self._materials)}"
            material = UsdShade.Material.Define(self.stage, path)
            physics = UsdPhysics.MaterialAPI.Apply(material.GetPrim())
            physics.CreateStaticFrictionAttr(key[0])
            physics.CreateDynamicFrictionAttr(key[0])
            set_attr(material.GetPrim(), "mjc:torsionalfriction", "Double", key[1])
            set_attr(material.GetPrim(), "mjc:rollingfriction", "Double", key[2])
            self._materials[key] = material
        binding = UsdShade.MaterialBindingAPI.Apply(prim)
        binding.Bind(material, UsdShade.Tokens.weakerThanDescendants, "physics")

    # ------------------------------------------------------------------------------------- joints
    def _write_joint(self, index: int, joint: JointDesc) -> None:
        UsdPhysics = require("pxr.UsdPhysics")
        schema = getattr(UsdPhysics, _JOINT_SCHEMAS[joint.kind])
        usd_joint = schema.Define(self.stage, self.joint_path(index))
        if joint.body0 is not None:
            usd_joint.CreateBody0Rel().SetTargets([self.body_path(joint.body0)])
        usd_joint.CreateBody1Rel().SetTargets([self.body_path(joint.body1)])
        usd_joint.CreateLocalPos0Attr(vec3f(tidy(joint.pos0)))
        usd_joint.CreateLocalRot0Attr(quatf(tidy(joint.quat0)))
        usd_joint.CreateLocalPos1Attr(vec3f(tidy(joint.pos1)))
        usd_joint.CreateLocalRot1Attr(quatf(tidy(joint.quat1)))
        if joint.kind == "fixed":
            return
        usd_joint.CreateAxisAttr(UsdPhysics.Tokens.x)
        angular = joint.kind != "prismatic"
        convert = degrees if angular else float
        if joint.limited and joint.kind == "spherical":
            usd_joint.CreateConeAngle0LimitAttr(convert(joint.upper))
            usd_joint.CreateConeAngle1LimitAttr(convert(joint.upper))
        elif joint.limited:
            usd_joint.CreateLowerLimitAttr(convert(joint.lower))
            usd_joint.CreateUpperLimitAttr(convert(joint.upper))
        _write_joint_attrs(usd_joint.GetPrim(), joint)
        if joint.initial is not None and joint.kind != "spherical":
            token = "angular" if angular else "linear"
            usd_joint.GetPrim().AddAppliedSchema(f"PhysicsJointStateAPI:{token}")
            set_attr(usd_joint.GetPrim(), f"state:{token}:physics:position", "Float", convert(joint.initial))
        if joint.drive is not None and joint.kind != "spherical":
            _write_drive(usd_joint.GetPrim(), joint, "angular" if angular else "linear")

    # ------------------------------------------------------------------------------------ tendons
    def _write_tendon(self, index: int, tendon: TendonDesc) -> None:
        prim = self.stage.DefinePrim(self.tendon_path(index), "MjcTendon")
        set_attr(prim, "mjc:type", "Token", tendon.kind)
        if tendon.kind == "fixed":
            path = [self.joint_path(j) for j in tendon.joints]
            set_attr(prim, "mjc:path:coef", "DoubleArray", tendon.coefs)
        else:
            path = [self.site_path(body, name) for body, name in tendon.sites]
        targets = list(dict.fromkeys(path))
        prim.CreateRelationship("mjc:path", True).SetTargets(targets)
        if len(targets) != len(path):
            set_attr(prim, "mjc:path:indices", "IntArray", [targets.index(p) for p in path])
        set_attr(prim, "mjc:stiffness", "Double", tendon.stiffness)
        set_attr(prim, "mjc:springlength", "DoubleArray", tendon.springlength)
        set_attr(prim, "mjc:damping", "Double", tendon.damping)
        set_attr(prim, "mjc:frictionloss", "Double", tendon.frictionloss)
        set_attr(prim, "mjc:armature", "Double", tendon.armature)
        set_attr(prim, "mjc:limited", "Token", _flag(tendon.limited))
        set_attr(prim, "mjc:range:min", "Double", tendon.range[0])
        set_attr(prim, "mjc:range:max", "Double", tendon.range[1])
        set_attr(prim, "mjc:margin", "Double", tendon.margin)
        set_attr(prim, "mjc:solreflimit", "DoubleArray", tendon.solreflimit)
        set_attr(prim, "mjc:solimplimit", "DoubleArray", tendon.solimplimit)
        set_attr(prim, "mjc:solreffriction", "DoubleArray", tendon.solreffriction)
        set_attr(prim, "mjc:solimpfriction", "DoubleArray", tendon.solimpfriction)
        set_attr(prim, "mjc:group", "Int", tendon.group)

    # ---------------------------------------------------------------------------------- actuators
    def _write_actuator(self, actuator) -> None:
        prim = self.stage.DefinePrim(f"{self.root}/actuators/{actuator.name}", "MjcActuator")
        target = self.joint_path(actuator.joint) if actuator.tendon is None else self.tendon_path(actuator.tendon)
        prim.CreateRelationship("mjc:target", True).SetTargets([target])
        set_attr(prim, "mjc:gear", "DoubleArray", actuator.gear)
        set_attr(prim, "mjc:ctrlLimited", "Token", _flag(actuator.ctrllimited))
        set_attr(prim, "mjc:ctrlRange:min", "Double", actuator.ctrlrange[0])
        set_attr(prim, "mjc:ctrlRange:max", "Double", actuator.ctrlrange[1])
        set_attr(prim, "mjc:forceLimited", "Token", _flag(actuator.forcelimited))
        set_attr(prim, "mjc:forceRange:min", "Double", actuator.forcerange[0])
        set_attr(prim, "mjc:forceRange:max", "Double", actuator.forcerange[1])
        set_attr(prim, "mjc:actLimited", "Token", _flag(actuator.actlimited))
        set_attr(prim, "mjc:actRange:min", "Double", actuator.actrange[0])
        set_attr(prim, "mjc:actRange:max", "Double", actuator.actrange[1])
        set_attr(prim, "mjc:gainType", "Token", actuator.gaintype)
        set_attr(prim, "mjc:biasType", "Token", actuator.biastype)
        set_attr(prim, "mjc:dynType", "Token", actuator.dyntype)
        set_attr(prim, "mjc:gainPrm", "DoubleArray", actuator.gainprm)
        set_attr(prim, "mjc:biasPrm", "DoubleArray", actuator.biasprm)
        set_attr(prim, "mjc:dynPrm", "DoubleArray", actuator.dynprm)
        set_attr(prim, "mjc:group", "Int", actuator.group)
        if actuator.joint_in_parent:
            set_attr(prim, "mjc:jointInParent", "Bool", True)
        if actuator.actearly:
            set_attr(prim, "mjc:actEarly", "Bool", True)

    # --------------------------------------------------------------------------------- equalities
    def _write_equality(self, eq: EqualityDesc) -> None:
        path = f"{self.root}/equalities/{eq.name}"
        if eq.kind == "joint":
            prim = self.stage.DefinePrim(path)
            set_attr(prim, "newton:equality:type", "Token", "joint")
            prim.CreateRelationship("newton:equality:joint1", True).SetTargets([self.joint_path(eq.joint1)])
            if eq.joint2 is not None:
                prim.CreateRelationship("newton:equality:joint2", True).SetTargets([self.joint_path(eq.joint2)])
            set_attr(prim, "newton:equality:polycoef", "DoubleArray", self._usd_polycoef(eq))
            set_attr(prim, "newton:equality:active", "Bool", bool(eq.active))
        elif eq.kind == "tendon":
            prim = self.stage.DefinePrim(path)
            set_attr(prim, "newton:equality:type", "Token", "tendon")
            prim.CreateRelationship("newton:equality:tendon1", True).SetTargets([self.tendon_path(eq.tendon1)])
            if eq.tendon2 is not None:
                prim.CreateRelationship("newton:equality:tendon2", True).SetTargets([self.tendon_path(eq.tendon2)])
            set_attr(prim, "newton:equality:polycoef", "DoubleArray", np.asarray(eq.polycoef, dtype=np.float64))
            set_attr(prim, "newton:equality:active", "Bool", bool(eq.active))
        else:
            UsdPhysics = require("pxr.UsdPhysics")
            schema = UsdPhysics.SphericalJoint if eq.kind == "connect" else UsdPhysics.FixedJoint
            usd_joint = schema.Define(self.stage, path)
            for k, body in ((0, eq.body0), (1, eq.body1)):
                if body is not None:
                    getattr(usd_joint, f"CreateBody{k}Rel")().SetTargets([self.body_path(body)])
            usd_joint.CreateLocalPos0Attr(vec3f(tidy(eq.pos0)))
            usd_joint.CreateLocalRot0Attr(quatf(tidy(eq.quat0)))
            usd_joint.CreateLocalPos1Attr(vec3f(tidy(eq.pos1)))
            usd_joint.CreateLocalRot1Attr(quatf(tidy(eq.quat1)))
            usd_joint.CreateExcludeFromArticulationAttr(True)
            usd_joint.CreateJointEnabledAttr(bool(eq.active))
            prim = usd_joint.GetPrim()
            prim.AddAppliedSchema("MjcEqualityConnectAPI" if eq.kind == "connect" else "MjcEqualityWeldAPI")
            if eq.kind == "weld":
                set_attr(prim, "mjc:torqueScale", "Double", eq.torquescale)
        set_attr(prim, "mjc:solref", "DoubleArray", eq.solref)
        set_attr(prim, "mjc:solimp", "DoubleArray", eq.solimp)

    def _usd_polycoef(self, eq: EqualityDesc) -> np.ndarray:
        """A joint equality's coefficients in the joints' USD position units (degrees for revolute
        joints): q1 = sum c_k q2^k in radians is q1' = sum (c_k s1 / s2^k) q2'^k with q' = s q."""

        def scale(joint: int | None) -> float:
            kind = None if joint is None else self.robot.joints[joint].kind
            return 180.0 / math.pi if kind == "revolute" else 1.0

        return np.asarray(eq.polycoef, dtype=np.float64) * scale(eq.joint1) / scale(eq.joint2) ** np.arange(5)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _author_extent(gprim) -> None:
    UsdGeom, Usd = require("pxr.UsdGeom"), require("pxr.Usd")
    extent = UsdGeom.Boundable.ComputeExtentFromPlugins(gprim, Usd.TimeCode.Default())
    if extent is not None:
        gprim.CreateExtentAttr(extent)


def _write_contact_attrs(prim, geom: GeomDesc) -> None:
    set_attr(prim, "mjc:contype", "Int", geom.contype)
    set_attr(prim, "mjc:conaffinity", "Int", geom.conaffinity)
    set_attr(prim, "mjc:condim", "Int", geom.condim)
    set_attr(prim, "mjc:priority", "Int", geom.priority)
    set_attr(prim, "mjc:group", "Int", geom.group)
    set_attr(prim, "mjc:solmix", "Double", geom.solmix)
    set_attr(prim, "mjc:margin", "Double", geom.margin)
    set_attr(prim, "mjc:gap", "Double", geom.gap)
    set_attr(prim, "mjc:solref", "DoubleArray", geom.solref)
    set_attr(prim, "mjc:solimp", "DoubleArray", geom.solimp)


def _write_joint_attrs(prim, joint: JointDesc) -> None:
    """MuJoCo joint parameters in compiled SI units (radians for angles, per radian for gains)."""
    set_attr(prim, "mjc:damping", "Double", joint.damping)
    set_attr(prim, "mjc:armature", "Double", joint.armature)
    set_attr(prim, "newton:armature", "Double", joint.armature)
    set_attr(prim, "mjc:frictionloss", "Double", joint.frictionloss)
    set_attr(prim, "mjc:stiffness", "Double", joint.stiffness)
    set_attr(prim, "mjc:springref", "Double", joint.springref)
    set_attr(prim, "mjc:ref", "Double", joint.ref)
    set_attr(prim, "mjc:margin", "Double", joint.margin)
    set_attr(prim, "mjc:solreflimit", "DoubleArray", joint.solreflimit)
    set_attr(prim, "mjc:solimplimit", "DoubleArray", joint.solimplimit)
    set_attr(prim, "mjc:solreffriction", "DoubleArray", joint.solreffriction)
    set_attr(prim, "mjc:solimpfriction", "DoubleArray", joint.solimpfriction)
    set_attr(prim, "mjc:actuatorfrclimited", "Token", _flag(joint.actfrclimited))
    set_attr(prim, "mjc:actuatorfrcrange:min", "Double", joint.actfrcrange[0])
    set_attr(prim, "mjc:actuatorfrcrange:max", "Double", joint.actfrcrange[1])
    set_attr(prim, "mjc:group", "Int", joint.group)


def _write_drive(prim, joint: JointDesc, axis: str) -> None:
    """``UsdPhysics.DriveAPI``; angular gains converted to the USD per-degree convention."""
    UsdPhysics = require("pxr.UsdPhysics")
    drive = joint.drive
    per_unit = math.pi / 180.0 if axis == "angular" else 1.0
    api = UsdPhysics.DriveAPI.Apply(prim, axis)
    api.CreateTypeAttr(drive.drive_type)
    api.CreateStiffnessAttr(float(drive.stiffness) * per_unit)
    api.CreateDampingAttr(float(drive.damping) * per_unit)
    api.CreateTargetPositionAttr(0.0)
    if np.isfinite(drive.max_force):
        api.CreateMaxForceAttr(float(drive.max_force))
