"""``newton-gym view``: N worlds of a task in the browser, live, with a world picker, play / pause and the
policy of a checkpoint (or the newest checkpoint of a training run, reloaded as training goes on).

Examples::

    newton-gym view --task Newton/Ant-v0 --num-envs 4
    newton-gym view --checkpoint newton_gym/assets/policies/ant_newton.pt --num-envs 9
    newton-gym view --follow runs/ant --port 8090

Then open the printed URL. The page is served by viser from this machine only (127.0.0.1) unless
``--host 0.0.0.0`` says otherwise.
"""

from __future__ import annotations

__all__ = ["add_arguments", "run"]


def add_arguments(parser):
    parser.add_argument("--task", default=None, help="task id (default: the checkpoint's, else Newton/Ant-v0)")
    parser.add_argument("--num-envs", type=int, default=4, help="worlds to simulate and show (default 4)")
    policy = parser.add_mutually_exclusive_group()
    policy.add_argument("--checkpoint", default=None, help="skrl or rsl_rl checkpoint to act (default: zero actions)")
    policy.add_argument("--follow", default=None, metavar="RUN_DIR", help="reload the newest checkpoint of a run")
    parser.add_argument("--follow-every", type=float, default=5.0, help="seconds between looks for a new checkpoint")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="TCP port (default 8080; the next free one if busy)")
    parser.add_argument("--device", default="cpu", help="Warp device of the simulation (default cpu)")
    parser.add_argument("--spacing", type=float, default=None, help="metres between worlds (default: from the robot)")
    parser.add_argument("--seed", type=int, default=0, help="reset seed")
    parser.add_argument("--max-steps", type=int, default=0, help="exit after this many steps (0: run until Ctrl-C)")


def run(args) -> int:
    from .errors import NewtonGymError
    from .view import Viewer

    try:
        viewer = Viewer(
            task=args.task,
            num_envs=args.num_envs,
            checkpoint=args.checkpoint,
            follow=args.follow,
            host=args.host,
            port=args.port,
            device=args.device,
            seed=args.seed,
            spacing=args.spacing,
            follow_every=args.follow_every,
        )
    except (NewtonGymError, FileNotFoundError, ImportError) as exc:
        print(f"newton-gym view: {exc}")
        return 2
    print(f"newton-gym view: {viewer.task}, {args.num_envs} world(s), policy: {viewer.policy.source}")
    print(f"open {viewer.url}", flush=True)
    try:
        viewer.run(max_steps=args.max_steps or None)
    except KeyboardInterrupt:
        pass
    finally:
        viewer.close()
    return 0
