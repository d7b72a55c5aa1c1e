"""Model: the finalized, immutable description of all worlds, as Warp arrays."""

from __future__ import annotations

import numpy as np
import warp as wp

from ..errors import ModelBuildError
from .custom_attributes import attach
from .state import Control, State, clone

__all__ = ["Model"]


class Model:
    """Arrays of every entity, partitioned into worlds. Built by ``ModelBuilder.finalize``.

    Every field is declared below with its shape, Warp dtype and SI unit; assigning any other public
    attribute raises AttributeError (custom attributes are attached by name by finalize). Per-entity
    arrays are named ``<kind>_<field>``; ``<kind>_world`` gives each entity's world (-1: global) and
    ``<kind>_world_start`` (world_count + 2,) the first entity of each world, then the first global entity
    after them and the end. Global entities use world 0's gravity. Quaternions are (x, y, z, w).
    """

    # ---- model-wide
    device: wp.Device
    world_count: int  # number of worlds (0: none declared, all entities global)
    requires_grad: bool
    up_axis: int  # 0, 1, 2 for X, Y, Z
    gravity: wp.array  # (max(world_count, 1),) vec3 [m/s^2], per world
    # The fluid medium of every world (MuJoCo's <option density viscosity wind>; the solver's inertia-box fluid
    # forces, :mod:`newton_gym.solvers.smooth.fluid`, act while density or viscosity is above zero). Plain
    # numbers, editable after finalize; read at every step.
    fluid_density: float  # [kg/m^3] >= 0, quadratic drag
    fluid_viscosity: float  # [Pa s] >= 0, viscous (Stokes) drag
    wind: tuple  # (3,) velocity of the medium, world frame [m/s]

    # ---- bodies
    body_count: int
    body_key: list  # (body_count,) labels (prim paths)
    body_q: wp.array  # (body_count,) transform, body-origin pose in world [m]
    body_qd: wp.array  # (body_count,) spatial_vector, COM twist in world, linear first [m/s, rad/s]
    body_mass: wp.array  # (body_count,) float32 [kg]
    body_inv_mass: wp.array  # (body_count,) float32 [1/kg], 0 for massless bodies
    body_com: wp.array  # (body_count,) vec3, COM in the body frame [m]
    body_inertia: wp.array  # (body_count,) mat33, about the COM, body axes [kg m^2]
    body_inv_inertia: wp.array  # (body_count,) mat33 [1/(kg m^2)], 0 where singular
    body_kinematic: wp.array  # (body_count,) bool, moved by the user, not by forces
    body_world: wp.array  # (body_count,) int32
    body_world_start: wp.array  # (world_count + 2,) int32

    # ---- shapes
    shape_count: int
    shape_key: list  # (shape_count,) labels
    shape_body: wp.array  # (shape_count,) int32 body, -1 for static (world-attached) shapes
    shape_type: wp.array  # (shape_count,) int32 GeoType
    shape_transform: wp.array  # (shape_count,) transform in the body frame [m]
    shape_scale: wp.array  # (shape_count,) vec3, GeoType-specific sizes (radius, half extents) [m]
    shape_mesh: wp.array  # (shape_count,) int32 index into meshes, -1 for none
    meshes: list  # Mesh objects referenced by shape_mesh
    shape_heightfield: wp.array  # (shape_count,) int32 index into heightfields, -1 for none
    heightfields: list  # Heightfield objects referenced by shape_heightfield (one copy serves every world)
    shape_material_mu: wp.array  # (shape_count,) float32 sliding friction coefficient [-]
    shape_material_mu_torsional: wp.array  # (shape_count,) float32 torsional friction [m]
    shape_material_mu_rolling: wp.array  # (shape_count,) float32 rolling friction [m]
    shape_material_restitution: wp.array  # (shape_count,) float32 [-]
    shape_material_ke: wp.array  # (shape_count,) float32 contact stiffness [N/m]
    shape_material_kd: wp.array  # (shape_count,) float32 contact damping [N s/m]
    shape_solref: wp.array  # (shape_count,) vec2 MuJoCo solref (time constant [s], damping ratio)
    shape_solimp: wp.array  # (shape_count,) vec5 MuJoCo solimp (d0, dwidth, width [m], mid, power)
    shape_contact_margin: wp.array  # (shape_count,) float32 contact detection distance [m]
    shape_contact_gap: wp.array  # (shape_count,) float32 inactive part of the margin [m]
    shape_condim: wp.array  # (shape_count,) int32 contact dimension 1, 3, 4 or 6
    shape_priority: wp.array  # (shape_count,) int32 MuJoCo priority (higher sets the contact's params)
    shape_density: wp.array  # (shape_count,) float32 [kg/m^3]
    shape_collision_group: wp.array  # (shape_count,) int32, shapes of different positive groups never collide
    shape_collide: wp.array  # (shape_count,) bool, takes part in collisions
    shape_visible: wp.array  # (shape_count,) bool
    shape_world: wp.array  # (shape_count,) int32
    shape_world_start: wp.array  # (world_count + 2,) int32
    shape_collision_filter_pairs: object  # set-like view of the filtered (a, b) shape pairs, a < b
    shape_collision_filter_pair_array: wp.array  # (pair_count,) vec2i filtered pairs

    # ---- sites (named frames fixed to bodies, e.g. MJCF <site>)
    site_count: int
    site_key: list  # (site_count,) labels (prim paths or names)
    site_body: wp.array  # (site_count,) int32 body, -1 for frames fixed in the world
    site_xform: wp.array  # (site_count,) transform, site frame in the body frame (world frame for -1) [m]
    site_world: wp.array  # (site_count,) int32
    site_world_start: wp.array  # (world_count + 2,) int32

    # ---- joints (per joint)
    joint_count: int
    joint_dof_count: int
    joint_coord_count: int
    joint_constraint_count: int  # constrained directions over all joints
    joint_key: list  # (joint_count,) labels
    joint_type: wp.array  # (joint_count,) int32 JointType
    joint_parent: wp.array  # (joint_count,) int32 parent body, -1 for the world
    joint_child: wp.array  # (joint_count,) int32 child body
    joint_q_start: wp.array  # (joint_count,) int32 first coordinate
    joint_qd_start: wp.array  # (joint_count,) int32 first DOF
    joint_enabled: wp.array  # (joint_count,) bool
    joint_world: wp.array  # (joint_count,) int32
    joint_articulation: wp.array  # (joint_count,) int32
    joint_X_p: wp.array  # (joint_count,) transform, joint frame in the parent body frame [m]
    joint_X_c: wp.array  # (joint_count,) transform, joint frame in the child body frame [m]
    joint_dof_dim: wp.array  # (joint_count,) vec2i (linear, angular) DOF counts
    joint_world_start: wp.array  # (world_count + 2,) int32
    joint_dof_world_start: wp.array  # (world_count + 2,) int32, first DOF of each world
    joint_coord_world_start: wp.array  # (world_count + 2,) int32, first coordinate of each world
    joint_constraint_world_start: wp.array  # (world_count + 2,) int32

    # ---- joints (per DOF; angular DOFs in rad, linear DOFs in m)
    joint_axis: wp.array  # (joint_dof_count,) vec3 in the joint frame
    joint_limit_lower: wp.array  # (joint_dof_count,) float32 [rad or m], -inf / large: unlimited
    joint_limit_upper: wp.array  # (joint_dof_count,) float32 [rad or m]
    joint_limit_ke: wp.array  # (joint_dof_count,) float32 limit stiffness [N m/rad or N/m]
    joint_limit_kd: wp.array  # (joint_dof_count,) float32 limit damping [N m s/rad or N s/m]
    joint_target_ke: wp.array  # (joint_dof_count,) float32 drive stiffness [N m/rad or N/m]
    joint_target_kd: wp.array  # (joint_dof_count,) float32 drive damping [N m s/rad or N s/m]
    joint_armature: wp.array  # (joint_dof_count,) float32 added inertia [kg m^2 or kg]
    joint_effort_limit: wp.array  # (joint_dof_count,) float32 [N m or N]
    joint_velocity_limit: wp.array  # (joint_dof_count,) float32 [rad/s or m/s]
    joint_friction: wp.array  # (joint_dof_count,) float32 static (dry) friction loss [N m or N]
    joint_friction_dynamic: wp.array  # (joint_dof_count,) float32 [N m or N]
    joint_viscous_damping: wp.array  # (joint_dof_count,) float32 [N m s/rad or N s/m]
    joint_damping: wp.array  # (joint_dof_count,) float32 passive damping [N m s/rad or N s/m]
    joint_spring_stiffness: wp.array  # (joint_dof_count,) float32 passive spring [N m/rad or N/m]
    joint_spring_ref: wp.array  # (joint_dof_count,) float32 spring rest position [rad or m]
    joint_ref: wp.array  # (joint_dof_count,) float32 coordinate of the authored pose (MuJoCo's qpos0) [rad or m]
    joint_target_pos: wp.array  # (joint_dof_count,) float32 initial drive target [rad or m]
    joint_target_vel: wp.array  # (joint_dof_count,) float32 initial drive target [rad/s or m/s]
    joint_dof_joint: wp.array  # (joint_dof_count,) int32 joint of each DOF
    joint_qd: wp.array  # (joint_dof_count,) float32 initial velocities [rad/s or m/s]
    joint_coord_joint: wp.array  # (joint_coord_count,) int32 joint of each coordinate
    joint_q: wp.array  # (joint_coord_count,) float32 initial coordinates [rad or m; quaternions]

    # ---- articulations
    articulation_count: int
    articulation_key: list
    articulation_start: wp.array  # (articulation_count + 1,) int32 first joint, then the end
    articulation_end: wp.array  # (articulation_count,) int32 one past the last joint
    articulation_self_collision: wp.array  # (articulation_count,) bool
    articulation_world: wp.array  # (articulation_count,) int32
    articulation_world_start: wp.array  # (world_count + 2,) int32

    # ---- particles
    particle_count: int
    particle_q: wp.array  # (particle_count,) vec3 [m]
    particle_qd: wp.array  # (particle_count,) vec3 [m/s]
    particle_mass: wp.array  # (particle_count,) float32 [kg]
    particle_inv_mass: wp.array  # (particle_count,) float32 [1/kg]
    particle_radius: wp.array  # (particle_count,) float32 [m]
    particle_flags: wp.array  # (particle_count,) int32
    particle_world: wp.array  # (particle_count,) int32
    particle_world_start: wp.array  # (world_count + 2,) int32

    # ---- equality constraints
    equality_constraint_count: int
    equality_constraint_key: list
    equality_constraint_type: wp.array  # (equality_constraint_count,) int32 EqType
    equality_constraint_body1: wp.array  # (equality_constraint_count,) int32, -1 for the world
    equality_constraint_body2: wp.array  # (equality_constraint_count,) int32
    equality_constraint_anchor: wp.array  # (equality_constraint_count,) vec3 in body1's frame [m]
    equality_constraint_relpose: wp.array  # (equality_constraint_count,) transform, body2 in body1 (weld) [m]
    equality_constraint_joint1: wp.array  # (equality_constraint_count,) int32
    equality_constraint_joint2: wp.array  # (equality_constraint_count,) int32
    equality_constraint_tendon1: wp.array  # (equality_constraint_count,) int32 (tendon equality), else -1
    equality_constraint_tendon2: wp.array  # (equality_constraint_count,) int32
    equality_constraint_polycoef: wp.array  # (equality_constraint_count,) vec5 joint / tendon coupling polynomial
    equality_constraint_torquescale: wp.array  # (equality_constraint_count,) float32 [-]
    equality_constraint_solref: wp.array  # (equality_constraint_count,) vec2 MuJoCo solref
    equality_constraint_solimp: wp.array  # (equality_constraint_count,) vec5 MuJoCo solimp
    equality_constraint_enabled: wp.array  # (equality_constraint_count,) bool
    equality_constraint_world: wp.array  # (equality_constraint_count,) int32
    equality_constraint_world_start: wp.array  # (world_count + 2,) int32

    # ---- tendons (MuJoCo fixed and spatial tendons; ModelBuilder.add_tendon_fixed / add_tendon_spatial)
    tendon_count: int
    tendon_key: list  # (tendon_count,) labels
    tendon_type: wp.array  # (tendon_count,) int32 TendonType: FIXED or SPATIAL
    tendon_wrap_start: wp.array  # (tendon_count + 1,) int32 first path element of each tendon, then the end
    tendon_stiffness: wp.array  # (tendon_count,) float32 spring stiffness along the tendon [N/m]
    tendon_springlength: wp.array  # (tendon_count,) vec2 spring dead band [m]; (-1, -1): the initial length
    tendon_damping: wp.array  # (tendon_count,) float32 damping along the tendon [N s/m]
    tendon_frictionloss: wp.array  # (tendon_count,) float32 dry friction along the tendon [N]
    tendon_limited: wp.array  # (tendon_count,) bool, whether tendon_range is enforced
    tendon_range: wp.array  # (tendon_count,) vec2 (lower, upper) length limits [m]
    tendon_margin: wp.array  # (tendon_count,) float32 distance from a limit at which its row turns on [m]
    tendon_solref_limit: wp.array  # (tendon_count,) vec2 MuJoCo solref of the limit rows ([s], [-])
    tendon_solimp_limit: wp.array  # (tendon_count,) vec5 MuJoCo solimp of the limit rows
    tendon_solref_friction: wp.array  # (tendon_count,) vec2 MuJoCo solref of the friction row ([s], [-])
    tendon_solimp_friction: wp.array  # (tendon_count,) vec5 MuJoCo solimp of the friction row
    tendon_armature: wp.array  # (tendon_count,) float32 inertia along the tendon [kg]
    tendon_world: wp.array  # (tendon_count,) int32
    tendon_world_start: wp.array  # (world_count + 2,) int32
    # Path elements (MuJoCo's wrap_*): a fixed tendon's joints and coefficients, a spatial tendon's sites.
    tendon_wrap_count: int  # path elements over all tendons
    tendon_wrap_joint: wp.array  # (tendon_wrap_count,) int32 joint of a fixed tendon's element, else -1
    tendon_wrap_site: wp.array  # (tendon_wrap_count,) int32 site of a spatial tendon's element, else -1
    tendon_wrap_coef: wp.array  # (tendon_wrap_count,) float32 coefficient of the joint's coordinate [m/rad or -]

    def __init__(self, device):
        self.device = wp.get_device(device)
        self.world_count = 0
        self.requires_grad = False
        self.gravity = None
        self.fluid_density = 0.0
        self.fluid_viscosity = 0.0
        self.wind = (0.0, 0.0, 0.0)
        self._state_attrs: list = []  # (CustomAttribute, initial array) copied into every State
        self._control_attrs: list = []  # (CustomAttribute, initial array) copied into every Control
        self._attribute_frequency: dict = {}

    def __setattr__(self, name, value):
        if not name.startswith("_") and name not in Model.__annotations__:
            raise AttributeError(f"Model declares no field {name!r}; declare it (shape, dtype, unit) in the class body")
        object.__setattr__(self, name, value)

    # ------------------------------------------------------------------ gravity
    def set_gravity(self, gravity, world: int | None = None):
        """Set gravity [m/s^2] without reallocating: one (3,) vector for all worlds, a (world_count, 3)
        array of one vector per world, or one vector for ``world``. Takes effect on the next step."""
        g = np.asarray(gravity, dtype=np.float32)
        rows = self.gravity.shape[0]
        current = self.gravity.numpy()
        if world is not None:
            if not -rows <= int(world) < rows:
                raise ModelBuildError(f"set_gravity: world {world} out of range for {rows} world(s)")
            if g.shape != (3,):
                raise ModelBuildError(f"set_gravity: a single world takes a (3,) vector, got shape {g.shape}")
            current[int(world)] = g
        elif g.shape == (3,):
            current[:] = g
        elif g.shape == (rows, 3):
            current = g
        else:
            raise ModelBuildError(f"set_gravity: expected shape (3,) or ({rows}, 3), got {g.shape}")
        if not np.isfinite(current).all():
            raise ModelBuildError("set_gravity: gravity must be finite")
        self.gravity.assign(current)

    # ------------------------------------------------------------------ state / control
    def state(self, requires_grad: bool | None = None) -> State:
        """A new State holding copies of the initial body and joint state."""
        rg = self.requires_grad if requires_grad is None else requires_grad
        s = State()
        s.body_q = clone(self.body_q, self.device, rg)
        s.body_qd = clone(self.body_qd, self.device, rg)
        s.body_f = wp.zeros_like(self.body_qd, requires_grad=rg)
        s.joint_q = clone(self.joint_q, self.device, rg)
        s.joint_qd = clone(self.joint_qd, self.device, rg)
        s.particle_q = clone(self.particle_q, self.device, rg)
        s.particle_qd = clone(self.particle_qd, self.device, rg)
        s.particle_f = wp.zeros_like(self.particle_qd, requires_grad=rg)
        for attr, arr in self._state_attrs:
            attach(s, attr, wp.clone(arr))
        return s

    def control(self) -> Control:
        """A new Control with zero joint_f and the model's initial drive targets."""
        c = Control()
        c.joint_f = wp.zeros(self.joint_dof_count, dtype=wp.float32, device=self.device)
        c.joint_target_pos = wp.clone(self.joint_target_pos)
        c.joint_target_vel = wp.clone(self.joint_target_vel)
        for attr, arr in self._control_attrs:
            attach(c, attr, wp.clone(arr))
        return c

    def get_attribute_frequency(self, name: str) -> str:
        """Frequency ("body", "joint_dof", ...) of a custom attribute given as "name" or "namespace:name"."""
        return self._attribute_frequency[name]

    def __repr__(self):
        return (
            f"Model(world_count={self.world_count}, body_count={self.body_count}, shape_count="
            f"{self.shape_count}, joint_count={self.joint_count}, joint_dof_count={self.joint_dof_count}, "
            f"device={self.device})"
        )
