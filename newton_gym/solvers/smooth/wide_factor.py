"""The factorization and smooth acceleration of up to :data:`..items.WIDE` articulations of one tree shape at
once, on the CPU.

The per-world smooth pass (:func:`..forward.launch_smooth`) ends in :func:`.dynamics.factor_articulation`:
the tree factorization of M (and of M_hat where the articulation has implicit terms) and the two triangular
solves of qacc_smooth. That is scalar code whose updates wait on each other (one multiply-subtract per
ancestor pair, 2 x 375 on Go1). Worlds replicated from one robot run the same updates on other numbers, so
here one CPU thread takes WIDE articulations of the same tree shape at once, each number of the pass a
``wide64`` (one float64 per articulation, side by side), which Warp's CPU build turns into vector
instructions:

1. gather: each lane's M (and M_hat) entries that the factorization reads (ancestors and diagonal, plus
   armature, or the implicit diagonal) and its qfrc - qfrc_bias into a per-thread scratch;
2. the same :func:`..spatial.ltl_factor_pair`, :func:`..spatial.ltl_solve_t` and :func:`..spatial.ltl_solve`
   as the scalar path, on the wide scratch (their element arithmetic has wide64 overloads, lane by lane);
3. scatter: each real lane's factor, implicit factor (where that lane has implicit terms), qacc_smooth and
   implicit flag, as :func:`.dynamics.factor_articulation` writes them.

Each lane sees the scalar path's operations in the same order, so the results are bitwise the same (a test
holds it). Groups are formed once, per span of worlds a CPU thread steps (:class:`WideFactor`): the
articulations of one tree shape (DOF count and parent pattern), WIDE at a time, a last group padded by
repeating its first lane (not written back). Where a shape has fewer than :data:`MIN_LANES` articulations in a
span, or a damped tendon moves a DOF of a group (its J^T J joins M_hat: checked at each step), the
articulations keep the scalar path, one by one in the group kernel; a span with no group side by side keeps
the factorization in the smooth pass (no launch is added). Only for one-lane blocks on the CPU
(:func:`uses_wide_factor`); the lanes' and CUDA paths are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import warp as wp

from ..items import WIDE, item, item_set, wide64
from ..spatial import ltl_factor_pair, ltl_solve, ltl_solve_t
from .dynamics import FactorArgs, factor_articulation
from .tendon import tendon_arts_implicit

wp.set_module_options({"enable_backward": False})

__all__ = ["MIN_LANES", "WideFactor", "uses_wide_factor"]

MIN_LANES = 3  # fewest articulations of one shape in a span that are factored side by side
ENABLED = True  # the wide path where it applies (tests switch it off to compare with the scalar path)


@wp.struct
class WideArgs:
    """The groups of every span and the scratch slots (one per list of spans that one thread steps)."""

    art: wp.array(dtype=int)  # (groups * WIDE,) articulation of each lane; padding repeats lane 0
    count: wp.array(dtype=int)  # (groups,) real lanes of each group
    wide: wp.array(dtype=int)  # (groups,) 1: side by side; 0: each real lane by the scalar path
    chol: wp.array(dtype=wide64)  # (slots * size,) M's factor, per scratch slot a block of n_max^2
    chol_implicit: wp.array(dtype=wide64)  # (slots * size,) M_hat's factor
    x: wp.array(dtype=wide64)  # (slots * n_max,) right-hand side, then qacc_smooth
    size: int  # n_max^2
    n_max: int  # most DOFs of a wide group's articulation


wide_int = wp.types.vector(length=WIDE, dtype=int)


@wp.func
def _lanes(t: int, fac: FactorArgs, g: WideArgs):
    """(first DOF, matrix offset) of each lane's articulation in group t."""
    dofs = wide_int()
    offs = wide_int()
    for c in range(WIDE):
        a = g.art[t * WIDE + c]
        dofs[c] = fac.m.art_dof_start[a]
        offs[c] = fac.m.art_mat_start[a]
    return dofs, offs


@wp.func
def _gather(n: int, d0: int, dofs: wide_int, offs: wide_int, fac: FactorArgs, g: WideArgs, base: int, xbase: int):
    """Each lane's M + armature and M_hat (M + its implicit diagonal) on the ancestor entries and diagonal of
    each row (the entries :func:`.dynamics._copy_ancestors` copies) and its qfrc - qfrc_bias in float64, into
    the scratch at ``base`` / ``xbase``. Returns per lane 1 where it has implicit terms."""
    implicit = wide_int()
    k = int(0)
    while k < n:
        row = k * n
        m = wide64()
        h = wide64()
        x = wide64()
        for c in range(WIDE):
            diag = item(fac.mass_matrix, offs[c] + row + k)
            armature = item(fac.m.joint_armature, dofs[c] + k)
            dof_diag = item(fac.dof_diag, dofs[c] + k)
            m[c] = diag + wp.float64(armature)
            h[c] = diag + wp.float64(dof_diag)
            if dof_diag != armature:
                implicit[c] = 1
            x[c] = wp.float64(item(fac.qfrc, dofs[c] + k)) - wp.float64(item(fac.qfrc_bias, dofs[c] + k))
        item_set(g.chol, base + row + k, m)
        item_set(g.chol_implicit, base + row + k, h)
        item_set(g.x, xbase + k, x)
        i = item(fac.m.dof_parent, d0 + k)
        while i >= 0:
            j = i - d0
            v = wide64()
            for c in range(WIDE):
                v[c] = item(fac.mass_matrix, offs[c] + row + j)
            item_set(g.chol, base + row + j, v)
            item_set(g.chol_implicit, base + row + j, v)
            i = item(fac.m.dof_parent, i)
        k += 1
    return implicit


@wp.func
def _scatter(
    t: int,
    count: int,
    n: int,
    d0: int,
    dofs: wide_int,
    offs: wide_int,
    implicit: wide_int,
    fac: FactorArgs,
    g: WideArgs,
    base: int,
    xbase: int,
):
    """The real lanes' results into their articulations' arrays, as :func:`.dynamics.factor_articulation`
    writes them (M_hat's factor only where the lane has implicit terms; not ``dof_scratch``, which it uses
    as scratch and the later passes write before they read)."""
    k = int(0)
    while k < n:
        row = k * n
        i = k + d0
        while i >= 0:
            j = i - d0
            v = item(g.chol, base + row + j)
            h = item(g.chol_implicit, base + row + j)
            for c in range(WIDE):
                if c < count:
                    item_set(fac.chol_out, offs[c] + row + j, v[c])
                    if implicit[c] != 0:
                        item_set(fac.chol_implicit_out, offs[c] + row + j, h[c])
            i = item(fac.m.dof_parent, i)
        x = item(g.x, xbase + k)
        for c in range(WIDE):
            if c < count:
                item_set(fac.qacc_smooth_out, dofs[c] + k, wp.float32(x[c]))
        k += 1
    for c in range(WIDE):
        if c < count:
            fac.art_implicit_out[g.art[t * WIDE + c]] = implicit[c]


@wp.kernel
def _wide_factor_kernel(first: int, slot: int, fac: FactorArgs, g: WideArgs):
    t = wp.tid() + first
    count = g.count[t]
    dofs, offs = _lanes(t, fac, g)
    d0 = dofs[0]
    n = fac.m.art_dof_start[g.art[t * WIDE] + 1] - d0
    scalar = g.wide[t] == 0
    if not scalar:
        for c in range(WIDE):  # a damped tendon adds its J^T J to M_hat: the scalar path does that
            ten = tendon_arts_implicit(
                dofs[c], dofs[c] + n, fac.dof_ten_start, fac.dof_ten_entry, fac.ten_jac_tendon, fac.ten_implicit
            )
            if ten != 0:
                scalar = True
    if scalar:
        c = int(0)
        while c < count:
            factor_articulation(g.art[t * WIDE + c], fac, 0, 1)
            c += 1
        return
    base = slot * g.size
    xbase = slot * g.n_max
    implicit = _gather(n, d0, dofs, offs, fac, g, base, xbase)
    both = int(0)
    for c in range(WIDE):
        if c < count and implicit[c] != 0:
            both = 1
    # lane 0's DOF numbering walks every lane's tree: the group's articulations share its parent pattern
    ltl_factor_pair(g.chol, g.chol_implicit, both, base, n, d0, fac.m.dof_parent, 0, 1)
    ltl_solve_t(g.chol, base, n, d0, fac.m.dof_parent, g.x, xbase)
    ltl_solve(g.chol, base, n, d0, fac.m.dof_parent, g.x, xbase)
    _scatter(t, count, n, d0, dofs, offs, implicit, fac, g, base, xbase)


def uses_wide_factor(device, lanes: int) -> bool:
    """Whether the smooth pass leaves its factorization to :class:`WideFactor`: one-lane blocks on the CPU."""
    return ENABLED and wp.get_device(device).is_cpu and int(lanes) == 1


@dataclass
class _Groups:
    first: int  # first group of the span
    count: int  # groups of the span
    slot: int  # scratch slot of the thread that steps the span
    wide: bool  # some group of the span is factored side by side


class WideFactor:
    """The groups of the spans the solver steps and their scratch; :meth:`launch` factors one span.

    Args:
        device: the solver's (CPU) device.
        dof_start: (articulations + 1,) first DOF of each articulation (the solver's tree tables).
        dof_parent: (DOFs,) parent DOF of each DOF, -1 at a root.
        span_lists: lists of :class:`..partition.Span`, each list stepped by one thread, one span at a time
            (the solver's chunks and its whole spans): each list gets its own scratch slot.

    Attributes:
        group_count: groups over all spans; wide_groups: those factored side by side.
    """

    def __init__(self, device, dof_start: np.ndarray, dof_parent: np.ndarray, span_lists):
        keys = []
        for a in range(len(dof_start) - 1):
            d0, d1 = int(dof_start[a]), int(dof_start[a + 1])
            keys.append((d1 - d0, tuple(int(p) - d0 if p >= 0 else -1 for p in dof_parent[d0:d1])))
        arts, counts, wides, n_max = [], [], [], 0
        self._groups = {}  # span.articulations -> _Groups
        for slot, spans in enumerate(span_lists):
            for span in spans:
                a0, na = span.articulations
                if (a0, na) in self._groups:
                    continue
                first = len(counts)
                by_shape: dict = {}
                for a in range(a0, a0 + na):
                    by_shape.setdefault(keys[a], []).append(a)
                for key, members in by_shape.items():
                    wide = len(members) >= MIN_LANES
                    if wide:
                        n_max = max(n_max, key[0])
                    for s in range(0, len(members), WIDE):
                        lanes = members[s : s + WIDE]
                        arts.extend(lanes + [lanes[0]] * (WIDE - len(lanes)))
                        counts.append(len(lanes))
                        wides.append(int(wide and len(lanes) >= MIN_LANES))
                self._groups[(a0, na)] = _Groups(first, len(counts) - first, slot, any(wides[first:]))
        self.slots = len(span_lists)
        self.group_count = len(counts)
        self.wide_groups = int(sum(wides))
        g = WideArgs()
        g.art = wp.array(np.asarray(arts or [0] * WIDE, np.int32), dtype=int, device=device)
        g.count = wp.array(np.asarray(counts or [0], np.int32), dtype=int, device=device)
        g.wide = wp.array(np.asarray(wides or [0], np.int32), dtype=int, device=device)
        g.size = max(n_max, 1) ** 2
        g.n_max = max(n_max, 1)
        g.chol = wp.zeros(self.slots * g.size, dtype=wide64, device=device)
        g.chol_implicit = wp.zeros(self.slots * g.size, dtype=wide64, device=device)
        g.x = wp.zeros(self.slots * g.n_max, dtype=wide64, device=device)
        self.args = g
        self.device = device

    def covers(self, span) -> bool:
        """Whether ``span`` has articulations to factor side by side (else the smooth pass factors its
        articulations itself, and no launch is added)."""
        groups = self._groups.get(span.articulations)
        return groups is not None and groups.wide

    def launch(self, span, fac: FactorArgs):
        """Factor the articulations of ``span`` and solve their qacc_smooth (the end of the smooth pass)."""
        groups = self._groups[span.articulations]
        if groups.count == 0:
            return
        wp.launch(
            _wide_factor_kernel,
            dim=groups.count,
            inputs=[groups.first, groups.slot, fac, self.args],
            device=self.device,
        )
