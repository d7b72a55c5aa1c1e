"""MuJoCo's qpos / qvel of each world, read from and written to newton_gym's joint state.

Gymnasium's MuJoCo tasks observe qpos and qvel in MuJoCo's conventions: a free root as position +
quaternion (w, x, y, z) and velocity (body-origin linear velocity in world frame, angular velocity in the
body frame), then the 1-DOF joints in model order. Our free joint stores quaternion (x, y, z, w) and the
COM twist in world frame, so this module converts with :mod:`newton_gym.sim.conventions`.
"""

from __future__ import annotations

import contextlib

import numpy as np
import torch

from ..sim import JointType
from ..sim import conventions as cv

__all__ = ["MujocoLayout"]


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
        self.root_com = torch.as_tensor(com, dtype=torch.float32, device=dev)
        self._memo = None

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
        return self.memo("qpos", self._qpos)

    def qvel(self) -> torch.Tensor:
        """(N, nv) MuJoCo qvel."""
        return self.memo("qvel", self._qvel)

    def _qpos(self) -> torch.Tensor:
        jq = self.sim.views.joint_q
        parts = []
        if self.has_free_root:
            r = self.root_q
            parts += [jq[:, r : r + 3], cv.quat_xyzw_to_wxyz(jq[:, r + 3 : r + 7])]
        parts.append(jq[:, self.coord_index])
        return torch.cat(parts, dim=1)

    def _qvel(self) -> torch.Tensor:
        jqd = self.sim.views.joint_qd
        parts = []
        if self.has_free_root:
            twist = jqd[:, self.root_qd : self.root_qd + 6]
            parts.append(cv.com_twist_to_mujoco_free(self.root_pose(), twist, self.root_com.expand(len(twist), 3)))
        parts.append(jqd[:, self.dof_index])
        return torch.cat(parts, dim=1)

    def set_state(self, qpos: torch.Tensor, qvel: torch.Tensor, mask: torch.Tensor):
        """Write MuJoCo qpos (N, nq) / qvel (N, nv) into the worlds where ``mask`` (N,) bool is True,
        then update their body poses and twists by forward kinematics. Masked writes (no index list, no host
        sync); rows of unmasked worlds are read back unchanged."""
        jq, jqd = self.sim.views.joint_q, self.sim.views.joint_qd
        m = mask.to(device=jq.device, dtype=torch.bool)[:, None]
        k = 0
        if self.has_free_root:
            r, d = self.root_q, self.root_qd
            quat = cv.quat_wxyz_to_xyzw(qpos[:, 3:7])
            quat = quat / torch.linalg.norm(quat, dim=1, keepdim=True)
            pose = torch.cat([qpos[:, 0:3], quat], dim=1)
            twist = cv.mujoco_free_to_com_twist(pose, qvel[:, 0:6], self.root_com.expand(len(pose), 3))
            jq[:, r : r + 7] = torch.where(m, pose, jq[:, r : r + 7])
            jqd[:, d : d + 6] = torch.where(m, twist, jqd[:, d : d + 6])
            k = 1
        jq[:, self.coord_index] = torch.where(m, qpos[:, 7 * k :], jq[:, self.coord_index])
        jqd[:, self.dof_index] = torch.where(m, qvel[:, 6 * k :], jqd[:, self.dof_index])
        self.sim.refresh_bodies(m[:, 0])
