"""Configuration dataclasses of the asset converters (MJCF, URDF, mesh -> USD).

The field names follow Isaac Lab's ``isaaclab.sim.converters`` configuration classes so that
configurations port over. Fields that Isaac Lab itself has deprecated are accepted and ignored with a
warning. All dataclasses are keyword-only.

Every field except ``asset_path``, ``usd_dir``, ``usd_file_name`` and ``force_usd_conversion`` enters
the conversion hash: changing any of them makes the next lazy conversion regenerate the USD.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "AssetConverterBaseCfg",
    "MjcfConverterCfg",
    "UrdfConverterCfg",
    "JointDriveCfg",
    "PDGainsCfg",
    "NaturalFrequencyGainsCfg",
    "MeshConverterCfg",
    "MassPropertiesCfg",
    "RigidBodyPropertiesCfg",
    "CollisionPropertiesCfg",
    "MeshCollisionPropertiesCfg",
    "COLLISION_TYPES",
    "MESH_APPROXIMATIONS",
]

#: Mesh collider simplifications accepted by ``collision_type``, mapped to the
#: ``physics:approximation`` token of ``UsdPhysics.MeshCollisionAPI`` they are written as.
COLLISION_TYPES: dict[str, str] = {
    "Convex Hull": "convexHull",
    "Convex Decomposition": "convexDecomposition",
    "Bounding Sphere": "boundingSphere",
    "Bounding Cube": "boundingCube",
}

#: ``physics:approximation`` tokens of ``UsdPhysics.MeshCollisionAPI`` accepted by the mesh converter.
MESH_APPROXIMATIONS = (
    "none",
    "convexHull",
    "convexDecomposition",
    "boundingSphere",
    "boundingCube",
    "meshSimplification",
)

CollisionType = Literal["Convex Hull", "Convex Decomposition", "Bounding Sphere", "Bounding Cube"]


@dataclass(kw_only=True)
class AssetConverterBaseCfg:
    """Settings shared by every converter.

    Attributes:
        asset_path: Path of the asset file to convert (MJCF, URDF, OBJ, STL, ...).
        usd_dir: Output folder. None: a fresh folder ``<tmp>/newton_gym/usd_<YYYYmmdd>_<HHMMSS>_<random>``
            is made, so every conversion runs (the lazy cache needs a stable folder).
        usd_file_name: Output file name. None: the asset's file name with its extension replaced by
            ``.usd``. A name that does not end in ``.usd``, ``.usda`` or ``.usdc`` gets ``.usd`` appended.
            ``.usda`` gives deterministic text output; ``.usd`` gives binary crate files.
        force_usd_conversion: Convert even when an up-to-date USD exists.
        make_instanceable: Write mesh point data once, to the separate layer named by
            ``usd_instanceable_meshes_path``, and reference it from every prim that uses the mesh
            (the mesh converter additionally marks its geometry prim ``instanceable``). Assets without
            meshes are unaffected.
    """

    asset_path: str
    usd_dir: str | None = None
    usd_file_name: str | None = None
    force_usd_conversion: bool = False
    make_instanceable: bool = True


@dataclass(kw_only=True)
class PDGainsCfg:
    """Joint drive gains given directly.

    Each value is a number for every joint, a dict mapping a joint-name regular expression (matched with
    ``re.fullmatch``; the first matching pattern wins) to a number, or None.

    Attributes:
        stiffness: Drive stiffness [N m/rad for revolute, N/m for prismatic joints]. None: no stiffness
            is authored for that joint. With ``target_type="velocity"`` this value is the drive's gain on
            velocity error and is written as the USD drive damping.
        damping: Drive damping [N m s/rad or N s/m]. None: 0. The URDF ``<dynamics damping>`` is written
            separately as the passive ``mjc:damping`` and is not copied here, so it is not counted twice.
    """

    stiffness: dict[str, float] | float | None = None
    damping: dict[str, float] | float | None = None


@dataclass(kw_only=True)
class NaturalFrequencyGainsCfg:
    """Deprecated gains given as natural frequency and damping ratio.

    Isaac Lab dropped support for these; so does newton_gym: using them emits a ``DeprecationWarning``
    and no drive gains are written. Use :class:`PDGainsCfg`.

    Attributes:
        natural_frequency: Natural frequency [rad/s], a number or a dict of joint-name patterns.
        damping_ratio: Damping ratio [-], a number or a dict of joint-name patterns.
    """

    natural_frequency: dict[str, float] | float = 0.0
    damping_ratio: dict[str, float] | float = 0.005


@dataclass(kw_only=True)
class JointDriveCfg:
    """Joint drives written as ``UsdPhysics.DriveAPI`` on revolute ("angular") and prismatic ("linear")
    joints.

    Attributes:
        drive_type: ``"force"`` or ``"acceleration"`` (inertia-normalised), or a dict of joint-name
            patterns.
        target_type: ``"position"``, ``"velocity"`` or ``"none"`` (gains written as 0), or a dict of
            joint-name patterns.
        gains: The gains; a joint for which both gains resolve to None gets no drive.
    """

    PDGainsCfg = PDGainsCfg
    NaturalFrequencyGainsCfg = NaturalFrequencyGainsCfg

    drive_type: dict[str, Literal["acceleration", "force"]] | Literal["acceleration", "force"] = "force"
    target_type: dict[str, Literal["none", "position", "velocity"]] | Literal["none", "position", "velocity"] = (
        "position"
    )
    gains: PDGainsCfg | NaturalFrequencyGainsCfg = field(default_factory=PDGainsCfg)


@dataclass(kw_only=True)
class _RobotConverterCfg(AssetConverterBaseCfg):
    """Settings shared by the MJCF and URDF converters (both compile through MuJoCo)."""

    fix_base: bool = False
    """Weld the root body to the world with a ``FixedJoint`` instead of letting it float (it replaces
    the root's free joint; a root attached by other joints is left as it is)."""

    link_density: float = 0.0
    """Density [kg/m^3] given to geoms that rely on MuJoCo's default density (1000) in bodies whose
    inertia is inferred from geoms. 0 keeps MuJoCo's default."""

    collision_from_visuals: bool = False
    """Make the visual-only geoms (contype = conaffinity = 0) the colliders; the original colliders are
    then written without ``CollisionAPI`` and with purpose ``guide``."""

    collision_type: CollisionType = "Convex Hull"
    """Approximation written on mesh colliders (see :data:`COLLISION_TYPES`)."""

    merge_mesh: bool = False
    """Accepted for compatibility with Isaac Lab; meshes are never merged (a warning says so)."""

    robot_type: str = "Default"
    """Accepted for compatibility with Isaac Lab; not written."""

    run_asset_transformer: bool = True
    """Accepted for compatibility with Isaac Lab and ignored: the output is always one flat layer
    (plus the mesh layer when ``make_instanceable`` is set and the asset has meshes)."""


@dataclass(kw_only=True)
class MjcfConverterCfg(_RobotConverterCfg):
    """Settings of :class:`~newton_gym.assets.MjcfConverter`.

    Attributes:
        self_collision: None (default): collisions follow MuJoCo's contype/conaffinity bitmasks and
            parent-child filtering, written per geom. True/False: additionally write
            ``newton:selfCollisionEnabled`` on the articulation root. (Isaac Lab defaults to False;
            None is the default here because False would contradict models like humanoid.xml whose
            limbs collide in MuJoCo.)
        import_physics_scene: Write the MJCF ``<option>`` (timestep, solver iterations, integrator,
            gravity) on ``/physicsScene``. Defaults to True (Isaac Lab: False) because round trips
            must match MuJoCo; False writes only the gravity.
        override_gain_type: Replace every actuator's ``gaintype`` ("fixed", "affine", "muscle", "user").
        override_bias_type: Replace every actuator's ``biastype`` ("none", "affine", "muscle", "user").
        override_gain_prm: Replace every actuator's ``gainprm`` (up to 10 values, zero-padded).
        override_bias_prm: Replace every actuator's ``biasprm`` (up to 10 values, zero-padded).
    """

    self_collision: bool | None = None
    import_physics_scene: bool = True
    override_gain_type: str | None = None
    override_bias_type: str | None = None
    override_gain_prm: list[float] | None = None
    override_bias_prm: list[float] | None = None


@dataclass(kw_only=True)
class UrdfConverterCfg(_RobotConverterCfg):
    """Settings of :class:`~newton_gym.assets.UrdfConverter`.

    Attributes:
        merge_fixed_joints: Merge links joined by fixed joints into their parent (MuJoCo's
            ``fusestatic``). The root link is never merged into the world.
        joint_drive: Drives for the revolute and prismatic joints; None writes no drives.
        self_collision: Written as ``newton:selfCollisionEnabled`` on the articulation root.
        ros_package_paths: ``[{"name": <package>, "path": <folder>}, ...]`` used to resolve
            ``package://<package>/...`` mesh URIs. A package not listed is looked up as a sibling folder
            of the URDF's folder and its parents.
        root_link_name: Deprecated in Isaac Lab; a warning is issued if set.
        convert_mimic_joints_to_normal_joints: Deprecated in Isaac Lab; a warning is issued if set.
        replace_cylinders_with_capsules: Deprecated in Isaac Lab; a warning is issued if set.
    """

    JointDriveCfg = JointDriveCfg

    merge_fixed_joints: bool = True
    joint_drive: JointDriveCfg | None = field(default_factory=JointDriveCfg)
    self_collision: bool = False
    ros_package_paths: list[dict[str, str]] = field(default_factory=list)
    root_link_name: str | None = None
    convert_mimic_joints_to_normal_joints: bool = False
    replace_cylinders_with_capsules: bool = False


@dataclass(kw_only=True)
class MassPropertiesCfg:
    """Mass of the converted mesh body. With neither value set, ``MassAPI`` is applied with nothing
    authored.

    Attributes:
        mass: Mass [kg]; inertia is the mesh's unit-density inertia scaled to this mass.
        density: Density [kg/m^3], used when ``mass`` is None; authored as ``physics:density`` too.
    """

    mass: float | None = None
    density: float | None = None


@dataclass(kw_only=True)
class RigidBodyPropertiesCfg:
    """Rigid-body settings of the converted mesh body; ``RigidBodyAPI`` is applied. None leaves a
    value unauthored.

    Attributes:
        rigid_body_enabled: ``physics:rigidBodyEnabled``.
        kinematic_enabled: ``physics:kinematicEnabled``.
        disable_gravity: ``physxRigidBody:disableGravity``.
        linear_damping: ``physxRigidBody:linearDamping`` [1/s].
        angular_damping: ``physxRigidBody:angularDamping`` [1/s].
        max_linear_velocity: ``physxRigidBody:maxLinearVelocity`` [m/s].
        max_angular_velocity: ``physxRigidBody:maxAngularVelocity`` [deg/s].
    """

    rigid_body_enabled: bool | None = None
    kinematic_enabled: bool | None = None
    disable_gravity: bool | None = None
    linear_damping: float | None = None
    angular_damping: float | None = None
    max_linear_velocity: float | None = None
    max_angular_velocity: float | None = None


@dataclass(kw_only=True)
class CollisionPropertiesCfg:
    """Collider settings of the converted mesh; ``CollisionAPI`` is applied. None leaves a value
    unauthored.

    Attributes:
        collision_enabled: ``physics:collisionEnabled``.
        contact_offset: ``physxCollision:contactOffset`` [m].
        rest_offset: ``physxCollision:restOffset`` [m].
    """

    collision_enabled: bool | None = None
    contact_offset: float | None = None
    rest_offset: float | None = None


@dataclass(kw_only=True)
class MeshCollisionPropertiesCfg:
    """Mesh collider approximation; ``MeshCollisionAPI`` is applied.

    Attributes:
        approximation: One of :data:`MESH_APPROXIMATIONS`.
    """

    approximation: str = "convexHull"


@dataclass(kw_only=True)
class MeshConverterCfg(AssetConverterBaseCfg):
    """Settings of :class:`~newton_gym.assets.MeshConverter`.

    The mesh's points are written unchanged (STL and OBJ alike are taken as Z-up, metres); the
    placement below goes on the ``geometry`` prim as ``xformOp:translate``, ``xformOp:orient`` and
    ``xformOp:scale`` (applied to a point in the order scale, rotation, translation).

    Attributes:
        mass_props: None: no ``MassAPI``.
        rigid_props: None: no ``RigidBodyAPI``.
        collision_props: None: no ``CollisionAPI``.
        mesh_collision_props: None: no ``MeshCollisionAPI``.
        translation: Offset of the mesh [m].
        rotation: Rotation of the mesh as a unit quaternion (x, y, z, w).
        scale: Per-axis scale of the mesh [-].
    """

    mass_props: MassPropertiesCfg | None = None
    rigid_props: RigidBodyPropertiesCfg | None = None
    collision_props: CollisionPropertiesCfg | None = None
    mesh_collision_props: MeshCollisionPropertiesCfg | None = None
    translation: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
