"""Importer fuzz: mutated USD, MJCF and URDF inputs (tests/fuzz/mutate.py, seed 14) each import or raise a
NewtonGymError; a failed add_usd leaves the builder as it was; a model that imports holds only finite
floats. ``scripts/fuzz_inputs.py`` runs the same cases, more of them, with a table of the outcomes.

Below the fuzz cases: the inputs the fuzz found, kept as regression tests.
"""

import math
import warnings

import pytest

pytest.importorskip("pxr")
pytest.importorskip("mujoco")

from harness import busy_builder, nonfinite_fields, run_case  # noqa: E402
from mutate import make_case  # noqa: E402
from seeds import KINDS, USD_HEADER  # noqa: E402
from usd_helpers import fingerprint  # noqa: E402  (on sys.path through harness)

import newton_gym as ng  # noqa: E402
from newton_gym.errors import ImportFailedError, ModelBuildError  # noqa: E402

SEED = 14
COUNT = 450  # 150 per kind; about 12 s on two cores


@pytest.mark.parametrize("index", range(COUNT), ids=lambda i: f"{KINDS[i % len(KINDS)]}-{i:04d}")
def test_fuzz_case(index, tmp_path, monkeypatch):
    """Imports cleanly (finite model) or fails with a NewtonGymError, the builder unchanged."""
    monkeypatch.chdir(tmp_path)  # MuJoCo writes MUJOCO_LOG.TXT into the working folder
    case = make_case(SEED, index)
    outcome = run_case(case, str(tmp_path))
    assert outcome.status in ("imported", "rejected"), f"{case.describe()}\n{outcome.report()}"


def test_cases_are_deterministic():
    """The same (seed, index) gives the same bytes; the CI range covers every mutation family."""
    a, b = make_case(SEED, 7), make_case(SEED, 7)
    assert (a.data, a.extra, a.filename, a.mutations) == (b.data, b.extra, b.filename, b.mutations)
    words = " ".join(m for i in range(COUNT) for m in make_case(SEED, i).mutations)
    for family in (
        "number",
        "wrong type",
        "unknown",
        "broken reference",
        "deleted",
        "duplicated",
        "side file",
        "extension",
        "truncated",
        "invalid utf-8",
        "empty file",
    ):
        assert family in words, family


# ---------------------------------------------------------------------------------------------------------
# Regression inputs. Each was a "silent acceptance" before the fix: it imported, and the model held inf.

_TWO_BODIES = (
    USD_HEADER
    + """
def Xform "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = {mass}
    float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
    def Sphere "s" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {{
        double radius = 0.1
        {shape}
    }}
}}
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
}}
def PhysicsRevoluteJoint "j"
{{
    rel physics:body0 = </a>
    rel physics:body1 = </b>
    {joint}
}}
"""
)


def _stage(tmp_path, text):
    path = tmp_path / "stage.usda"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "shape, joint, where",
    [
        # fuzz usd-0117 (ant.usda, mjc:gap = inf): margin and gap were inf in the model
        ("custom uniform double mjc:gap = inf", "", "/a/s: attribute mjc:gap"),
        ("custom uniform double mjc:margin = -1e39", "", "/a/s: attribute mjc:margin"),
        ("custom uniform double[] mjc:solref = [0.02, 1e300]", "", "/a/s: attribute mjc:solref"),
        # fuzz usd-0027 (inverted_pendulum.usda, mjc:stiffness = 1e39): spring stiffness inf
        ("", "custom uniform double mjc:stiffness = 1e39", "/j: attribute mjc:stiffness"),
        # fuzz usd-0624 (ant.usda, mjc:damping = -1e39): damping -inf
        ("", "custom uniform double mjc:damping = -1e39", "/j: attribute mjc:damping"),
        # a finite time constant the transformation turns into an infinite stiffness (1 / 1e-45^2)
        ("", "custom uniform double[] mjc:solreflimit = [1e-45, 1]", "/j: attribute mjc:solreflimit"),
        ("", "float newton:armature = inf", "/j: attribute newton:armature"),
    ],
)
def test_resolved_values_beyond_float32_fail_naming_the_attribute(tmp_path, shape, joint, where):
    path = _stage(tmp_path, _TWO_BODIES.format(mass=1, shape=shape, joint=joint))
    builder = busy_builder()
    before = fingerprint(builder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ImportFailedError, match="beyond float32") as info:
            builder.add_usd(path)
    assert where in str(info.value) and path in str(info.value)
    assert fingerprint(builder) == before


@pytest.mark.parametrize(
    "edit, match",
    [
        # fuzz usd-1185 (ref.usda, kilogramsPerUnit = 1e39): finite units whose product overflows float32
        (("kilogramsPerUnit = 1", "kilogramsPerUnit = 1e39"), r"body /a: mass 2e\+39"),
        # a positive mass whose inverse float32 cannot hold
        (("physics:mass = 2", "physics:mass = 1e-45"), "body /a: inverse mass"),
    ],
)
def test_values_beyond_float32_after_import_fail_at_finalize(tmp_path, edit, match):
    text = _TWO_BODIES.format(mass=2, shape="", joint="").replace(*edit)
    builder = ng.ModelBuilder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        builder.add_usd(_stage(tmp_path, text))
    with pytest.raises(ModelBuildError, match=match):
        builder.finalize("cpu")


def test_finalize_refuses_nan_and_overflow_but_keeps_infinite_limits():
    """The builder API: NaN or beyond-float32 values in any float field fail at finalize, naming the
    entity; +-inf joint limits stay the documented 'unlimited'."""
    b = ng.ModelBuilder()
    body = b.add_link(mass=1.0, inertia=(0.01, 0.01, 0.01), key="link")
    b.add_shape_sphere(body, radius=0.1)
    j = b.add_joint_revolute(-1, body, key="hinge")
    dof = int(b.tables["joint"].value("qd_start", j))
    b.tables["dof"].set("limit_lower", dof, -math.inf)
    b.tables["dof"].set("limit_upper", dof, math.inf)
    model = b.finalize("cpu")
    assert nonfinite_fields(model) == ["joint_limit_lower", "joint_limit_upper"]
    b.tables["dof"].set("damping", dof, 1e39)
    with pytest.raises(ModelBuildError, match="joint hinge DOF 0: damping 1e"):
        b.finalize("cpu")
    b.tables["dof"].set("damping", dof, 0.0)
    b.tables["shape"].set("gap", 0, math.nan)
    with pytest.raises(ModelBuildError, match="shape .*gap nan"):
        b.finalize("cpu")
