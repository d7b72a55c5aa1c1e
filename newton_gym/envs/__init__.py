"""newton_gym.envs: Gymnasium tasks on newton_gym (``gym.make("Newton/Ant-v0")``,
``gym.make_vec("Newton/Ant-v0", num_envs=N)``)."""

from .registration import TASKS, register_envs

__all__ = ["TASKS", "register_envs", "NewtonVectorEnv", "NewtonEnv"]


def __getattr__(name):
    # The env classes import the solver and torch; load them on first use only.
    if name == "NewtonVectorEnv":
        from .vector_env import NewtonVectorEnv

        return NewtonVectorEnv
    if name == "NewtonEnv":
        from .single_env import NewtonEnv

        return NewtonEnv
    raise AttributeError(name)
