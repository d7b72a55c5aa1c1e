"""newton_gym.train: PPO on newton_gym tasks, with skrl (default) or rsl_rl (``backend = "rsl_rl"``).

| module | role |
|---|---|
| ``config`` | TrainCfg / PPOCfg / PolicyCfg dataclasses, TOML loading (``configs/train_*.toml``) |
| ``skrl_env`` | SkrlVecEnv: NewtonVectorEnv as an skrl environment (zero-copy, SAME_STEP-aware bootstrapping) |
| ``models``, ``networks`` | Gaussian actor and value critic (skrl models over plain torch MLPs) |
| ``agent`` | skrl PPO agent from a TrainCfg |
| ``runner`` | PPORunner: the training loop, logging, checkpoints, learning curve |
| ``episode_log``, ``progress``, ``plotting`` | episode returns and reward terms, tqdm bar, PNG curve |
| ``checkpoint``, ``checkpoint_io`` | checkpoints of both backends (safe loads, atomic writes); ``load_policy`` |
| ``policy`` | DeployPolicy: normaliser, MLP and action map, the module play, evaluate and export run |
| ``interrupt``, ``resume``, ``rng_state`` | SIGINT / SIGTERM stop and save; ``--resume``; RNG state as plain data |
| ``distributed`` | torchrun set-up (gloo on CPU, NCCL on CUDA) and the skrl import |
| ``play`` | run a checkpoint and record USD + GIF |
| ``rsl_rl_env``, ``rsl_rl_runner`` | NewtonVectorEnv as rsl_rl's VecEnv (policy + critic groups); the PPO loop |
| ``export`` | TorchScript / ONNX deployment files from any checkpoint (normaliser folded in), checked against torch |
| ``evaluate``, ``velocity_eval`` | sim to sim in MuJoCo C: returns (Ant, Humanoid), tracking error (Go1, G1) |

Training needs the ``train`` extra (skrl, tensorboard, tqdm) and ``plot`` (matplotlib); the rsl_rl backend
the ``rsl_rl`` extra, ONNX export the ``onnx`` extra.
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


def train(cfg, out_dir: str, progress: bool = True, log=print, resume=None):
    """Train ``cfg`` (a TrainCfg, dict or TOML path) into ``out_dir``, continuing ``resume`` (a
    :class:`~newton_gym.train.resume.ResumePoint`) when given; returns the TrainResult."""
    from .runner import PPORunner

    cfg = cfg if isinstance(cfg, TrainCfg) else load_train_config(cfg)
    runner = PPORunner(cfg, out_dir, progress=progress, log=log, resume=resume)
    try:
        return runner.train()
    finally:
        runner.close()
