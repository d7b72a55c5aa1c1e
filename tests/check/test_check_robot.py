"""``newton_gym.check`` and ``newton-gym check`` on small MJCF files written here: a pendulum that must
match MuJoCo C, the pendulum held up by a fixed tendon (converted: it matches too), by a tendon wrapping a
cylinder that the converter skips (named in the report; the model then differs from MuJoCo), a malformed
and a missing file (a clear verdict or usage error, no traceback), and the verdict rule and warning
grouping on hand-made results."""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco")
pytest.importorskip("pxr")

from newton_gym.check import BodyError, CheckResult, check_robot, format_report  # noqa: E402
from newton_gym.check.result import group_warnings  # noqa: E402
from newton_gym.cli import main  # noqa: E402

# Released horizontal: the hinge sits 0.3 m from the body origin, so the origin (what the check compares)
# swings through about a metre; the welded bob is a second body to match by name.
PENDULUM = """<mujoco model="pendulum">
  <option timestep="0.002"/>
  <worldbody>
    <body name="pole" pos="0.3 0 1">
      <joint name="hinge" type="hinge" pos="-0.3 0 0" axis="0 1 0" damping="0.01"/>
      <geom type="capsule" fromto="-0.3 0 0 0 0 0" size="0.02" mass="0.5"/>
      <body name="bob" pos="0.05 0 0"><geom type="sphere" size="0.05" mass="1"/></body>
    </body>
  </worldbody>
</mujoco>"""

# The same pendulum held up by a stiff fixed tendon on its hinge, which the converter writes: both hold it
# near horizontal.
FIXED_TENDON = PENDULUM.replace(
    "</worldbody>",
    '</worldbody>\n  <tendon><fixed name="holder" stiffness="2000"><joint joint="hinge" coef="1"/></fixed></tendon>',
)
# Held up instead by a stiff spatial tendon from a site above to the pole, wrapping a cylinder, which the
# converter skips (wrapping is not simulated): MuJoCo holds it near horizontal, ours swings.
TENDON = PENDULUM.replace('<body name="bob"', '<site name="tip"/>\n      <body name="bob"').replace(
    "</worldbody>",
    '  <site name="top" pos="0.3 0 1.6"/>\n    <geom name="drum" type="cylinder" pos="0.15 0 1.3" size="0.03 0.05" '
    'zaxis="0 1 0" contype="0" conaffinity="0"/>\n  </worldbody>\n  <tendon><spatial name="holder" '
    'stiffness="2000"><site site="top"/><geom geom="drum"/><site site="tip"/></spatial></tendon>',
)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("check")
    paths = {}
    for name, text in (
        ("pendulum", PENDULUM),
        ("fixed_tendon", FIXED_TENDON),
        ("tendon", TENDON),
        ("malformed", PENDULUM[:-40]),
    ):
        paths[name] = folder / f"{name}.xml"
        paths[name].write_text(text)
    return paths


@pytest.fixture(scope="module")
def pendulum(files):
    return check_robot(str(files["pendulum"]))


def test_pendulum_matches_mujoco(pendulum):
    assert pendulum.verdict == "works", format_report(pendulum)
    assert {b.name for b in pendulum.bodies} == {"pole", "bob"}
    assert pendulum.full_mm < 1.0 and pendulum.half_mm < 1.0
    assert pendulum.start_mm < 1e-3
    assert pendulum.finite and pendulum.replica_mm == 0.0
    assert pendulum.dt == pytest.approx(0.002) and pendulum.warnings == []
    assert pendulum.build_s > 0.0 and pendulum.build4_s > 0.0


def test_pendulum_really_swings(files):
    """The bodies compared move by decimetres in MuJoCo, so a millimetre match is evidence."""
    import mujoco

    m = mujoco.MjModel.from_xml_path(str(files["pendulum"]))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    start = d.xpos[1:].copy()
    mujoco.mj_step(m, d, nstep=250)
    mujoco.mj_kinematics(m, d)
    assert (abs(d.xpos[1:] - start).max(axis=1) > 0.2).all()


def test_without_mujoco_it_only_runs(files):
    result = check_robot(str(files["pendulum"]), mujoco=False)
    assert result.finite and not result.compared and not result.bodies
    assert result.verdict == "runs (not compared with MuJoCo: --no-mujoco given)"


def test_report_lists_bodies_and_verdict(pendulum):
    report = format_report(pendulum)
    assert "body position error against MuJoCo C" in report
    assert report.splitlines()[-1] == "verdict: works"
    assert "construction (finalize + SolverGeneralized)" in report


def test_fixed_tendon_is_converted_and_matches(files):
    result = check_robot(str(files["fixed_tendon"]))
    report = format_report(result)
    assert not any("holder" in w for w in result.warnings), result.warnings
    assert result.verdict == "works", report


def test_skipped_wrapping_tendon_is_named_and_differs(files):
    result = check_robot(str(files["tendon"]))
    report = format_report(result)
    skipped = "spatial tendon 'holder' holds wrapping cylinder geom 'drum'"
    assert any(skipped in w for w in result.warnings), result.warnings
    assert skipped in report and "not simulated" in report
    assert result.verdict == "differs", report
    assert result.sensitivity_mm < 1.0  # MuJoCo is not chaotic here: the difference is the tendon


def test_malformed_file_fails_at_convert(files):
    result = check_robot(str(files["malformed"]))
    assert result.stage == "convert"
    assert result.verdict.startswith("fails at convert: ") and "malformed.xml" in result.verdict


def test_cli_exit_codes(files, tmp_path, capsys):
    assert main(["check", str(files["pendulum"])]) == 0
    assert capsys.readouterr().out.rstrip().endswith("verdict: works")
    assert main(["check", str(files["malformed"])]) == 1
    out, err = capsys.readouterr()
    assert "verdict: fails at convert" in out and "malformed.xml" in out and "Traceback" not in out + err
    assert main(["check", str(tmp_path / "missing.xml")]) == 2
    out, err = capsys.readouterr()
    assert "missing.xml: no such file" in err and "Traceback" not in out + err
    assert main(["check", str(files["pendulum"]), "--no-mujoco", "--seconds", "0.1"]) == 0
    assert main(["check", str(files["pendulum"]), "--seconds", "0"]) == 2


def test_check_of_a_missing_file_names_it(tmp_path):
    result = check_robot(str(tmp_path / "nothere.urdf"))
    assert result.verdict == f"fails at convert: {tmp_path / 'nothere.urdf'}: file does not exist"


def test_usd_is_checked_without_mujoco(files, tmp_path):
    check_robot(str(files["pendulum"]), out_dir=str(tmp_path))
    result = check_robot(str(tmp_path / "pendulum.usd"))
    assert result.kind == "usd" and result.finite
    assert result.verdict == "runs (not compared with MuJoCo: it does not read USD files)"


def _result(half, full, sensitivity):
    return CheckResult(path="/m.xml", compared=True, bodies=[BodyError("b", 0.0, half, full, sensitivity)])


@pytest.mark.parametrize(
    "half, full, sensitivity, verdict",
    [
        (4.9, 19.9, 0.0, "works"),
        (5.1, 1.0, 0.0, "differs"),
        (1.0, 20.1, 19.9, "differs"),
        (1.0, 20.1, 20.1, "chaotic (MuJoCo itself diverges)"),
        (1.0, 1.0, 500.0, "works"),
    ],
)
def test_verdict_rule(half, full, sensitivity, verdict):
    assert _result(half, full, sensitivity).verdict == verdict


def test_verdict_counts_mujocos_own_divergence_at_half_the_run():
    """The a1 case: 19 mm off at half the run and 12 mm at the end, where MuJoCo nudged by 1e-7 moves as much
    (its mirror-symmetric rear legs sit at an exact face tie): chaotic, not differs."""
    body = BodyError("RL_calf", 0.0, 19.1, 12.1, 12.1, 19.1)
    assert CheckResult(path="/m.xml", compared=True, bodies=[body]).verdict == "chaotic (MuJoCo itself diverges)"
    body = BodyError("RL_calf", 0.0, 19.1, 12.1, 12.1, 4.9)
    assert CheckResult(path="/m.xml", compared=True, bodies=[body]).verdict == "differs"


def test_failed_stage_wins_and_exit_status():
    failed = CheckResult(path="/m.xml", stage="step", error="body poses are not finite after 0.1 s (50 steps)")
    assert failed.verdict == "fails at step: body poses are not finite after 0.1 s (50 steps)"
    assert not failed.ok and _result(1.0, 30.0, 30.0).ok and not _result(6.0, 1.0, 0.0).ok


def test_warnings_naming_one_element_each_are_grouped():
    lines = group_warnings(
        [
            "AssetWarning: /a/robot.xml:12: <sensor name='gyro'> dropped: sensors are not written",
            "AssetWarning: /a/robot.xml:13: <sensor name='accel'> dropped: sensors are not written",
            "AssetWarning: /a/robot.xml: <option density=5 viscosity=0> not simulated: no fluid forces",
        ]
    )
    assert lines == [
        "AssetWarning: <sensor name=*> dropped: sensors are not written (x2: 'gyro', 'accel')",
        "AssetWarning: <option density=5 viscosity=0> not simulated: no fluid forces",
    ]


def test_solver_option_takes_the_joints_limit_parameters_not_the_tendons():
    """Tendon prims carry mjc:solreflimit too, but the solver keeps theirs per tendon: two tendons must not
    outvote the one joint, nor be named as joints left out."""
    import warnings

    from newton_gym.check.ours import solver_option

    limits = {"mjc:solreflimit": [0.03, 0.9], "mjc:solimplimit": [0.8, 0.9, 0.002, 0.4, 3.0]}
    defaults = {"mjc:solreflimit": [0.02, 1.0], "mjc:solimplimit": [0.9, 0.95, 0.001, 0.5, 2.0]}
    result = {
        "schema_attrs": {"mjc": {"/r/joints/hinge": limits, "/r/tendons/a": defaults, "/r/tendons/b": defaults}},
        "path_tendon_map": {"/r/tendons/a": 0, "/r/tendons/b": 1},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        option = solver_option(result)
    assert option.limit_solref == (0.03, 0.9) and option.limit_solimp == (0.8, 0.9, 0.002, 0.4, 3.0)
