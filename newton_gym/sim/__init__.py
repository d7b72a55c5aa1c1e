"""newton_gym.sim: the world-partitioned model layer (builder, model, state, kinematics, conventions)."""

from . import conventions
from .builder import ModelBuilder
from .heightfield import Heightfield
from .kinematics import eval_fk, eval_ik
from .mesh import Mesh
from .model import Model
from .sites import site_transforms
from .state import Control, State
from .types import Axis, EqType, GeoType, JointType, TendonType

__all__ = [
    "conventions",
    "eval_fk",
    "eval_ik",
    "site_transforms",
    "ModelBuilder",
    "Model",
    "State",
    "Control",
    "Mesh",
    "Heightfield",
    "Axis",
    "JointType",
    "GeoType",
    "EqType",
    "TendonType",
]
