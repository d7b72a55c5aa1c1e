"""MujocoVectorEnv: gymnasium's MuJoCo tasks behind newton_gym's vector interface (SAME_STEP autoreset)."""

import gymnasium as gym
import numpy as np
import pytest
import torch

pytest.importorskip("mujoco")

import newton_gym  # noqa: E402,F401  (registers MuJoCo/Ant-v5)


@pytest.mark.parametrize("threads", [1, 2])
def test_matches_gymnasium_and_autoresets_in_the_same_step(threads):
    n, steps = 3, 60
    env = gym.make_vec("MuJoCo/Ant-v5", num_envs=n, seed=5, max_episode_steps=25, threads=threads)
    refs = [gym.make("Ant-v5", include_cfrc_ext_in_observation=False, max_episode_steps=25) for _ in range(n)]
    obs, _ = env.reset()
    ref_obs = np.stack([r.reset(seed=5 + i)[0] for i, r in enumerate(refs)])
    np.testing.assert_allclose(obs.numpy(), ref_obs, rtol=1e-6, atol=1e-6)
    rng = np.random.default_rng(0)
    totals, finished = np.zeros(n), 0
    for _ in range(steps):
        action = rng.uniform(-1, 1, (n, 8))
        obs, reward, terminated, truncated, info = env.step(torch.tensor(action))
        for i, r in enumerate(refs):
            o, rr, te, tr, _ = r.step(action[i])
            totals[i] += rr
            assert reward[i].item() == pytest.approx(rr, rel=1e-6, abs=1e-6)
            assert bool(terminated[i]) == te and bool(truncated[i]) == tr
            if te or tr:
                finished += 1
                assert info["_final_obs"][i] and info["newton_episode"]["_r"][i]
                np.testing.assert_allclose(info["final_obs"][i].numpy(), o, rtol=1e-6, atol=1e-6)
                assert info["newton_episode"]["r"][i].item() == pytest.approx(totals[i], rel=1e-5)
                totals[i] = 0.0
                o, _ = r.reset()
            np.testing.assert_allclose(obs[i].numpy(), o, rtol=1e-6, atol=1e-6)
    assert finished >= n  # every env ended at least one 25-step episode
    env.close()


def test_newton_options_are_reported_not_silently_dropped():
    with pytest.warns(UserWarning, match="sim"):
        gym.make_vec("MuJoCo/Ant-v5", num_envs=1, sim={"substeps": 1}).close()


def test_integrator_option_sets_mujocos_integrator():
    import mujoco

    env = gym.make_vec("MuJoCo/Ant-v5", num_envs=2, integrator="implicitfast")
    assert all(e.unwrapped.model.opt.integrator == mujoco.mjtIntegrator.mjINT_IMPLICITFAST for e in env.envs)
    env.close()
    with pytest.raises(ValueError, match="integrator"):
        gym.make_vec("MuJoCo/Ant-v5", num_envs=1, integrator="verlet")
