"""The typed joint shortcuts of :class:`.builder.ModelBuilder` (revolute, prismatic, ball, fixed, free,
distance, D6): each fills the DOF lists of :meth:`ModelBuilder.add_joint` (Newton's builder API)."""

from __future__ import annotations

from .joint_config import JointDofConfig
from .types import Axis, JointType

__all__ = ["JointShortcuts"]


class JointShortcuts:
    """Mixin of :class:`.builder.ModelBuilder`: the ``add_joint_*`` shortcuts over ``self.add_joint``.

    Each shortcut hands ``add_joint`` its ``ends`` (parent, child, parent_xform, child_xform), its DOF lists
    and the options every joint takes, ``common`` (key, enabled, collision_filter_parent, custom_attributes,
    label), in ``add_joint``'s positional order.
    """

    def _dof(self, axis, kwargs) -> JointDofConfig:
        base = {k: v for k, v in vars(self.default_joint_cfg).items() if k != "axis"}
        if kwargs.get("friction") is not None:
            kwargs = dict(kwargs, friction_static=kwargs["friction"])
        kwargs.pop("friction", None)
        base.update({k: v for k, v in kwargs.items() if v is not None})
        return JointDofConfig.make(axis=axis if axis is not None else Axis.X, **base)

    def _dofs_xyz(self, kwargs) -> list:
        """Three DOFs, about / along X, Y and Z, each made by :meth:`_dof` from ``kwargs``."""
        return [self._dof(a, kwargs) for a in (Axis.X, Axis.Y, Axis.Z)]

    def add_joint_revolute(
        self,
        parent,
        child,
        parent_xform=None,
        child_xform=None,
        axis=None,
        key=None,
        enabled=True,
        collision_filter_parent=True,
        custom_attributes=None,
        label=None,
        **dof,
    ) -> int:
        """Hinge about ``axis`` (default X) of the joint frame; ``dof`` takes JointDofConfig fields."""
        ends = (parent, child, parent_xform, child_xform)
        common = (key, enabled, collision_filter_parent, custom_attributes, label)
        return self.add_joint(JointType.REVOLUTE, *ends, (), [self._dof(axis, dof)], *common)

    def add_joint_prismatic(
        self,
        parent,
        child,
        parent_xform=None,
        child_xform=None,
        axis=None,
        key=None,
        enabled=True,
        collision_filter_parent=True,
        custom_attributes=None,
        label=None,
        **dof,
    ) -> int:
        """Slider along ``axis`` (default X) of the joint frame; ``dof`` takes JointDofConfig fields."""
        ends = (parent, child, parent_xform, child_xform)
        common = (key, enabled, collision_filter_parent, custom_attributes, label)
        return self.add_joint(JointType.PRISMATIC, *ends, [self._dof(axis, dof)], (), *common)

    def add_joint_ball(
        self,
        parent,
        child,
        parent_xform=None,
        child_xform=None,
        key=None,
        enabled=True,
        collision_filter_parent=True,
        custom_attributes=None,
        label=None,
        **dof,
    ) -> int:
        """Spherical joint; coordinates are a quaternion (x, y, z, w), velocities the angular velocity in
        the child joint frame (as MuJoCo's ball joint)."""
        ends = (parent, child, parent_xform, child_xform)
        common = (key, enabled, collision_filter_parent, custom_attributes, label)
        return self.add_joint(JointType.BALL, *ends, (), self._dofs_xyz(dof), *common)

    def add_joint_fixed(
        self,
        parent,
        child,
        parent_xform=None,
        child_xform=None,
        key=None,
        enabled=True,
        collision_filter_parent=True,
        custom_attributes=None,
        label=None,
    ) -> int:
        """Weld child to parent."""
        ends = (parent, child, parent_xform, child_xform)
        common = (key, enabled, collision_filter_parent, custom_attributes, label)
        return self.add_joint(JointType.FIXED, *ends, (), (), *common)

    def add_joint_free(
        self,
        child,
        parent_xform=None,
        child_xform=None,
        parent=-1,
        key=None,
        enabled=True,
        custom_attributes=None,
        label=None,
        **dof,
    ) -> int:
        """Six-DOF joint. Coordinates: child joint frame position and quaternion relative to the parent
        joint frame; velocities: COM linear velocity and angular velocity, world frame."""
        ends = (parent, child, parent_xform, child_xform)
        common = (key, enabled, False, custom_attributes, label)
        return self.add_joint(JointType.FREE, *ends, self._dofs_xyz(dof), self._dofs_xyz(dof), *common)

    def add_joint_distance(
        self,
        parent,
        child,
        parent_xform=None,
        child_xform=None,
        min_distance=-1.0,
        max_distance=1.0,
        key=None,
        enabled=True,
        custom_attributes=None,
        label=None,
    ) -> int:
        """Keep the joint anchors' distance in [min_distance, max_distance] [m] (-1: no bound)."""
        lower = -1e10 if min_distance < 0 else min_distance
        upper = 1e10 if max_distance < 0 else max_distance
        lin = self._dofs_xyz({"limit_lower": lower, "limit_upper": upper})
        ends = (parent, child, parent_xform, child_xform)
        common = (key, enabled, False, custom_attributes, label)
        return self.add_joint(JointType.DISTANCE, *ends, lin, self._dofs_xyz({}), *common)

    def add_joint_d6(
        self,
        parent,
        child,
        linear_axes=(),
        angular_axes=(),
        parent_xform=None,
        child_xform=None,
        key=None,
        enabled=True,
        collision_filter_parent=True,
        custom_attributes=None,
        label=None,
    ) -> int:
        """Generic joint with up to 3 linear then up to 3 angular axes (JointDofConfig or axis values)."""
        ends = (parent, child, parent_xform, child_xform)
        common = (key, enabled, collision_filter_parent, custom_attributes, label)
        return self.add_joint(JointType.D6, *ends, linear_axes, angular_axes, *common)

    # ---------------------------------------------------------------- articulations, particles, equality
