"""newton_gym.solvers: time integrators for a Model.

``SolverGeneralized`` steps articulated rigid bodies in generalized coordinates with MuJoCo-style soft
contacts, limits, joint friction and equality constraints; ``SolverBase`` is the interface every solver
implements (``SolverNotifyFlags`` names what changed for ``notify_model_changed``); ``Actuators``
describes MuJoCo motor actuators.
"""

from .base import SolverBase, SolverNotifyFlags
from .generalized import SolverGeneralized
from .option import Option
from .smooth.passive import Actuators

__all__ = ["SolverBase", "SolverGeneralized", "SolverNotifyFlags", "Actuators", "Option"]
