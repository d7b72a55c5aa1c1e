"""Where the solver's CPU time goes, by Python statement: ``perf`` samples of Warp's JIT-loaded kernels.

Builds bench_stages' model and state for one robot (``--worlds`` worlds, its settled state and random
controls), replays one of bench_stages' graphs (``--graph``: ``step`` for the whole step, else one launch such
as ``solve``, ``rows``, ``factor`` or ``collide``) for ``--seconds`` while ``perf record`` samples this process,
then maps every sample inside a Warp module's code to its inline chain of generated C++ functions and the
Python statement each came from (Warp writes the statement as a ``// ... <L n>`` comment above its C++).
Warp loads its CPU objects itself, so ``perf report`` sees them as anonymous memory: this script finds each
module's load address from a kernel's ``cpu_forward`` symbol and reads the object's line tables with
``addr2line``.

The kernels are compiled with line tables (``-debug-info-kind=line-tables-only``) added to Warp's own CPU flags
(``wp.config.cpu_compiler_flags``: its raised inlining thresholds shape the code) into their own cache
(``--cache``). Without those flags the build copied the large stage structs at inlined calls that the
production build does not; still, time changes with bench_stages.py. Needs Linux ``perf`` (and ``addr2line``
from binutils).

    python benchmarks/profile_cpu.py --robot go1 --graph step
    python benchmarks/profile_cpu.py --robot humanoid --graph factor --module smooth.dynamics

``--env TASK`` profiles the solver of ``gym.make_vec("Newton/TASK-v0")`` instead (``--worlds`` worlds, one
solver thread, the state after 60 env steps of random actions in the action space), e.g. ``--env Go1-Rough``
for the heightfield terrain's collision and rows.

    python benchmarks/profile_cpu.py --env Go1-Rough --graph collide --worlds 256
"""

from __future__ import annotations

import argparse
import bisect
import collections
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import warp as wp

_DEBUG_LINES = "-debug-info-kind=line-tables-only -dwarf-version=4"
_STATEMENT = re.compile(r"//\s*(.*?)\s*<L (\d+)>")
_NATIVE = re.compile(r"^(_ZL\d+)?item(_set)?_\d+")


def _module_regions(cache: str) -> list:
    """(text base address, text size, module name, object path, section) of every loaded CPU module."""
    rt = wp._src.context.runtime
    regions = []
    for mod in list(wp._src.context.user_modules.values()):
        for exe in getattr(mod, "execs", {}).values():
            if exe is None or not getattr(exe, "handle", None):
                continue
            kernels = mod.kernels.values() if isinstance(mod.kernels, dict) else mod.kernels
            for k in kernels:
                try:
                    sym = k.get_mangled_name() + "_cpu_forward"
                except RuntimeError:  # a kernel of the module that was never hashed (never launched)
                    continue
                addr = rt.llvm.wp_lookup(exe.handle.encode(), sym.encode())
                if not addr:
                    continue
                region = _object_of(cache, mod.name, sym, addr)
                if region:
                    regions.append(region)
                break
    return sorted(regions)


def _object_of(cache: str, module: str, sym: str, addr: int):
    """The region of the newest cached object of ``module`` that defines ``sym`` (loaded at ``addr``)."""
    objects = sorted(glob.glob(f"{cache}/*/wp_{module}_*/*.o"), key=os.path.getmtime, reverse=True)
    for obj in objects:
        names = subprocess.run(["nm", obj], capture_output=True, text=True).stdout.splitlines()
        hit = [line for line in names if line.endswith(" " + sym)]
        if not hit:
            continue
        sizes = subprocess.run(["size", "-A", obj], capture_output=True, text=True).stdout
        section = ".ltext" if ".ltext " in sizes else ".text"
        size = int(sizes.split(section + " ")[1].split()[0])
        return addr - int(hit[0].split()[0], 16), size, module, obj, section
    return None


def _chains(obj: str, section: str, offsets: list) -> list:
    """addr2line's inline chain (innermost first) of each offset, as (function, file:line) pairs."""
    args = []
    for off in offsets:
        args += [hex(off), "0xfffffff0"]  # an address with no line ends each chain
    out = subprocess.run(
        ["addr2line", "-e", obj, "-j", section, "-i", "-f", *args], capture_output=True, text=True
    ).stdout.splitlines()
    chains, cur = [], []
    for k in range(0, len(out) - 1, 2):
        if out[k] == "??" and out[k + 1].startswith("??"):
            chains.append(cur)
            cur = []
        else:
            cur.append((out[k], out[k + 1]))
    return chains


def _statement(lines: list, line: int) -> str:
    for i in range(min(line, len(lines)) - 1, max(line - 400, -1), -1):
        m = _STATEMENT.search(lines[i])
        if m:
            return f"{m.group(1)[:70]} <L{m.group(2)}>"
    return "?"


def _attribute(data: str, regions: list, focus: str | None, top: int):
    ips = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True).stdout.split()
    starts = [r[0] for r in regions]
    per = collections.defaultdict(collections.Counter)
    outside = 0
    for text in ips:
        ip = int(text, 16)
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip - regions[i][0] < regions[i][1]:
            per[i][ip - regions[i][0]] += 1
        else:
            outside += 1
    total = max(len(ips), 1)
    print(f"{len(ips)} samples; outside Warp modules: {100 * outside / total:.1f}%")
    for i, c in sorted(per.items(), key=lambda kv: -sum(kv[1].values())):
        print(f"  {100 * sum(c.values()) / total:5.1f}%  {regions[i][2]}")
    phases, statements = collections.Counter(), collections.Counter()
    for i, c in per.items():
        _base, _size, name, obj, section = regions[i]
        if focus and focus not in name:
            continue
        cpp = glob.glob(os.path.join(os.path.dirname(obj), "*.cpp"))
        lines = open(cpp[0]).read().splitlines() if cpp else []
        offsets = sorted(c)
        for j in range(0, len(offsets), 400):
            chunk = offsets[j : j + 400]
            for off, chain in zip(chunk, _chains(obj, section, chunk)):
                frames = [
                    (f, int(loc.rsplit(":", 1)[1]))
                    for f, loc in chain
                    if ".cpp:" in loc
                    and loc.rsplit(":", 1)[1].isdigit()
                    and "cpu_forward" not in f
                    and not _NATIVE.match(f)  # items.item / item_set: the caller's statement is the one
                ]
                # An inlined native item / item_set can come back as the kernel's own frame at the native
                # function's line (outside the kernel's body): its caller's statement is the one.
                if len(frames) > 1 and "cpu_kernel_forward" in frames[0][0]:
                    frames = frames[1:]
                short = name.split(".")[-1]
                names = [re.sub(r"^_ZL\d+|_cpu_kernel_forward.*|_0N2wp.*", "", f) for f, _ in frames]
                phases[f"{short}: " + " > ".join(reversed(names[-4:]))] += c[off]
                where = f"{names[0][:26]:<26} {_statement(lines, frames[0][1])}" if frames else "?"
                statements[f"{short[:10]:<10} {where}"] += c[off]
    print("\nby inline chain (outermost 4 functions):")
    for key, n in phases.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {key[:150]}")
    print("\nby innermost Python statement:")
    for key, n in statements.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {key[:160]}")


def _env_solver(task: str, worlds: int):
    """The solver, state and solver step [s] of ``Newton/<task>-v0`` (:func:`bench_stages.stepped_env`)."""
    import bench_stages as bs

    sim = bs.stepped_env(task, worlds).unwrapped.sim
    return sim.solver, sim.state, float(sim.cfg.sim_dt)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robot", default="go1", help="a bench_solver robot: ant, humanoid, go1, g1")
    p.add_argument("--env", default=None, help="a Newton task (Go1-Rough, ...): profile its env's solver instead")
    p.add_argument("--graph", default="step", help="step, or one of bench_stages' graphs (solve, rows, factor, ...)")
    p.add_argument("--worlds", type=int, default=64)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--module", default=None, help="attribute statements of modules whose name contains this only")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "newton_gym_profile_cpu"))
    a = p.parse_args()
    if not shutil.which("perf") or not shutil.which("addr2line"):
        sys.exit("profile_cpu.py needs Linux perf and addr2line (binutils) on PATH")
    # Line tables added to Warp's own flags (its inlining thresholds shape the code): the build timed is the one
    # profiled.
    wp.config.cpu_compiler_flags = f"{wp.config.cpu_compiler_flags or '-march=native'} {_DEBUG_LINES}"
    wp.config.kernel_cache_dir = a.cache
    import bench_stages as bs
    from bench_solver import _mujoco_model, _settled_state, settle_time

    if a.env is None:
        m = _mujoco_model(a.robot)
        solver, state, _ctrl = bs._solver(m, _settled_state(m, settle_time(a.robot, None)), a.worlds)
        graphs = bs._stage_graphs(solver, state, float(m.opt.timestep))
        label = a.robot
    else:
        solver, state, dt = _env_solver(a.env, a.worlds)
        graphs = bs._stage_graphs(solver, state, dt)
        label = a.env
    for _ in range(101):  # as bench_stages times them: after a hundred steps
        for name in bs._STEP:
            bs._replay(graphs, name)
    wp.synchronize()
    names = bs._STEP if a.graph == "step" else (a.graph,)
    regions = _module_regions(a.cache)
    data = os.path.join(a.cache, f"perf_{label}_{a.graph}.data")
    perf = subprocess.Popen(
        ["perf", "record", "-F", "4000", "-p", str(os.getpid()), "-o", data],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    start, loops = time.perf_counter(), 0
    while time.perf_counter() - start < a.seconds:
        for name in names:
            bs._replay(graphs, name)
        loops += 1
    wp.synchronize()
    elapsed = time.perf_counter() - start
    perf.send_signal(signal.SIGINT)
    perf.wait()
    print(f"{label}, {a.graph}: {1e6 * elapsed / (loops * a.worlds):.2f} us per world (line-table build)")
    _attribute(data, regions, a.module, a.top)


if __name__ == "__main__":
    main()
