"""Reading a compiled ``mujoco.MjModel`` into a :class:`~.description.RobotDesc`.

Every number comes from the compiled model (``body_mass``, ``body_inertia``, ``jnt_axis``,
``dof_damping``, ``geom_size``, ``actuator_gear``, ``opt.timestep``, ...), so defaults classes,
``fromto``, mesh re-centring and inertia inference are exactly MuJoCo's.

Mapping of the kinematic tree:

* Bodies are posed in the world frame at ``qpos0`` (from ``mj_kinematics``); a keyframe named ``home``
  moves the free bodies to its poses and gives every hinge and slide joint its start coordinate.
* A body with a free joint gets no joint (it floats), unless ``fix_base`` welds a top-level one to the
  world with a fixed joint.
* A body without joints is welded to its parent (or the world) by a fixed joint named
  ``<body>_fixed``.
* A body with joints ``j1 .. jn`` (hinge, slide, ball) hangs from its parent through ``n - 1`` massless
  links named ``<body>__<j1>`` .. ``<body>__<j(n-1)>``, posed like the body: ``j1`` joins the parent to
  ``<body>__<j1>``, ..., ``jn`` joins ``<body>__<j(n-1)>`` to the body. The body then records its real
  parent as a filtered pair, as MuJoCo excludes parent-child contacts.
* MuJoCo's parent filter works on weld groups (a body without joints belongs to its parent's group):
  bodies of one group, or of a group and its parent group, never collide. Such pairs that are not
  parent and child in the written tree (e.g. a jointless foot and the thigh above its shin) become
  filtered pairs too, unless the model disables ``filterparent``.
* Joint frames put the joint axis on X. The parent-side frame is offset by ``-ref`` so the USD joint
  coordinate equals MuJoCo's ``qpos`` (ranges, springref and ref keep their MuJoCo values).

Equality constraints (connect, weld, joint; site-based ones in their bodies' frames) are read by
:mod:`.mujoco_equality`, tendons (fixed, and spatial through sites) by :mod:`.mujoco_tendons`; actuators
drive a joint or one of those tendons.

Heightfields (``<geom type="hfield">``) are static terrain: a geom of the world body, or of a body welded
to the world without joints (then posed in the world frame, among the world's geoms), becomes a
"hfield" geom holding the compiled field (:meth:`~newton_gym.sim.heightfield.Heightfield.from_mujoco`
of ``hfield_data``, ``hfield_nrow``, ``hfield_ncol``, ``hfield_size``); one on a moving body is
skipped with a warning naming it.

Quaternions: MuJoCo's (w, x, y, z) fields become newton_gym's (x, y, z, w) where they are read
(:func:`_mj_quat`) and poses are composed as :mod:`newton_gym.sim.hostmath` 7-vector transforms; the
description's fields are (w, x, y, z) (the order ``Gf.Quat`` takes), so they are reordered back where
they are filled in. Written quaternions are unit with w >= 0.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import AssetWarning
from ..sim.conventions import quat_wxyz_to_xyzw, quat_xyzw_to_wxyz
from ..sim.heightfield import Heightfield
from ..sim.hostmath import (
    quat_between,
    quat_canonical,
    quat_from_axis_angle,
    quat_identity,
    transform_identity,
    transform_inverse,
    transform_mul,
)
from ._imports import require
from .description import (
    ActuatorDesc,
    BodyDesc,
    GeomDesc,
    JointDesc,
    MeshDesc,
    RobotDesc,
    SceneDesc,
    SiteDesc,
)
from .mujoco_equality import describe_equalities
from .mujoco_tendons import describe_tendons
from .naming import NameScope

__all__ = ["ExtractOptions", "describe_model", "ROOT_RESERVED_NAMES"]

#: Child names of the robot root that bodies may not take.
ROOT_RESERVED_NAMES = ("world", "joints", "actuators", "tendons", "equalities", "materials")

_FREE, _BALL, _SLIDE, _HINGE = 0, 1, 2, 3
_GEOM_HFIELD = 1
_GEOM_KINDS = {0: "plane", 1: "hfield", 2: "sphere", 3: "capsule", 4: "ellipsoid", 5: "cylinder", 6: "box", 7: "mesh"}
_X = np.array([1.0, 0.0, 0.0])


def _mj_quat(q) -> np.ndarray:
    """A MuJoCo (w, x, y, z) quaternion field as a unit (x, y, z, w) quaternion with w >= 0."""
    return quat_canonical(quat_wxyz_to_xyzw(np.asarray(q, dtype=np.float64)))


@dataclass
class ExtractOptions:
    """Choices applied while reading the model.

    Attributes:
        fix_base: Weld top-level floating bodies to the world.
        collision_from_visuals: In each body with visual-only geoms, those become the colliders (see
            :class:`MjcfConverterCfg`); world-body geoms and bodies without visual geoms keep theirs.
        approximation: ``physics:approximation`` token for mesh colliders.
        self_collision: Copied to ``RobotDesc.self_collision``.
        import_scene: Read ``opt`` (timestep, iterations, ...); otherwise standard gravity only.
        gain_type, bias_type, gain_prm, bias_prm: Actuator overrides (None keeps MuJoCo's).
    """

    fix_base: bool = False
    collision_from_visuals: bool = False
    approximation: str = "convexHull"
    self_collision: bool | None = None
    import_scene: bool = True
    gain_type: str | None = None
    bias_type: str | None = None
    gain_prm: list[float] | None = None
    bias_prm: list[float] | None = None


def _token(enum_type, value: int) -> str:
    """MuJoCo enum value -> lower-case token, e.g. mjtIntegrator(1) -> "rk4"."""
    return enum_type(int(value)).name.split("_", 1)[1].lower()


def describe_model(model, name: str, options: ExtractOptions | None = None) -> RobotDesc:
    """Reads a compiled MuJoCo model.

    Args:
        model: A compiled ``mujoco.MjModel``.
        name: Prim name of the robot root (already sanitized).
        options: Reading choices; defaults if None.

    Returns:
        The robot description.
    """
    mujoco = require("mujoco")
    options = options or ExtractOptions()
    data = mujoco.MjData(model)
    home = _home_key(model)
    if home is not None:  # free bodies start where the keyframe puts them; hinges keep qpos0 in the frames
        free = np.nonzero(model.jnt_type == _FREE)[0]
        for j in free:
            a = int(model.jnt_qposadr[j])
            data.qpos[a : a + 7] = model.key_qpos[home][a : a + 7]
    mujoco.mj_kinematics(model, data)
    robot = RobotDesc(name=name, meshes=_describe_meshes(model))
    tree = _TreeBuilder(model, data, robot, options)
    for body_id in range(1, model.nbody):
        tree.add_body(body_id)
    start = model.key_qpos[home] if home is not None else model.qpos0
    for joint in robot.joints:  # start at the keyframe, else at qpos0 (= each joint's ref)
        j = joint.mujoco_id
        if j is not None and int(model.jnt_type[j]) in (_HINGE, _SLIDE):
            q = float(start[model.jnt_qposadr[j]])
            if home is not None or q != 0.0:
                joint.initial = q
    tree.add_excluded_pairs()
    tree.add_weld_filters()
    robot.world_geoms = _describe_geoms(model, 0, options)
    robot.world_geoms += _welded_heightfields(model, data, options, tuple(g.name for g in robot.world_geoms))
    robot.world_sites = _describe_sites(model, 0, robot.world_geoms)
    robot.tendons, tendon_of = describe_tendons(model, tree.joint_of, _site_locations(robot))
    robot.actuators = _describe_actuators(model, tree.joint_of, tendon_of, options)
    robot.equalities = describe_equalities(model, tree.index_of, tree.joint_of, tendon_of)
    robot.scene = _describe_scene(model, options.import_scene)
    robot.self_collision = options.self_collision
    return robot


def _home_key(model) -> int | None:
    """Index of the keyframe named ``home`` (MuJoCo Menagerie's convention), or None."""
    for k in range(model.nkey):
        if model.key(k).name == "home":
            return k
    return None


class _TreeBuilder:
    """Adds bodies (with their massless links) and joints to a RobotDesc, one MuJoCo body at a time."""

    def __init__(self, model, data, robot: RobotDesc, options: ExtractOptions):
        self.model, self.data, self.robot, self.options = model, data, robot, options
        self.body_names = NameScope(ROOT_RESERVED_NAMES)
        self.joint_names = NameScope()
        self.index_of: dict[int, int] = {}  # MuJoCo body id -> index in robot.bodies
        self.joint_of: dict[int, int] = {}  # MuJoCo joint id -> index in robot.joints

    def _warn_free_joint_terms(self, j: int, body: str) -> None:
        """Warn, by name, of the free joint's damping, armature, frictionloss and stiffness: a free body is
        written without a joint, so they are not simulated."""
        m = self.model
        d0 = int(m.jnt_dofadr[j])
        terms = {
            "damping": m.dof_damping[d0 : d0 + 6],
            "armature": m.dof_armature[d0 : d0 + 6],
            "frictionloss": m.dof_frictionloss[d0 : d0 + 6],
            "stiffness": m.jnt_stiffness[j : j + 1],
        }
        named = [name for name, values in terms.items() if np.any(values != 0.0)]
        if named:
            warnings.warn(
                f"free joint '{m.joint(j).name or j}' of body '{body}': its {', '.join(named)} are not simulated "
                "(a free body is written without a joint)",
                AssetWarning,
                stacklevel=4,
            )

    def add_body(self, b: int) -> None:
        m = self.model
        body = self._body_desc(b)
        pose = self._pose(body)
        parent_id = int(m.body_parentid[b])
        parent = self.index_of.get(parent_id)
        joint_ids = list(range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b]))
        kinds = [int(m.jnt_type[j]) for j in joint_ids]
        if _FREE in kinds:
            self._warn_free_joint_terms(joint_ids[kinds.index(_FREE)], body.name)
            self._append_body(b, body)
            if parent_id == 0 and self.options.fix_base:
                self._add_fixed(body.name, None, len(self.robot.bodies) - 1)
            elif parent_id != 0:
                warnings.warn(
                    f"body '{body.name}' has a free joint below another body; it is written without a joint",
                    stacklevel=4,
                )
            return
        if not joint_ids:
            self._append_body(b, body)
            self._add_fixed(body.name, parent, len(self.robot.bodies) - 1)
            return
        previous = parent
        for k, j in enumerate(joint_ids):
            if k == len(joint_ids) - 1:
                self._append_body(b, body)
            else:
                link_name = self.body_names.claim(f"{body.name}__{m.joint(j).name or f'joint_{j}'}", "link")
                self.robot.bodies.append(BodyDesc(name=link_name, pos=body.pos, quat=body.quat))
            child = len(self.robot.bodies) - 1
            self._add_joint(j, previous, child, pose)
            previous = child
        if len(joint_ids) > 1 and parent is not None:
            body.filtered.append(parent)

    def add_weld_filters(self) -> None:
        """Filtered pairs for MuJoCo's weld-group parent filter (module docstring), between bodies with
        geoms that are not already parent and child."""
        import mujoco

        m = self.model
        same_group_only = bool(m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_FILTERPARENT)
        weld, parent = m.body_weldid, m.body_parentid
        bodies = [b for b in self.index_of if m.body_geomnum[b] > 0]
        for x, b1 in enumerate(bodies):
            for b2 in bodies[x + 1 :]:
                if parent[b1] == b2 or parent[b2] == b1:
                    continue
                w1, w2 = int(weld[b1]), int(weld[b2])
                related = w1 == w2 or (
                    not same_group_only and w1 != 0 and w2 != 0 and (w1 == weld[parent[w2]] or w2 == weld[parent[w1]])
                )
                if related:
                    self.robot.bodies[self.index_of[b2]].filtered.append(self.index_of[b1])

    def add_excluded_pairs(self) -> None:
        """MJCF ``<contact><exclude>`` pairs become filtered pairs on the second body."""
        for signature in self.model.exclude_signature:
            first, second = int(signature) >> 16, int(signature) & 0xFFFF
            if first in self.index_of and second in self.index_of:
                self.robot.bodies[self.index_of[second]].filtered.append(self.index_of[first])

    def _body_desc(self, b: int) -> BodyDesc:
        m, d = self.model, self.data
        name = self.body_names.claim(m.body(b).name, f"body_{b}")
        body = BodyDesc(
            name=name,
            pos=d.xpos[b].copy(),
            quat=quat_xyzw_to_wxyz(_mj_quat(d.xquat[b])),
            mass=float(m.body_mass[b]),
            com=m.body_ipos[b].copy(),
            inertia=m.body_inertia[b].copy(),
            principal_axes=quat_xyzw_to_wxyz(_mj_quat(m.body_iquat[b])),
            geoms=_describe_geoms(m, b, self.options),
        )
        body.sites = _describe_sites(m, b, body.geoms)
        return body

    def _append_body(self, b: int, body: BodyDesc) -> None:
        self.robot.bodies.append(body)
        self.index_of[b] = len(self.robot.bodies) - 1

    @staticmethod
    def _pose(body: BodyDesc) -> np.ndarray:
        """World pose of a described body as a (7,) transform (quaternion x, y, z, w)."""
        return np.concatenate([body.pos, quat_wxyz_to_xyzw(body.quat)])

    def _in_parent(self, parent: int | None, pose: np.ndarray) -> np.ndarray:
        """A world pose expressed in the frame of body ``parent`` (unchanged for the world, None)."""
        if parent is None:
            return pose
        return transform_mul(transform_inverse(self._pose(self.robot.bodies[parent])), pose)

    def _add_fixed(self, body_name: str, parent: int | None, child: int) -> None:
        local0 = self._in_parent(parent, self._pose(self.robot.bodies[child]))
        self.robot.joints.append(
            JointDesc(
                name=self.joint_names.claim(f"{body_name}_fixed", "fixed"),
                kind="fixed",
                body0=parent,
                body1=child,
                pos0=local0[:3],
                quat0=quat_xyzw_to_wxyz(quat_canonical(local0[3:])),
                pos1=np.zeros(3),
                quat1=quat_xyzw_to_wxyz(quat_identity()),
            )
        )

    def _add_joint(self, j: int, parent: int | None, child: int, body_pose: np.ndarray) -> None:
        m = self.model
        kind = int(m.jnt_type[j])
        scalar = kind in (_HINGE, _SLIDE)
        # joint frame in the child body: at jnt_pos, X along the joint axis
        frame1 = np.concatenate([m.jnt_pos[j], quat_between(_X, m.jnt_axis[j]) if scalar else quat_identity()])
        ref = float(m.qpos0[m.jnt_qposadr[j]]) if scalar else 0.0
        offset = transform_identity()
        if kind == _HINGE:
            offset[3:] = quat_from_axis_angle(_X, -ref)
        elif kind == _SLIDE:
            offset[0] = -ref
        frame0 = self._in_parent(parent, transform_mul(transform_mul(body_pose, frame1), offset))
        desc = JointDesc(
            name=self.joint_names.claim(m.joint(j).name, f"joint_{j}"),
            kind={_HINGE: "revolute", _SLIDE: "prismatic", _BALL: "spherical"}[kind],
            body0=parent,
            body1=child,
            pos0=frame0[:3],
            quat0=quat_xyzw_to_wxyz(quat_canonical(frame0[3:])),
            pos1=frame1[:3],
            quat1=quat_xyzw_to_wxyz(frame1[3:]),
            ref=ref,
            mujoco_id=j,
        )
        _fill_joint_params(m, j, desc)
        self.joint_of[j] = len(self.robot.joints)
        self.robot.joints.append(desc)


def _fill_joint_params(m, j: int, desc: JointDesc) -> None:
    dof, qadr = int(m.jnt_dofadr[j]), int(m.jnt_qposadr[j])
    desc.limited = bool(m.jnt_limited[j])
    if desc.limited:
        desc.lower, desc.upper = (float(v) for v in m.jnt_range[j])
    desc.damping = float(m.dof_damping[dof])
    desc.armature = float(m.dof_armature[dof])
    desc.frictionloss = float(m.dof_frictionloss[dof])
    desc.stiffness = float(m.jnt_stiffness[j])
    desc.springref = float(m.qpos_spring[qadr]) if desc.kind in ("revolute", "prismatic") else 0.0
    desc.margin = float(m.jnt_margin[j])
    desc.solreflimit = m.jnt_solref[j].copy()
    desc.solimplimit = m.jnt_solimp[j].copy()
    desc.solreffriction = m.dof_solref[dof].copy()
    desc.solimpfriction = m.dof_solimp[dof].copy()
    desc.actfrclimited = bool(m.jnt_actfrclimited[j])
    desc.actfrcrange = m.jnt_actfrcrange[j].copy()
    desc.group = int(m.jnt_group[j])


def _describe_meshes(m) -> list[MeshDesc]:
    names = NameScope()
    meshes = []
    for k in range(m.nmesh):
        v0, nv = int(m.mesh_vertadr[k]), int(m.mesh_vertnum[k])
        f0, nf = int(m.mesh_faceadr[k]), int(m.mesh_facenum[k])
        meshes.append(
            MeshDesc(
                name=names.claim(m.mesh(k).name, f"mesh_{k}"),
                points=m.mesh_vert[v0 : v0 + nv].astype(np.float64),
                faces=m.mesh_face[f0 : f0 + nf].astype(np.int64),
            )
        )
    return meshes


def _describe_geoms(m, b: int, options: ExtractOptions) -> list[GeomDesc]:
    visual = (m.geom_contype == 0) & (m.geom_conaffinity == 0)
    visual_set = bool(np.any(visual))
    geom_ids = range(m.body_geomadr[b], m.body_geomadr[b] + m.body_geomnum[b])
    # collision_from_visuals swaps a robot body's colliders for its own visual geoms; the world body (the
    # scene: floor, walls) and a body without visual geoms have nothing to swap in and keep their colliders.
    swap = options.collision_from_visuals and b != 0 and bool(np.any(visual[list(geom_ids)]))
    names = NameScope()
    geoms = []
    for g in geom_ids:
        kind = _GEOM_KINDS.get(int(m.geom_type[g]))
        if kind is None:
            warnings.warn(f"geom {g} ('{m.geom(g).name}') has a type USD cannot hold; skipped", stacklevel=3)
            continue
        if kind == "hfield" and b != 0:  # static terrain: welded ones join the world's geoms
            if int(m.body_weldid[b]) != 0:
                warnings.warn(
                    f"geom {g} ('{m.geom(g).name}') is a heightfield on moving body '{m.body(b).name}'; "
                    "heightfields are static terrain only; skipped",
                    AssetWarning,
                    stacklevel=3,
                )
            continue
        geom = _geom_desc(m, g, names.claim(m.geom(g).name, f"geom_{g}"), options)
        _classify(geom, visual_set, swap)
        geoms.append(geom)
    return geoms


def _welded_heightfields(m, data, options: ExtractOptions, taken: tuple[str, ...]) -> list[GeomDesc]:
    """The heightfield geoms of bodies welded to the world (no joint up to it), posed in the world frame."""
    visual_set = bool(np.any((m.geom_contype == 0) & (m.geom_conaffinity == 0)))
    names = NameScope(taken)
    geoms = []
    for g in np.nonzero(m.geom_type == _GEOM_HFIELD)[0]:
        b = int(m.geom_bodyid[g])
        if b == 0 or int(m.body_weldid[b]) != 0:
            continue
        body_pose = np.concatenate([data.xpos[b], _mj_quat(data.xquat[b])])
        pose = transform_mul(body_pose, np.concatenate([m.geom_pos[g], _mj_quat(m.geom_quat[g])]))
        geom = _geom_desc(m, int(g), names.claim(m.geom(g).name, f"geom_{g}"), options)
        geom.pos, geom.quat = pose[:3], quat_xyzw_to_wxyz(quat_canonical(pose[3:]))
        _classify(geom, visual_set, swap=False)
        geoms.append(geom)
    return geoms


def _heightfield(m, k: int) -> Heightfield:
    """Compiled hfield ``k`` (MuJoCo's normalized elevations scaled by ``size[2]``)."""
    nrow, ncol = int(m.hfield_nrow[k]), int(m.hfield_ncol[k])
    start = int(m.hfield_adr[k])
    return Heightfield.from_mujoco(m.hfield_data[start : start + nrow * ncol], nrow, ncol, m.hfield_size[k])


def _geom_desc(m, g: int, name: str, options: ExtractOptions) -> GeomDesc:
    """Geom ``g`` posed in its body's frame, before :func:`_classify`."""
    kind = _GEOM_KINDS[int(m.geom_type[g])]
    return GeomDesc(
        name=name,
        kind=kind,
        size=m.geom_size[g].copy(),
        pos=m.geom_pos[g].copy(),
        quat=quat_xyzw_to_wxyz(_mj_quat(m.geom_quat[g])),
        mesh=int(m.geom_dataid[g]) if kind == "mesh" else None,
        heightfield=_heightfield(m, int(m.geom_dataid[g])) if kind == "hfield" else None,
        approximation=options.approximation,
        friction=m.geom_friction[g].copy(),
        solref=m.geom_solref[g].copy(),
        solimp=m.geom_solimp[g].copy(),
        margin=float(m.geom_margin[g]),
        gap=float(m.geom_gap[g]),
        condim=int(m.geom_condim[g]),
        contype=int(m.geom_contype[g]),
        conaffinity=int(m.geom_conaffinity[g]),
        priority=int(m.geom_priority[g]),
        group=int(m.geom_group[g]),
        solmix=float(m.geom_solmix[g]),
        rgba=m.geom_rgba[g].copy(),
    )


def _describe_sites(m, b: int, geoms: list[GeomDesc]) -> list[SiteDesc]:
    """The sites of MuJoCo body ``b`` (0: the world), posed in its frame, named apart from its geoms."""
    names = NameScope(tuple(g.name for g in geoms))
    return [
        SiteDesc(
            name=names.claim(m.site(s).name, f"site_{s}"),
            pos=m.site_pos[s].copy(),
            quat=quat_xyzw_to_wxyz(_mj_quat(m.site_quat[s])),
            mujoco_id=int(s),
        )
        for s in np.nonzero(m.site_bodyid == b)[0]
    ]


def _site_locations(robot: RobotDesc) -> dict[int, tuple]:
    """MuJoCo site id -> (index into ``robot.bodies``, None for the world; the site's prim name)."""
    found = {site.mujoco_id: (None, site.name) for site in robot.world_sites}
    for index, body in enumerate(robot.bodies):
        found.update({site.mujoco_id: (index, site.name) for site in body.sites})
    return found


def _classify(geom: GeomDesc, visual_set: bool, swap: bool) -> None:
    """Collider or visual, per contype/conaffinity; ``swap``: the body's visual geoms become its colliders
    (``collision_from_visuals``)."""
    visual_only = geom.contype == 0 and geom.conaffinity == 0
    if swap:
        if visual_only:
            geom.collider, geom.contype, geom.conaffinity = True, 1, 1
        else:
            geom.collider, geom.guide, geom.contype, geom.conaffinity = False, True, 0, 0
        return
    geom.collider = not visual_only
    geom.guide = visual_set and not visual_only


def _describe_actuators(
    m, joint_of: dict[int, int], tendon_of: dict[int, int], options: ExtractOptions
) -> list[ActuatorDesc]:
    """The actuators on written joints (joint, jointinparent transmissions) and written tendons."""
    mujoco = require("mujoco")
    names = NameScope()
    actuators = []
    for a in range(m.nu):
        trn = _token(mujoco.mjtTrn, m.actuator_trntype[a])
        target = int(m.actuator_trnid[a, 0])
        joint = joint_of.get(target) if trn in ("joint", "jointinparent") else None
        tendon = tendon_of.get(target) if trn == "tendon" else None
        if joint is None and tendon is None:
            warnings.warn(
                f"actuator {a} ('{m.actuator(a).name}') does not drive a written joint or tendon (transmission "
                f"'{trn}'); skipped",
                stacklevel=3,
            )
            continue
        actuators.append(
            ActuatorDesc(
                name=names.claim(m.actuator(a).name, f"actuator_{a}"),
                joint=joint,
                tendon=tendon,
                gear=m.actuator_gear[a].copy(),
                ctrllimited=bool(m.actuator_ctrllimited[a]),
                ctrlrange=m.actuator_ctrlrange[a].copy(),
                forcelimited=bool(m.actuator_forcelimited[a]),
                forcerange=m.actuator_forcerange[a].copy(),
                actlimited=bool(m.actuator_actlimited[a]),
                actrange=m.actuator_actrange[a].copy(),
                gaintype=options.gain_type or _token(mujoco.mjtGain, m.actuator_gaintype[a]),
                biastype=options.bias_type or _token(mujoco.mjtBias, m.actuator_biastype[a]),
                dyntype=_token(mujoco.mjtDyn, m.actuator_dyntype[a]),
                gainprm=_params(options.gain_prm, m.actuator_gainprm[a]),
                biasprm=_params(options.bias_prm, m.actuator_biasprm[a]),
                dynprm=m.actuator_dynprm[a].copy(),
                group=int(m.actuator_group[a]),
                joint_in_parent=trn == "jointinparent",
                actearly=bool(m.actuator_actearly[a]),
            )
        )
    return actuators


def _params(override: list[float] | None, compiled) -> np.ndarray:
    if override is None:
        return np.array(compiled, dtype=np.float64)
    values = np.zeros(len(compiled))
    values[: len(override)] = override
    return values


def _describe_scene(m, import_scene: bool) -> SceneDesc:
    if not import_scene:
        return SceneDesc(gravity=np.array([0.0, 0.0, -9.81]))
    mujoco = require("mujoco")
    opt = m.opt
    return SceneDesc(
        gravity=np.array(opt.gravity, dtype=np.float64),
        timestep=float(opt.timestep),
        iterations=int(opt.iterations),
        ls_iterations=int(opt.ls_iterations),
        tolerance=float(opt.tolerance),
        impratio=float(opt.impratio),
        noslip_iterations=int(opt.noslip_iterations),
        noslip_tolerance=float(opt.noslip_tolerance),
        integrator=_token(mujoco.mjtIntegrator, opt.integrator),
        solver=_token(mujoco.mjtSolver, opt.solver),
        cone=_token(mujoco.mjtCone, opt.cone),
        density=float(opt.density),
        viscosity=float(opt.viscosity),
        wind=np.array(opt.wind, dtype=np.float64),
        gravity_enabled=not opt.disableflags & mujoco.mjtDisableBit.mjDSBL_GRAVITY,
        contact_enabled=not opt.disableflags
        & (mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT),
    )
