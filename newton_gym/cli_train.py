"""``newton-gym train``: PPO on a task. The config's ``backend`` picks the trainer: "skrl" (default: a
progress bar, TensorBoard logs, checkpoints and a learning-curve PNG) or "rsl_rl" (rsl_rl's OnPolicyRunner:
its console report, TensorBoard logs, ``model_<iteration>.pt`` checkpoints for ``newton-gym export``).

Examples::

    newton-gym train --config configs/train_ant.toml
    newton-gym train --config configs/train_go1.toml --minutes 1
    newton-gym train --task Newton/Cartpole-v0 --num-envs 32 --timesteps 50000 --out runs/cartpole
    torchrun --nproc_per_node=2 -m newton_gym.cli train --config configs/train_ant.toml
"""

from __future__ import annotations

import os
import time

__all__ = ["add_arguments", "run"]


def add_arguments(parser):
    parser.add_argument("--task", default=None, help="task id (default: the config's, else Newton/Ant-v0)")
    parser.add_argument("--config", default=None, help="training config TOML (e.g. configs/train_ant.toml)")
    parser.add_argument("--num-envs", type=int, default=None, help="worlds per process")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, default=None, help="wall-clock budget in minutes")
    budget.add_argument("--timesteps", type=int, default=None, help="total env steps (all worlds and processes)")
    parser.add_argument("--seed", type=int, default=None, help="seed (process rank r uses seed + r)")
    parser.add_argument("--device", default=None, help="cpu or cuda (under torchrun: cuda:LOCAL_RANK)")
    parser.add_argument("--out", default=None, help="run directory (default runs/<task>_<time>)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--eval-episodes",
        type=int,
        default=8,
        help="after training, episodes of the deterministic policy in newton_gym and in the "
        "MuJoCo twin task (Ant, Humanoid); 0: skip",
    )


def _config(args):
    from .train import load_train_config

    overrides = {"task": args.task, "num_envs": args.num_envs, "seed": args.seed, "device": args.device}
    if args.minutes is not None:
        overrides.update(minutes=args.minutes, timesteps=0)
    if args.timesteps is not None:
        overrides.update(timesteps=args.timesteps, minutes=0.0)
    return load_train_config(args.config, **overrides)


def run(args) -> int:
    from .errors import ConfigError

    try:
        cfg = _config(args)
    except ConfigError as exc:
        print(f"newton-gym train: {exc}")
        return 2
    name = cfg.task.split("/")[-1].lower()
    out = args.out or os.path.join("runs", f"{name}_{time.strftime('%Y%m%d-%H%M%S')}")
    if cfg.backend == "rsl_rl":
        return _run_rsl_rl(cfg, out)
    from .train import train

    result = train(cfg, out, progress=not args.no_progress)
    if int(os.getenv("RANK", "0")) == 0:
        print(
            f"checkpoint: {result.checkpoint}\nlearning curve: {result.curve_png}\n"
            f"tensorboard: tensorboard --logdir {os.path.dirname(result.curve_png)}"
        )
        if args.eval_episodes > 0:
            _evaluate(result.checkpoint, args.eval_episodes, cfg.seed)
    return 0


def _run_rsl_rl(cfg, out: str) -> int:
    from .train.rsl_rl_runner import train_rsl_rl

    result = train_rsl_rl(cfg, out)
    print(
        f"checkpoint: {result.checkpoint}\n"
        f"tensorboard: tensorboard --logdir {result.log_dir}\n"
        f"export: newton-gym export --checkpoint {result.checkpoint} --out {os.path.join(result.log_dir, 'export')}"
    )
    return 0


def _evaluate(checkpoint: str, episodes: int, seed: int):
    """Print the deterministic policy's mean return in newton_gym and in gymnasium's MuJoCo twin task."""
    import numpy as np

    from .train.checkpoint import load_policy
    from .train.evaluate import evaluate

    policy = load_policy(checkpoint)
    for name, returns in evaluate(policy, policy.meta["task"], episodes, seed=seed + 1000).items():
        print(
            f"deterministic policy in {name}: mean return {np.mean(returns):.1f} +- {np.std(returns):.1f} "
            f"({episodes} episodes)"
        )
