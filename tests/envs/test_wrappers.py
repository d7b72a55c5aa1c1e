"""Gymnasium's vector wrappers over newton_gym: the three autoreset modes of the torch env and the numpy adapter,
Gymnasium's own wrappers over the numpy adapter, newton_gym.wrappers (their torch equivalents) over the torch env,
and the errors for a bad num_envs, device or single-env action.

Every test runs Cartpole with 3 worlds and 4-step episodes: world 0 is pushed over (its pole falls in 2 steps, a
termination with reward 0), worlds 1 and 2 run to the step limit, so episodes end at different steps.
"""

from __future__ import annotations

import copy
import os
import sys
import types

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode
from PIL import Image

import newton_gym  # noqa: F401  (registers the ids)
from newton_gym import wrappers
from newton_gym.envs.step_graph import StepGraph
from newton_gym.errors import ConfigError, EnvError, NewtonGymError, WrapperError
from newton_gym.interop import make_numpy_vec

TASK = "Newton/Cartpole-v0"
N = 3
LIMIT = 4  # max_episode_steps
MODES = [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED]
PUSH = np.array([[3.0], [0.0], [-0.5]], np.float32)
EPS = 1e-4  # the count a RunningMeanStd starts from


def _torch_env(mode, **kwargs):
    return gym.make_vec(TASK, num_envs=N, device="cpu", max_episode_steps=LIMIT, autoreset_mode=mode, **kwargs)


def _numpy_env(mode, **kwargs):
    return make_numpy_vec(TASK, num_envs=N, max_episode_steps=LIMIT, autoreset_mode=mode, **kwargs)


def _np(x):
    return x.detach().cpu().numpy() if torch.is_tensor(x) else np.asarray(x)


def _reset_ended(envs, mode, terminated, truncated) -> bool:
    """Under DISABLED, reset the worlds that ended (the user's part of that mode); True where it did."""
    done = _np(terminated) | _np(truncated)
    if mode is not AutoresetMode.DISABLED or not done.any():
        return False
    for env in envs:
        env.reset(options={"reset_mask": done})
    return True


def _run(env, mode, steps=10, actions=PUSH):
    """The (obs, reward, terminated, truncated, info) of ``steps`` steps, ended worlds reset under DISABLED. The
    results are copies: Gymnasium's RecordEpisodeStatistics returns its own done mask as ``info["_episode"]``
    and clears it in place on a partial reset."""
    results = []
    for _ in range(steps):
        results.append(copy.deepcopy(env.step(actions)))
        _reset_ended([env], mode, results[-1][2], results[-1][3])
    return results


def _summed_episodes(results, mode) -> np.ndarray:
    """(k, 4) [step, world, return, length] of every episode that ended, summed from the step rewards; under
    NEXT_STEP the step after an end (the reset step) belongs to no episode."""
    ret, length, skip, found = np.zeros(N), np.zeros(N, int), np.zeros(N, bool), []
    for step, (_, reward, terminated, truncated, _) in enumerate(results):
        live = ~skip if mode is AutoresetMode.NEXT_STEP else np.ones(N, bool)
        ret[live] += _np(reward)[live]
        length[live] += 1
        done = _np(terminated) | _np(truncated)
        found += [(step, i, ret[i], length[i]) for i in np.flatnonzero(done)]
        ret[done], length[done], skip = 0.0, 0, done
    return np.array(found, dtype=np.float64)


def _reported_episodes(results, key) -> np.ndarray:
    """(k, 4) [step, world, r, l] of ``info[key]`` in every step, where ``info["_" + key]``."""
    found = []
    for step, (*_, info) in enumerate(results):
        if key in info:
            mask, stats = _np(info[f"_{key}"]), info[key]
            found += [(step, i, _np(stats["r"])[i], _np(stats["l"])[i]) for i in np.flatnonzero(mask)]
    return np.array(found, dtype=np.float64)


def _running_stats(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance a RunningMeanStd (mean 0, variance 1, count EPS to start) holds after ``samples``
    (k, ...), computed in one batch."""
    k = samples.shape[0]
    total = EPS + k
    mean, var = samples.mean(axis=0), samples.var(axis=0)
    return mean * k / total, (EPS + var * k + mean**2 * EPS * k / total) / total


# ------------------------------------------------------------------------------------------ autoreset modes
@pytest.mark.parametrize(
    "value, mode",
    [
        (AutoresetMode.NEXT_STEP, AutoresetMode.NEXT_STEP),
        ("next_step", AutoresetMode.NEXT_STEP),
        ("SameStep", AutoresetMode.SAME_STEP),
        ("DISABLED", AutoresetMode.DISABLED),
    ],
)
def test_autoreset_mode_reaches_metadata(value, mode):
    env = gym.make_vec(TASK, num_envs=2, device="cpu", autoreset_mode=value)
    assert env.metadata["autoreset_mode"] is mode and env.autoreset_mode is mode
    assert type(env).metadata["autoreset_mode"] is AutoresetMode.SAME_STEP  # the class default stays
    assert make_numpy_vec(TASK, num_envs=2, autoreset_mode=value).metadata["autoreset_mode"] is mode


def test_same_step_is_the_default():
    assert gym.make_vec(TASK, num_envs=2, device="cpu").metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert make_numpy_vec(TASK, num_envs=2).metadata["autoreset_mode"] is AutoresetMode.SAME_STEP


def test_bad_autoreset_mode_is_a_config_error():
    with pytest.raises(ConfigError, match="autoreset_mode must be one of .*'later'"):
        gym.make_vec(TASK, num_envs=2, device="cpu", autoreset_mode="later")
    with pytest.raises(ConfigError, match="autoreset_mode is a vector env setting"):
        gym.make(TASK, autoreset_mode="next_step")


@pytest.mark.parametrize("make", [_torch_env, _numpy_env], ids=["torch", "numpy"])
def test_next_step_resets_in_the_step_after_the_end(make):
    """NEXT_STEP: the ending step returns the last observation; the next one ignores the action and returns
    the reset observation (all 0 without reset noise) with reward 0 and neither flag set."""
    env = make(AutoresetMode.NEXT_STEP, reset_noise_scale=0.0)
    env.reset(seed=0)
    actions = np.array([[0.5], [0.5], [0.5]], np.float32)
    for _ in range(LIMIT - 1):
        env.step(actions)
    obs, reward, terminated, truncated, info = env.step(actions)
    assert _np(truncated).all() and "final_obs" not in info and np.abs(_np(obs)).max() > 0.01
    assert _np(info["newton_episode"]["l"]).tolist() == [LIMIT] * N and _np(info["_newton_episode"]).all()
    obs, reward, terminated, truncated, info = env.step(np.array([[3.0], [-3.0], [0.0]], np.float32))
    assert np.abs(_np(obs)).max() == 0.0 and _np(reward).tolist() == [0.0] * N
    assert not _np(terminated).any() and not _np(truncated).any() and "newton_episode" not in info
    assert all(_np(term).tolist() == [0.0] * N for term in info["reward_terms"].values())
    obs, reward, *_ = env.step(actions)
    assert _np(reward).tolist() == [1.0] * N and np.abs(_np(obs)).max() > 0.0
    assert getattr(env, "env", env).episode_length.tolist() == [1] * N  # the reset step began no episode


def test_next_step_partial_reset_drops_the_pending_reset():
    env = _torch_env(AutoresetMode.NEXT_STEP)
    env.reset(seed=0)
    for _ in range(LIMIT):
        _, _, _, truncated, _ = env.step(np.zeros((N, 1), np.float32))
    assert truncated.all()
    env.reset(options={"reset_mask": np.array([True, False, False])})
    _, reward, *_ = env.step(np.zeros((N, 1), np.float32))
    assert reward.tolist() == [1.0, 0.0, 0.0] and env.episode_length.tolist() == [1, 0, 0]


def test_disabled_never_resets_by_itself():
    env = _torch_env(AutoresetMode.DISABLED, reset_noise_scale=0.0)
    env.reset(seed=0)
    for _ in range(LIMIT):
        obs, reward, terminated, truncated, info = env.step(np.full((N, 1), 0.5, np.float32))
    assert truncated.all() and "final_obs" not in info and info["_newton_episode"].all()
    assert env.episode_length.tolist() == [LIMIT] * N and obs.abs().max() > 0.01  # not reset
    assert torch.equal(env.reset(options={"reset_mask": np.zeros(N, bool)})[0], obs)  # the state is the final one
    with pytest.raises(EnvError, match=r"DISABLED and the episodes of worlds \[0, 1, 2\] ended"):
        env.step(np.zeros((N, 1), np.float32))
    obs, _ = env.reset(options={"reset_mask": np.array([True, False, False])})
    assert obs[0].abs().max() == 0.0 and obs[1].abs().max() > 0.01
    with pytest.raises(EnvError, match=r"worlds \[1, 2\]"):
        env.step(np.zeros((N, 1), np.float32))
    env.reset(options={"reset_mask": np.array([False, True, True])})
    _, reward, terminated, truncated, _ = env.step(np.zeros((N, 1), np.float32))
    assert env.episode_length.tolist() == [1] * N and reward.tolist() == [1.0] * N


def test_disabled_sync_free_steps_an_ended_world_on():
    """A sync-free step reads nothing back, so it cannot refuse: an ended world steps on from its final state."""
    env = _torch_env(AutoresetMode.DISABLED, sync_free=True)
    env.reset(seed=0)
    for _ in range(LIMIT + 2):
        _, _, _, truncated, info = env.step(np.zeros((N, 1), np.float32))
    assert truncated.all() and info["newton_episode"]["l"].tolist() == [LIMIT + 2] * N


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_graph_path_equals_the_step_in_every_mode(mode, monkeypatch):
    """What a CUDA graph captures, run eagerly on the CPU, gives bitwise the ordinary sync-free step's results
    and reads nothing back to the host."""
    ref, env = (_torch_env(mode, sync_free=True) for _ in range(2))
    env.step_graph = StepGraph(env, capture=False)
    for e in (ref, env):
        e._clock = iter(np.arange(1000.0, 2000.0, 0.25)).__next__
        e.reset(seed=3)
    for _ in range(9):
        got, want = env.step(PUSH), ref.step(PUSH)
        for a, b in zip(_flat(got), _flat(want), strict=True):
            assert a.dtype == b.dtype and torch.equal(a, b)
        _reset_ended([env, ref], mode, want[2], want[3])
    with monkeypatch.context() as m:
        for name in ("__bool__", "item", "tolist", "cpu", "numpy"):
            m.setattr(torch.Tensor, name, _refuse(name))
        env.step(PUSH)


def _flat(tree):
    if torch.is_tensor(tree):
        return [tree]
    items = sorted(tree.items()) if isinstance(tree, dict) else enumerate(tree)
    return [leaf for _, sub in items for leaf in _flat(sub)]


def _refuse(name):
    def fail(*args, **kwargs):
        raise AssertionError(f"host sync through Tensor.{name}")

    return fail


def test_render_frames_gives_one_frame_per_world():
    env = _torch_env(AutoresetMode.SAME_STEP, render_mode="rgb_array", render_width=16, render_height=12)
    env.reset(seed=0)
    frames = env.render_frames()
    assert len(frames) == N and all(f.shape == (12, 16, 3) and f.dtype == np.uint8 for f in frames)
    np.testing.assert_array_equal(env.render(), frames[0])
    assert env.metadata["render_fps"] == round(1.0 / env.sim.dt)
    numpy_env = _numpy_env(AutoresetMode.SAME_STEP, render_mode="rgb_array", render_width=16, render_height=12)
    numpy_env.reset(seed=0)
    assert isinstance(numpy_env.render(), tuple) and len(numpy_env.render()) == N
    with pytest.raises(ConfigError, match="render_width must be an integer >= 1"):
        _torch_env(AutoresetMode.SAME_STEP, render_width=0)


# ------------------------------------------------------------------------- RecordEpisodeStatistics
@pytest.mark.parametrize("mode", MODES)
def test_gymnasium_record_episode_statistics_over_numpy(mode):
    env = gym.wrappers.vector.RecordEpisodeStatistics(_numpy_env(mode))
    env.reset(seed=0)
    results = _run(env, mode)
    expected = _summed_episodes(results, mode)
    assert len(expected) >= 6 and len(set(expected[:, 3])) > 1  # episodes of different lengths
    np.testing.assert_allclose(_reported_episodes(results, "episode"), expected, rtol=1e-6)
    np.testing.assert_allclose(_reported_episodes(results, "newton_episode"), expected, rtol=1e-6)
    assert list(env.length_queue) == expected[:, 3].tolist()


@pytest.mark.parametrize("mode", MODES)
def test_record_episode_statistics_over_torch(mode):
    env = wrappers.RecordEpisodeStatistics(_torch_env(mode))
    env.reset(seed=0)
    results = _run(env, mode)
    expected = _summed_episodes(results, mode)
    assert len(expected) >= 6 and len(set(expected[:, 3])) > 1
    np.testing.assert_allclose(_reported_episodes(results, "episode"), expected, rtol=1e-6)
    np.testing.assert_allclose(_reported_episodes(results, "newton_episode"), expected, rtol=1e-6)
    assert env.episode_count == len(expected) and list(env.length_queue) == expected[:, 3].tolist()
    np.testing.assert_allclose(list(env.return_queue), expected[:, 2], rtol=1e-6)
    info = next(r[4] for r in results if "episode" in r[4])
    assert torch.is_tensor(info["episode"]["r"]) and (info["episode"]["t"][info["_episode"]] > 0).all()


# ------------------------------------------------------------------------------ NormalizeObservation
def test_gymnasium_normalize_observation_over_numpy_next_step():
    """Gymnasium's NormalizeObservation takes NEXT_STEP envs only (under SAME_STEP final_obs would bypass it)."""
    env = gym.wrappers.vector.NormalizeObservation(_numpy_env(AutoresetMode.NEXT_STEP))
    raw = _numpy_env(AutoresetMode.NEXT_STEP)
    env.reset(seed=0)
    seen = [raw.reset(seed=0)[0]]
    for _ in range(9):
        obs = env.step(PUSH)[0]
        seen.append(raw.step(PUSH)[0])
        mean, var = _running_stats(np.concatenate(seen))
        np.testing.assert_allclose(env.obs_rms.mean, mean, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(obs, (seen[-1] - mean) / np.sqrt(var + 1e-8), rtol=1e-3, atol=1e-3)
    assert np.abs(env.obs_rms.mean).max() > 0.01 and env.obs_rms.count == pytest.approx(EPS + 10 * N)


@pytest.mark.parametrize("mode", MODES)
def test_normalize_observation_over_torch(mode):
    """The running statistics are those of every observation returned (reset rows only, for a partial reset);
    under SAME_STEP the final observations are normalized too."""
    env, raw = wrappers.NormalizeObservation(_torch_env(mode)), _torch_env(mode)
    env.reset(seed=0)
    seen, finals = [raw.reset(seed=0)[0].numpy()], 0
    for _ in range(10):
        obs, _, terminated, truncated, info = env.step(PUSH)
        raw_obs, _, _, _, raw_info = raw.step(PUSH)
        seen.append(raw_obs.numpy())
        mean, var = _running_stats(np.concatenate(seen))
        np.testing.assert_allclose(env.obs_rms.mean.numpy(), mean, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(env.obs_rms.var.numpy(), var, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(obs.numpy(), (seen[-1] - mean) / np.sqrt(var + 1e-8), rtol=1e-4, atol=1e-5)
        if "final_obs" in info:
            done = info["_final_obs"]
            want = (raw_info["final_obs"][done].numpy() - mean) / np.sqrt(var + 1e-8)
            np.testing.assert_allclose(info["final_obs"][done].numpy(), want, rtol=1e-4, atol=1e-5)
            finals += int(done.sum())
        done = (terminated | truncated).numpy()
        if mode is AutoresetMode.DISABLED and done.any():  # the reset rows join the statistics
            env.reset(options={"reset_mask": done})
            seen.append(raw.reset(options={"reset_mask": done})[0].numpy()[done])
    assert np.abs(env.obs_rms.mean.numpy()).max() > 0.01
    assert env.obs_rms.count.item() == pytest.approx(EPS + sum(len(s) for s in seen))
    assert (finals > 0) == (mode is AutoresetMode.SAME_STEP)


# ---------------------------------------------------------------------------------- NormalizeReward
def _check_normalize_reward(env, raw, mode, clears_all_on_reset: bool):
    """Each reward comes back divided by sqrt(var + 1e-8) of the discounted returns G seen so far (a step that
    resets a world under NEXT_STEP neither adds to G nor counts; an ended world's G restarts under SAME_STEP)."""
    env.reset(seed=0)
    raw.reset(seed=0)
    g, prev, samples = np.zeros(N), np.zeros(N, bool), []
    for _ in range(10):
        _, reward, terminated, truncated, _ = env.step(PUSH)
        _, raw_reward, raw_term, raw_trunc, _ = raw.step(PUSH)
        r, term, done = _np(raw_reward), _np(raw_term), _np(raw_term) | _np(raw_trunc)
        active = ~prev if mode is AutoresetMode.NEXT_STEP else np.ones(N, bool)
        g = np.where(active, 0.99 * g * (1 - term) + r, g)
        samples += g[active].tolist()
        _, var = _running_stats(np.array(samples))
        np.testing.assert_allclose(_np(reward), r / np.sqrt(var + 1e-8), rtol=1e-5)
        prev = done
        if mode is AutoresetMode.SAME_STEP:
            g[done] = 0.0
        if _reset_ended([env, raw], mode, terminated, truncated):
            g[np.ones(N, bool) if clears_all_on_reset else done] = 0.0
            prev = np.zeros(N, bool)
    rms = env.return_rms
    assert float(rms.count) == pytest.approx(EPS + len(samples)) and float(rms.var) != pytest.approx(1.0)


@pytest.mark.parametrize("mode", MODES)
def test_gymnasium_normalize_reward_over_numpy(mode):
    env = gym.wrappers.vector.NormalizeReward(_numpy_env(mode))
    _check_normalize_reward(env, _numpy_env(mode), mode, clears_all_on_reset=True)


@pytest.mark.parametrize("mode", MODES)
def test_normalize_reward_over_torch(mode):
    env = wrappers.NormalizeReward(_torch_env(mode))
    _check_normalize_reward(env, _torch_env(mode), mode, clears_all_on_reset=False)
    assert env.accumulated_reward.dtype == torch.float32
    assert env.return_rms.var.device == torch.device(env.unwrapped.device)


# ----------------------------------------------------------------------------- ClipAction, RescaleAction
def _run_pair(env, raw, mode, actions, raw_actions, steps=8):
    """Step ``env`` with ``actions`` and ``raw`` with ``raw_actions``: their results must be identical."""
    env.reset(seed=0)
    raw.reset(seed=0)
    for _ in range(steps):
        got, want = env.step(actions), raw.step(raw_actions)
        for a, b in zip(got[:4], want[:4], strict=True):
            np.testing.assert_array_equal(_np(a), _np(b))
        _reset_ended([env, raw], mode, want[2], want[3])


BIG = np.array([[10.0], [-10.0], [0.5]], np.float32)
CLIPPED = np.array([[3.0], [-3.0], [0.5]], np.float32)


@pytest.mark.parametrize("mode", MODES)
def test_gymnasium_clip_action_over_numpy(mode):
    env = gym.wrappers.vector.ClipAction(_numpy_env(mode))
    assert np.isinf(env.single_action_space.low).all() and np.isinf(env.action_space.high).all()
    np.testing.assert_array_equal(env.actions(BIG), CLIPPED)
    _run_pair(env, _numpy_env(mode), mode, BIG, CLIPPED)


@pytest.mark.parametrize("mode", MODES)
def test_clip_action_over_torch(mode):
    env = wrappers.ClipAction(_torch_env(mode))
    assert np.isinf(env.single_action_space.low).all() and env.action_space.shape == (N, 1)
    clipped = env.actions(torch.from_numpy(BIG))
    assert torch.equal(clipped, torch.from_numpy(CLIPPED)) and torch.equal(env.actions(BIG), clipped)
    assert torch.isnan(env.actions(torch.full((N, 1), float("nan")))).all()  # left to the env's nan_action
    _run_pair(env, _torch_env(mode), mode, BIG, CLIPPED)


UNIT = np.array([[1.0], [0.0], [0.5]], np.float32)  # in [0, 1]: the bounds [-3, 3] are reached at 0 and 1
UNIT_IN_ENV = np.array([[3.0], [-3.0], [0.0]], np.float32)


@pytest.mark.parametrize("mode", MODES)
def test_gymnasium_rescale_action_over_numpy(mode):
    env = gym.wrappers.vector.RescaleAction(_numpy_env(mode), 0.0, 1.0)
    assert env.single_action_space.low.tolist() == [0.0] and env.single_action_space.high.tolist() == [1.0]
    _run_pair(env, _numpy_env(mode), mode, UNIT, UNIT_IN_ENV)


@pytest.mark.parametrize("mode", MODES)
def test_rescale_action_over_torch(mode):
    env = wrappers.RescaleAction(_torch_env(mode), 0.0, np.array([1.0], np.float32))
    assert env.single_action_space.low.tolist() == [0.0] and env.single_action_space.high.tolist() == [1.0]
    assert torch.equal(env.actions(UNIT), torch.from_numpy(UNIT_IN_ENV))
    _run_pair(env, _torch_env(mode), mode, torch.from_numpy(UNIT), UNIT_IN_ENV)


def test_wrapper_arguments_are_checked():
    env = _torch_env(AutoresetMode.SAME_STEP)
    with pytest.raises(WrapperError, match="epsilon must be > 0"):
        wrappers.NormalizeObservation(env, epsilon=0.0)
    with pytest.raises(WrapperError, match=r"gamma must be in \[0, 1\]"):
        wrappers.NormalizeReward(env, gamma=1.5)
    with pytest.raises(WrapperError, match="min_action .* must be smaller than max_action"):
        wrappers.RescaleAction(env, 1.0, 1.0)
    with pytest.raises(WrapperError, match=r"max_action must be a number or an array of shape \(1,\)"):
        wrappers.RescaleAction(env, 0.0, np.ones(3))
    with pytest.raises(WrapperError, match="render_mode='rgb_array'"):
        wrappers.RecordVideo(env, "unused", video_format="gif")
    stats = wrappers.RecordEpisodeStatistics(env, stats_key="newton_episode")
    stats.reset(seed=0)
    with pytest.raises(WrapperError, match="stats_key 'newton_episode': the env's info already holds it"):
        _run(stats, AutoresetMode.SAME_STEP)


# ----------------------------------------------------------------------------------------- RecordVideo
# World 0's episodes last 2 steps. A clip of a whole episode holds the reset frame and one frame per step, up to
# the next episode start: under SAME_STEP that is the ending step itself (whose frame shows the next episode),
# so the clip holds 2 frames; under NEXT_STEP the reset step after it (3 frames); under DISABLED the user's
# reset after the ending step (3 frames).
CLIP_FRAMES = {AutoresetMode.SAME_STEP: 2, AutoresetMode.NEXT_STEP: 3, AutoresetMode.DISABLED: 3}
SMALL = {"render_mode": "rgb_array", "render_width": 16, "render_height": 12}


@pytest.fixture
def moviepy_stub(monkeypatch):
    """Gymnasium's RecordVideo writes through moviepy (not a dependency here): a stand-in module keeps the clips'
    frames in a dict {file name: frames} instead, so the test sees exactly what would be encoded."""
    clips = {}

    class ImageSequenceClip:
        def __init__(self, frames, fps):
            self.frames = [np.asarray(f) for f in frames]

        def write_videofile(self, path, logger=None):
            clips[os.path.basename(path)] = self.frames

    for name in ("moviepy", "moviepy.video", "moviepy.video.io", "moviepy.video.io.ImageSequenceClip"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    sys.modules["moviepy.video.io.ImageSequenceClip"].ImageSequenceClip = ImageSequenceClip
    return clips


@pytest.mark.parametrize("mode", MODES)
def test_gymnasium_record_video_over_numpy(mode, tmp_path, moviepy_stub):
    env = gym.wrappers.vector.RecordVideo(_numpy_env(mode, **SMALL), str(tmp_path), episode_trigger=lambda e: True)
    env.reset(seed=0)
    _run(env, mode, steps=7)
    env.close()
    assert sorted(moviepy_stub)[:2] == ["rl-video-episode-0.mp4", "rl-video-episode-1.mp4"]
    frames = moviepy_stub["rl-video-episode-0.mp4"]
    assert len(frames) == CLIP_FRAMES[mode] and frames[0].shape == (12, 3 * 16, 3)  # 3 worlds side by side


def _gif_frame_count(path, fps) -> tuple[int, tuple]:
    """Frames written to a GIF (Pillow merges equal consecutive frames, keeping the total duration) and its
    (width, height)."""
    with Image.open(path) as gif:
        durations = []
        for k in range(gif.n_frames):
            gif.seek(k)
            durations.append(gif.info["duration"])
        return round(sum(durations) * fps / 1000), gif.size


@pytest.mark.parametrize("mode", MODES)
def test_record_video_over_torch(mode, tmp_path):
    env = wrappers.RecordVideo(
        _torch_env(mode, **SMALL), tmp_path, episode_trigger=lambda e: e < 2, fps=10, video_format="gif"
    )
    env.reset(seed=0)
    _run(env, mode, steps=7)
    env.close()
    assert sorted(os.listdir(tmp_path)) == ["rl-video-episode-0.gif", "rl-video-episode-1.gif"]
    count, size = _gif_frame_count(tmp_path / "rl-video-episode-0.gif", fps=10)
    assert count == CLIP_FRAMES[mode] and size == (16, 3 * 12)  # 3 worlds one above the other: nearest 1:1


def test_record_video_over_numpy_with_step_trigger(tmp_path):
    """newton_gym's RecordVideo runs over the numpy adapter too; a step-triggered clip of video_length 3 holds
    the frame of the step that started it and 3 more (Gymnasium's count)."""
    env = wrappers.RecordVideo(
        _numpy_env(AutoresetMode.SAME_STEP, **SMALL),
        tmp_path,
        record_first_only=True,
        step_trigger=lambda s: s == 1,
        video_length=3,
        fps=10,
        video_format="gif",
    )
    env.reset(seed=0)
    _run(env, AutoresetMode.SAME_STEP, steps=8)
    env.close()
    assert os.listdir(tmp_path) == ["rl-video-step-1.gif"]
    assert _gif_frame_count(tmp_path / "rl-video-step-1.gif", fps=10) == (4, (16, 12))


# -------------------------------------------------------------------------------------- bad arguments
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_sb3_adapter_needs_same_step(mode):
    from newton_gym.interop import SB3VecEnv

    with pytest.raises(ConfigError, match="SB3VecEnv needs an env with autoreset_mode SAME_STEP"):
        SB3VecEnv(_numpy_env(mode))


@pytest.mark.parametrize("num_envs", [0, -2, 1.5, True])
def test_num_envs_below_one_is_a_config_error(num_envs):
    with pytest.raises(ConfigError, match=rf"num_envs must be an integer >= 1 .*got {num_envs!r}"):
        gym.make_vec(TASK, num_envs=num_envs, device="cpu")


def test_numpy_adapter_num_envs_zero_is_a_config_error():
    with pytest.raises(ConfigError, match="num_envs must be an integer >= 1"):
        make_numpy_vec(TASK, num_envs=0)


def test_single_env_action_shape_error_names_its_own_shape():
    env = gym.make("Newton/Ant-v0")
    env.reset(seed=0)
    for action in (np.zeros(7), np.zeros((1, 8)), 0.0):
        with pytest.raises(EnvError, match=r"action must have shape \(8,\), got") as caught:
            env.step(action)
        assert "(1, 8)" not in str(caught.value).split("got")[0]
    with pytest.raises(EnvError, match="real numbers"):
        env.step(np.array(["a"] * 8))
    env.step(np.zeros(8))


@pytest.mark.parametrize("device", ["cuda", "cuda:99"])
def test_unavailable_device_names_it_and_what_is_available(device):
    import warp as wp

    if device == "cuda" and wp.is_cuda_available():
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(NewtonGymError, match=rf"device '{device}'.*available devices: \[.*'cpu'"):
        gym.make_vec(TASK, num_envs=2, device=device)
