"""``newton-gym play``: run a trained checkpoint deterministically, print the episode returns, and record
the rollout as a time-sampled USD and a GIF (headless ray caster, tracking camera).

Any checkpoint ``newton-gym train`` writes (skrl or rsl_rl backend) and the shipped policies play.

Examples::

    newton-gym play --checkpoint runs/ant/checkpoints/final.pt --episodes 2 --out runs/ant/play
    newton-gym play --checkpoint runs/go1/model_300.pt --max-steps 500
"""

from __future__ import annotations

import os

__all__ = ["add_arguments", "run"]


def add_arguments(parser):
    parser.add_argument(
        "--checkpoint", required=True, help="checkpoint of newton-gym train (final.pt, model_<i>.pt) or shipped policy"
    )
    parser.add_argument("--task", default=None, help="task id (default: the checkpoint's)")
    parser.add_argument("--episodes", type=int, default=1, help="episodes to run (default 1)")
    parser.add_argument("--max-steps", type=int, default=0, help="stop after this many steps (0: no limit)")
    parser.add_argument("--seed", type=int, default=0, help="reset seed")
    parser.add_argument("--gif-every", type=int, default=2, help="keep every n-th step as a GIF frame")
    parser.add_argument("--out", default=None, help="output folder (default: <run directory of the checkpoint>/play)")


def run(args) -> int:
    from .train.play import play
    from .train.resume import run_dir_of

    out = args.out or os.path.join(run_dir_of(args.checkpoint), "play")
    try:
        result = play(
            args.checkpoint,
            out,
            task=args.task,
            episodes=args.episodes,
            max_steps=args.max_steps,
            seed=args.seed,
            gif_every=args.gif_every,
        )
    except (FileNotFoundError, ValueError) as exc:
        print(f"newton-gym play: {exc}")
        return 2
    mean = sum(result.returns) / len(result.returns)
    print(f"mean return over {len(result.returns)} episode(s): {mean:.1f}\nUSD: {result.usd}\nGIF: {result.gif}")
    return 0
