"""Pushes of the legged velocity tasks: each push of an episode its own kick and wait, reproducible per
world, and bad push settings refused by name."""

import gymnasium as gym
import pytest
import torch

import newton_gym  # noqa: F401
from newton_gym.errors import ConfigError


def _env(**kwargs):
    no_rand = {"friction": None, "mass_scale": None, "actuator_kp_scale": None, "actuator_kd_scale": None}
    return gym.make_vec("Newton/Go1-Flat-v0", num_envs=3, noise=False, randomization=no_rand, **kwargs)


def _kicks(env, steps):
    """The root's horizontal velocity jump of every push in ``steps`` zero-action steps: [(step, world, kick)]."""
    task = env.unwrapped.task
    out = []
    zero = torch.zeros(env.num_envs, env.single_action_space.shape[0])
    for t in range(steps):
        count = task.push_count.clone()
        slot = count % task.push_slots
        kicks = task.push_kick.reshape(env.num_envs, task.push_slots, 2)
        env.step(zero)
        for w in torch.nonzero(task.push_count > count)[:, 0].tolist():
            out.append((t, w, kicks[w, slot[w]].clone()))
    return out


def test_each_push_of_an_episode_has_its_own_kick():
    env = _env(push_interval=(0.1, 0.2), push_velocity=0.5, max_episode_steps=40)
    env.reset(seed=3)
    task = env.unwrapped.task
    assert task.push_slots == 9  # 40 steps * 0.02 s / 0.1 s + 1
    pushes = _kicks(env, 30)
    by_world = {}
    for _, w, kick in pushes:
        by_world.setdefault(w, []).append(kick)
    for w, kicks in by_world.items():
        assert len(kicks) >= 2, w
        assert all(k.abs().max() <= 0.5 for k in kicks)
        for a, b in zip(kicks, kicks[1:]):
            assert not torch.equal(a, b), f"world {w} got the same kick twice"
    waits = task.push_wait.reshape(3, -1)
    assert ((waits >= 0.1) & (waits <= 0.2)).all()
    assert not torch.equal(waits[:, 0], waits[:, 1])


def test_pushes_repeat_with_the_seed():
    runs = []
    for _ in range(2):
        env = _env(push_interval=(0.1, 0.2), max_episode_steps=40)
        env.reset(seed=5)
        runs.append(_kicks(env, 20))
        env.close()
    assert [(t, w) for t, w, _ in runs[0]] == [(t, w) for t, w, _ in runs[1]]
    assert all(torch.equal(a[2], b[2]) for a, b in zip(*runs))


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"push_interval": (0.0, 1.0)}, "push_interval"),
        ({"push_interval": (2.0, 1.0)}, "push_interval"),
        ({"push_interval": (1.0, float("nan"))}, "push_interval"),
        ({"push_interval": "soon"}, "push_interval"),
        ({"push_velocity": -1.0}, "push_velocity"),
        ({"push_velocity": float("inf")}, "push_velocity"),
    ],
)
def test_bad_push_settings_name_the_key(kwargs, name):
    with pytest.raises(ConfigError, match=name):
        _env(**kwargs)
