"""Lazy conversion: reuse when nothing changed; regenerate when the asset, a referenced or included
file, or the configuration changed; atomic under concurrent conversions."""

from __future__ import annotations

import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

pytest.importorskip("mujoco")
trimesh = pytest.importorskip("trimesh")
from usd_readback import open_stage  # noqa: E402

from newton_gym.assets import MjcfConverter, MjcfConverterCfg, UrdfConverter, UrdfConverterCfg  # noqa: E402
from newton_gym.assets.robots import robot_source_path  # noqa: E402

MJCF_WITH_MESH = """<mujoco model="meshy">
  <include file="parts/assets.xml"/>
  <worldbody><body name="b"><freejoint/><geom type="mesh" mesh="blob"/></body></worldbody>
</mujoco>"""
INCLUDED = """<mujoco><compiler meshdir="meshes"/><asset><mesh name="blob" file="blob.stl"/></asset></mujoco>"""


@pytest.fixture()
def meshy(tmp_path):
    (tmp_path / "parts").mkdir()
    (tmp_path / "meshes").mkdir()
    (tmp_path / "parts" / "assets.xml").write_text(INCLUDED)
    trimesh.creation.box((0.1, 0.2, 0.3)).export(str(tmp_path / "meshes" / "blob.stl"))
    xml = tmp_path / "meshy.xml"
    xml.write_text(MJCF_WITH_MESH)
    return tmp_path


def mjcf(xml, out, **kwargs):
    return MjcfConverter(MjcfConverterCfg(asset_path=str(xml), usd_dir=str(out), **kwargs))


def test_unchanged_asset_is_not_reconverted(tmp_path):
    first = mjcf(robot_source_path("ant"), tmp_path)
    assert first.converted
    stamp = os.stat(first.usd_path).st_mtime_ns
    again = mjcf(robot_source_path("ant"), tmp_path)
    assert not again.converted
    assert os.stat(again.usd_path).st_mtime_ns == stamp
    assert mjcf(robot_source_path("ant"), tmp_path, force_usd_conversion=True).converted


def test_asset_change_reconverts(tmp_path):
    xml = tmp_path / "ant.xml"
    shutil.copy(robot_source_path("ant"), xml)
    assert mjcf(xml, tmp_path / "out").converted
    xml.write_text(xml.read_text().replace('gear="150"', 'gear="151"', 1))
    assert mjcf(xml, tmp_path / "out").converted


def test_config_change_reconverts_but_locations_do_not(tmp_path):
    assert mjcf(robot_source_path("ant"), tmp_path).converted
    assert mjcf(robot_source_path("ant"), tmp_path, fix_base=True).converted
    assert not mjcf(robot_source_path("ant"), tmp_path, fix_base=True).converted
    # The same bytes under another path, converted to the same output: nothing to do.
    copy = tmp_path / "elsewhere" / "ant.xml"
    copy.parent.mkdir()
    shutil.copy(robot_source_path("ant"), copy)
    assert not mjcf(copy, tmp_path, fix_base=True).converted


def test_referenced_mesh_and_included_file_changes_reconvert(meshy):
    out = meshy / "out"
    assert mjcf(meshy / "meshy.xml", out).converted
    assert not mjcf(meshy / "meshy.xml", out).converted
    trimesh.creation.box((0.1, 0.2, 0.4)).export(str(meshy / "meshes" / "blob.stl"))
    conv = mjcf(meshy / "meshy.xml", out)
    assert conv.converted
    (meshy / "parts" / "assets.xml").write_text(INCLUDED.replace("<asset>", "<asset><!-- edited -->"))
    assert mjcf(meshy / "meshy.xml", out).converted
    assert not mjcf(meshy / "meshy.xml", out).converted


def test_missing_usd_or_mesh_layer_reconverts(meshy):
    out = meshy / "out"
    conv = mjcf(meshy / "meshy.xml", out)
    os.remove(os.path.join(conv.usd_dir, conv.usd_instanceable_meshes_path))
    assert mjcf(meshy / "meshy.xml", out).converted
    os.remove(conv.usd_path)
    assert mjcf(meshy / "meshy.xml", out).converted


def test_urdf_mesh_change_reconverts(tmp_path):
    trimesh.creation.box((0.1, 0.1, 0.1)).export(str(tmp_path / "m.stl"))
    urdf = tmp_path / "r.urdf"
    urdf.write_text(
        '<robot name="r"><link name="a"><collision><geometry><mesh filename="m.stl"/>'
        "</geometry></collision></link></robot>"
    )
    cfg = UrdfConverterCfg(asset_path=str(urdf), usd_dir=str(tmp_path / "out"))
    assert UrdfConverter(cfg).converted
    assert not UrdfConverter(cfg).converted
    trimesh.creation.box((0.1, 0.1, 0.2)).export(str(tmp_path / "m.stl"))
    assert UrdfConverter(cfg).converted


def test_output_names_and_default_folder():
    conv = MjcfConverter(MjcfConverterCfg(asset_path=robot_source_path("inverted_pendulum")))
    try:
        assert conv.usd_file_name == "inverted_pendulum.usd"
        assert re.fullmatch(r"usd_\d{8}_\d{6}_[0-9a-f]{8}", os.path.basename(conv.usd_dir))
        assert os.path.dirname(conv.usd_dir) == os.path.join(tempfile.gettempdir(), "newton_gym")
        assert os.path.isfile(conv.usd_path) and conv.usd_instanceable_meshes_path.startswith("Props/")
        second = MjcfConverter(MjcfConverterCfg(asset_path=robot_source_path("inverted_pendulum")))
        assert second.usd_dir != conv.usd_dir and second.converted
        shutil.rmtree(second.usd_dir)
    finally:
        shutil.rmtree(conv.usd_dir)


@pytest.mark.parametrize(
    "given, expected",
    [("robot", "robot.usd"), ("robot.usda", "robot.usda"), ("robot.usd", "robot.usd"), ("robot.v2", "robot.v2.usd")],
)
def test_usd_file_name_resolution(tmp_path, given, expected):
    conv = mjcf(robot_source_path("inverted_pendulum"), tmp_path, usd_file_name=given)
    assert conv.usd_file_name == expected and os.path.isfile(conv.usd_path)


def _convert_in_child(xml, out, rounds, barrier, results):
    """Runs in a fresh process: waits for the others, then converts (forced) and reads the result back
    several times; reports the hash and the sizes of the main and mesh layers it read."""
    from pxr import Sdf

    from newton_gym.assets import MjcfConverter, MjcfConverterCfg

    barrier.wait()
    sizes = []
    try:
        for _ in range(rounds):
            conv = MjcfConverter(
                MjcfConverterCfg(asset_path=xml, usd_dir=out, usd_file_name="meshy.usda", force_usd_conversion=True)
            )
            main = Sdf.Layer.OpenAsAnonymous(conv.usd_path)  # must always be complete
            meshes = Sdf.Layer.OpenAsAnonymous(os.path.join(out, conv.usd_instanceable_meshes_path))
            sizes.append((len(main.ExportToString()), len(meshes.ExportToString())))
        results.put((conv.asset_hash, sizes))
    except Exception as exc:  # noqa: BLE001  (reported to the parent)
        results.put((repr(exc), sizes))


def test_concurrent_processes_leave_one_valid_usd(meshy):
    """4 processes converting the same asset at once: every read sees a complete main layer whose mesh
    layer exists, and one valid USD (and no staging folder) remains."""
    out = str(meshy / "shared")
    xml = str(meshy / "meshy.xml")
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(4), ctx.Queue()
    workers = [ctx.Process(target=_convert_in_child, args=(xml, out, 8, barrier, results)) for _ in range(4)]
    for worker in workers:
        worker.start()
    reports = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    hashes = {h for h, _ in reports}
    sizes = {s for _, ss in reports for s in ss}
    assert len(hashes) == 1 and len(sizes) == 1, reports
    assert sorted(os.listdir(out)) == ["Props", "meshy.usda"]  # no staging folders left behind
    stage = open_stage(os.path.join(out, "meshy.usda"))
    assert len(stage.GetPrimAtPath("/meshy/b/geom_0").GetAttribute("points").Get()) == 8
    assert not mjcf(xml, out, usd_file_name="meshy.usda").converted


_REWRITER = """
import os, sys, time
path, a, b, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
texts = [open(a).read(), open(b).read()]
stop, i = time.monotonic() + seconds, 0
while time.monotonic() < stop:
    with open(path + ".tmp", "w") as stream:
        stream.write(texts[i % 2])
    os.replace(path + ".tmp", path)
    i += 1
"""


def _mjcf_with_mass(mass: float) -> str:
    return (
        f'<mujoco model="m"><worldbody><body name="b"><freejoint/>'
        f'<geom type="sphere" size="0.1" mass="{mass}"/></body></worldbody></mujoco>'
    )


def _stored_hash_and_mass(usd_path: str) -> tuple[str, float]:
    text = open(usd_path).read()
    stored = re.search(r'assetHash = "([0-9a-f]+)"', text).group(1)
    return stored, float(re.search(r"float physics:mass = ([0-9.e+-]+)", text).group(1))


def test_source_rewritten_during_conversions_never_leaves_a_stale_cache(tmp_path):
    """Another process rewrites the MJCF between two contents (1 kg / 2 kg body) as fast as it can while
    this one converts it again and again: every USD written must carry the hash of the very bytes it
    was made from, so that once the rewriting stops the cache always converges to the final source.
    (Hashing the source apart from the bytes that were parsed left a stale cache in ~1 % of runs.)"""
    hash_of = {}
    for mass in (1.0, 2.0):
        folder = tmp_path / f"m{int(mass)}"
        folder.mkdir()
        (folder / "robot.xml").write_text(_mjcf_with_mass(mass))
        conv = mjcf(folder / "robot.xml", folder / "out", usd_file_name="robot.usda")
        stored, read_mass = _stored_hash_and_mass(conv.usd_path)
        assert stored == conv.asset_hash and read_mass == mass
        hash_of[mass] = stored
    live = tmp_path / "live"
    live.mkdir()
    source = live / "robot.xml"
    source.write_text(_mjcf_with_mass(1.0))
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _REWRITER,
            str(source),
            str(tmp_path / "m1" / "robot.xml"),
            str(tmp_path / "m2" / "robot.xml"),
            "3.0",
        ]
    )
    seen = set()
    try:
        while writer.poll() is None:
            conv = mjcf(source, live / "out", usd_file_name="robot.usda", force_usd_conversion=True)
            stored, mass = _stored_hash_and_mass(conv.usd_path)
            assert stored == hash_of[mass], f"USD made from the {mass} kg source carries another source's hash"
            seen.add(mass)
    finally:
        writer.wait(timeout=30)
    assert seen == {1.0, 2.0}, "the rewrites never reached a conversion; the test did not exercise the race"
    final = source.read_text()
    conv = mjcf(source, live / "out", usd_file_name="robot.usda")
    assert _stored_hash_and_mass(conv.usd_path)[1] == (1.0 if 'mass="1.0"' in final else 2.0)
