"""NumpyVectorEnv (Gymnasium vector API with numpy) and SB3VecEnv (Stable-Baselines3's VecEnv protocol)."""

import gymnasium as gym
import numpy as np
import pytest

from newton_gym.interop import NumpyVectorEnv, SB3VecEnv, make_numpy_vec

N = 3


@pytest.fixture
def env():
    e = make_numpy_vec("Newton/Cartpole-v0", num_envs=N, max_episode_steps=4)
    yield e
    e.close()


def test_spaces_and_dtypes(env):
    assert isinstance(env, gym.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, info = env.reset(seed=0)
    assert isinstance(obs, np.ndarray) and obs.dtype == np.float32 and obs.shape == (N, 4)
    assert env.observation_space.contains(obs) and env.single_observation_space.shape == (4,)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert obs.dtype == np.float32 and reward.dtype == np.float64 and reward.shape == (N,)
    assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_
    assert all(isinstance(v, np.ndarray) and v.shape == (N,) for v in info["reward_terms"].values())


def test_same_step_autoreset_matches_gymnasium_layout(env):
    obs, _ = env.reset(seed=0)
    for _ in range(4):
        prev = obs
        obs, reward, terminated, truncated, info = env.step(np.zeros((N, 1), np.float32))
    assert truncated.all() and not terminated.any()  # the 4-step limit
    assert info["_final_obs"].dtype == np.bool_ and info["_final_obs"].all()
    final = info["final_obs"]
    assert final.dtype == object and final.shape == (N,)
    assert all(isinstance(f, np.ndarray) and f.shape == (4,) for f in final)
    assert not np.allclose(np.stack(final), obs)  # obs already holds the next episodes' first observations
    assert np.abs(np.stack(final) - prev).max() < 0.5  # the final obs continues the old episode
    assert info["newton_episode"]["l"].tolist() == [4] * N and info["newton_episode"]["_r"].all()


def test_reset_mask_and_seed_reproducibility(env):
    a, _ = env.reset(seed=5)
    b, _ = env.reset(seed=5)
    np.testing.assert_array_equal(a, b)
    env.step(np.ones((N, 1), np.float32))
    moved, _ = env.reset(options={"reset_mask": np.array([True, False, False])})
    assert moved.shape == (N, 4)


def test_gymnasium_vector_wrappers_accept_it(env):
    # (Gymnasium's observation wrappers refuse every SAME_STEP env, since final_obs would bypass them.)
    wrapped = gym.wrappers.vector.RecordEpisodeStatistics(gym.wrappers.vector.ClipAction(env))
    wrapped.reset(seed=0)
    for _ in range(4):
        obs, reward, terminated, truncated, info = wrapped.step(np.zeros((N, 1), np.float32))
    assert obs.shape == (N, 4) and obs.dtype == np.float32
    assert len(wrapped.return_queue) == N and list(wrapped.length_queue) == [4] * N


def test_sb3_protocol(env):
    venv = SB3VecEnv(env)
    assert venv.num_envs == N and venv.observation_space.shape == (4,) and venv.action_space.shape == (1,)
    assert venv.seed(7) == [7, 8, 9]
    obs = venv.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (N, 4) and obs.dtype == np.float32
    for _step in range(4):
        venv.step_async(np.zeros((N, 1), np.float32))
        obs, rewards, dones, infos = venv.step_wait()
        assert rewards.dtype == np.float32 and rewards.shape == (N,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == N
    assert dones.all()
    for i in range(N):
        assert infos[i]["TimeLimit.truncated"] is True
        assert infos[i]["terminal_observation"].shape == (4,)
        assert infos[i]["episode"]["l"] == 4
    assert venv.get_attr("num_envs") == [N] * N
    assert venv.env_is_wrapped(gym.Wrapper) == [False] * N


def test_sb3_termination_is_not_a_time_limit():
    venv = SB3VecEnv(make_numpy_vec("Newton/Cartpole-v0", num_envs=2, max_episode_steps=1000))
    venv.reset()
    for _ in range(200):  # full push: the pole falls and the episode terminates
        obs, rewards, dones, infos = venv.step(np.full((2, 1), 3.0, np.float32))
        if dones.any():
            break
    i = int(np.flatnonzero(dones)[0])
    assert infos[i]["TimeLimit.truncated"] is False and "terminal_observation" in infos[i]
    venv.close()


def test_wraps_a_torch_vector_env_directly():
    vec = gym.make_vec("Newton/Cartpole-v0", num_envs=2, device="cpu")
    env = NumpyVectorEnv(vec)
    obs, _ = env.reset(seed=1)
    assert isinstance(obs, np.ndarray)
    sb3 = SB3VecEnv(vec)
    assert isinstance(sb3.reset(), np.ndarray)
