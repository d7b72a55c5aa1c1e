"""newton_gym.interop: numpy front-ends for tools that do not take torch tensors.

* :class:`NumpyVectorEnv`: a Gymnasium VectorEnv with numpy observations, rewards and flags (the wrapped env's
  autoreset mode; under SAME_STEP ``info["final_obs"]`` as Gymnasium's own vector envs lay it out), over which
  Gymnasium's vector wrappers run as they are.
* :class:`SB3VecEnv`: Stable-Baselines3's VecEnv protocol (``reset() -> obs``, ``step_async`` /
  ``step_wait``, per-env info dicts with ``terminal_observation`` and ``TimeLimit.truncated``). It
  subclasses SB3's VecEnv when stable-baselines3 is installed, so SB3 algorithms accept it as is.
* :class:`MujocoVectorEnv`: gymnasium's MuJoCo Ant-v5 / Humanoid-v5 behind newton_gym's vector interface
  (ids ``MuJoCo/Ant-v5``, ``MuJoCo/Humanoid-v5``), to train reference policies in MuJoCo C.
"""

from .mujoco_reference import MujocoVectorEnv
from .numpy_env import NumpyVectorEnv, make_numpy_vec
from .sb3 import SB3VecEnv

__all__ = ["MujocoVectorEnv", "NumpyVectorEnv", "SB3VecEnv", "make_numpy_vec"]
