"""newton_gym.sim: the world-partitioned model layer (builder, model, state, kinematics, conventions)."""

from .builder import ModelBuilder
from .mesh import Mesh
from .model import Model
from .state import Control, State
from .types import Axis, EqType, GeoType, JointType

__all__ = ["ModelBuilder", "Model", "State", "Control", "Mesh", "Axis", "JointType", "GeoType", "EqType"]
