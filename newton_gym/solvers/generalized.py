"""SolverGeneralized: articulated rigid bodies in generalized coordinates with MuJoCo-style soft
constraints, for every world of a Model in four launches a substep (:func:`.forward.substep`). This module
builds the solver's tables, binds the stage structs to the state's arrays, splits worlds over CPU threads,
captures and replays steps, and takes model edits and world resets."""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import warp as wp

from ..errors import ModelBuildError, SolverError, SolverStateError
from ..sim.kinematics import eval_fk
from ..sim.stage_args import BoundStruct
from . import forward, integrate, partition
from .base import SolverBase, SolverNotifyFlags
from .collision import driver as collision_driver
from .collision import params as contact_params
from .constraint import rows as constraint
from .constraint.invweights import reference_coordinates, set_invweights
from .option import Option
from .smooth import dynamics as smooth
from .smooth import tendon as tendons
from .smooth import wide_factor
from .smooth.fluid import FluidForces
from .smooth.passive import Actuators
from .solve.world import TILE_MAX_DOFS, WorldSolver, world_dof_start
from .tree import build_tree_layout
from .types import make_data

wp.set_module_options({"enable_backward": False})  # forward only: no adjoint code to compile

__all__ = ["SolverGeneralized", "CHUNK_DOFS", "MAX_CHUNKS"]

# DOFs of one CPU world chunk (Option.world_chunk None): on a 2-core EPYC (1 MiB L2 per core, 32 MiB L3), 256
# worlds of Ant, Humanoid, Go1, G1 and Go1 on rough ground stepped fastest at chunks of about 200-600 DOFs
# (the arrays a world's step touches grow with its DOFs; their allocated sizes, set by row and contact
# capacities, do not tell: a rough-ground world allocates 4x a flat one's and touches about as much).
CHUNK_DOFS = 384
# Most automatic chunks, over all threads: Warp records each launch of a CPU capture in Python (0.3-1 ms for
# the step's argument structs, more per launch the more there are), 5 a substep per chunk: 4096 Go1-Rough
# worlds built in 1.5 s in one pass, 1.7 s in 32 chunks of 128 worlds, 2.7 s in 64 and 5.5 s in 196 chunks of
# 21 (at 1024 worlds, 128-world chunks stepped 1.20x faster than one pass, 21-world ones 1.33x).
MAX_CHUNKS = 32


class SolverGeneralized(SolverBase):
    """Featherstone-style generalized-coordinate solver with MuJoCo-style soft constraints.

    Per substep (:func:`.forward.substep`): forward kinematics, motion subspaces, composite-rigid-body mass
    matrix (with armature and implicit damping / stiffness / drive gains on its diagonal), bias forces by
    recursive Newton-Euler (each world's own gravity), tendon lengths and Jacobians with their spring-dampers
    (damping implicit along J), a tree-sparse L^T L factorization per tree, collision detection on pairs
    precomputed per world, a constraint solve of contacts, joint limits, joint friction, equality constraints,
    tendon limits and tendon friction per world (primal Newton or PGS), and semi-implicit Euler integration, in four
    launches with one block of ``block_dim`` lanes per world. joint_q / joint_qd are the integrated state;
    body_q / body_qd are written by forward kinematics after every step.

    Args:
        model: the Model.
        option: the solver's settings (:class:`.option.Option`); None: ``Option()``.
        actuators: optional :class:`Actuators` (MuJoCo actuators on joints or tendons); their controls are read from
            ``control.ctrl`` when the control has that attribute, else from :attr:`ctrl`.
        **overrides: Option fields to change (``SolverGeneralized(model, iterations=50)``); an unknown name
            raises SolverError.

    Attributes:
        option: the :class:`.option.Option` in use (``newton-gym inspect --solver`` prints one).
        ctrl: (actuator_count,) float32 actuator controls.
        act: (actuator_count,) float32 activations of the actuators with activation dynamics (MuJoCo's
            ``d.act``; :class:`Actuators`): zero at construction, cleared by :meth:`reset_worlds` in the
            masked worlds, advanced by every step; writable to set a start activation.
        world_unhealthy: (max(world_count, 1),) int32, 1 where a world holds NaN/inf or runaway speeds, or
            needed more constraint rows than ``row_budget``.
        body_contact_wrench: (body_count,) spatial vectors: total contact wrench on each body at its COM,
            world frame, force first (like MuJoCo's cfrc_ext) [N, N m].
        body_contact_count: (body_count,) int32 active contacts touching each body.
        world_contact_count: (max(world_count, 1),) int32 active contacts per world.
        newton_iterations: (max(world_count, 1),) int32 Newton iterations of each world's last solve.
    """

    def __init__(self, model, option: Option | None = None, actuators: Actuators | None = None, **overrides):
        super().__init__(model)
        if option is not None and not isinstance(option, Option):
            raise SolverError(f"SolverGeneralized: option must be an Option or None, got {type(option).__name__}")
        option = (option or Option()).replace(**overrides) if overrides else (option or Option())
        self.option = option
        self.substeps = option.substeps
        self.iterations = option.iterations
        self.cone = option.cone
        self.integrator = option.integrator
        self.max_speed = option.max_speed
        layout = build_tree_layout(model)
        self.layout = layout
        self.tree = layout.upload(self.device)
        self.tendon_layout = tendons.build_tendon_layout(model, layout)
        self.tendon_tables = self.tendon_layout.upload(model, self.device)
        self.data = make_data(model, layout, self.device, self.tendon_layout.entry_count)
        self.fluid = FluidForces(self)  # MuJoCo's inertia-box fluid forces, run while the model has a medium
        self._kin = _Kinematics(self.data)
        self.actuators = actuators if actuators is not None else Actuators(np.zeros(0, np.int32), np.zeros(0))
        self.actuator_table = self.actuators.upload(self.device, model.joint_dof_count, model.tendon_count)
        self.ctrl = wp.zeros(max(self.actuators.count, 1), dtype=wp.float32, device=self.device)
        self.act = wp.zeros(max(self.actuators.count, 1), dtype=wp.float32, device=self.device)
        self._zero_control = model.control()
        self.world_count = max(model.world_count, 1)
        self.world_unhealthy = wp.zeros(self.world_count, dtype=wp.int32, device=self.device)
        self.contacts = collision_driver.build_contacts(model, layout)
        self.rows = constraint.build_rows(model, layout, self.contacts, option, self.tendon_layout)
        self.solver = self._constraint_solver(option.solver, layout)
        self.block_dim = forward.default_block_dim(self.device) if option.block_dim is None else option.block_dim
        # register cap of the per-world pass kernels (CUDA only: the CPU build keeps its kernels)
        self.cuda_registers = option.cuda_registers if self.device.is_cuda else None
        tiles = option.tiles
        if tiles and self.device.is_cpu and option.threads > 1:
            raise SolverError("SolverGeneralized: tiles=True on the CPU needs threads=1 (CPU tile storage is shared)")
        if tiles and self.device.is_cuda and self.block_dim == 1:
            raise SolverError(
                "SolverGeneralized: tiles=True on CUDA needs block_dim > 1 (one lane runs one thread per world, "
                "which a tile cannot span)"
            )
        asked = tiles is True
        if tiles is None:
            tiles = self.device.is_cuda and self.block_dim > 1
        self.world_solver = WorldSolver(
            model,
            layout,
            self.tree,
            self.contacts,
            self.rows,
            self.tendon_tables,
            tolerance=option.pgs_tolerance,
            subspace=option.pgs_subspace,
            newton=self.solver == "newton",
            newton_tolerance=option.tolerance,
            ls_iterations=option.ls_iterations,
            lanes=self.block_dim,
            tiles=bool(tiles) and self.solver == "newton",
            noslip_iterations=option.noslip_iterations,
            noslip_tolerance=option.noslip_tolerance,
            registers=self.cuda_registers,
        )
        self._load_tiles(asked and self.solver == "newton")
        self.newton_iterations = self.world_solver.rd.niter if self.solver == "newton" else None
        self.body_contact_wrench = wp.zeros(max(model.body_count, 1), dtype=wp.spatial_vector, device=self.device)
        self.body_contact_count = wp.zeros(max(model.body_count, 1), dtype=wp.int32, device=self.device)
        self.world_contact_count = wp.zeros(self.world_count, dtype=wp.int32, device=self.device)
        self.block_ranges, blocks = self._block_ranges()
        self.spans = self._split(option.threads, blocks)
        self._whole_spans = [[span] for span in self.spans]  # each thread's worlds as one chunk (eager steps)
        self.chunks = self._chunk(option.world_chunk)
        self.wide_factor = self._wide_factor()
        self._pool = ThreadPoolExecutor(len(self.spans), "newton_gym-step") if len(self.spans) > 1 else None
        self._warm = False
        self._graphs = None
        self._checked_dt = None
        self._args = BoundStruct()
        self._init_invweights()

    @property
    def tiles(self) -> bool:
        """Whether the Newton directions come from Warp tiles (see ``tiles`` in the constructor)."""
        return self.world_solver.tile_dofs > 0

    def _load_tiles(self, asked: bool):
        """Compile the tile world kernel now; where it cannot be (or the worlds' sizes do not allow tiles
        when ``tiles=True`` asked for them), warn and keep the lanes' Cholesky."""
        ws = self.world_solver
        if asked and ws.tile_dofs == 0:
            warnings.warn(
                "SolverGeneralized(tiles=True): the Newton Hessian is not tiled: worlds need one DOF count of "
                f"at most {TILE_MAX_DOFS} each",
                stacklevel=3,
            )
        if ws.tile_dofs == 0:
            return
        try:
            if ws.kernel.module.load(self.device, self.block_dim) is None:
                raise RuntimeError("Warp loaded no executable module")
        except Exception as err:  # noqa: BLE001 - any compile failure falls back to the lane path
            warnings.warn(f"SolverGeneralized: the tile Newton kernel did not load ({err}); using lanes", stacklevel=3)
            ws.drop_tiles()

    def _actuator_dofs(self) -> np.ndarray:
        """(actuator_count,) int64 a DOF each actuator drives (a tendon actuator's: its tendon's first
        Jacobian DOF), which places it in its world; raises ModelBuildError for a tendon that moves no DOF."""
        act_dof = np.asarray(self.actuators.dof, dtype=np.int64).reshape(-1).copy()
        lay = self.tendon_layout
        for i, t in enumerate(self.actuators.tendons()):
            if t < 0:
                continue
            if lay.jac_start[t + 1] == lay.jac_start[t]:
                name = self.model.tendon_key[t] or f"#{t}"
                raise ModelBuildError(f"actuator {i}: its tendon {name} moves no joint (all its sites are static)")
            act_dof[i] = lay.jac_dof[lay.jac_start[t]]
        return act_dof

    def _block_ranges(self):
        """The entity ranges of each launch block of :mod:`.forward` (a world, or one block of every
        world where worlds share entities) and the number of blocks."""
        act_dof = self._actuator_dofs()
        dof_world_start = self.model.joint_dof_world_start.numpy()[: self.world_count + 1]
        world = np.searchsorted(dof_world_start, act_dof, side="right") - 1
        if self.model.world_count == 0:  # one implicit world holds everything
            world[:] = 0
        else:
            world[act_dof >= dof_world_start[-1]] = -1  # a global DOF: no world's reset clears it
        self._actuator_world = wp.array(world.astype(np.int32), dtype=wp.int32, device=self.device)
        starts = partition.block_starts(self.model, self.contacts, self.rows, act_dof)
        return partition.upload_ranges(self.model, starts, self.device), len(starts["world"]) - 1

    def _constraint_solver(self, solver: str, layout) -> str:
        """``solver``, or "pgs" (with a warning) where the Newton solve does not apply."""
        if solver != "newton":
            return solver
        try:
            world_dof_start(layout)
            return solver
        except ModelBuildError as err:
            reason = str(err)
        warnings.warn(f"SolverGeneralized(solver='newton') uses PGS: {reason}", stacklevel=3)
        return "pgs"

    def _split(self, threads, blocks) -> list:
        """One :class:`.partition.Span` per thread (a single span covering everything when not split)."""
        threads = int(threads)
        act_dof = self._actuator_dofs()
        whole = partition.whole_span(
            self.model, self.contacts, self.rows, self.actuators.count, self.world_count, blocks
        )
        if threads == 1 or not self.device.is_cpu:
            return [whole]
        reason = partition.split_reason(self.model, self.contacts, act_dof)
        if reason is not None:
            warnings.warn(f"SolverGeneralized(threads={threads}) steps on one thread: {reason}", stacklevel=3)
            return [whole]
        return partition.split_spans(
            self.model, self.contacts, self.rows, act_dof, min(threads, self.model.world_count)
        )

    def _chunk(self, size) -> list:
        """Each span's worlds as consecutive chunks (:class:`.partition.Span`) of ``size`` worlds (None: as
        many as hold :data:`CHUNK_DOFS` DOFs, and at least 1 / :data:`MAX_CHUNKS` of all worlds): one list per
        span. On the CPU a span's worlds then take every substep chunk by chunk, each chunk's arrays kept in
        the cache from stage to stage (256 Go1 worlds' solver arrays are ~36 MB, more than a 32 MB L3 holds)."""
        if not self.device.is_cpu or self.model.world_count < 2:
            return self._whole_spans
        act_dof = self._actuator_dofs()
        if partition.shared_reason(self.model, self.contacts, act_dof) is not None:
            return self._whole_spans
        if size is None:
            size = max(1, CHUNK_DOFS * self.model.world_count // max(self.model.joint_dof_count, 1))
            size = max(size, -(-self.model.world_count // MAX_CHUNKS))
        return [partition.chunk_spans(self.model, self.contacts, self.rows, act_dof, s, size) for s in self.spans]

    def _wide_factor(self):
        """The smooth pass's factorization WIDE articulations of one shape at a time
        (:mod:`.smooth.wide_factor`), or None where it is not used (lanes, CUDA)."""
        if not wide_factor.uses_wide_factor(self.device, self.block_dim) or self.model.articulation_count == 0:
            return None
        lay = self.layout
        return wide_factor.WideFactor(self.device, lay.art_dof_start, lay.dof_parent, self.chunks + self._whole_spans)

    @property
    def threads(self) -> int:
        """Number of CPU threads (groups of worlds) a step runs on."""
        return len(self.spans)

    def _init_invweights(self):
        """Evaluate the smooth pipeline once at the authored pose (:func:`reference_coordinates`) for MuJoCo's
        inverse weights, which MuJoCo computes at qpos0 whatever pose the model starts in."""
        model = self.model
        if model.articulation_count == 0:
            return
        state = model.state()
        state.joint_q.assign(reference_coordinates(model))
        everything = (0, model.articulation_count)
        eval_fk(model, state.joint_q, state.joint_qd, self._kin)
        smooth.compute_subspaces(
            model, self.tree, self.data, self.data.body_q, self.data.body_qd, state.joint_q, state.joint_qd, everything
        )
        tendons.compute_tendons(
            model, self.tree, self.tendon_tables, self.data, state.joint_q, state.joint_qd, 0.0, (0, model.tendon_count)
        )
        smooth.compute_mass_matrix(model, self.tree, self.tendon_tables, self.data, everything)
        set_invweights(model, self.layout, self.data, self.rows)
        tendons.set_tendon_constants(model, self.layout, self.tendon_layout, self.tendon_tables, self.data)

    # ------------------------------------------------------------------ stepping
    def _check_timestep(self, dt: float):
        """Warn once per time step when a constraint's solref time constant is below 2 dt: the solver then
        softens it to 2 dt (MuJoCo's refsafe rule), so the authored stiffness cannot be held at this step
        (unless ``Option.warn_refsafe`` is False)."""
        self._checked_dt = dt
        if not self.option.warn_refsafe:
            return
        h = dt / self.substeps
        consts = []
        kinds = set(np.unique(self.rows.kind_host).tolist()) if self.rows.count else set()
        if constraint.ROW_LIMIT in kinds:
            consts.append(("joint limits", float(self.rows.limit_solref[0])))
        if constraint.ROW_FRICTION in kinds:
            consts.append(("joint friction", float(self.rows.friction_solref[0])))
        if self.contacts.pair_count:
            ref = self.contacts.pair_solref.numpy()[: self.contacts.pair_count, 0]
            ref = ref[ref > 0.0]
            if len(ref):
                consts.append(("contacts", float(ref.min())))
        if self.model.equality_constraint_count:
            ref = self.model.equality_constraint_solref.numpy()[:, 0]
            ref = ref[ref > 0.0]
            if len(ref):
                consts.append(("equality constraints", float(ref.min())))
        for kind, name, solref in (
            (constraint.ROW_TENDON_LIMIT, "tendon limits", "tendon_solref_limit"),
            (constraint.ROW_TENDON_FRICTION, "tendon friction", "tendon_solref_friction"),
        ):
            owners = self.rows.owner_host[self.rows.kind_host == kind]
            ref = getattr(self.model, solref).numpy()[owners, 0] if len(owners) else np.zeros(0)
            ref = ref[ref > 0.0]
            if len(ref):
                consts.append((name, float(ref.min())))
        soft = [f"{name} {tc:g} s" for name, tc in consts if 0.0 < tc < 2.0 * h * (1.0 - 1.0e-5)]
        if soft:
            warnings.warn(
                f"SolverGeneralized: time step {h:g} s (dt {dt:g} s / {self.substeps} substeps) is too "
                f"large for the constraint time constants ({', '.join(soft)}): they are softened to "
                f"{2.0 * h:g} s; use a smaller dt or more substeps to keep them",
                stacklevel=3,
            )

    def step(self, state_in, state_out, control, dt: float, outputs: bool = True):
        """Advance ``state_in`` by ``dt`` [s] under ``control`` into ``state_out`` (which may be the same
        object). ``outputs`` False skips what the step writes only for readers of its result, not for the
        next step: the bodies' poses and twists in ``state_out`` (forward kinematics), the contact wrenches
        and counts, and the health flags. It is for all but the last of consecutive steps in place (an
        env's frame skip): the joint state is bitwise the same, and the last step writes the outputs of its
        own state as always."""
        if dt != self._checked_dt and not self.device.is_capturing:
            self._check_timestep(float(dt))
        args = self._step_args(state_in, state_out, control, dt)
        # The first step loads the kernels, and a capture records this thread's launches: both run here.
        # World chunks only where the launches are recorded: an eager launch costs more in Python than the
        # cache saves (256 Go1 worlds stepped eagerly: 33.0 us per world-step in one pass, 38.5 in 13 chunks).
        groups = self.chunks if self.device.is_capturing else self._whole_spans
        if self._pool is None or not self._warm or self.device.is_capturing:
            for chunks in groups:
                self._step_chunks(chunks, args, 1, outputs)
            self._warm = True
        else:
            pending = [self._pool.submit(self._step_chunks, chunks, args, 1, outputs) for chunks in groups]
            for future in pending:
                future.result()

    def _step_args(self, state_in, state_out, control, dt):
        control = control if control is not None else self._zero_control
        ctrl = getattr(control, "ctrl", None)
        return state_in, state_out, control, ctrl if ctrl is not None else self.ctrl, float(dt)

    def _step_chunks(self, chunks, args, steps: int, outputs: bool):
        """``steps`` steps of one thread's worlds, chunk by chunk (:meth:`_chunk`): every step of a chunk's
        worlds before the next chunk's; the last step writes the outputs where ``outputs``."""
        for chunk in chunks:
            for k in range(steps):
                self._step_span(chunk, *args, outputs and k == steps - 1)

    def _step_span(self, span, state_in, state_out, control, ctrl, dt, outputs=True):
        """One step of the worlds in ``span`` (a :class:`.partition.Span`): ``substeps`` runs of
        :func:`.forward.substep`, the last writing the step's outputs where ``outputs`` (:meth:`step`)."""
        model = self.model
        if state_in is not state_out:
            integrate.copy_joint_state(model, state_in, state_out, span.coords, span.dofs)
        if model.articulation_count == 0:
            return
        h = dt / self.substeps
        args = self._bind(state_out, state_in.body_f, control, ctrl, h)
        for k in range(self.substeps):
            forward.substep(self, span, state_out, args, h, outputs and k == self.substeps - 1)

    def _bind(self, state, body_f, control, ctrl, dt) -> forward.StepArgs:
        """The stage structs for these arrays (kept while they stay the same: :class:`BoundStruct`)."""
        arrays = (state.joint_q, state.joint_qd, state.body_q, state.body_qd, body_f, ctrl)
        arrays += (control.joint_f, control.joint_target_pos, control.joint_target_vel)
        return self._args.get(arrays, (dt,), lambda: forward.bind(self, state, body_f, control, ctrl, dt))

    # ------------------------------------------------------------------ capture
    def capture(self, state_in, state_out, control, dt: float, steps: int = 1):
        """Record ``steps`` consecutive :meth:`step` calls with these exact arrays as replayable graphs
        (``wp.ScopedCapture``; one per thread's group of worlds); replay them with :meth:`replay`. Several
        steps need ``state_in is state_out`` (stepping in place); all but the last skip their outputs
        (:meth:`step`'s ``outputs``). Returns the list of graphs."""
        steps = int(steps)
        if steps < 1 or (steps > 1 and state_in is not state_out):
            raise SolverError(
                f"SolverGeneralized.capture: steps must be >= 1, and steps > 1 needs state_in is "
                f"state_out (got steps={steps}, state_in is state_out: {state_in is state_out})"
            )
        if dt != self._checked_dt:
            self._check_timestep(float(dt))
        args = self._step_args(state_in, state_out, control, dt)
        self.fluid.prepare()  # its tables are uploaded outside the graph
        graphs = []
        # Warp's default module loading: kernels load as the capture launches them (CUDA drivers >= 12.3, and
        # the CPU). force_module_load=True first compiled every imported Warp module at its default block
        # size, most of which the step never launches: on an H100, a first capture still compiled after 185 s.
        for chunks in self.chunks:  # recorded one after another, replayed side by side
            with wp.ScopedCapture(device=self.device) as cap:
                self._step_chunks(chunks, args, steps, True)
            graphs.append(cap.graph)
        self._graphs = graphs
        self._warm = True
        return graphs

    def replay(self):
        """Launch the graphs recorded by :meth:`capture` (each thread replays its group's graph)."""
        if self._graphs is None:
            raise SolverStateError("SolverGeneralized.replay: no graphs recorded; call capture() first")
        if self._pool is None:
            wp.capture_launch(self._graphs[0])
        else:
            for future in [self._pool.submit(wp.capture_launch, g) for g in self._graphs]:
                future.result()

    # ------------------------------------------------------------------ model edits
    def notify_model_changed(self, flags: int = 0):
        """Re-read what the solver caches from the model after the model's arrays were edited in place.

        ``SolverNotifyFlags.SHAPE_PROPERTIES``: every candidate pair's friction, margin, gap, solref and
        solimp from the shape columns (one launch; it also discards :meth:`set_world_friction` overrides).
        ``BODY_INERTIAL_PROPERTIES`` / ``JOINT_DOF_PROPERTIES``: MuJoCo's inverse weights (the constraint
        regularizer's scale) at the model's initial pose, as ``mj_setConst`` does (host work; call it
        outside captured graphs); ``BODY_INERTIAL_PROPERTIES`` also the bodies' fluid inertia boxes (taken at
        the next step). Everything else (gravity, masses, limits, gains, the fluid medium) is read at every step.
        Shape types, sizes, condim and collision filtering are fixed when the solver is built.
        """
        flags = SolverNotifyFlags(int(flags))
        if flags & SolverNotifyFlags.SHAPE_PROPERTIES:
            contact_params.combine_pair_params(self.model, self.contacts)
            self._checked_dt = None
        if flags & (SolverNotifyFlags.BODY_INERTIAL_PROPERTIES | SolverNotifyFlags.JOINT_DOF_PROPERTIES):
            self._init_invweights()
        if flags & SolverNotifyFlags.BODY_INERTIAL_PROPERTIES:
            self.fluid.refresh()  # the bodies' inertia boxes

    @property
    def actuator_gain(self) -> wp.array:
        """(actuator_count,) float32 gain on ctrl of each actuator (MuJoCo gainprm[0]; a servo's kp), on the
        device; edit in place (e.g. per-world randomization), read at every step, captured graphs included."""
        return self.actuator_table["gain"]

    @property
    def actuator_bias(self) -> wp.array:
        """(actuator_count,) vec3 affine bias (MuJoCo biasprm[0:3]; a servo's (0, -kp, -kv)), editable in
        place like :attr:`actuator_gain`."""
        return self.actuator_table["bias"]

    def set_world_friction(self, friction, world_mask):
        """Friction coefficient per world: every candidate contact pair of the worlds where ``world_mask``
        is True (their pairs with global shapes, e.g. the ground, included) takes ``friction[w]``, from the
        next step on, until :meth:`notify_model_changed` recomputes pairs from their shapes. ``friction``:
        (world_count,) float32 and ``world_mask``: (world_count,) bool, Warp arrays on the solver's device
        (``wp.from_torch`` views work). One launch, no host sync: safe between captured steps."""
        contact_params.set_world_friction(self.model, self.contacts, friction, world_mask)

    # ------------------------------------------------------------------ worlds
    def reset_worlds(self, state, world_mask, kinematics: bool = True):
        """Restore the model's initial joint state in the masked worlds, clear their health flags and
        constraint warm starts, and (``kinematics=True``) refresh body_q / body_qd by forward kinematics.
        ``world_mask`` is a (world_count,) bool Warp array (or anything ``wp.array`` accepts)."""
        if not isinstance(world_mask, wp.array):
            world_mask = wp.array(np.asarray(world_mask, dtype=bool), dtype=wp.bool, device=self.device)
        integrate.reset_joint_state(self.model, world_mask, state.joint_q, state.joint_qd)
        if self.actuators.count:
            wp.launch(
                _clear_masked_kernel,
                dim=self.actuators.count,
                device=self.device,
                inputs=[world_mask, self._actuator_world],
                outputs=[self.act],
            )
        constraint.reset_warmstart(self.model, self.rows, world_mask)
        wp.launch(
            _clear_flags_kernel,
            dim=self.world_count,
            device=self.device,
            inputs=[world_mask],
            outputs=[self.world_unhealthy],
        )
        if kinematics:
            eval_fk(self.model, state.joint_q, state.joint_qd, state)


class _Kinematics:
    """Adapter giving eval_fk the solver's scratch body arrays as an output 'state'."""

    def __init__(self, data):
        self.body_q = data.body_q
        self.body_qd = data.body_qd


@wp.kernel
def _clear_masked_kernel(world_mask: wp.array(dtype=bool), world: wp.array(dtype=int), values: wp.array(dtype=float)):
    i = wp.tid()
    if world[i] >= 0 and world_mask[world[i]]:
        values[i] = 0.0


@wp.kernel
def _clear_flags_kernel(world_mask: wp.array(dtype=bool), flags: wp.array(dtype=int)):
    w = wp.tid()
    if world_mask[w]:
        flags[w] = 0
