"""The whole environment step captured once as one CUDA graph and replayed.

After the action is checked and copied into a static input tensor, everything of a sync-free step (actuator
controls, the frame_skip solver steps, observation, reward, termination, truncation, the end-of-episode
info and the autoreset with its randomization) is recorded into one ``torch.cuda.CUDAGraph``; the Warp
launches of the physics join the same capture (``wp.ScopedCapture(external=True)`` on the torch capture
stream). Each later step is one host-to-device copy of the action, one graph launch and one copy out.

What the graph relies on:

- **Fixed addresses.** A graph reads and writes the tensors it saw at capture. State that the task or the
  randomizer *rebinds* (``self.x = torch.where(...)``) rather than writes in place is kept in place by
  :func:`bindings_kept`: after the step (and after an eager ``reset()``) each rebound tensor attribute is
  copied back into its original tensor and the attribute restored, so the next replay reads the new value.
- **Fresh outputs.** The step's outputs are packed into one static byte buffer inside the graph; every
  step returns views of a clone of it (one copy), so tensors a caller keeps are never overwritten by a
  later step, as with the eager step.
- **Device-side time.** The wall clock the episode statistics need is a device tensor the environment
  fills before each launch (a value read on the host at capture would be frozen into the graph).
- **Host values baked in.** Python numbers read while capturing (the RNG seed, config values) are
  constants of the graph: ``reset(seed=...)`` drops the graph and the next step captures a new one.

The first step after a (re)capture runs eagerly on the capture stream: it loads every Warp module and
warms torch up (torch requires a warm-up on a side stream before capture); the capture follows it.
"""

from __future__ import annotations

import contextlib
import warnings

import torch
import warp as wp

from ..errors import ConfigError, EnvError

__all__ = ["StepGraph", "bindings_kept", "graph_fallback_reason", "make_step_graph"]

_ALIGN = 16  # bytes; every packed output starts at a multiple (any dtype's view is then legal)


def graph_fallback_reason(env) -> str | None:
    """Why ``env``'s step cannot be one graph (None where it can)."""
    if not env.sim.device.is_cuda:
        return f"the device is {env.sim.device}, not a CUDA device"
    if not env.sync_free:
        return "sync_free is off (the step reads done.any() back to the host)"
    if env.cfg.nan_action == "raise":
        return "nan_action='raise' reads the actions back to the host"
    return None


def make_step_graph(env, requested) -> StepGraph | None:
    """The StepGraph of ``env`` for its ``graph`` setting (None, True or False), or None for the eager
    step: off when False, or where :func:`graph_fallback_reason` gives a reason (with a warning when the
    graph was asked for with True)."""
    if requested is not None and not isinstance(requested, bool):
        raise ConfigError(f"graph must be None, True or False, got {requested!r}")
    if requested is False:
        return None
    reason = graph_fallback_reason(env)
    if reason is not None:
        if requested:
            warnings.warn(f"graph=True: the step runs eagerly because {reason}", stacklevel=3)
        return None
    return StepGraph(env, capture=True)


def _owners(env) -> tuple:
    """The objects whose tensor attributes a step may write: env, task, its layout, randomizer, RNG, sim."""
    return tuple(o for o in (env, env.task, env.task.layout, env.randomizer, env.rng, env.sim) if o is not None)


@contextlib.contextmanager
def bindings_kept(owners):
    """Inside the block, tensor attributes of ``owners`` may be rebound; on leaving it each rebound one is
    copied back into its original tensor (same shape, dtype and device, else EnvError) and the attribute
    restored, so the original tensors hold the state, as a captured graph needs. If the block raises, the
    attributes are restored without copying (the originals still hold the state from before)."""
    before = [(obj, {k: v for k, v in vars(obj).items() if torch.is_tensor(v)}) for obj in owners]
    try:
        yield
    except BaseException:
        for obj, tensors in before:
            for name, orig in tensors.items():
                setattr(obj, name, orig)
        raise
    for obj, tensors in before:
        for name, orig in tensors.items():
            new = vars(obj).get(name)
            if new is orig:
                continue
            if not (torch.is_tensor(new) and new.shape == orig.shape and new.dtype == orig.dtype):
                setattr(obj, name, orig)
                raise EnvError(
                    f"{type(obj).__name__}.{name} ({orig.dtype} {tuple(orig.shape)}) was replaced by "
                    f"{_describe(new)} during a step; the step graph needs its state kept in shape "
                    "(write it in place, or pass graph=False)"
                )
            orig.copy_(new)
            setattr(obj, name, orig)


def _describe(value) -> str:
    return f"{value.dtype} {tuple(value.shape)}" if torch.is_tensor(value) else type(value).__name__


def _flatten(tree, path=()):
    """[(path, tensor)] of a tuple / dict tree of tensors, in order."""
    if torch.is_tensor(tree):
        return [(path, tree)]
    items = tree.items() if isinstance(tree, dict) else enumerate(tree)
    return [leaf for key, sub in items for leaf in _flatten(sub, path + (key,))]


class _Packing:
    """Where each output of the step lies in one byte buffer: (path, dtype, shape, offset, nbytes)."""

    def __init__(self, leaves):
        self.entries, offset = [], 0
        for path, t in leaves:
            nbytes = t.numel() * t.element_size()
            self.entries.append((path, t.dtype, tuple(t.shape), offset, nbytes))
            offset += -(-nbytes // _ALIGN) * _ALIGN
        self.nbytes = max(offset, _ALIGN)
        self.key = [(e[0], e[1], e[2]) for e in self.entries]

    def pack(self, leaves, buffer: torch.Tensor):
        if [(p, t.dtype, tuple(t.shape)) for p, t in leaves] != self.key:
            raise EnvError("the step's outputs changed layout between steps; the step graph needs them fixed")
        for (_, dtype, shape, offset, nbytes), (_, t) in zip(self.entries, leaves):
            buffer[offset : offset + nbytes].view(dtype).view(shape).copy_(t)

    def unpack(self, buffer: torch.Tensor):
        """(obs, reward, terminated, truncated, info) as views of ``buffer``."""
        root = {}
        for path, dtype, shape, offset, nbytes in self.entries:
            node = root
            for key in path[:-1]:
                node = node.setdefault(key, {})
            node[path[-1]] = buffer[offset : offset + nbytes].view(dtype).view(shape)
        return tuple(root[i] for i in range(len(root)))


class StepGraph:
    """The env step after the action check, replayed from one CUDA graph.

    Args:
        env: the NewtonVectorEnv (its ``_step(action, nan_rows)`` is what is captured).
        capture: False runs the same path (static inputs, kept bindings, packed outputs) eagerly, with no
            graph: what the CPU tests compare against the ordinary step.

    Attributes:
        captures: how many graphs were captured (1 unless ``reset(seed=...)`` asked for new ones).
    """

    def __init__(self, env, capture: bool = True):
        self.env = env
        self.capture = bool(capture)
        self.captures = 0
        self._owners = _owners(env)
        self._action = None  # (N, action) float32 static input
        self._nan_rows = None  # () int64 static input
        self._packing = None
        self._out = None  # the static output buffer (uint8)
        self._graph = None

    def invalidate(self):
        """Drop the graph; the next step runs eagerly and captures a new one (after ``reset(seed=...)``)."""
        if self._graph is not None:
            torch.cuda.synchronize(self._action.device)  # its memory pool is freed with it: let it finish
            self._graph = None

    def kept(self):
        """Context in which eager work (``reset()``) may rebind state: it is copied back in place."""
        return bindings_kept(self._owners)

    def step(self, action: torch.Tensor, nan_rows: torch.Tensor):
        """(obs, reward, terminated, truncated, info) of one step with the checked (N, action) float32
        ``action`` and the 0-d count of non-finite action rows."""
        if self._action is None:
            self._action = torch.empty_like(action)
            self._nan_rows = torch.empty_like(nan_rows)
        self._action.copy_(action)
        self._nan_rows.copy_(nan_rows)
        if self._graph is not None:
            self._graph.replay()
            return self._packing.unpack(self._out.clone())
        if not self.capture:
            self._run()
            return self._packing.unpack(self._out.clone())
        return self._warm_up_and_capture()

    def _run(self):
        """The step from the static inputs into the static output buffer."""
        with bindings_kept(self._owners):
            outputs = self.env._step(self._action, self._nan_rows)
        leaves = _flatten(outputs)
        if self._packing is None:
            self._packing = _Packing(leaves)
            self._out = torch.empty(self._packing.nbytes, dtype=torch.uint8, device=self._action.device)
        self._packing.pack(leaves, self._out)

    def _warm_up_and_capture(self):
        """This step eagerly on a side stream (loading kernels, warming torch up), then the capture."""
        device = self._action.device
        stream = torch.cuda.Stream(device=device)
        warp_stream = wp.stream_from_torch(stream)
        stream.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(stream), wp.ScopedStream(warp_stream, sync_exit=True):
            self._run()
        torch.cuda.current_stream(device).wait_stream(stream)
        result = self._packing.unpack(self._out.clone())
        graph = torch.cuda.CUDAGraph()
        try:
            for gen in self._generators(device):  # each replay then draws new numbers, as eager steps do
                graph.register_generator_state(gen)
            with wp.ScopedStream(warp_stream, sync_exit=True):
                with torch.cuda.graph(graph, stream=stream, capture_error_mode="thread_local"):
                    with wp.ScopedCapture(device=self.env.sim.device, stream=warp_stream, external=True):
                        self._run()
        except Exception as exc:  # host work in a task's step, a torch without generator registration...
            warnings.warn(f"the env step could not be captured as a CUDA graph ({exc}); it runs eagerly", stacklevel=4)
            self.env.step_graph = None  # eager from now on
            return result
        self._graph = graph
        self.captures += 1
        return result

    def _generators(self, device):
        """The torch.Generators on ``device`` held by the task and the other owners."""
        found = []
        for obj in self._owners:
            for value in vars(obj).values():
                if isinstance(value, torch.Generator) and value.device.type == device.type and value not in found:
                    found.append(value)
        return found
