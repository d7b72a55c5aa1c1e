"""Fixtures of the USD import tests: writing inline .usda text whose right answer is known."""

import textwrap
import warnings

import numpy as np
import pytest

pytest.importorskip("pxr")

#: Stage metadata of a metre, Z-up stage.
HEADER = '#usda 1.0\n(\n    metersPerUnit = 1\n    kilogramsPerUnit = 1\n    upAxis = "Z"\n)\n'


@pytest.fixture
def write_usda(tmp_path):
    """write_usda(text, name="stage.usda") -> path of a file holding the dedented text."""
    def write(text, name="stage.usda"):
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return str(path)
    return write


@pytest.fixture
def quiet():
    """Silence UsdImportWarnings for tests that do not check them."""
    from newton_gym.usd import UsdImportWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        yield


def fingerprint(builder) -> dict:
    """Everything add_usd may change on a builder, as comparable plain values."""
    out = {"gravity": builder.gravity, "meshes": len(builder.meshes),
           "pairs": sorted(builder.shape_collision_filter_pairs), "world": builder.current_world,
           "world_count": builder.world_count}
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
