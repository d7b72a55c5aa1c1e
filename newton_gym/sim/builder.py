"""ModelBuilder: the public front for assembling a world-partitioned model (seeds 002 and 004).

The builder only routes calls: entity rows live in column tables (:mod:`.tables`), joints are written
by :mod:`.joint_config`, tendons by :mod:`.builder_tendons`, copies by :mod:`.compose`, worlds by
:mod:`.worlds`, custom attributes by :mod:`.custom_attributes`, and :mod:`.finalize` turns everything into
a :class:`~.model.Model`.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelBuildError
from . import compose
from .builder_joints import JointShortcuts
from .builder_tendons import TendonCalls
from .custom_attributes import CustomAttribute, CustomAttributeRegistry
from .heightfield import Heightfield
from .hostmath import normalize_transform, quat_between, transform_identity, transform_inverse, transform_mul
from .joint_config import JointDofConfig, write_joint
from .mesh import Mesh
from .shape_config import ShapeConfig
from .tables import make_tables
from .types import Axis, EqType, GeoType, JointType
from .worlds import WorldScope

__all__ = ["ModelBuilder"]


class ModelBuilder(JointShortcuts, TendonCalls):
    """Assembles bodies, shapes, joints, articulations, particles, sites, equality constraints and tendons
    (:class:`.builder_tendons.TendonCalls`), in the global world (-1) or in worlds opened with
    :meth:`begin_world`, then :meth:`finalize` builds a Model.

    Args:
        up_axis: world up axis (Axis or "X"/"Y"/"Z").
        gravity: signed gravity along the up axis [m/s^2]; the default is -9.81.

    Attributes:
        fluid_density: density of the medium the bodies move in [kg/m^3], >= 0 (MuJoCo's ``<option
            density>``; default 0).
        fluid_viscosity: its viscosity [Pa s], >= 0 (``<option viscosity>``; default 0).
        wind: (3,) its velocity in the world frame [m/s] (``<option wind>``; default zero).
            While density or viscosity is above zero, :class:`~newton_gym.solvers.SolverGeneralized` applies
            MuJoCo's inertia-box fluid forces to every body (:mod:`newton_gym.solvers.smooth.fluid`). One
            medium for all worlds; finalize copies it onto the Model (``model.fluid_density``, ...). A builder
            whose medium is unset (all zero) takes that of a builder it adds (:meth:`add_builder`,
            :meth:`add_world`, :meth:`replicate`), as USD imports set it from the stage's
            ``mjc:option:density`` / ``viscosity`` / ``wind``.
    """

    ShapeConfig = ShapeConfig
    JointDofConfig = JointDofConfig
    CustomAttribute = CustomAttribute

    def __init__(self, up_axis=Axis.Z, gravity: float = -9.81):
        self.up_axis = Axis.from_any(up_axis)
        self.gravity = float(gravity)
        self.fluid_density = 0.0
        self.fluid_viscosity = 0.0
        self.wind = (0.0, 0.0, 0.0)
        self.default_shape_cfg = ShapeConfig()
        self.default_joint_cfg = JointDofConfig()
        self.tables = make_tables()
        self.meshes: list[Mesh] = []
        self.heightfields: list[Heightfield] = []
        self._filter_pairs: list[np.ndarray] = []  # (k, 2) int chunks of shape pairs never to collide
        self._worlds = WorldScope()
        self._custom = CustomAttributeRegistry()

    # ---------------------------------------------------------------- counts and views
    @property
    def up_vector(self) -> np.ndarray:
        return np.asarray(self.up_axis.to_vec3())

    @property
    def gravity_vector(self) -> tuple:
        return tuple(float(g) + 0.0 for g in self.up_vector * self.gravity)  # + 0.0: no -0.0

    @property
    def current_world(self) -> int:
        """Index of the world new entities join (-1 outside begin_world/end_world). Read-only."""
        return self._worlds.current

    @property
    def world_count(self) -> int:
        return self._worlds.count

    @property
    def world_gravity(self) -> list:
        """Gravity vector (3,) [m/s^2] of each world, in world order."""
        return list(self._worlds.gravity)

    def _count(self, kind):
        return self.tables[kind].count

    body_count = property(lambda self: self._count("body"))
    shape_count = property(lambda self: self._count("shape"))
    joint_count = property(lambda self: self._count("joint"))
    joint_dof_count = property(lambda self: self._count("dof"))
    joint_coord_count = property(lambda self: self._count("coord"))
    articulation_count = property(lambda self: self._count("articulation"))
    particle_count = property(lambda self: self._count("particle"))
    equality_constraint_count = property(lambda self: self._count("equality"))

    body_key = property(lambda self: self.tables["body"].labels)
    shape_key = property(lambda self: self.tables["shape"].labels)
    joint_key = property(lambda self: self.tables["joint"].labels)
    articulation_key = property(lambda self: self.tables["articulation"].labels)
    # Writable numpy views (edit in place to set initial state).
    body_q = property(lambda self: self.tables["body"].get("q"))
    joint_q = property(lambda self: self.tables["coord"].get("q"))
    joint_qd = property(lambda self: self.tables["dof"].get("qd"))
    body_world = property(lambda self: self.tables["body"].get("world"))
    shape_world = property(lambda self: self.tables["shape"].get("world"))
    joint_world = property(lambda self: self.tables["joint"].get("world"))
    body_mass = property(lambda self: self.tables["body"].get("mass"))
    joint_type = property(lambda self: self.tables["joint"].get("type"))
    site_count = property(lambda self: self._count("site"))
    site_key = property(lambda self: self.tables["site"].labels)
    site_body = property(lambda self: self.tables["site"].get("body"))
    site_xform = property(lambda self: self.tables["site"].get("xform"))
    site_world = property(lambda self: self.tables["site"].get("world"))

    # ---------------------------------------------------------------- worlds
    def begin_world(self, gravity=None) -> int:
        """Open a new world; entities added until :meth:`end_world` belong to it.

        Args:
            gravity: (3,) gravity of this world [m/s^2]; defaults to the builder's gravity vector.
        Returns:
            The new world's index.
        """
        g = self.gravity_vector if gravity is None else gravity
        g = np.asarray(g, dtype=np.float64).reshape(-1)
        if g.shape != (3,) or not np.isfinite(g).all():
            raise ModelBuildError(f"begin_world(gravity={gravity!r}): gravity must be 3 finite numbers")
        return self._worlds.begin(g)

    def end_world(self):
        """Close the world opened by :meth:`begin_world`."""
        self._worlds.end()

    # ---------------------------------------------------------------- bodies
    def add_link(
        self,
        xform=None,
        mass: float | None = None,
        com=None,
        inertia=None,
        key: str | None = None,
        kinematic: bool = False,
        custom_attributes: dict | None = None,
        label: str | None = None,
    ) -> int:
        """Add a rigid body without a joint (connect it with an ``add_joint_*`` call).

        Args:
            xform: initial body-origin pose in world, 7 values (p, q xyzw) [m].
            mass: [kg]; None accumulates it from the shapes' density.
            com: (3,) center of mass in the body frame [m]; None derives it from the shapes.
            inertia: (3, 3) or (3,) diagonal inertia about the COM in the body frame [kg m^2]; None derives
                it from the shapes (scaled to ``mass`` when that was given).
            key / label: name of the body.
            kinematic: moved by the user, not by dynamics.
        Returns:
            The body index.
        """
        name = label or key
        tb = self.tables["body"]
        ident = name or f"#{tb.count}"
        row = {"q": normalize_transform(xform), "world": self.current_world, "kinematic": bool(kinematic)}
        if mass is not None:
            mass = float(mass)
            if not np.isfinite(mass):
                raise ModelBuildError(f"body {ident}: mass {mass} is not finite")
            row.update(mass=mass, mass_given=True)
        if com is not None:
            row.update(com=np.asarray(com, dtype=np.float64).reshape(3), com_given=True)
        if inertia is not None:
            row.update(inertia=_check_inertia(inertia, ident), inertia_given=True)
        index = tb.add_row(name, **row)
        self._custom.set_values("body", index, custom_attributes)
        return index

    def add_body(
        self,
        xform=None,
        mass: float | None = None,
        com=None,
        inertia=None,
        key: str | None = None,
        armature: float = 0.0,
        custom_attributes: dict | None = None,
        label: str | None = None,
    ) -> int:
        """Add a free-floating rigid body: a link, a free joint to the world and its own articulation.

        Arguments as :meth:`add_link`; ``armature`` [kg, kg m^2] is added to the six free DOFs.
        """
        body = self.add_link(xform, mass, com, inertia, key, custom_attributes=custom_attributes, label=label)
        joint = self.add_joint_free(body, armature=armature, key=(label or key) and f"{label or key}_free")
        self.add_articulation([joint], key=label or key)
        return body

    # ---------------------------------------------------------------- shapes
    def add_shape(
        self,
        body: int,
        geo_type: GeoType,
        xform=None,
        scale=(1.0, 1.0, 1.0),
        mesh: Mesh | Heightfield | None = None,
        cfg: ShapeConfig | None = None,
        key: str | None = None,
        custom_attributes: dict | None = None,
        label: str | None = None,
    ) -> int:
        """Attach a shape to ``body`` (-1: static, in the current world). Prefer the typed helpers.
        ``mesh`` is the geometry of a MESH shape (a Mesh) or of an HFIELD shape (a Heightfield)."""
        name = label or key
        tb = self.tables["body"]
        ident = name or f"#{self.shape_count}"
        if not -1 <= body < tb.count:
            raise ModelBuildError(f"shape {ident}: body {body} does not exist ({tb.count} bodies)")
        if body >= 0 and int(tb.value("world", body)) != self.current_world:
            raise ModelBuildError(
                f"shape {ident} is added in world {self.current_world} but its body {body} belongs to world "
                f"{int(tb.value('world', body))}; add shapes inside the world scope of their body"
            )
        scale = np.asarray(scale, dtype=np.float64).reshape(3)
        if not np.isfinite(scale).all() or (geo_type != GeoType.PLANE and (scale[: _size_dims(geo_type)] <= 0).any()):
            raise ModelBuildError(f"shape {ident}: {GeoType(geo_type).name} size {scale.tolist()} must be positive")
        mesh_index, field_index = -1, -1
        if geo_type == GeoType.HFIELD:
            field_index = self._heightfield_index(ident, body, mesh)
        elif geo_type == GeoType.MESH:
            if not isinstance(mesh, Mesh):
                raise ModelBuildError(f"shape {ident}: a MESH shape needs a newton_gym.Mesh, got {type(mesh).__name__}")
            mesh_index = next((i for i, m in enumerate(self.meshes) if m is mesh), -1)
            if mesh_index < 0:
                self.meshes.append(mesh)
                mesh_index = len(self.meshes) - 1
        cfg = cfg or self.default_shape_cfg
        index = self.tables["shape"].add_row(
            name,
            body=body,
            type=int(geo_type),
            xform=normalize_transform(xform),
            scale=scale,
            mesh=mesh_index,
            heightfield=field_index,
            world=self.current_world,
            **cfg.as_row(),
        )
        self._custom.set_values("shape", index, custom_attributes)
        return index

    def _heightfield_index(self, ident, body, field) -> int:
        if not isinstance(field, Heightfield):
            raise ModelBuildError(
                f"shape {ident}: an HFIELD shape needs a newton_gym.Heightfield, got {type(field).__name__}"
            )
        if body != -1:
            raise ModelBuildError(f"shape {ident}: a heightfield is static terrain: attach it to body -1, not {body}")
        index = next((i for i, h in enumerate(self.heightfields) if h is field), -1)
        if index < 0:
            self.heightfields.append(field)
            index = len(self.heightfields) - 1
        return index

    def add_shape_heightfield(
        self, body=-1, xform=None, heightfield: Heightfield = None, cfg=None, key=None, **kw
    ) -> int:
        """Static heightfield terrain (a ``newton_gym.Heightfield``) at ``xform``; body must be -1. The field
        object is stored once, however many shapes or worlds use it."""
        return self.add_shape(body, GeoType.HFIELD, xform, (1.0, 1.0, 1.0), mesh=heightfield, cfg=cfg, key=key, **kw)

    def add_shape_sphere(self, body, xform=None, radius=1.0, cfg=None, key=None, **kw) -> int:
        """Sphere of ``radius`` [m] centred at the shape frame."""
        return self.add_shape(body, GeoType.SPHERE, xform, (radius, 0.0, 0.0), cfg=cfg, key=key, **kw)

    def add_shape_ellipsoid(self, body, xform=None, a=1.0, b=0.75, c=0.5, cfg=None, key=None, **kw) -> int:
        """Solid ellipsoid with semi-axes a, b, c [m] along the shape frame's x, y and z."""
        return self.add_shape(body, GeoType.ELLIPSOID, xform, (a, b, c), cfg=cfg, key=key, **kw)

    def add_shape_box(self, body, xform=None, hx=0.5, hy=0.5, hz=0.5, cfg=None, key=None, **kw) -> int:
        """Box with half extents hx, hy, hz [m]."""
        return self.add_shape(body, GeoType.BOX, xform, (hx, hy, hz), cfg=cfg, key=key, **kw)

    def add_shape_capsule(self, body, xform=None, radius=1.0, half_height=0.5, cfg=None, key=None, **kw) -> int:
        """Capsule along local Z; ``half_height`` [m] excludes the hemispherical caps."""
        return self.add_shape(body, GeoType.CAPSULE, xform, (radius, half_height, 0.0), cfg=cfg, key=key, **kw)

    def add_shape_cylinder(self, body, xform=None, radius=1.0, half_height=0.5, cfg=None, key=None, **kw) -> int:
        """Cylinder along local Z, total length 2 * half_height [m]."""
        return self.add_shape(body, GeoType.CYLINDER, xform, (radius, half_height, 0.0), cfg=cfg, key=key, **kw)

    def add_shape_cone(self, body, xform=None, radius=1.0, half_height=0.5, cfg=None, key=None, **kw) -> int:
        """Cone along local Z: base of ``radius`` at -half_height, apex at +half_height; COM at -half_height/2."""
        return self.add_shape(body, GeoType.CONE, xform, (radius, half_height, 0.0), cfg=cfg, key=key, **kw)

    def add_shape_plane(self, body=-1, xform=None, width=0.0, length=0.0, cfg=None, key=None, **kw) -> int:
        """Plane through the shape origin with normal +Z of the shape frame; 0 extents = infinite."""
        return self.add_shape(body, GeoType.PLANE, xform, (width, length, 0.0), cfg=cfg, key=key, **kw)

    def add_shape_mesh(
        self, body, xform=None, mesh: Mesh = None, scale=(1.0, 1.0, 1.0), cfg=None, key=None, **kw
    ) -> int:
        """Triangle mesh (a ``newton_gym.Mesh``) scaled by ``scale``."""
        return self.add_shape(body, GeoType.MESH, xform, scale, mesh=mesh, cfg=cfg, key=key, **kw)

    def add_ground_plane(self, height: float = 0.0, cfg=None, key: str = "ground_plane") -> int:
        """Infinite static plane normal to the up axis at ``height`` [m]."""
        q = quat_between([0.0, 0.0, 1.0], self.up_vector)
        xform = np.concatenate([self.up_vector * height, q])
        return self.add_shape_plane(-1, xform, cfg=cfg, key=key)

    # ---------------------------------------------------------------- joints
    def add_joint(
        self,
        joint_type: JointType,
        parent: int,
        child: int,
        parent_xform=None,
        child_xform=None,
        linear_axes=(),
        angular_axes=(),
        key=None,
        enabled=True,
        collision_filter_parent=True,
        custom_attributes: dict | None = None,
        label: str | None = None,
    ) -> int:
        """Add a joint of any type; ``linear_axes`` / ``angular_axes`` are JointDofConfig lists.

        ``parent_xform`` / ``child_xform`` are the joint frame in the parent / child body frame (7 values).
        """
        linear = [a if isinstance(a, JointDofConfig) else JointDofConfig.make(axis=a) for a in linear_axes]
        angular = [a if isinstance(a, JointDofConfig) else JointDofConfig.make(axis=a) for a in angular_axes]
        index = write_joint(
            self.tables,
            self.current_world,
            JointType(joint_type),
            int(parent),
            int(child),
            parent_xform,
            child_xform,
            linear,
            angular,
            label or key,
            enabled,
            collision_filter_parent,
        )
        self._custom.set_values("joint", index, custom_attributes)
        return index

    def add_articulation(
        self,
        joints,
        key: str | None = None,
        enable_self_collisions: bool = True,
        custom_attributes: dict | None = None,
        label: str | None = None,
    ) -> int:
        """Group contiguous, ascending joint indices (a tree, parents first) into one articulation."""
        joints = [int(j) for j in joints]
        name = label or key or f"#{self.articulation_count}"
        if not joints:
            raise ModelBuildError(f"articulation {name}: no joints given")
        if joints != list(range(joints[0], joints[0] + len(joints))):
            raise ModelBuildError(f"articulation {name}: joints {joints} must be contiguous and ascending")
        tj = self.tables["joint"]
        if joints[0] < 0 or joints[-1] >= tj.count:
            raise ModelBuildError(f"articulation {name}: joint index out of range (have {tj.count} joints)")
        worlds = {int(tj.value("world", j)) for j in joints}
        if worlds != {self.current_world}:
            raise ModelBuildError(
                f"articulation {name} spans worlds {sorted(worlds)} but is added in world "
                f"{self.current_world}; every joint must be in the articulation's world"
            )
        taken = [j for j in joints if int(tj.value("articulation", j)) >= 0]
        if taken:
            raise ModelBuildError(f"articulation {name}: joint {taken[0]} already belongs to an articulation")
        index = self.tables["articulation"].add_row(
            label or key,
            joint_start=joints[0],
            joint_end=joints[-1] + 1,
            self_collision=bool(enable_self_collisions),
            world=self.current_world,
        )
        tj.set("articulation", slice(joints[0], joints[-1] + 1), index)
        self._custom.set_values("articulation", index, custom_attributes)
        return index

    # ---------------------------------------------------------------- sites
    def add_site(self, body: int, xform=None, key: str | None = None) -> int:
        """A named frame fixed to ``body`` (-1: the world), like an MJCF ``<site>``: a pose for sensors,
        feet or command targets that takes no part in dynamics or collisions.

        Args:
            body: the body the site moves with, or -1 for a frame fixed in the current world.
            xform: (7,) pose of the site in the body frame (world frame for body -1) [m]; None: identity.
            key: the site's name (``site_key``).
        Returns:
            The site's index. World poses come from :func:`newton_gym.sim.site_transforms`.
        """
        tb = self.tables["body"]
        ident = key or f"#{self.site_count}"
        if not -1 <= int(body) < tb.count:
            raise ModelBuildError(f"site {ident}: body {body} does not exist ({tb.count} bodies)")
        if body >= 0 and int(tb.value("world", body)) != self.current_world:
            raise ModelBuildError(
                f"site {ident} is added in world {self.current_world} but its body {body} belongs to world "
                f"{int(tb.value('world', body))}; add sites inside the world scope of their body"
            )
        xform = normalize_transform(xform)
        return self.tables["site"].add_row(key, body=int(body), xform=xform, world=self.current_world)

    def add_particle(self, pos, vel=(0.0, 0.0, 0.0), mass: float = 1.0, radius: float = 0.1, flags: int = 1) -> int:
        """Point mass at ``pos`` [m] with velocity ``vel`` [m/s], ``mass`` [kg] and contact ``radius`` [m]."""
        return self.tables["particle"].add_row(
            None,
            q=np.asarray(pos, float),
            qd=np.asarray(vel, float),
            mass=float(mass),
            radius=float(radius),
            flags=int(flags),
            world=self.current_world,
        )

    def _add_equality(self, eq_type, key, enabled, solref, solimp, **row) -> int:
        """Validate the bodies / joints of ``row`` and add the constraint (None values keep the column defaults)."""
        row.update(enabled=enabled, solref=solref, solimp=solimp)
        name = key or f"#{self.equality_constraint_count}"
        for k in ("body1", "body2"):
            b = row.get(k, -1)
            if not -1 <= b < self.body_count:
                raise ModelBuildError(f"equality constraint {name}: {k} {b} does not exist")
            if b >= 0 and int(self.tables["body"].value("world", b)) != self.current_world:
                raise ModelBuildError(f"equality constraint {name}: {k} {b} is in another world")
        for k in ("joint1", "joint2"):
            j = row.get(k, -1)
            if not -1 <= j < self.joint_count:
                raise ModelBuildError(f"equality constraint {name}: {k} {j} does not exist")
        for k in ("tendon1", "tendon2"):
            t = row.get(k, -1)
            if not -1 <= t < self.tendon_count:
                raise ModelBuildError(f"equality constraint {name}: {k} {t} does not exist")
            if t >= 0 and int(self.tables["tendon"].value("world", t)) != self.current_world:
                raise ModelBuildError(f"equality constraint {name}: {k} {t} is in another world")
        coef = row.get("polycoef")
        if coef is not None and (np.shape(coef) != (5,) or not np.isfinite(coef).all()):
            raise ModelBuildError(f"equality constraint {name}: polycoef must be 5 finite numbers, got {coef}")
        return self.tables["equality"].add_row(
            key, type=int(eq_type), world=self.current_world, **{k: v for k, v in row.items() if v is not None}
        )

    def add_equality_constraint_connect(
        self, body1: int, body2: int = -1, anchor=(0.0, 0.0, 0.0), key=None, enabled=True, solref=None, solimp=None
    ) -> int:
        """Ball-socket constraint: ``anchor`` [m] in body1's frame coincides on both bodies (MuJoCo connect)."""
        anchor = np.asarray(anchor, float)
        return self._add_equality(EqType.CONNECT, key, enabled, solref, solimp, body1=body1, body2=body2, anchor=anchor)

    def add_equality_constraint_weld(
        self,
        body1: int,
        body2: int = -1,
        relpose=None,
        anchor=(0.0, 0.0, 0.0),
        torquescale: float = 1.0,
        key=None,
        enabled=True,
        solref=None,
        solimp=None,
    ) -> int:
        """Weld body1 to body2: ``relpose`` (7 values) is body2's pose in body1's frame, by default their
        relative pose as added (body -1 is the world)."""
        if relpose is None and -1 <= body1 < self.body_count and -1 <= body2 < self.body_count:
            tb = self.tables["body"]
            x1 = tb.value("q", body1) if body1 >= 0 else transform_identity()
            x2 = tb.value("q", body2) if body2 >= 0 else transform_identity()
            relpose = transform_mul(transform_inverse(x1), x2)
        anchor = np.asarray(anchor, float)
        relpose = normalize_transform(relpose) if relpose is not None else None
        row = dict(body1=body1, body2=body2, anchor=anchor, relpose=relpose, torquescale=torquescale)
        return self._add_equality(EqType.WELD, key, enabled, solref, solimp, **row)

    def add_equality_constraint_joint(
        self,
        joint1: int,
        joint2: int = -1,
        polycoef=(0.0, 1.0, 0.0, 0.0, 0.0),
        key=None,
        enabled=True,
        solref=None,
        solimp=None,
    ) -> int:
        """q1 = polycoef(q2) for two single-DOF joints (MuJoCo joint equality)."""
        polycoef = np.asarray(polycoef, float)
        return self._add_equality(
            EqType.JOINT, key, enabled, solref, solimp, joint1=joint1, joint2=joint2, polycoef=polycoef
        )

    def add_equality_constraint_tendon(
        self,
        tendon1: int,
        tendon2: int = -1,
        polycoef=(0.0, 1.0, 0.0, 0.0, 0.0),
        key=None,
        enabled=True,
        solref=None,
        solimp=None,
    ) -> int:
        """L1 = polycoef(L2) for the lengths of two tendons (MuJoCo tendon equality, with its polynomial
        re-expanded in the lengths themselves rather than their offsets from the lengths at qpos0); tendon2
        -1: L1 is held at polycoef[0]."""
        polycoef = np.asarray(polycoef, float)
        if tendon1 == tendon2:
            raise ModelBuildError(
                f"equality constraint {key or '#' + str(self.equality_constraint_count)}: "
                f"tendon1 and tendon2 are the same tendon ({tendon1})"
            )
        return self._add_equality(
            EqType.TENDON, key, enabled, solref, solimp, tendon1=tendon1, tendon2=tendon2, polycoef=polycoef
        )

    # ---------------------------------------------------------------- custom attributes
    def add_custom_attribute(
        self,
        name,
        dtype=None,
        assignment: str = "model",
        frequency: str = "body",
        namespace: str | None = None,
        default=None,
    ) -> CustomAttribute:
        """Declare a custom attribute (or pass a ready :class:`CustomAttribute` as ``name``).

        It appears as ``model.<name>`` / ``state.<namespace>.<name>`` / ``control...`` after finalize.
        """
        import warp as wp

        attr = (
            name
            if isinstance(name, CustomAttribute)
            else CustomAttribute(
                name=name,
                dtype=dtype or wp.float32,
                frequency=frequency,
                assignment=assignment,
                namespace=namespace,
                default=default,
            )
        )
        return self._custom.declare(attr)

    def set_custom_attribute(self, key: str, index: int, value):
        """Set custom attribute ``key`` ("name" or "namespace:name") of entity ``index``."""
        attr = self._custom.attributes.get(key)
        if attr is None:
            raise ModelBuildError(f"custom attribute {key!r} is not declared")
        attr.values[int(index)] = value

    @property
    def custom_attributes(self) -> dict:
        return self._custom.attributes

    # ---------------------------------------------------------------- composition
    def add_builder(self, builder: ModelBuilder, xform=None, world: int | None = None):
        """Copy every entity of ``builder`` into this one, posed by ``xform``.

        Entities go to ``world`` (default: the current world). In the global scope, a sub-builder with
        worlds of its own keeps them as new worlds (with their gravity) and its global entities stay global.
        """
        target = self.current_world if world is None else int(world)
        src_worlds = builder.world_count
        if target == -1 and src_worlds:
            wmap = np.concatenate([[-1], self.world_count + np.arange(src_worlds)])
            self._worlds.count += src_worlds
            self._worlds.gravity.extend(builder.world_gravity)
        else:
            wmap = np.full(src_worlds + 1, target)
        self._append(builder, normalize_transform(xform)[None], wmap[None])

    def add_world(self, builder: ModelBuilder, xform=None, gravity=None) -> int:
        """Add ``builder`` as one new world (begin_world + add_builder + end_world).

        ``gravity`` defaults to the sub-builder's gravity vector. Returns the world index."""
        w = self.begin_world(gravity if gravity is not None else builder.gravity_vector)
        try:
            self.add_builder(builder, xform)
        finally:
            self.end_world()
        return w

    def replicate(
        self,
        builder: ModelBuilder,
        world_count: int | None = None,
        spacing=(0.0, 0.0, 0.0),
        copy_count: int | None = None,
        gravity=None,
    ):
        """Add ``world_count`` copies of ``builder``, each its own world, laid on a grid of ``spacing`` [m].

        Vectorised: the cost grows with the entity count, not with a Python loop per world.
        """
        n = world_count if world_count is not None else copy_count
        if n is None or int(n) < 0:
            raise ModelBuildError(f"replicate: world_count must be a non-negative int, got {n!r}")
        if self.current_world != -1:
            raise ModelBuildError("replicate() creates worlds and cannot be called inside begin_world()")
        n = int(n)
        offsets = compose.grid_offsets(n, spacing)
        xforms = np.tile(transform_identity(), (n, 1))
        xforms[:, :3] = offsets
        first = self.world_count
        g = builder.gravity_vector if gravity is None else tuple(np.asarray(gravity, float).reshape(3))
        self._worlds.count += n
        self._worlds.gravity.extend([g] * n)
        wmap = np.repeat((first + np.arange(n))[:, None], builder.world_count + 1, axis=1)
        self._append(builder, xforms, wmap)

    def _append(self, builder, xforms, wmaps):
        from .finalize import auto_articulations
        from .medium import adopt_fluid_medium

        adopt_fluid_medium(self, builder)
        auto_articulations(builder)  # so copies carry whole articulations, in world order
        offsets = {"mesh": len(self.meshes), "heightfield": len(self.heightfields)}
        self.meshes.extend(builder.meshes)
        self.heightfields.extend(builder.heightfields)
        starts = compose.append_copies(self.tables, builder.tables, xforms, wmaps, offsets)
        n = len(xforms)
        pairs = builder.filter_pair_array()
        if len(pairs):
            offsets = starts["shape"] + builder.shape_count * np.arange(n, dtype=np.int64)
            self._filter_pairs.append((pairs[None] + offsets[:, None, None]).reshape(-1, 2))
        for _key, attr in builder.custom_attributes.items():
            mine = self._custom.declare(
                CustomAttribute(attr.name, attr.dtype, attr.frequency, attr.assignment, attr.namespace, attr.default)
            )
            if attr.frequency == "world":
                continue
            kind = {"joint_dof": "dof", "joint_coord": "coord", "equality_constraint": "equality"}.get(
                attr.frequency, attr.frequency
            )
            step = builder.tables[kind].count
            for k in range(n):
                base = starts[kind] + k * step
                mine.values.update({base + i: v for i, v in attr.values.items()})

    def add_shape_collision_filter_pair(self, shape_a: int, shape_b: int):
        """Never collide shapes ``shape_a`` and ``shape_b``."""
        a, b = sorted((int(shape_a), int(shape_b)))
        if a < 0 or b >= self.shape_count:
            raise ModelBuildError(f"collision filter pair ({shape_a}, {shape_b}): shape index out of range")
        self._filter_pairs.append(np.array([[a, b]], dtype=np.int64))

    @property
    def shape_collision_filter_pairs(self) -> set:
        """Explicit shape pairs (a < b) that never collide (parent/child pairs are added at finalize)."""
        return {(int(a), int(b)) for a, b in self.filter_pair_array()}

    def filter_pair_array(self) -> np.ndarray:
        """Explicit filter pairs as a (k, 2) int64 array, unique and sorted."""
        if not self._filter_pairs:
            return np.zeros((0, 2), dtype=np.int64)
        pairs = np.unique(np.concatenate(self._filter_pairs), axis=0)
        self._filter_pairs = [pairs]
        return pairs

    # ---------------------------------------------------------------- undo (used by importers)
    def snapshot(self):
        """Opaque state to :meth:`restore` (importers undo a failed import with it)."""
        import copy

        return (
            {k: t.snapshot() for k, t in self.tables.items()},
            (len(self.meshes), len(self.heightfields)),
            list(self._filter_pairs),
            copy.deepcopy(self._custom.attributes),
            (self._worlds.current, self._worlds.count, list(self._worlds.gravity)),
            (self.fluid_density, self.fluid_viscosity, self.wind),
        )

    def restore(self, snap):
        tables, nmesh, pairs, custom, worlds, medium = snap
        self.fluid_density, self.fluid_viscosity, self.wind = medium
        for k, s in tables.items():
            self.tables[k].restore(s)
        del self.meshes[nmesh[0] :]
        del self.heightfields[nmesh[1] :]
        self._filter_pairs = pairs
        self._custom.attributes = custom
        self._worlds.current, self._worlds.count, self._worlds.gravity = worlds

    # ---------------------------------------------------------------- finalize
    def finalize(self, device=None, requires_grad: bool = False):
        """Validate and build a :class:`~newton_gym.sim.model.Model` of Warp arrays on ``device``."""
        from .finalize import build_model

        if self.current_world != -1:
            raise ModelBuildError(f"finalize() called while world {self.current_world} is open; call end_world()")
        return build_model(self, device, requires_grad)

    def add_usd(self, source, **kwargs) -> dict:
        """Import a UsdPhysics stage (file path or Usd.Stage); see :func:`newton_gym.usd.add_usd`."""
        from ..usd import add_usd

        return add_usd(self, source, **kwargs)


def _size_dims(geo_type) -> int:
    return {
        GeoType.SPHERE: 1,
        GeoType.BOX: 3,
        GeoType.CAPSULE: 2,
        GeoType.CYLINDER: 2,
        GeoType.CONE: 2,
        GeoType.MESH: 3,
        GeoType.ELLIPSOID: 3,
    }.get(GeoType(geo_type), 0)


def _check_inertia(inertia, name) -> np.ndarray:
    arr = np.asarray(inertia, dtype=np.float64)
    if arr.shape == (3,):
        arr = np.diag(arr)
    elif arr.shape == (9,):
        arr = arr.reshape(3, 3)
    if arr.shape != (3, 3) or not np.isfinite(arr).all():
        raise ModelBuildError(f"body {name}: inertia must be a finite 3x3 matrix or 3 diagonal values")
    if not np.allclose(arr, arr.T, atol=1e-9 * max(1.0, np.abs(arr).max())):
        raise ModelBuildError(f"body {name}: inertia {arr.tolist()} is not symmetric")
    if np.abs(arr).max() == 0.0:
        return arr  # zero inertia: a point mass (or a massless helper body)
    eig = np.linalg.eigvalsh(arr)
    if eig.min() <= 0.0:
        raise ModelBuildError(f"body {name}: inertia is not positive definite (eigenvalues {eig.tolist()})")
    if eig[0] + eig[1] < eig[2] * (1.0 - 1e-6):
        raise ModelBuildError(
            f"body {name}: principal inertia {eig.tolist()} violates the triangle inequality I1 + I2 >= I3"
        )
    return arr
