"""newton_gym.sensors: per-world sensors as Warp kernels, read through zero-copy torch views.

Each sensor takes global body indices (one row per world, usually), allocates its outputs once, and
fills them with one kernel launch per ``update`` (no host sync, no allocation: capturable in a graph);
``sensor.views`` holds torch views of its Warp outputs (``wp.to_torch``, shared memory).

- :class:`HeightScanner`: a grid of downward rays from above a body onto the static terrain (heightfields,
  boxes, planes), Isaac Lab's RayCaster with a yaw-aligned GridPattern; ``heights()`` is its
  ``height_scan`` observation.
- :class:`Imu`: angular velocity and proper linear acceleration in a body-fixed sensor frame.
- :class:`ContactForceHistory`: the net contact force on bodies over the last updates, with air and
  contact times (Isaac Lab's ContactSensor).

Frames and units follow newton_gym's conventions: world z up, quaternions (x, y, z, w), SI units.
"""

from .common import SensorError
from .contact_history import ContactForceHistory
from .height_scan import HeightScanner, grid_pattern
from .imu import Imu

__all__ = ["HeightScanner", "Imu", "ContactForceHistory", "SensorError", "grid_pattern"]
