"""``newton-gym train``: PPO on a task. The config's ``backend`` picks the trainer: "skrl" (default: a
progress bar, TensorBoard logs, checkpoints and a learning-curve PNG) or "rsl_rl" (rsl_rl's OnPolicyRunner:
its console report, TensorBoard logs, ``model_<iteration>.pt`` checkpoints). ``newton-gym play`` and
``newton-gym export`` take the checkpoints of both.

Ctrl-C (SIGINT) or SIGTERM stops a run cleanly: it saves a checkpoint, the learning curve and the config,
prints one line saying where, and exits with status 130. ``--resume`` continues such a run (or a finished
one, given a larger budget) in its run directory.

Examples::

    newton-gym train --config configs/train_ant.toml
    newton-gym train --config configs/train_go1.toml --minutes 1
    newton-gym train --task Newton/Cartpole-v0 --num-envs 32 --timesteps 50000 --out runs/cartpole
    newton-gym train --resume runs/go1_20250101-120000
    newton-gym train --resume runs/ant/checkpoints/final.pt --minutes 10
    torchrun --nproc_per_node=2 -m newton_gym.cli train --config configs/train_ant.toml
"""

from __future__ import annotations

import os
import time

__all__ = ["add_arguments", "run"]

#: Flags that would change what a resumed run is (it keeps its own config).
_FIXED_ON_RESUME = ("config", "task", "num_envs", "seed", "init_policy")


def add_arguments(parser):
    parser.add_argument("--task", default=None, help="task id (default: the config's, else Newton/Ant-v0)")
    parser.add_argument("--config", default=None, help="training config TOML (e.g. configs/train_ant.toml)")
    parser.add_argument("--num-envs", type=int, default=None, help="worlds per process")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--minutes", type=float, default=None, help="wall-clock budget in minutes (of the whole run, when resumed)"
    )
    budget.add_argument(
        "--timesteps", type=int, default=None, help="total env steps (all worlds and processes; whole run)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed (process rank r uses seed + r)")
    parser.add_argument("--device", default=None, help="cpu or cuda (under torchrun: cuda:LOCAL_RANK)")
    parser.add_argument("--out", default=None, help="run directory (default runs/<task>_<time>)")
    parser.add_argument(
        "--resume",
        default=None,
        metavar="RUN_DIR|CHECKPOINT",
        help="continue a run from its latest checkpoint (or the one named), with its own config, in its own "
        "directory; --minutes, --timesteps and --device may change",
    )
    parser.add_argument(
        "--init-policy",
        default=None,
        metavar="CHECKPOINT",
        help="start a new rsl_rl run from this checkpoint's networks (fine-tuning; e.g. Go1-Rough from a "
        "Go1-Flat policy); the config's init_policy",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--eval-episodes",
        type=int,
        default=8,
        help="after training, episodes of the deterministic policy in newton_gym and in the "
        "MuJoCo twin task (Ant, Humanoid); 0: skip",
    )


def _budget(args) -> dict:
    """Config overrides of --minutes / --timesteps: one budget replaces the other."""
    if args.minutes is not None:
        return {"minutes": args.minutes, "timesteps": 0}
    if args.timesteps is not None:
        return {"timesteps": args.timesteps, "minutes": 0.0}
    return {}


def _with_budget_flag(cfg, args):
    """rsl_rl's ``max_iterations`` would outrank a --minutes / --timesteps flag: the flag sets it to 0."""
    from .train import load_train_config

    if cfg.backend == "rsl_rl" and _budget(args):
        return load_train_config(cfg, rsl_rl={"max_iterations": 0})
    return cfg


def _config(args):
    from .train import load_train_config

    overrides = {"task": args.task, "num_envs": args.num_envs, "seed": args.seed, "device": args.device}
    overrides["init_policy"] = args.init_policy
    return _with_budget_flag(load_train_config(args.config, **overrides, **_budget(args)), args)


def _resume_point(args):
    """The ResumePoint of --resume (a ConfigError / CheckpointError names what does not fit)."""
    from .errors import ConfigError
    from .train.resume import resume_point

    given = [f"--{name.replace('_', '-')}" for name in _FIXED_ON_RESUME if getattr(args, name) is not None]
    if given:
        raise ConfigError(f"--resume continues a run with its own config; drop {', '.join(given)}")
    point = resume_point(args.resume, device=args.device, **_budget(args))
    point.cfg = _with_budget_flag(point.cfg, args)
    if args.out is not None and os.path.abspath(args.out) != point.run_dir:
        raise ConfigError(f"--out {args.out!r}: a resumed run writes to its own directory {point.run_dir}")
    return point


def run(args) -> int:
    from .errors import ConfigError
    from .train.interrupt import INTERRUPTED_EXIT_CODE, sigterm_raises_interrupt

    try:
        with sigterm_raises_interrupt():  # until the training loop takes both signals over
            return _run(args)
    except ConfigError as exc:  # a bad config, flag or checkpoint (CheckpointError)
        print(f"newton-gym train: {exc}")
        return 2
    except KeyboardInterrupt:
        print("newton-gym train: interrupted before training started; nothing was saved")
        return INTERRUPTED_EXIT_CODE


def _run(args) -> int:
    from .train.interrupt import INTERRUPTED_EXIT_CODE

    point = _resume_point(args) if args.resume else None
    cfg = point.cfg if point else _config(args)
    name = cfg.task.split("/")[-1].lower()
    out = point.run_dir if point else args.out or os.path.join("runs", f"{name}_{time.strftime('%Y%m%d-%H%M%S')}")
    from .train.wandb_log import wandb_run

    with wandb_run(cfg, out):
        if cfg.backend == "rsl_rl":
            return _run_rsl_rl(cfg, out, point, args.eval_episodes)
        from .train import train

        result = train(cfg, out, progress=not args.no_progress, resume=point)
    if result.interrupted:
        return INTERRUPTED_EXIT_CODE
    if int(os.getenv("RANK", "0")) == 0:
        print(
            f"checkpoint: {result.checkpoint}\nlearning curve: {result.curve_png}\n"
            f"tensorboard: tensorboard --logdir {os.path.dirname(result.curve_png)}"
        )
        return _evaluate(result.checkpoint, args.eval_episodes, cfg.seed)
    return 0


def _run_rsl_rl(cfg, out: str, point, eval_episodes: int) -> int:
    from .train.interrupt import INTERRUPTED_EXIT_CODE
    from .train.rsl_rl_runner import train_rsl_rl

    result = train_rsl_rl(cfg, out, resume=point)
    if result.interrupted:
        return INTERRUPTED_EXIT_CODE
    print(
        f"checkpoint: {result.checkpoint}\nlearning curve: {result.curve_csv}\n"
        f"tensorboard: tensorboard --logdir {result.log_dir}\n"
        f"export: newton-gym export --checkpoint {result.checkpoint} --out {os.path.join(result.log_dir, 'export')}"
    )
    return _evaluate(result.checkpoint, eval_episodes, cfg.seed)


def _evaluate(checkpoint: str, episodes: int, seed: int) -> int:
    """Print the deterministic policy's mean return in newton_gym and in gymnasium's MuJoCo twin task (tasks
    without one print nothing); returns the exit status (130 when Ctrl-C cuts the evaluation)."""
    import numpy as np

    from .train.checkpoint import load_policy
    from .train.evaluate import MUJOCO_TWIN, NEWTON_TWIN, evaluate
    from .train.interrupt import INTERRUPTED_EXIT_CODE

    if episodes <= 0:
        return 0
    policy = load_policy(checkpoint)
    task = policy.meta["task"]
    if NEWTON_TWIN.get(task, task) not in MUJOCO_TWIN:
        return 0
    try:
        for name, returns in evaluate(policy, task, episodes, seed=seed + 1000).items():
            print(
                f"deterministic policy in {name}: mean return {np.mean(returns):.1f} +- {np.std(returns):.1f} "
                f"({episodes} episodes)"
            )
    except KeyboardInterrupt:
        print("newton-gym train: evaluation interrupted; the run's files are saved")
        return INTERRUPTED_EXIT_CODE
    return 0
