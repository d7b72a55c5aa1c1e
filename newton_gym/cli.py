"""The ``newton-gym`` command: one sub-command per job (demo, convert, train, play, ...).

Each sub-command lives in its own module and registers itself in ``_COMMANDS`` with a function that
adds its arguments and a function that runs it, so this file stays a dispatcher.
"""

from __future__ import annotations

import argparse
import importlib
import sys

__all__ = ["main"]

# name -> (module, help). The module defines add_arguments(parser) and run(args) -> int.
_COMMANDS = {
    "demo": ("newton_gym.cli_demo", "build a replicated Ant-like scene and print its world layout"),
    "convert": ("newton_gym.cli_convert", "convert an MJCF, URDF or mesh file to USD"),
    "check": ("newton_gym.cli_check", "check that a robot file converts, steps and matches MuJoCo C"),
    "inspect": ("newton_gym.usd.report", "show what add_usd makes of a USD stage"),
    "train": ("newton_gym.cli_train", "train PPO (skrl or rsl_rl) on a task: TensorBoard, checkpoints"),
    "play": ("newton_gym.cli_play", "run a checkpoint deterministically; record the rollout as USD and GIF"),
    "export": ("newton_gym.cli_export", "export a checkpoint (either backend) as TorchScript and ONNX policies"),
    "view": ("newton_gym.cli_view", "show N worlds of a task live in the browser (viser), with a checkpoint's policy"),
    "terrain": ("newton_gym.cli_terrain", "generate a procedural rough terrain; print its summary, draw it as a PNG"),
}


def main(argv=None) -> int:
    """Run the sub-command of ``argv``; Ctrl-C outside a command's own handling exits 130 without a traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("newton-gym: interrupted")
        return 130


def _main(argv) -> int:
    import warp as wp

    wp.config.quiet = True  # keep Warp's start-up banner out of command output
    if hasattr(wp, "LOG_WARNING"):
        wp.config.log_level = wp.LOG_WARNING
    parser = argparse.ArgumentParser(prog="newton-gym", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, (module_name, help_text) in _COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        modules[name] = module
        module.add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    args = parser.parse_args(argv)
    return int(modules[args.command].run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
