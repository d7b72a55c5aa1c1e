"""SceneServer and Viewer without a browser: the viser nodes hold the scene's meshes, poses and colours."""

import os
import shutil
import time

import numpy as np
import pytest
from view_helpers import random_body_q

pytest.importorskip("viser", reason="the viewer needs viser (pip install 'newton-gym[view]')")

from newton_gym.errors import ConfigError, ViewError  # noqa: E402
from newton_gym.view import SceneServer, Viewer, ViewScene  # noqa: E402
from newton_gym.view.policy import PolicyFollower, newest_checkpoint  # noqa: E402
from newton_gym.view.server import DIM  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POLICIES = os.path.join(ROOT, "newton_gym", "assets", "policies")


@pytest.fixture
def served(shapes_model):
    view = SceneServer(ViewScene(shapes_model, spacing=3.0), port=0)
    yield view
    view.close()


def test_nodes_mirror_the_batches_and_follow_update(served, shapes_model):
    scene = served.scene
    assert served.url.startswith("http://127.0.0.1:") and served.server.get_port() > 0
    assert [h.name for h in served.handles] == [b.name for b in scene.batches]
    for handle, batch in zip(served.handles, scene.batches):
        np.testing.assert_array_equal(handle.vertices, batch.vertices)
        np.testing.assert_array_equal(handle.faces, batch.faces)
    body_q = random_body_q(shapes_model, seed=2)
    served.update(body_q)
    for handle, (position, wxyz) in zip(served.handles, scene.poses(body_q)):
        np.testing.assert_allclose(handle.batched_positions, position, atol=1e-6)
        np.testing.assert_allclose(handle.batched_wxyzs, wxyz, atol=1e-6)


def test_highlight_greys_the_other_worlds(served):
    served.highlight(1)
    for handle, batch in zip(served.handles, served.scene.batches):
        own = np.round(batch.color * 255).astype(int)
        got = np.asarray(handle.batched_colors, dtype=int)
        keep = (batch.world < 0) | (batch.world == 1)
        np.testing.assert_allclose(got[keep], own[keep], atol=1)
        grey = np.round((DIM * batch.color + (1 - DIM) * 0.85) * 255).astype(int)
        np.testing.assert_allclose(got[~keep], grey[~keep], atol=1)
    served.highlight(None)
    for handle, batch in zip(served.handles, served.scene.batches):
        np.testing.assert_allclose(np.asarray(handle.batched_colors, dtype=int), np.round(batch.color * 255), atol=1)
    with pytest.raises(ViewError, match=r"world must be an int in \[0, 1\]"):
        served.highlight(2)


def test_viewer_steps_the_task_and_moves_the_nodes():
    viewer = Viewer("Newton/Ant-v0", num_envs=2, port=0, log=lambda line: None)
    try:
        assert viewer.policy.source == "zero actions"
        before = [np.array(h.batched_positions) for h in viewer.view.handles]
        viewer.run(max_steps=3)  # real time: 3 control steps of 0.05 s
        assert viewer.steps == 3
        after = [np.array(h.batched_positions) for h in viewer.view.handles]
        assert any(np.abs(a - b).max() > 1e-4 for a, b in zip(after, before))
        np.testing.assert_allclose(after[-1], viewer.view.scene.poses(viewer.body_q)[-1][0])
    finally:
        viewer.close()


def test_viewer_runs_a_checkpoint_policy_and_checks_its_size():
    viewer = Viewer(num_envs=1, checkpoint=os.path.join(POLICIES, "ant_newton.pt"), port=0, log=lambda line: None)
    try:
        assert viewer.task == "Newton/Ant-v0"  # taken from the checkpoint
        actions = viewer.policy.act(viewer.obs)
        assert actions.shape == (1, 8) and actions.abs().sum() > 0
        viewer.step()
    finally:
        viewer.close()
    with pytest.raises(ConfigError, match="acts with 12 actions"):
        Viewer("Newton/Ant-v0", num_envs=1, checkpoint=os.path.join(POLICIES, "go1_newton.pt"), port=0)


def test_follow_loads_the_newest_checkpoint(tmp_path):
    with pytest.raises(ViewError, match="does not exist"):
        newest_checkpoint(str(tmp_path / "missing"))
    assert newest_checkpoint(str(tmp_path)) is None
    lines = []
    follower = PolicyFollower(str(tmp_path), log=lines.append)
    assert follower.poll() is None
    (tmp_path / "checkpoints").mkdir()
    first = shutil.copy(os.path.join(POLICIES, "ant_newton.pt"), tmp_path / "checkpoints" / "agent_1.pt")
    loaded = follower.poll()
    assert loaded is not None and loaded.source == str(first) and loaded.meta["task"] == "Newton/Ant-v0"
    assert follower.poll() is None  # unchanged: nothing to reload
    (tmp_path / "model_2.pt").write_bytes(b"not a checkpoint")
    os.utime(tmp_path / "model_2.pt", (time.time() + 5, time.time() + 5))
    assert follower.poll() is None and "cannot load" in lines[-1]  # reported once, the old policy stays
    assert follower.current is loaded


def test_cli_view_serves_and_exits(capsys):
    from newton_gym.cli import main

    assert main(["view", "--task", "Newton/Ant-v0", "--num-envs", "1", "--port", "0", "--max-steps", "2"]) == 0
    out = capsys.readouterr().out
    assert "open http://127.0.0.1:" in out and "zero actions" in out
    assert main(["view", "--num-envs", "0", "--port", "0"]) == 2
    assert "num_envs must be an int >= 1" in capsys.readouterr().out


def test_viewer_follows_a_run_and_reloads_newer_checkpoints(tmp_path):
    first = shutil.copy(os.path.join(POLICIES, "ant_newton.pt"), tmp_path / "model_1.pt")
    lines = []
    viewer = Viewer(num_envs=1, follow=str(tmp_path), port=0, follow_every=0.0, log=lines.append)
    try:
        assert viewer.task == "Newton/Ant-v0" and viewer.policy.source == str(first)
        second = shutil.copy(first, tmp_path / "model_2.pt")
        os.utime(second, (time.time() + 5, time.time() + 5))
        viewer.run(max_steps=1)
        assert viewer.policy.source == str(second) and lines[-1].endswith(f"policy from {second}")
        # a checkpoint of another task is reported and skipped: the Ant policy keeps acting
        third = shutil.copy(os.path.join(POLICIES, "go1_newton.pt"), tmp_path / "model_3.pt")
        os.utime(third, (time.time() + 10, time.time() + 10))
        viewer.run(max_steps=2)
        assert viewer.policy.source == str(second) and "acts with 12 actions" in lines[-1]
    finally:
        viewer.close()
