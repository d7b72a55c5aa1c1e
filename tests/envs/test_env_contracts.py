"""The vector env's contracts: no NaN reaches the user, Gymnasium's vector info layout, action checks,
per-world reset streams, one forward kinematics per reset."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

import newton_gym  # noqa: F401  (registers the tasks)
from newton_gym.envs import simulation as simulation_module
from newton_gym.envs.finite import finite_rows
from newton_gym.envs.world_rng import WorldRng
from newton_gym.errors import EnvError, EnvTypeError, NewtonGymError
from newton_gym.solvers import generalized as generalized_module


def _zeros(env):
    return torch.zeros(env.num_envs, env.single_action_space.shape[0])


@pytest.mark.parametrize("task", ["Newton/Ant-v0", "Newton/Humanoid-v0"])
@pytest.mark.parametrize("corrupt", ["huge_velocity", "nan_coordinate"])
def test_no_nan_reaches_reward_or_final_obs(task, corrupt):
    # Before: a world whose state blew up returned reward NaN and a NaN final_obs (the reward terms were
    # computed from the broken state before the world was reset).
    env = gym.make_vec(task, num_envs=4)
    env.reset(seed=0)
    if corrupt == "huge_velocity":
        env.joint_qd[1] = 1e30
    else:
        env.joint_q[1, 0] = float("nan")
    obs, reward, terminated, truncated, info = env.step(_zeros(env))
    assert terminated.tolist() == [False, True, False, False]
    assert int(info["unhealthy_worlds"]) == 1
    for value in (obs, reward, info["final_obs"], env.episode_return, *info["reward_terms"].values()):
        assert torch.isfinite(value).all()
    assert info["_final_obs"].tolist() == [False, True, False, False]
    assert reward[1].item() == 0.0
    obs, reward, *_ = env.step(_zeros(env))  # the reset world steps on normally
    assert torch.isfinite(obs).all() and torch.isfinite(reward).all()


def test_vector_info_matches_gymnasium_layout():
    """Keys and masks as gymnasium's SyncVectorEnv (final_obs / final_info) wrapped in its vector
    RecordEpisodeStatistics give them (its stats_key set to the env's own newton_episode / _newton_episode), in a
    step where one env finishes."""
    sync = gym.make_vec(
        "CartPole-v1",
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
    )
    ref = gym.wrappers.vector.RecordEpisodeStatistics(sync, stats_key="newton_episode")
    ref.reset(seed=0)
    while True:
        _, _, term, trunc, ref_info = ref.step(np.array([1, 0]))
        if (term | trunc).any():
            break
    ours = gym.make_vec("Newton/Cartpole-v0", num_envs=2, max_episode_steps=3)
    ours.reset(seed=0)
    for _ in range(3):
        _, _, _, truncated, info = ours.step(torch.zeros(2, 1))
    assert truncated.all()
    contract = {"final_obs", "_final_obs", "final_info", "_final_info", "newton_episode", "_newton_episode"}
    assert contract <= set(ref_info) and contract <= set(info)
    assert set(info["newton_episode"]) == {"r", "l", "t", "_r", "_l", "_t"}
    assert info["_newton_episode"].tolist() == [True, True] and info["newton_episode"]["l"].tolist() == [3, 3]
    assert info["_final_info"].tolist() == [True, True]
    assert set(info["final_info"]["reward_terms"]) >= set(info["reward_terms"])
    # a step in which nothing finishes carries none of the end-of-episode keys (as gymnasium's envs)
    _, _, _, _, info = ours.step(torch.zeros(2, 1))
    assert not contract & set(info)


def test_episode_statistics_are_masked_per_world():
    env = gym.make_vec("Newton/Ant-v0", num_envs=3)
    env.reset(seed=0)
    env.step(_zeros(env))
    env.joint_q[2, 2] = -5.0  # torso far below the healthy range: world 2 terminates
    _, reward, terminated, _, info = env.step(_zeros(env))
    assert terminated.tolist() == [False, False, True]
    assert info["_newton_episode"].tolist() == [False, False, True]
    assert info["newton_episode"]["l"].tolist() == [0, 0, 2]
    assert info["newton_episode"]["r"][:2].tolist() == [0.0, 0.0] and info["newton_episode"]["r"][2].item() != 0.0
    assert (info["newton_episode"]["t"][:2] == 0).all() and info["newton_episode"]["t"][2] > 0


@pytest.mark.parametrize(
    "actions, error",
    [
        (np.array([["a"] * 8] * 2), EnvTypeError),
        (np.ones((2, 8), dtype=np.complex64), EnvTypeError),
        (torch.ones(2, 8, dtype=torch.complex64), EnvTypeError),
        (torch.ones(2, 8, dtype=torch.bool), EnvTypeError),
        (np.array([object()] * 16).reshape(2, 8), EnvTypeError),
        ([[0.0] * 8, [0.0] * 7], EnvError),  # ragged
        (np.zeros((2, 7)), EnvError),  # wrong shape
    ],
)
def test_bad_actions_raise_named_errors(actions, error):
    # Before: TypeError / NotImplementedError from torch for strings, complex and object arrays.
    env = gym.make_vec("Newton/Ant-v0", num_envs=2)
    env.reset(seed=0)
    with pytest.raises(error, match="actions") as info:
        env.step(actions)
    assert isinstance(info.value, NewtonGymError)
    if error is EnvTypeError:
        assert isinstance(info.value, TypeError)
    else:
        assert isinstance(info.value, ValueError)


def test_huge_float64_action_is_clipped_not_zeroed():
    # Before: 1e39 in float64 became inf in float32, then 0 under nan_action="zero", silently.
    env = gym.make_vec("Newton/Ant-v0", num_envs=2)
    env.reset(seed=0)
    a = np.zeros((2, 8))
    a[0, 3] = 1e39
    a[1, 5] = -1e39
    _, _, _, _, info = env.step(a)
    assert env.sim.ctrl[0, 3].item() == pytest.approx(env.single_action_space.high[3])
    assert env.sim.ctrl[1, 5].item() == pytest.approx(env.single_action_space.low[5])
    assert int(info["nan_actions"]) == 0
    env.step(np.ones((2, 8), dtype=np.int64))  # integer actions are numbers too


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_finite_rows_equals_isfinite_on_every_kind_of_entry(dtype):
    # finite_rows sums rows in float64: entries at the type's largest finite value must stay finite, an inf
    # beside an inf of the other sign or a NaN must not, in any of the tensors of a row.
    big = torch.finfo(dtype).max
    x = torch.ones(8, 4, dtype=dtype)
    x[1, :] = big  # finite, at the top of the range: their float64 sum stays finite
    x[2, 0], x[2, 1] = float("inf"), -float("inf")
    x[3, 2] = float("nan")
    x[4, 3] = -float("inf")
    r = torch.zeros(8, dtype=dtype)
    r[5] = float("nan")
    c = torch.zeros(8, 2, 3)  # float32, another dtype beside x's
    c[6, 1, 2] = float("inf")
    expected = torch.isfinite(x).all(dim=1) & torch.isfinite(r) & torch.isfinite(c).flatten(1).all(dim=1)
    assert expected.tolist() == [True, True, False, False, False, False, False, True]
    assert torch.equal(finite_rows(x, r, c), expected)
    assert torch.equal(finite_rows(x), torch.isfinite(x).all(dim=1))


def test_one_world_failing_does_not_change_another_worlds_reset_noise():
    """Before, worlds shared one reset generator: a world that reset early shifted the noise every
    later reset drew, in every world."""

    def states_after_reset_of_world_1(break_world_0):
        env = gym.make_vec("Newton/Ant-v0", num_envs=3)
        env.reset(seed=7)
        if break_world_0:
            env.joint_qd[0] = 1e30
        env.step(_zeros(env))
        env.reset(options={"reset_mask": np.array([False, True, False])})
        return env.joint_q.clone(), env.joint_qd.clone()

    q_a, qd_a = states_after_reset_of_world_1(False)
    q_b, qd_b = states_after_reset_of_world_1(True)
    assert torch.equal(q_a[1], q_b[1]) and torch.equal(qd_a[1], qd_b[1])
    assert torch.equal(q_a[2], q_b[2])
    assert not torch.equal(q_a[0], q_b[0])  # world 0 did reset (again) in the second run


def test_reset_noise_depends_on_seed_and_world():
    env = gym.make_vec("Newton/Ant-v0", num_envs=2)
    q0 = env.reset(seed=1)[0]
    q1 = env.reset(seed=1)[0]
    q2 = env.reset(seed=2)[0]
    assert torch.equal(q0, q1) and not torch.equal(q0, q2)
    assert not torch.equal(q0[0], q0[1])


def test_reset_runs_forward_kinematics_once(monkeypatch):
    # eager launches (sim capture off), so that the Python calls are the launches; the captured reset
    # replays the same launches (tests/envs/test_physics_io.py: captured resets equal eager ones)
    env = gym.make_vec("Newton/Ant-v0", num_envs=2, sim={"capture": False})
    calls = []
    for module in (simulation_module, generalized_module):
        original = module.eval_fk
        monkeypatch.setattr(module, "eval_fk", lambda *a, _f=original, **k: (calls.append(1), _f(*a, **k))[1])
    env.reset(seed=0)
    assert len(calls) == 1


def _reference_bits(seed: int, stream: int, counter: torch.Tensor, width: int) -> torch.Tensor:
    """WorldRng's hash in exact Python integers: mix(mix(mix(mix(key ^ w) ^ c_lo) ^ c_hi) ^ e), key =
    mix(seed ^ stream * 0x9E3779B1), mix the 'lowbias32' finalizer, all mod 2^32."""
    m = 0xFFFFFFFF

    def mix(x):
        x ^= x >> 16
        x = (x * 0x7FEB352D) & m
        x ^= x >> 15
        x = (x * 0x846CA68B) & m
        return x ^ (x >> 16)

    key = mix((seed & m) ^ ((stream * 0x9E3779B1) & m))
    out = []
    for w, c in enumerate(counter.tolist()):
        h = mix(mix(mix(key ^ w) ^ (c & m)) ^ ((c >> 32) & m))
        out.append([mix(h ^ e) for e in range(width)])
    return torch.tensor(out, dtype=torch.int64)


def test_world_rng_is_uniform_and_overflow_free():
    rng = WorldRng(3, 64, "cpu")
    rng.counter.copy_(torch.arange(64, dtype=torch.int64) * 0x1234567 + (torch.arange(64) % 3) * 2**33)
    for stream in (0, 1, 5, 0xFFFFFFFF):  # the exact hash, counters past 2^32 included
        assert torch.equal(rng.bits(stream, 7), _reference_bits(3, stream, rng.counter, 7))
        # uniform: the top 24 bits times 2^-24, exactly
        assert torch.equal(rng.uniform(stream, 7), (rng.bits(stream, 7) >> 8).to(torch.float32) / 16777216.0)
    rng.seed(3)
    u = rng.uniform(1, 4096)
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean().item() - 0.5) < 0.01
    n = rng.normal(2, 4096)
    assert abs(n.mean().item()) < 0.02 and abs(n.std().item() - 1.0) < 0.02 and torch.isfinite(n).all()
    # Box-Muller on the stream's uniform numbers of elements e and 4096 + e (float32 rounding apart)
    u = rng.uniform(2, 2 * 4096)
    box_muller = torch.sqrt(-2.0 * torch.log(u[:, :4096] + 2.0**-24)) * torch.cos(2.0 * torch.pi * u[:, 4096:])
    torch.testing.assert_close(n, box_muller, rtol=0, atol=1e-5)
    before = rng.uniform(1, 4)
    rng.advance(torch.tensor([True] + [False] * 63))
    after = rng.uniform(1, 4)
    assert not torch.equal(before[0], after[0]) and torch.equal(before[1:], after[1:])
    assert not torch.equal(rng.uniform(1, 4), rng.uniform(2, 4))  # streams differ


def test_world_rng_mask_draws_only_its_worlds_and_the_same_numbers():
    """A masked draw (what a reset's draws are) gives each masked world the numbers the unmasked draw gives
    it, 0 in the other rows, and refuses a mask of the wrong shape by name."""
    rng = WorldRng(11, 16, "cpu")
    rng.counter.copy_(torch.arange(16) * 3)
    mask = torch.arange(16) % 3 == 1
    for draw in (rng.bits, rng.uniform, rng.normal):
        full, part = draw(4, 5), draw(4, 5, mask)
        assert torch.equal(part[mask], full[mask])
        assert not part[~mask].any() and full[~mask].any()
    with pytest.raises(EnvError, match="mask"):
        rng.uniform(4, 5, torch.ones(15, dtype=torch.bool))


def test_world_rng_uniforms_are_each_streams_uniform_numbers_from_one_launch():
    """uniforms() (a reset's draws side by side) gives each (stream, width) what uniform() gives, bitwise,
    masked or not, and follows a new seed (its per-column keys are rewritten in place, so that a captured
    step's draws see it too)."""
    rng = WorldRng(5, 8, "cpu")
    rng.counter.copy_(torch.arange(8) * 7)
    mask = torch.arange(8) % 2 == 0
    segments = ((3, 2), (9, 5), (3, 1))
    for seed in (5, 6):
        rng.seed(seed)
        rng.counter.copy_(torch.arange(8) * 7)
        for m in (None, mask):
            for (stream, width), u in zip(segments, rng.uniforms(segments, m)):
                assert torch.equal(u, rng.uniform(stream, width, m))
    assert len(rng._tables) == 1


class _HostSync(Exception):
    pass


def _no_host_sync(monkeypatch):
    """Make every device -> host read of a tensor or Warp array raise (on the CPU they are cheap, but
    on a GPU each stalls the stream)."""
    import warp as wp

    def refuse(name):
        def fail(*args, **kwargs):
            raise _HostSync(name)

        return fail

    for name in ("__bool__", "item", "tolist", "cpu", "numpy", "__int__", "__float__", "__index__"):
        monkeypatch.setattr(torch.Tensor, name, refuse(f"Tensor.{name}"))
    monkeypatch.setattr(torch, "nonzero", refuse("torch.nonzero"))
    monkeypatch.setattr(wp.array, "numpy", refuse("wp.array.numpy"))


@pytest.mark.parametrize("task", ["Newton/Ant-v0", "Newton/Humanoid-v0"])
def test_sync_free_step_reads_nothing_back(task, monkeypatch):
    """With sync_free (the CUDA default) a step, autoreset and randomization included, performs no
    host sync; every end-of-episode key is present, masked."""
    env = gym.make_vec(
        task,
        num_envs=4,
        sync_free=True,
        max_episode_steps=3,
        randomization={"mass_scale": (0.8, 1.2), "friction": (0.5, 1.0), "gravity_z": (-10, -9)},
    )
    env.reset(seed=0)
    actions = torch.zeros(4, env.single_action_space.shape[0])
    with monkeypatch.context() as m:
        _no_host_sync(m)
        results = [env.step(actions) for _ in range(3)]
    (_, _, _, _, first), (_, _, _, truncated, last) = results[0], results[2]
    assert {"final_obs", "_final_obs", "newton_episode", "_newton_episode", "final_info", "_final_info"} <= set(first)
    assert not first["_newton_episode"].any() and truncated.all() and last["_newton_episode"].all()
    assert last["newton_episode"]["l"].tolist() == [3, 3, 3, 3]


def test_the_sync_patch_catches_a_sync(monkeypatch):
    env = gym.make_vec("Newton/Ant-v0", num_envs=2, sync_free=False)
    env.reset(seed=0)
    with monkeypatch.context() as m:
        _no_host_sync(m)
        with pytest.raises(_HostSync):
            env.step(torch.zeros(2, 8))  # bool(done.any()) without sync_free
