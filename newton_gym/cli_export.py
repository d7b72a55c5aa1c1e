"""``newton-gym export``: an rsl_rl checkpoint as a deployable policy, TorchScript ``policy.pt`` and ONNX
``policy.onnx`` (raw observations in, deterministic actions out, observation normaliser inside).

Examples::

    newton-gym export --checkpoint runs/go1/model_300.pt --out runs/go1/export
    newton-gym export --checkpoint runs/go1/model_300.pt --out deploy --no-onnx
"""

from __future__ import annotations

__all__ = ["add_arguments", "run"]


def add_arguments(parser):
    parser.add_argument("--checkpoint", required=True, help="model_<iteration>.pt of a run with backend = 'rsl_rl'")
    parser.add_argument("--out", required=True, help="directory for policy.pt and policy.onnx")
    parser.add_argument("--no-onnx", action="store_true", help="write only the TorchScript policy")


def run(args) -> int:
    from .errors import ConfigError
    from .train.export import export_checkpoint

    try:
        paths = export_checkpoint(args.checkpoint, args.out, onnx=not args.no_onnx)
    except (ConfigError, ImportError) as exc:
        print(f"newton-gym export: {exc}")
        return 2
    for fmt, path in paths.items():
        print(f"{fmt}: {path}")
    return 0
