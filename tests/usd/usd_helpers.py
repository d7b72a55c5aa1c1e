"""Helpers shared by the USD import tests (named apart from conftest.py so imports are unambiguous)."""

import numpy as np

HEADER = '#usda 1.0\n(\n    metersPerUnit = 1\n    kilogramsPerUnit = 1\n    upAxis = "Z"\n)\n'


def fingerprint(builder) -> dict:
    """Everything add_usd may change on a builder, as comparable plain values."""
    out = {
        "gravity": builder.gravity,
        "meshes": len(builder.meshes),
        "pairs": sorted(builder.shape_collision_filter_pairs),
        "world": builder.current_world,
        "world_count": builder.world_count,
    }
    for kind, table in builder.tables.items():
        out[f"{kind}:labels"] = list(table.labels)
        for col in table.columns:
            out[f"{kind}:{col.name}"] = np.array(table.get(col.name)).tolist()
    out["custom"] = {k: (a.frequency, a.assignment, dict(a.values)) for k, a in builder.custom_attributes.items()}
    return out


def assert_fk_matches_authored(model, atol=1e-5):
    """Forward kinematics from the imported joint_q reproduces the authored body poses (an oracle for
    joint frames, axes, flips and the import frame)."""
    from newton_gym.sim.kinematics import eval_fk

    state = model.state()
    eval_fk(model, model.joint_q, model.joint_qd, state)
    got, want = state.body_q.numpy(), model.body_q.numpy()
    np.testing.assert_allclose(got[:, :3], want[:, :3], atol=atol)
    dots = np.abs(np.sum(got[:, 3:] * want[:, 3:], axis=1))
    np.testing.assert_allclose(dots, 1.0, atol=atol)
