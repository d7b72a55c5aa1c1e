"""``newton-gym export``: a checkpoint as a deployable policy, TorchScript ``policy.pt`` and ONNX
``policy.onnx`` (raw observations in, deterministic actions out, observation normaliser inside), each
checked against the torch policy on a few observations.

Any checkpoint ``newton-gym train`` writes (skrl: ``checkpoints/final.pt``, ``agent_<iteration>.pt``;
rsl_rl: ``model_<iteration>.pt``) and the shipped policies (``newton_gym/assets/policies/*.pt``) export.

Examples::

    newton-gym export --checkpoint runs/go1/model_300.pt --out runs/go1/export
    newton-gym export --checkpoint runs/ant/checkpoints/final.pt --out deploy --no-onnx
"""

from __future__ import annotations

__all__ = ["add_arguments", "run"]


def add_arguments(parser):
    parser.add_argument("--checkpoint", required=True, help="a checkpoint newton-gym train wrote, or a shipped policy")
    parser.add_argument("--out", required=True, help="directory for policy.pt and policy.onnx")
    parser.add_argument("--no-onnx", action="store_true", help="write only the TorchScript policy")


def run(args) -> int:
    from .errors import NewtonGymError
    from .train.checkpoint import load_policy
    from .train.export import CHECK_OBSERVATIONS, check_export, export_policy

    try:
        policy = load_policy(args.checkpoint)
        meta = {**policy.meta, "backend": policy.backend}
        paths = export_policy(None, meta, args.out, onnx=not args.no_onnx, policy=policy.deploy)
        errors = check_export(policy.deploy, paths)
    except (NewtonGymError, ImportError) as exc:
        print(f"newton-gym export: {exc}")
        return 2
    for fmt, path in paths.items():
        check = f"largest |action - torch policy's| on {CHECK_OBSERVATIONS} observations: {errors[fmt]:.2g}"
        print(f"{fmt}: {path}  ({check})")
    return 0
