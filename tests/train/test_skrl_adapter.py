"""SkrlVecEnv: zero-copy pass-through, SAME_STEP autoreset bookkeeping and the bootstrap observation."""

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode

import newton_gym  # noqa: F401

pytest.importorskip("skrl")
from newton_gym.train.skrl_env import ActionScaler, SkrlVecEnv


class CountingEnv(gym.vector.VectorEnv):
    """Dummy torch vector env: obs = [episode id, t]; world i terminates at t == 3 + i unless truncated
    first by the 4-step limit; SAME_STEP autoreset with info["final_obs"]."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs=3, limit=4):
        self.num_envs, self.limit, self.device = num_envs, limit, torch.device("cpu")
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (2,), np.float32)
        self.single_action_space = gym.spaces.Box(-2.0, 2.0, (1,), np.float32)
        self.episode = torch.arange(num_envs, dtype=torch.float32)
        self.t = torch.zeros(num_envs)
        self.last_obs = None
        self.last_actions = None

    def _obs(self):
        return torch.stack([self.episode, self.t], dim=1)

    def reset(self, *, seed=None, options=None):
        self.t.zero_()
        return self._obs(), {}

    def step(self, actions):
        self.last_actions = actions
        self.t += 1
        obs = self._obs()
        terminated = self.t >= 3 + torch.arange(self.num_envs)
        truncated = (self.t >= self.limit) & ~terminated
        done = terminated | truncated
        info = {}
        if done.any():
            info = {"final_obs": torch.where(done[:, None], obs, torch.zeros_like(obs)), "_final_obs": done.clone()}
            self.episode = torch.where(done, self.episode + 10, self.episode)
            self.t = torch.where(done, torch.zeros_like(self.t), self.t)
            obs = self._obs()
        self.last_obs = obs
        return obs, torch.ones(self.num_envs), terminated, truncated, info


def test_counting_env_bootstrap_obs_is_final_obs_and_next_obs_is_reset():
    env = SkrlVecEnv(CountingEnv(), seed=0, scale_actions=False)
    obs, _ = env.reset()
    assert obs.shape == (3, 2)
    for step in range(1, 5):
        obs, reward, terminated, truncated, info = env.step(torch.zeros(3, 1))
        assert obs is env._unwrapped.last_obs  # passed through, no copy
        assert reward.shape == terminated.shape == truncated.shape == (3, 1)
        boot = info["bootstrap_obs"]
        if step < 3:
            assert boot is obs
            continue
        done = (terminated | truncated).view(-1)
        # finished rows bootstrap from the episode's last observation (t == step), the others from obs
        assert torch.equal(boot[done, 1], torch.full((int(done.sum()),), float(step)))
        assert torch.equal(obs[done, 1], torch.zeros(int(done.sum())))  # next episode already started
        assert torch.equal(boot[~done], obs[~done])
    # step 3: world 0 terminated; step 4: world 1 terminated and world 2 truncated (limit 4)
    assert terminated.view(-1).tolist() == [False, True, False]
    assert truncated.view(-1).tolist() == [False, False, True]


def test_reset_is_called_once_then_returns_current_obs():
    inner = CountingEnv()
    env = SkrlVecEnv(inner, seed=0, scale_actions=False)
    env.reset()
    env.step(torch.zeros(3, 1))
    obs, _ = env.reset()  # skrl calls reset() again: no reset of the worlds
    assert obs is inner.last_obs and float(inner.t[0]) == 1.0


def test_actions_are_scaled_onto_the_task_box():
    inner = CountingEnv()
    env = SkrlVecEnv(inner, scale_actions=True)
    assert env.action_space.low.tolist() == [-1.0] and env.action_space.high.tolist() == [1.0]
    env.reset()
    env.step(torch.tensor([[-1.0], [0.0], [0.5]]))
    assert inner.last_actions.view(-1).tolist() == [-2.0, 0.0, 1.0]
    scaler = ActionScaler([-1.0], [1.0], "cpu")
    a = torch.tensor([[0.3]])
    assert torch.equal(scaler.to_env(a), a)


def test_rejects_next_step_autoreset():
    inner = CountingEnv()
    inner.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
    with pytest.raises(ValueError, match="SAME_STEP"):
        SkrlVecEnv(inner)


def test_newton_cartpole_truncation_rows():
    vec = gym.make_vec("Newton/Cartpole-v0", num_envs=3, device="cpu", max_episode_steps=3)
    env = SkrlVecEnv(vec, seed=1)
    obs, _ = env.reset()
    assert env.observation_space.shape == (4,) and env.num_envs == 3
    seen_done = False
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(torch.zeros(3, 1))
        assert reward.data_ptr() == reward.view(-1).data_ptr()
        done = (terminated | truncated).view(-1)
        if done.any():
            seen_done = True
            assert torch.equal(info["bootstrap_obs"][done], info["final_obs"][done])
            assert not torch.equal(info["bootstrap_obs"][done], obs[done])
    assert seen_done and truncated.all()  # the zero action keeps the pole up for 3 steps


def test_runner_records_bootstrap_obs_and_acts_on_reset_obs(tiny, tmp_path):
    from newton_gym.train.config import load_train_config
    from newton_gym.train.runner import PPORunner

    runner = PPORunner(
        load_train_config(tiny(env={"max_episode_steps": 2})), str(tmp_path), progress=False, log=lambda *a: None
    )
    calls = []

    class Spy:
        def pre_interaction(self, **kw):
            pass

        def act(self, obs, states, **kw):
            calls.append(("act", obs.clone()))
            return torch.zeros(obs.shape[0], 1), {}

        def record_transition(self, **kw):
            calls.append(("record", kw["next_observations"].clone(), kw["truncated"].clone()))

        def post_interaction(self, **kw):
            pass

    runner.agent = Spy()
    obs, _ = runner.env.reset()
    runner._collect(obs, 0, 8)
    # step 2 truncates every world: the recorded next obs is the final one, the next act sees the reset one
    final_next, truncated = calls[3][1], calls[3][2]
    next_act_obs = calls[4][1]
    assert truncated.all()
    assert not torch.equal(final_next, next_act_obs)
    runner.close()
