"""MuJoCo's qpos / qvel of each world, read from and written to newton_gym's joint state.

Gymnasium's MuJoCo tasks observe qpos and qvel in MuJoCo's conventions: a free root as position +
quaternion (w, x, y, z) and velocity (body-origin linear velocity in world frame, angular velocity in the
body frame), then the 1-DOF joints in model order. Our free joint stores quaternion (x, y, z, w) and the
COM twist in world frame. The conversion is one Warp kernel per direction over the worlds (what
:mod:`newton_gym.sim.conventions` computes on the host: as torch operations it took about 20 small
launches per read, 0.3 ms of a 256-world Ant step on the CPU).
"""

from __future__ import annotations

import contextlib

import numpy as np
import torch
import warp as wp

from ..errors import EnvError
from ..sim import JointType
from .finite import finite_rows
from .world_rng import world_normal, world_uniform

__all__ = ["MujocoLayout"]

wp.set_module_options({"enable_backward": False})

_MAX_GRAPHS = 32  # recorded launches a layout keeps (:meth:`MujocoLayout._replayed`)


@wp.struct
class _Root:
    """The free root joint of the replicated robot (``free`` 0: it has none)."""

    free: int
    body: int  # its child body, per world
    q: int  # first coordinate, per world
    qd: int  # first DOF, per world
    com: wp.vec3  # the body's COM in its frame (MuJoCo's body_ipos)


@wp.func
def _rotate(q: wp.quat, v: wp.vec3):
    """v rotated by unit quaternion q (x, y, z, w), in the operations of :func:`newton_gym.sim.hostmath.quat_rotate`
    (not ``wp.quat_rotate``'s): the joint state a reset writes is then bitwise what the host conversion wrote."""
    qv = wp.vec3(q[0], q[1], q[2])
    t = 2.0 * wp.cross(qv, v)
    return v + q[3] * t + wp.cross(qv, t)


@wp.func
def _root_qvel(w: int, root: _Root, joint_qd: wp.array2d(dtype=float), body_q: wp.array3d(dtype=float)):
    """World w's free-root part of MuJoCo's qvel: the body origin's linear velocity (world frame) and the angular
    velocity in the root body's frame (rotated by the root body's pose), from its COM twist."""
    b = root.body
    quat = wp.quat(body_q[w, b, 3], body_q[w, b, 4], body_q[w, b, 5], body_q[w, b, 6])
    d = root.qd
    v_com = wp.vec3(joint_qd[w, d], joint_qd[w, d + 1], joint_qd[w, d + 2])
    omega = wp.vec3(joint_qd[w, d + 3], joint_qd[w, d + 4], joint_qd[w, d + 5])
    v_origin = v_com - wp.cross(omega, _rotate(quat, root.com))
    return v_origin, _rotate(wp.quat(-quat[0], -quat[1], -quat[2], quat[3]), omega)


@wp.kernel
def _read_kernel(
    root: _Root,
    coord_index: wp.array(dtype=int),
    dof_index: wp.array(dtype=int),
    joint_q: wp.array2d(dtype=float),
    joint_qd: wp.array2d(dtype=float),
    body_q: wp.array3d(dtype=float),
    qpos_out: wp.array2d(dtype=float),
    qvel_out: wp.array2d(dtype=float),
):
    """World w's MuJoCo qpos and qvel: the root's position, quaternion (w, x, y, z), body-origin velocity
    (world) and angular velocity (body frame, rotated by the root body's pose), then the 1-DOF joints."""
    w = wp.tid()
    kq = int(0)
    kv = int(0)
    if root.free != 0:
        r = root.q
        for i in range(3):
            qpos_out[w, i] = joint_q[w, r + i]
        qpos_out[w, 3] = joint_q[w, r + 6]
        for i in range(3):
            qpos_out[w, 4 + i] = joint_q[w, r + 3 + i]
        v_origin, omega_body = _root_qvel(w, root, joint_qd, body_q)
        for i in range(3):
            qvel_out[w, i] = v_origin[i]
            qvel_out[w, 3 + i] = omega_body[i]
        kq = 7
        kv = 6
    for i in range(coord_index.shape[0]):
        qpos_out[w, kq + i] = joint_q[w, coord_index[i]]
    for i in range(dof_index.shape[0]):
        qvel_out[w, kv + i] = joint_qd[w, dof_index[i]]


@wp.kernel
def _root_frame_kernel(
    root: _Root,
    joint_q: wp.array2d(dtype=float),
    joint_qd: wp.array2d(dtype=float),
    body_q: wp.array3d(dtype=float),
    frame_out: wp.array2d(dtype=float),
):
    """World w's free root in its own frame: its height (root z), then its origin's linear velocity, its angular
    velocity and the world's down direction (0, 0, -1), in the root body's frame. The velocities are qvel's root
    part (:func:`_root_qvel`, as :func:`_read_kernel`); the linear one and down are turned by the
    inverse of qpos's quaternion (within float32 rounding of :func:`newton_gym.sim.hostmath.quat_rotate`)."""
    w = wp.tid()
    v_origin, omega_body = _root_qvel(w, root, joint_qd, body_q)
    # the inverse of the root orientation qpos holds (joint_q's x y z w)
    r = root.q
    inverse_q = wp.quat(-joint_q[w, r + 3], -joint_q[w, r + 4], -joint_q[w, r + 5], joint_q[w, r + 6])
    v_body = _rotate(inverse_q, v_origin)
    down = _rotate(inverse_q, wp.vec3(0.0, 0.0, -1.0))
    frame_out[w, 0] = joint_q[w, r + 2]
    for i in range(3):
        frame_out[w, 1 + i] = v_body[i]
        frame_out[w, 4 + i] = omega_body[i]
        frame_out[w, 7 + i] = down[i]


@wp.func
def _write_world(
    w: int,
    root: _Root,
    coord_index: wp.array(dtype=int),
    dof_index: wp.array(dtype=int),
    qpos: wp.array2d(dtype=float),
    qvel: wp.array2d(dtype=float),
    joint_q_out: wp.array2d(dtype=float),
    joint_qd_out: wp.array2d(dtype=float),
):
    """World w's joint state from its MuJoCo qpos and qvel rows (the inverse of :func:`_read_kernel`; the root
    quaternion normalized, its COM twist from the pose it gets)."""
    kq = int(0)
    kv = int(0)
    if root.free != 0:
        r = root.q
        quat = wp.quat(qpos[w, 4], qpos[w, 5], qpos[w, 6], qpos[w, 3])
        quat = quat / wp.sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3])
        for i in range(3):
            joint_q_out[w, r + i] = qpos[w, i]
        for i in range(4):
            joint_q_out[w, r + 3 + i] = quat[i]
        omega = _rotate(quat, wp.vec3(qvel[w, 3], qvel[w, 4], qvel[w, 5]))
        v_com = wp.vec3(qvel[w, 0], qvel[w, 1], qvel[w, 2]) + wp.cross(omega, _rotate(quat, root.com))
        d = root.qd
        for i in range(3):
            joint_qd_out[w, d + i] = v_com[i]
            joint_qd_out[w, d + 3 + i] = omega[i]
        kq = 7
        kv = 6
    for i in range(coord_index.shape[0]):
        joint_q_out[w, coord_index[i]] = qpos[w, kq + i]
    for i in range(dof_index.shape[0]):
        joint_qd_out[w, dof_index[i]] = qvel[w, kv + i]


@wp.kernel
def _write_kernel(
    root: _Root,
    coord_index: wp.array(dtype=int),
    dof_index: wp.array(dtype=int),
    qpos: wp.array2d(dtype=float),
    qvel: wp.array2d(dtype=float),
    mask: wp.array(dtype=bool),
    joint_q_out: wp.array2d(dtype=float),
    joint_qd_out: wp.array2d(dtype=float),
):
    """Where mask[w]: :func:`_write_world`."""
    w = wp.tid()
    if mask[w]:
        _write_world(w, root, coord_index, dof_index, qpos, qvel, joint_q_out, joint_qd_out)


@wp.struct
class _Noise:
    """Gymnasium's reset noise (:meth:`MujocoLayout.set_noisy_state`)."""

    init_qpos: wp.array(dtype=float)  # (nq,)
    init_qvel: wp.array(dtype=float)  # (nv,)
    scale: float
    qvel_normal: int  # 1: qvel noise scale * N(0, 1); 0: U(-scale, scale)
    key_qpos: wp.uint32  # WorldRng keys of the two streams
    key_qvel: wp.uint32
    counter: wp.array(dtype=wp.int64)  # (N,) WorldRng counters


@wp.kernel
def _noisy_write_kernel(
    root: _Root,
    coord_index: wp.array(dtype=int),
    dof_index: wp.array(dtype=int),
    noise: _Noise,
    mask: wp.array(dtype=bool),
    qpos: wp.array2d(dtype=float),
    qvel: wp.array2d(dtype=float),
    joint_q_out: wp.array2d(dtype=float),
    joint_qd_out: wp.array2d(dtype=float),
):
    """Where mask[w]: world w's qpos = init_qpos + (2 u - 1) scale and qvel likewise (or init_qvel + scale n),
    with u, n the world's numbers of the two streams (in the float32 operations, and their order, of the
    torch expressions they replace), into its rows of ``qpos`` / ``qvel``, then :func:`_write_world`."""
    w = wp.tid()
    if not mask[w]:
        return
    for i in range(qpos.shape[1]):
        u = world_uniform(noise.key_qpos, noise.counter, w, i)
        qpos[w, i] = noise.init_qpos[i] + (u * 2.0 - 1.0) * noise.scale
    nv = qvel.shape[1]
    for i in range(nv):
        if noise.qvel_normal != 0:
            qvel[w, i] = noise.init_qvel[i] + world_normal(noise.key_qvel, noise.counter, w, i, nv) * noise.scale
        else:
            u = world_uniform(noise.key_qvel, noise.counter, w, i)
            qvel[w, i] = noise.init_qvel[i] + (u * 2.0 - 1.0) * noise.scale
    _write_world(w, root, coord_index, dof_index, qpos, qvel, joint_q_out, joint_qd_out)


class MujocoLayout:
    """qpos/qvel access for one robot replicated into every world of a Simulation.

    Args:
        robot: the single-robot ModelBuilder the simulation replicated.
        sim: the Simulation.
    """

    def __init__(self, robot, sim):
        jt = robot.tables["joint"]
        types, q_start, qd_start, child = jt.get("type"), jt.get("q_start"), jt.get("qd_start"), jt.get("child")
        free = np.nonzero(types == JointType.FREE)[0]
        self.has_free_root = len(free) > 0
        self.root_body = int(child[free[0]]) if self.has_free_root else 0
        self.root_q = int(q_start[free[0]]) if self.has_free_root else 0
        self.root_qd = int(qd_start[free[0]]) if self.has_free_root else 0
        single = np.nonzero((types == JointType.REVOLUTE) | (types == JointType.PRISMATIC))[0]
        dev = sim.torch_device
        self.coord_index = torch.as_tensor(q_start[single], dtype=torch.long, device=dev)
        self.dof_index = torch.as_tensor(qd_start[single], dtype=torch.long, device=dev)
        self.nq = (7 if self.has_free_root else 0) + len(single)
        self.nv = (6 if self.has_free_root else 0) + len(single)
        self.sim = sim
        com = sim.model.body_com.numpy()[sim.model.body_world_start.numpy()[0] + self.root_body]
        self._memo = None
        self._device = wp.device_from_torch(dev)
        self._root = _Root()
        self._root.free = int(self.has_free_root)
        self._root.body, self._root.q, self._root.qd = self.root_body, self.root_q, self.root_qd
        self._root.com = wp.vec3(*(float(x) for x in com))
        self._coord_index = wp.array(q_start[single], dtype=int, device=self._device)
        self._dof_index = wp.array(qd_start[single], dtype=int, device=self._device)
        self._arrays = {}  # Warp views of the state's torch views, by address and shape
        self._graphs = {}  # CPU: recorded launches (:meth:`_replayed`), by what their arguments hold
        self._buffers = {}  # CPU: the output tensors of the recorded reads (:meth:`_outputs`)
        self._noisy = None  # set_noisy_state's (qpos, qvel) rows and its _Noise
        self._noisy_mask = None  # CPU: set_noisy_state's mask, where its recorded launch reads it

    @contextlib.contextmanager
    def cached(self):
        """Inside the block, :meth:`qpos`, :meth:`qvel` and :meth:`memo` compute each value once: the
        observation, reward and termination of one step read the same state several times. The state
        must not change inside the block (no step, no reset); the cached tensors must not be written."""
        self._memo = {}
        try:
            yield self
        finally:
            self._memo = None

    def memo(self, key, compute):
        """``compute()``, computed once per :meth:`cached` block (every call outside one)."""
        if self._memo is None:
            return compute()
        value = self._memo.get(key)
        if value is None:
            value = self._memo[key] = compute()
        return value

    def root_pose(self) -> torch.Tensor:
        """(N, 7) root body-origin pose (p, quat xyzw)."""
        return self.sim.views.body_q[:, self.root_body]

    def qpos(self) -> torch.Tensor:
        """(N, nq) MuJoCo qpos."""
        return self.memo("state", self._read)[0]

    def qvel(self) -> torch.Tensor:
        """(N, nv) MuJoCo qvel."""
        return self.memo("state", self._read)[1]

    def state_finite(self) -> torch.Tensor:
        """(N,) bool: qpos and qvel all finite (:func:`.finite.finite_rows`), memoized in a :meth:`cached` block."""
        return self.memo("state_finite", lambda: finite_rows(self.qpos(), self.qvel()))

    def root_frame(self) -> torch.Tensor:
        """(N, 10) the free root in its own frame: height [m], linear velocity of its origin (3) [m/s], angular
        velocity (3) [rad/s] and the world's down direction (3), the last three turned into the root frame by
        the inverse of qpos's quaternion (a legged robot's base observation); one launch, memoized in a
        :meth:`cached` block. EnvError for a robot without a free root."""
        if not self.has_free_root:
            raise EnvError("root_frame needs a robot with a free root joint")
        return self.memo("root_frame", self._root_frame)

    def _root_frame(self) -> torch.Tensor:
        n = self.sim.views.joint_q.shape[0]
        return self._outputs("root_frame", self._launch_root_frame, ((n, 10),))[0]

    def _launch_root_frame(self, out: torch.Tensor):
        views = self.sim.views
        wp.launch(
            _root_frame_kernel,
            dim=out.shape[0],
            inputs=[self._root, self._warp(views.joint_q), self._warp(views.joint_qd), self._warp(views.body_q)],
            outputs=[wp.from_torch(out)],  # an array object: a capture records no raw pointer
            device=self._device,
        )

    def _outputs(self, name: str, launch, shapes) -> tuple[torch.Tensor, ...]:
        """New float32 tensors of ``shapes`` filled by ``launch(*tensors)`` (one kernel launch over the worlds);
        on the CPU replayed into tensors of its own (:meth:`_replayed`) and copied out."""
        views = self.sim.views
        dev = views.joint_q.device
        if shapes[0][0] == 0 or not self._device.is_cpu:
            outs = tuple(torch.empty(shape, dtype=torch.float32, device=dev) for shape in shapes)
            if shapes[0][0]:
                launch(*outs)
            return outs
        key = (name, views.joint_q.data_ptr(), views.joint_qd.data_ptr(), views.body_q.data_ptr())
        outs = self._buffers.get(key)
        if outs is None:
            outs = self._buffers[key] = tuple(torch.empty(shape, dtype=torch.float32, device=dev) for shape in shapes)
        self._replayed(key, lambda: launch(*outs))
        return tuple(out.clone() for out in outs)

    def _replayed(self, key, launch):
        """Run ``launch()`` (CPU kernel launches whose arguments stay the same for ``key``): recorded as a Warp
        graph the first time, replayed after. After a physics step has evicted the caches, a Python launch
        of the qpos / qvel read cost about 390 us on a 256-world Ant, its replay 60 us."""
        graph = self._graphs.get(key)
        if graph is None:
            if len(self._graphs) >= _MAX_GRAPHS:  # arguments that keep changing (a reset noise scale schedule)
                self._graphs.clear()
            launch()  # loads the kernel's module outside the capture
            with wp.ScopedCapture(device=self._device) as cap:
                launch()
            self._graphs[key] = cap.graph
            return
        wp.capture_launch(graph)

    def _warp(self, tensor: torch.Tensor):
        """The Warp array over ``tensor``'s memory (made once per state view)."""
        key = (tensor.data_ptr(), tuple(tensor.shape))
        array = self._arrays.get(key)
        if array is None:
            array = self._arrays[key] = wp.from_torch(tensor)
        return array

    def _read(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(qpos, qvel) of every world: one launch (:meth:`_outputs`), no host sync."""
        n = self.sim.views.joint_q.shape[0]
        return self._outputs("read", self._launch_read, ((n, self.nq), (n, self.nv)))

    def _launch_read(self, qpos: torch.Tensor, qvel: torch.Tensor):
        views = self.sim.views
        wp.launch(
            _read_kernel,
            dim=qpos.shape[0],
            inputs=[self._root, self._coord_index, self._dof_index]
            + [self._warp(views.joint_q), self._warp(views.joint_qd), self._warp(views.body_q)],
            outputs=[wp.from_torch(qpos), wp.from_torch(qvel)],  # array objects: a capture records no raw pointer
            device=self._device,
        )

    def set_state(self, qpos: torch.Tensor, qvel: torch.Tensor, mask: torch.Tensor):
        """Write MuJoCo qpos (N, nq) / qvel (N, nv) into the worlds where ``mask`` (N,) bool is True,
        then update their body poses and twists by forward kinematics. One launch over the worlds (no index
        list, no host sync); the rows of unmasked worlds are not read."""
        views = self.sim.views
        jq = views.joint_q
        n = jq.shape[0]
        if tuple(qpos.shape) != (n, self.nq) or tuple(qvel.shape) != (n, self.nv):
            raise EnvError(
                f"set_state needs qpos ({n}, {self.nq}) and qvel ({n}, {self.nv}), got "
                f"{tuple(qpos.shape)} and {tuple(qvel.shape)}"
            )
        qpos = qpos.to(device=jq.device, dtype=torch.float32).contiguous()
        qvel = qvel.to(device=jq.device, dtype=torch.float32).contiguous()
        mask = mask.to(device=jq.device, dtype=torch.bool).contiguous()
        if n:
            wp.launch(
                _write_kernel,
                dim=n,
                inputs=[self._root, self._coord_index, self._dof_index]
                + [wp.from_torch(x, return_ctype=True) for x in (qpos, qvel, mask)],
                outputs=[self._warp(jq), self._warp(views.joint_qd)],
                device=self._device,
            )
        self.sim.refresh_bodies(mask)

    def set_noisy_state(self, init_qpos, init_qvel, scale: float, qvel_normal: bool, rng, streams, mask):
        """:meth:`set_state` of Gymnasium's reset noise in the worlds where ``mask`` (N,) bool is True:
        qpos = init_qpos + U(-scale, scale) per entry, qvel = init_qvel + U(-scale, scale), or + scale N(0, 1)
        with ``qvel_normal``; ``init_qpos`` (nq,) and ``init_qvel`` (nv,) float32 tensors, each world's numbers
        from its ``rng`` (:class:`.world_rng.WorldRng`) streams ``streams`` (qpos, qvel). Bitwise what
        ``set_state(init_qpos + (rng.uniform(...) * 2 - 1) * scale, ...)`` writes, in one launch (drawing,
        the noise arithmetic and the write), then the bodies' forward kinematics."""
        views = self.sim.views
        jq = views.joint_q
        n = jq.shape[0]
        if self._noisy is None or self._noisy[0].shape[0] != n:
            kw = {"dtype": torch.float32, "device": jq.device}
            self._noisy = (torch.zeros((n, self.nq), **kw), torch.zeros((n, self.nv), **kw), _Noise())
        qpos, qvel, noise = self._noisy
        if tuple(init_qpos.shape) != (self.nq,) or tuple(init_qvel.shape) != (self.nv,):
            raise EnvError(
                f"set_noisy_state needs init_qpos ({self.nq},) and init_qvel ({self.nv},), got "
                f"{tuple(init_qpos.shape)} and {tuple(init_qvel.shape)}"
            )
        noise.init_qpos = self._warp(init_qpos.to(device=jq.device, dtype=torch.float32).contiguous())
        noise.init_qvel = self._warp(init_qvel.to(device=jq.device, dtype=torch.float32).contiguous())
        noise.scale = float(scale)
        noise.qvel_normal = int(bool(qvel_normal))
        noise.key_qpos = wp.uint32(rng.key(streams[0]))
        noise.key_qvel = wp.uint32(rng.key(streams[1]))
        noise.counter = rng.counter_array
        mask = mask.to(device=jq.device, dtype=torch.bool).contiguous()
        if n:
            outputs = [self._warp(qpos), self._warp(qvel), self._warp(jq), self._warp(views.joint_qd)]
            if self._device.is_cpu:  # replayed (:meth:`_replayed`) on a mask buffer of its own
                if self._noisy_mask is None or self._noisy_mask.shape[0] != n:
                    self._noisy_mask = torch.zeros(n, dtype=torch.bool, device=jq.device)
                self._noisy_mask.copy_(mask)
                inputs = [self._root, self._coord_index, self._dof_index, noise, self._warp(self._noisy_mask)]
                key = ("noisy", noise.init_qpos.ptr, noise.init_qvel.ptr, noise.scale, noise.qvel_normal)
                key += (int(noise.key_qpos), int(noise.key_qvel), noise.counter.ptr, jq.data_ptr())
                key += (views.joint_qd.data_ptr(), self._noisy_mask.data_ptr())
                self._replayed(key, lambda: self._launch_noisy(n, inputs, outputs))
            else:
                inputs = [self._root, self._coord_index, self._dof_index, noise, wp.from_torch(mask)]
                self._launch_noisy(n, inputs, outputs)
        self.sim.refresh_bodies(mask)

    def _launch_noisy(self, n: int, inputs: list, outputs: list):
        wp.launch(_noisy_write_kernel, dim=n, inputs=inputs, outputs=outputs, device=self._device)
