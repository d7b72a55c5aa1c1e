"""Registers, stack and shared memory of every CUDA kernel in a Warp kernel cache, and how many one-warp
world blocks each lets reside on one SM, read from the CUBINs themselves (no GPU, no CUDA toolkit).

The solver's per-world passes launch one block of 32 lanes (one warp) per world. An SM holds at most 32
blocks, 64 warps and 65,536 registers (sm_90: H100, H200), registers allocated per warp in units of 256, so
a kernel of R registers per thread keeps at most floor(65536 / (32 R rounded up to 256)) worlds resident per
SM (8 at R = 255), fewer where its shared memory runs out first. With fewer resident worlds there are
fewer warps to hide each world's memory latency, and a world count above (SMs x resident) runs in waves.
With one thread per world (``block_dim=1`` on CUDA: 64 worlds to a block) each resident warp holds 32 worlds.

A kernel's registers (EIATTR_REGCOUNT) and stack frame (EIATTR_FRAME_SIZE) come from the ELF section
``.nv.info``, its static shared memory from ``.nv.shared.<kernel>``. ``cuobjdump --dump-resource-usage``
(the pip wheel ``nvidia-cuda-cuobjdump``) prints the same numbers.

    python scripts/gpu_kernel_cache.py --out .gpu_cache --tasks Ant --world-dofs --cuda-registers 128 64
    python benchmarks/cuda_resources.py .gpu_cache
"""

from __future__ import annotations

import argparse
import glob
import os
import struct

_REGCOUNT = 0x2F  # EIATTR_REGCOUNT: (symbol index, registers per thread)
_FRAME_SIZE = 0x11  # EIATTR_FRAME_SIZE: (symbol index, stack frame bytes per thread)
SM_REGISTERS = 65536
SM_BLOCKS = 32
SM_WARPS = 64
SM_SHARED = 228 * 1024  # bytes of shared memory per SM (sm_90), 1 KB of it reserved per block
REGISTER_UNIT = 256  # registers are allocated per warp in these units


class CubinError(ValueError):
    """A file that is not a 64-bit CUDA ELF."""


def _sections(data: bytes) -> dict[str, tuple[int, int, int]]:
    """{name: (offset, size, sh_info)} of the ELF's sections."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise CubinError("not a 64-bit ELF")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    out = {}
    for h in headers:
        start = names + h[0]
        out[data[start : data.index(b"\0", start)].decode()] = (h[4], h[5], h[7])
    return out


def _attributes(data: bytes, offset: int, size: int):
    """(attribute, payload bytes or None) of an ``.nv.info`` section."""
    o, end = offset, offset + size
    while o < end:
        fmt, attr = data[o], data[o + 1]
        o += 2
        if fmt == 4:  # EIFMT_SVAL: u16 size, then the payload
            (n,) = struct.unpack_from("<H", data, o)
            yield attr, data[o + 2 : o + 2 + n]
            o += 2 + n
        elif fmt == 3:  # EIFMT_HVAL: u16 value
            yield attr, data[o : o + 2]
            o += 2
        elif fmt == 2:  # EIFMT_BVAL: u8 value
            yield attr, data[o : o + 1]
            o += 1
        else:  # EIFMT_NVAL: no value
            yield attr, None


def kernel_resources(path: str) -> list[dict]:
    """Each kernel of the CUBIN at ``path``: name, registers, stack bytes, static shared bytes."""
    data = open(path, "rb").read()
    sections = _sections(data)
    per_symbol: dict[int, dict] = {}
    if ".nv.info" in sections:
        offset, size, _ = sections[".nv.info"]
        for attr, payload in _attributes(data, offset, size):
            if attr in (_REGCOUNT, _FRAME_SIZE) and payload is not None and len(payload) == 8:
                symbol, value = struct.unpack("<II", payload)
                key = "registers" if attr == _REGCOUNT else "stack"
                per_symbol.setdefault(symbol, {})[key] = value
    kernels = []
    for name, (_, _, info) in sections.items():
        if not name.startswith(".text."):
            continue
        kernel = name[len(".text.") :]
        found = per_symbol.get(info & 0xFFFFFF, {})
        shared = sections.get(f".nv.shared.{kernel}", (0, 0, 0))[1]
        kernels.append(
            {"kernel": kernel, "registers": found.get("registers", 0), "stack": found.get("stack", 0), "shared": shared}
        )
    return kernels


def resident_worlds(registers: int, shared: int) -> int:
    """One-warp (32-lane) blocks of a kernel that one sm_90 SM holds at once."""
    per_warp = -(-max(registers, 1) * 32 // REGISTER_UNIT) * REGISTER_UNIT
    by_registers = SM_REGISTERS // per_warp
    by_shared = SM_SHARED // (shared + 1024)
    return min(SM_BLOCKS, SM_WARPS, by_registers, by_shared)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cache", help="a Warp kernel cache folder (WARP_CACHE_PATH, or a version folder in it)")
    p.add_argument("--sms", type=int, default=132, help="SMs of the GPU (H100 SXM and H200: 132)")
    p.add_argument("--all", action="store_true", help="every kernel, not only the per-world pass kernels")
    a = p.parse_args()
    paths = sorted(glob.glob(os.path.join(a.cache, "**", "*.cubin"), recursive=True))
    if not paths:
        raise SystemExit(f"{a.cache}: no .cubin files")
    passes = ("_smooth_kernel", "_collide_kernel", "world_kernel", "_finish_kernel", "_convex_kernel", "_field")
    print(
        f"{len(paths)} CUBINs under {a.cache}; resident: one-warp world blocks per SM (and on {a.sms} SMs); a module "
        "built for one thread per world (block_dim 1 on CUDA) holds 32 worlds per resident warp"
    )
    print(f"{'kernel':<64} {'regs':>5} {'stack B':>8} {'shared B':>9} {'resident':>9} {'on GPU':>7}")
    rows = []
    for path in paths:
        for k in kernel_resources(path):
            if a.all or any(n in k["kernel"] for n in passes):
                rows.append(k)
    for k in sorted(rows, key=lambda r: (r["kernel"].split("_cuda")[0], -r["registers"])):
        resident = resident_worlds(k["registers"], k["shared"])
        name = k["kernel"].replace("_cuda_kernel_forward", "")
        print(
            f"{name[:64]:<64} {k['registers']:>5} {k['stack']:>8} {k['shared']:>9} {resident:>9} {resident * a.sms:>7}"
        )


if __name__ == "__main__":
    main()
