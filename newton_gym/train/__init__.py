"""newton_gym.train: PPO (skrl) on newton_gym tasks.

| module | role |
|---|---|
| ``config`` | TrainCfg / PPOCfg / PolicyCfg dataclasses, TOML loading (``configs/train_*.toml``) |
| ``skrl_env`` | SkrlVecEnv: NewtonVectorEnv as an skrl environment (zero-copy, SAME_STEP-aware bootstrapping) |
| ``models``, ``networks`` | Gaussian actor and value critic (skrl models over plain torch MLPs) |
| ``agent`` | skrl PPO agent from a TrainCfg |
| ``runner`` | PPORunner: the training loop, logging, checkpoints, learning curve |
| ``episode_log``, ``progress``, ``plotting`` | episode returns and reward terms, tqdm bar, PNG curve |
| ``checkpoint`` | save / load; ``load_policy`` gives a deterministic torch policy (no skrl needed) |
| ``distributed`` | torchrun set-up (gloo on CPU, NCCL on CUDA) and the skrl import |
| ``play`` | run a checkpoint and record USD + GIF |

Training needs the ``train`` extra (skrl, tensorboard, tqdm) and ``plot`` (matplotlib).
"""

from .config import PolicyCfg, PPOCfg, TrainCfg, load_train_config

__all__ = ["TrainCfg", "PPOCfg", "PolicyCfg", "load_train_config", "PPORunner", "SkrlVecEnv", "load_policy", "train"]


def __getattr__(name):
    # skrl is imported on first use only (it is an optional extra).
    if name == "PPORunner":
        from .runner import PPORunner

        return PPORunner
    if name == "SkrlVecEnv":
        from .skrl_env import SkrlVecEnv

        return SkrlVecEnv
    if name == "load_policy":
        from .checkpoint import load_policy

        return load_policy
    raise AttributeError(name)


def train(cfg, out_dir: str, progress: bool = True, log=print):
    """Train ``cfg`` (a TrainCfg, dict or TOML path) into ``out_dir``; returns the TrainResult."""
    from .runner import PPORunner

    cfg = cfg if isinstance(cfg, TrainCfg) else load_train_config(cfg)
    runner = PPORunner(cfg, out_dir, progress=progress, log=log)
    try:
        return runner.train()
    finally:
        runner.close()
