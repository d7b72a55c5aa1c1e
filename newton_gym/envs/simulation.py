"""The simulation behind an environment: N replicated worlds, one solver, one State stepped in place."""

from __future__ import annotations

import os
import warnings

import torch
import warp as wp

from ..errors import ConfigError
from ..openmp_wait import warn_if_spinning
from ..sim import ModelBuilder, eval_fk
from ..sim.torch_views import WorldViews, world_view
from ..solvers import Actuators, SolverGeneralized

__all__ = ["Simulation"]

wp.set_module_options({"enable_backward": False})


def _threads(requested: int, num_envs: int) -> int:
    """CPU threads for the solver: ``requested``, or for 0 one per available core, at most one per 32 worlds."""
    if requested < 0:
        raise ConfigError(f"sim.threads must be >= 0, got {requested}")
    if requested > 0:
        return requested
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, num_envs // 32))


def _warp_device(device):
    """The Warp device named by ``device`` (None: Warp's default); a ConfigError naming it and the devices
    this machine has where Warp cannot use it."""
    if device is None:
        return wp.get_device()
    available = [d.alias for d in wp.get_devices()]
    if str(device).startswith("cuda") and not wp.is_cuda_available():
        raise ConfigError(
            f"device {device!r}: Warp finds no CUDA device (or no CUDA driver) on this machine; available "
            f"devices: {available}"
        )
    try:
        return wp.get_device(device)
    except (RuntimeError, ValueError, TypeError) as exc:
        raise ConfigError(f"device {device!r} is not available ({exc}); available devices: {available}") from None


def _torch_compatible_device(device):
    """The Warp device to use: environments hand their arrays to torch, so a CUDA device needs a CUDA
    build of torch (the install scripts pin a CPU build)."""
    dev = _warp_device(device)
    if not dev.is_cuda or torch.cuda.is_available():
        return dev
    if device is None:
        warnings.warn(
            f"Warp's default device is {dev}, but this torch build has no CUDA support: the "
            "environment runs on the CPU (install a CUDA build of torch to use the GPU)",
            stacklevel=4,
        )
        return wp.get_device("cpu")
    raise ConfigError(
        f"device {device!r}: this torch build ({torch.__version__}) has no CUDA support; install a "
        "CUDA build of torch or pass device='cpu'"
    )


@wp.kernel
def _articulation_mask_kernel(
    world_mask: wp.array(dtype=bool), articulation_world: wp.array(dtype=int), articulation_mask: wp.array(dtype=bool)
):
    """articulation_mask[a] = world_mask of its world (False for a global articulation)."""
    a = wp.tid()
    w = articulation_world[a]
    articulation_mask[a] = w >= 0 and world_mask[w]


class Simulation:
    """Replicates ``robot`` into ``num_envs`` worlds and steps them together.

    The State is stepped in place (the solver copies nothing between two states), so the zero-copy
    torch views in :attr:`views` stay valid for the life of the simulation.

    Args:
        robot: single-robot builder (global world).
        actuators: importer actuator records (``add_usd(...)["actuators"]``), local DOF indices.
        num_envs: number of worlds.
        cfg: SimCfg.
        device: Warp device; None takes Warp's default, or the CPU (with a warning) where that default is a
            GPU but torch was built without CUDA.
        ground_friction: friction coefficient of an added global ground plane; None adds none (robots
            converted from MJCF bring their own floor, replicated with them).
        static_scene: called with the scene builder before the robot is replicated, to add global static
            shapes that every world shares (a terrain); None adds nothing.

    Attributes:
        model, solver, state, control.
        views: WorldViews (body_q (N, B, 7), body_qd (N, B, 6), joint_q (N, C), joint_qd (N, D)).
        ctrl: (N, actuator_count) torch view of the actuator controls.
        unhealthy: (N,) torch int32 view of the solver's per-world health flags.
        contact_wrench: (N, bodies, 6) torch view of each body's contact wrench at its COM, world frame,
            force first [N, N m] (like MuJoCo's cfrc_ext).
    """

    def __init__(
        self,
        robot: ModelBuilder,
        actuators: list,
        num_envs: int,
        cfg,
        device=None,
        ground_friction: float | None = None,
        static_scene=None,
    ):
        self.cfg = cfg
        self.num_envs = int(num_envs)
        scene = ModelBuilder(up_axis=robot.up_axis, gravity=robot.gravity)
        if ground_friction is not None:
            scene.add_ground_plane(cfg=ModelBuilder.ShapeConfig(mu=ground_friction))
        if static_scene is not None:
            static_scene(scene)
        scene.replicate(robot, self.num_envs)
        self.model = scene.finalize(_torch_compatible_device(device))
        self.device = self.model.device
        self.torch_device = wp.device_to_torch(self.device)
        self.dofs_per_world = robot.joint_dof_count
        if cfg.solver not in ("newton", "pgs"):
            raise ConfigError(f"sim.solver must be 'newton' or 'pgs', got {cfg.solver!r}")
        self.solver = SolverGeneralized(
            self.model,
            substeps=cfg.substeps,
            iterations=cfg.iterations,
            solver=cfg.solver,
            actuators=self._actuators(actuators),
            threads=_threads(cfg.threads, num_envs),
            world_chunk=cfg.world_chunk or None,
            block_dim=cfg.block_dim or None,
            tiles=cfg.tiles,
            cuda_registers=cfg.cuda_registers or None,
            row_budget=cfg.row_budget or None,
            warn_refsafe=cfg.warn_refsafe,
        )
        if self.device.is_cpu:
            warn_if_spinning(self.solver.threads)
        self.actuator_count = len(actuators)
        self.state = self.model.state()
        self.control = self.model.control()
        self.views = WorldViews(self.model, self.state)
        self.ctrl = wp.to_torch(self.solver.ctrl)[: self.num_envs * self.actuator_count].view(
            self.num_envs, self.actuator_count
        )
        self.unhealthy = wp.to_torch(self.solver.world_unhealthy)[: self.num_envs]
        # (N, dofs) joint-drive position targets (USD drives), read by every step, captured ones included
        self.joint_target = world_view(self.control.joint_target_pos, self.model.joint_dof_world_start, self.num_envs)
        self.contact_wrench = world_view(self.solver.body_contact_wrench, self.model.body_world_start, self.num_envs)
        self._reset_mask = wp.zeros(self.num_envs, dtype=wp.bool, device=self.device)
        self._reset_mask_t = wp.to_torch(self._reset_mask)
        self._art_mask = wp.zeros(self.model.articulation_count, dtype=wp.bool, device=self.device)
        self._captured = False
        self._reset_graph = self._refresh_graph = None
        if cfg.capture:
            self.solver.capture(self.state, self.state, self.control, cfg.sim_dt, steps=cfg.frame_skip)
            self._captured = True
            # A reset's launches read the fixed mask arrays: replayed as graphs, as the step is (on the CPU
            # each Python launch costs 25-80 us, a replay about 5 per kernel).
            self._reset_graph = self._capture(self._launch_reset)
            self._refresh_graph = self._capture(self._launch_refresh)

    def _actuators(self, records) -> Actuators:
        """The solver's Actuators for every world (:meth:`Actuators.from_records`)."""
        n = self.num_envs
        return Actuators.from_records(records, n, self.dofs_per_world, self.model.tendon_count // max(n, 1))

    def _step_solver(self):
        n = self.cfg.frame_skip
        for k in range(n):  # the bodies, contact forces and health flags of the last step only
            self.solver.step(self.state, self.state, self.control, self.cfg.sim_dt, outputs=k == n - 1)

    def step(self):
        """Advance every world by one control period (frame_skip solver steps). Inside a capture begun
        elsewhere (the env's whole-step graph) the solver's launches are recorded, not its own graph."""
        if self._captured and not self.device.is_capturing:
            self.solver.replay()
        else:
            self._step_solver()

    @property
    def dt(self) -> float:
        """Control period [s]."""
        return self.cfg.sim_dt * self.cfg.frame_skip

    def reset_worlds(self, mask: torch.Tensor, kinematics: bool = True):
        """Restore the model's initial state in the worlds where ``mask`` (N,) bool is True; with
        ``kinematics=False`` body poses are left for the caller, who writes joint state next and then
        calls :meth:`refresh_bodies` (forward kinematics once per reset, not twice)."""
        self._reset_mask_t.copy_(mask)
        self._run(self._reset_graph, self._launch_reset)
        if kinematics:
            eval_fk(self.model, self.state.joint_q, self.state.joint_qd, self.state)

    def refresh_bodies(self, mask: torch.Tensor | None = None):
        """Recompute body_q / body_qd from joint_q / joint_qd (after writing joint state directly): of every
        world, or of the worlds where ``mask`` (N,) bool is True (the others' bodies are left as they are;
        no host sync)."""
        if mask is None:
            eval_fk(self.model, self.state.joint_q, self.state.joint_qd, self.state)
            return
        self._reset_mask_t.copy_(mask)
        self._run(self._refresh_graph, self._launch_refresh)

    def _launch_reset(self):
        """The solver's reset of the worlds of ``_reset_mask`` (joint state, warm starts, flags)."""
        self.solver.reset_worlds(self.state, self._reset_mask, kinematics=False)

    def _launch_refresh(self):
        """Forward kinematics of the articulations of the worlds of ``_reset_mask`` (a global articulation is
        never masked in)."""
        wp.launch(
            _articulation_mask_kernel,
            dim=self.model.articulation_count,
            device=self.device,
            inputs=[self._reset_mask, self.model.articulation_world],
            outputs=[self._art_mask],
        )
        eval_fk(self.model, self.state.joint_q, self.state.joint_qd, self.state, mask=self._art_mask)

    def _capture(self, launch):
        """``launch``'s kernels recorded as a graph (``wp.ScopedCapture``), or None where there are none."""
        if self.model.articulation_count == 0:
            return None
        with wp.ScopedCapture(device=self.device) as cap:
            launch()
        return cap.graph

    def _run(self, graph, launch):
        """Replay ``graph``, or ``launch`` eagerly where there is none or a capture begun elsewhere (the env's
        whole-step graph) is recording."""
        if graph is not None and not self.device.is_capturing:
            wp.capture_launch(graph)
        else:
            launch()
