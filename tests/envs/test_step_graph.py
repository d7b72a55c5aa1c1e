"""The step as one CUDA graph (newton_gym.envs.step_graph): the captured path run eagerly equals the ordinary
step bitwise (CPU); replay equals eager, outputs survive the next step, episode time runs on, no host
sync (CUDA, skipped without a GPU visible to Warp and torch)."""

from __future__ import annotations

import itertools
import time
import types
import warnings

import gymnasium as gym
import pytest
import torch
import warp as wp

import newton_gym  # noqa: F401  (registers the tasks)
from newton_gym.envs.step_graph import StepGraph, bindings_kept, graph_fallback_reason
from newton_gym.errors import ConfigError, EnvError

_CUDA = wp.is_cuda_available() and torch.cuda.is_available()
_needs_cuda = pytest.mark.skipif(not _CUDA, reason="no CUDA device visible to both Warp and torch")
_RANDOM = {"mass_scale": (0.8, 1.2), "friction": (0.5, 1.0), "gravity_z": (-10.0, -9.0)}


def _make(task, device, n=4, **kwargs):
    env = gym.make_vec(task, num_envs=n, device=device, max_episode_steps=7, randomization=_RANDOM, **kwargs)
    env._clock = itertools.count(1000.0, 0.25).__next__  # the same wall clock in both envs
    env.reset(seed=3)
    return env


def _actions(env, steps, seed=0):
    """(steps, N, action) uniform actions in [-1.5, 1.5] (beyond the bounds), with a NaN row now and then."""
    g = torch.Generator().manual_seed(seed)
    a = torch.rand((steps, env.num_envs, env.single_action_space.shape[0]), generator=g) * 3.0 - 1.5
    a[::9, 1, 0] = float("nan")
    return a


def _leaves(tree, path=""):
    if torch.is_tensor(tree):
        return {path: tree}
    items = tree.items() if isinstance(tree, dict) else enumerate(tree)
    return {k: v for key, sub in items for k, v in _leaves(sub, f"{path}/{key}").items()}


def _assert_same(got, want, exact=True):
    got, want = _leaves(got), _leaves(want)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key].dtype == want[key].dtype and got[key].shape == want[key].shape, key
        if exact or not want[key].is_floating_point():
            assert torch.equal(got[key], want[key]), key
        else:  # contact wrenches are summed with atomics on the GPU: the last bits of a reward may differ
            torch.testing.assert_close(got[key], want[key], rtol=1e-5, atol=1e-6, msg=key)


# ---------------------------------------------------------------------------------------------- CPU
@pytest.mark.parametrize("task", ["Newton/Ant-v0", "Newton/Go1-Flat-v0"])
def test_graph_path_run_eagerly_equals_the_step(task):
    """The path a graph captures (static inputs, state kept in its tensors, packed outputs), run without a
    graph, gives bitwise the ordinary step's results over 100 steps with autoresets, a masked reset and a
    reseed; the state tensors a graph reads are the same objects throughout."""
    ref = _make(task, "cpu", sync_free=True)
    env = _make(task, "cpu", sync_free=True)
    env.step_graph = StepGraph(env, capture=False)
    state = {name: value for name, value in vars(env.task).items() if torch.is_tensor(value)}
    mask, ends = torch.tensor([True, False, True, False]), torch.zeros(4, dtype=torch.long)
    for k, action in enumerate(_actions(env, 100)):
        if k == 40:
            for e in (ref, env):
                e.reset(options={"reset_mask": mask})
        if k == 70:
            _assert_same(env.reset(seed=5), ref.reset(seed=5))
        result = env.step(action)
        _assert_same(result, ref.step(action))
        ends += result[4]["_newton_episode"]
    assert int(ends.min()) >= 12  # autoresets in every world
    assert all(vars(env.task)[name] is value for name, value in state.items())


def test_graph_path_reads_nothing_back(monkeypatch):
    env = _make("Newton/Go1-Flat-v0", "cpu", sync_free=True)
    env.step_graph = StepGraph(env, capture=False)
    actions = torch.zeros(env.num_envs, env.single_action_space.shape[0])
    env.step(actions)
    with monkeypatch.context() as m:
        _no_host_sync(m)
        for _ in range(8):
            env.step(actions)


def test_graph_setting():
    with pytest.raises(ConfigError, match="graph must be None, True or False"):
        gym.make_vec("Newton/Ant-v0", num_envs=2, device="cpu", graph="yes")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # None on the CPU falls back silently
        assert gym.make_vec("Newton/Ant-v0", num_envs=2, device="cpu").step_graph is None
        assert gym.make_vec("Newton/Ant-v0", num_envs=2, device="cpu", graph=False).step_graph is None
    with pytest.warns(UserWarning, match="graph=True: the step runs eagerly because the device is cpu"):
        env = gym.make_vec("Newton/Ant-v0", num_envs=2, device="cpu", graph=True)
    assert env.step_graph is None
    env.reset(seed=0)
    env.step(torch.zeros(2, 8))


def test_graph_fallback_reasons():
    def fake(cuda=True, sync_free=True, nan_action="zero"):
        sim = types.SimpleNamespace(device=types.SimpleNamespace(is_cuda=cuda))
        return types.SimpleNamespace(sim=sim, sync_free=sync_free, cfg=types.SimpleNamespace(nan_action=nan_action))

    assert graph_fallback_reason(fake()) is None
    assert "not a CUDA device" in graph_fallback_reason(fake(cuda=False))
    assert "sync_free is off" in graph_fallback_reason(fake(sync_free=False))
    assert "nan_action='raise'" in graph_fallback_reason(fake(nan_action="raise"))


def test_bindings_kept_writes_rebound_state_in_place():
    holder = types.SimpleNamespace(x=torch.zeros(3), y=torch.ones(2))
    x = holder.x
    with bindings_kept([holder]):
        holder.x = holder.x + 2.0
    assert holder.x is x and x.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError), bindings_kept([holder]):
        holder.x = torch.full((3,), 7.0)
        raise RuntimeError
    assert holder.x is x and x.tolist() == [2.0, 2.0, 2.0]  # restored, not copied
    with pytest.raises(EnvError, match="SimpleNamespace.y"), bindings_kept([holder]):
        holder.y = torch.zeros(5)


# ---------------------------------------------------------------------------------------------- CUDA


@_needs_cuda
@pytest.mark.parametrize("task", ["Newton/Ant-v0", "Newton/Go1-Flat-v0"])
def test_cuda_graph_replay_equals_eager(task):
    eager = _make(task, "cuda:0", n=8, graph=False)
    env = _make(task, "cuda:0", n=8, graph=True)
    assert env.step_graph is not None and eager.step_graph is None
    for k, action in enumerate(_actions(env, 200).cuda()):
        if k == 120:
            for e in (eager, env):
                e.reset(options={"reset_mask": torch.arange(8, device="cuda:0") % 3 == 0})
        _assert_same(env.step(action), eager.step(action), exact=False)
    assert env.step_graph is not None and env.step_graph.captures == 1  # captured once, replayed since
    assert int(env.rng.counter.min()) >= 20
    _assert_same(env.reset(seed=9), eager.reset(seed=9), exact=False)  # a reseed recaptures
    for action in _actions(env, 20, seed=1).cuda():
        _assert_same(env.step(action), eager.step(action), exact=False)
    assert env.step_graph.captures == 2


@_needs_cuda
def test_cuda_graph_outputs_survive_the_next_step():
    env = _make("Newton/Ant-v0", "cuda:0", graph=True)
    actions = _actions(env, 12).cuda()
    previous = None
    for action in actions:
        result = env.step(action)
        if previous is not None:
            kept, copy = previous
            _assert_same(kept, copy)  # step k's tensors, after step k+1
        previous = (result, _leaves_clone(result))
    assert env.step_graph.captures == 1


def _leaves_clone(tree):
    if torch.is_tensor(tree):
        return tree.clone()
    if isinstance(tree, dict):
        return {k: _leaves_clone(v) for k, v in tree.items()}
    return tuple(_leaves_clone(v) for v in tree)


@_needs_cuda
def test_cuda_graph_episode_time_runs_on():
    """info["newton_episode"]["t"] is each episode's wall time, read from a clock refreshed before every replay
    (a time read at capture would be frozen into the graph)."""
    env = gym.make_vec("Newton/Ant-v0", num_envs=2, device="cuda:0", max_episode_steps=3, graph=True)
    env.reset(seed=0)
    actions, times, starts = torch.zeros(2, 8, device="cuda:0"), [], []
    for _ in range(12):
        time.sleep(0.01)
        _, _, _, truncated, info = env.step(actions)
        if bool(info["_newton_episode"].all()):
            times.append(info["newton_episode"]["t"].clone())
            starts.append(env.episode_start.clone())
    assert env.step_graph.captures == 1 and len(times) == 4
    assert all(bool((t >= 0.025).all() and (t < 5.0).all()) for t in times)
    assert all(bool((b > a).all()) for a, b in zip(starts, starts[1:]))


@_needs_cuda
def test_cuda_graph_step_reads_nothing_back(monkeypatch):
    env = _make("Newton/Ant-v0", "cuda:0", graph=True)
    actions = torch.zeros(env.num_envs, 8, device="cuda:0")
    env.step(actions)  # the warm-up step and the capture
    with monkeypatch.context() as m:
        _no_host_sync(m)
        results = [env.step(actions) for _ in range(10)]
    assert env.step_graph.captures == 1 and any(bool(r[4]["_newton_episode"].any()) for r in results)


class _HostSync(Exception):
    pass


def _no_host_sync(monkeypatch):
    """Every device -> host read of a tensor or Warp array raises (as in test_env_contracts)."""

    def refuse(name):
        def fail(*args, **kwargs):
            raise _HostSync(name)

        return fail

    for name in ("__bool__", "item", "tolist", "cpu", "numpy", "__int__", "__float__", "__index__"):
        monkeypatch.setattr(torch.Tensor, name, refuse(f"Tensor.{name}"))
    monkeypatch.setattr(torch, "nonzero", refuse("torch.nonzero"))
    monkeypatch.setattr(wp.array, "numpy", refuse("wp.array.numpy"))
