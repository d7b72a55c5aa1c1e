#!/usr/bin/env bash
# Packs newton_gym's runtime for an offline Linux x86-64 GPU machine that has Python 3.12 and a CUDA torch
# but no warp-lang, usd-core, gymnasium, mujoco or rsl_rl (and nothing to download them with), for
# transfers of at most PACK_MB megabytes each (default 55): writes .gpu_packs/pack0, pack1, ... (each one
# part of one tar stream). Warp's two native libraries (about 370 MB) are zstd-compressed first; the
# machine needs no zstd binary (the zstandard wheel is in the pack). On the machine, copy every pack's
# part into one folder, then
#     source scripts/offline_install.sh FOLDER        # installs into /tmp/site and sets PYTHONPATH
# A kernel cache in .gpu_cache (scripts/gpu_kernel_cache.py) is packed too and unpacked into the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
PACK_MB="${PACK_MB:-55}"
WORK="${WHEEL_DIR:-.gpu_wheels}"   # downloads and compressed libraries, kept between runs
OUTDIR=.gpu_packs
mkdir -p "$WORK/files"
plat=(--only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64
      --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
# versions as in this checkout's environment where installed, else these
pins=(warp-lang==1.19.0 usd-core==26.11 gymnasium==1.4.0 farama-notifications==0.0.6 mujoco==4.0.0
      mujoco-core==4.0.0 glfw==2.11.0 pyopengl==3.1.10 trimesh==5.2.0 pycollada==0.9.3 mujoco-warp==4.0.0
      zstandard==0.25.0 rsl-rl-lib==5.5.1 tensordict==0.15.3 pyvers==0.2.3 gitpython==3.2.1 gitdb==4.0.12
      smmap==5.0.3 skrl==2.1.1)
for pin in "${pins[@]}"; do
    name="${pin%%==*}"
    ls "$WORK"/dl/"$(echo "$name" | tr - _)"-* >/dev/null 2>&1 ||
        python3 -m pip download -q --no-deps "${plat[@]}" -d "$WORK/dl" "$pin"
done
warp_whl=$(ls "$WORK"/dl/warp_lang-*.whl)
if [ ! -f "$WORK/files/warp.so.zst" ]; then
    rm -rf "$WORK/x" && mkdir -p "$WORK/x"
    unzip -q "$warp_whl" -d "$WORK/x" -x 'warp/examples/*' 'warp/tests/*'
    zstd -q -19 -T0 --long=27 "$WORK/x/warp/bin/warp.so" -o "$WORK/files/warp.so.zst"
    zstd -q -19 -T0 --long=27 "$WORK/x/warp/bin/warp-clang.so" -o "$WORK/files/warp-clang.so.zst"
    rm "$WORK"/x/warp/bin/*.so
    tar -C "$WORK/x" -cf - warp "$(basename "$(ls -d "$WORK"/x/warp_lang-*.dist-info)")" |
        zstd -q -19 -T0 -o "$WORK/files/warp_py.tar.zst"
fi
find "$WORK/dl" -name '*.whl' ! -name 'warp_lang-*' -exec cp {} "$WORK/files/" \;
# a CUDA kernel cache built here by scripts/gpu_kernel_cache.py --out .gpu_cache travels with the wheels
# (the first H200 lease carried 13 of the 28 binaries: the cache was packed while its build still ran)
if pgrep -f "^[^ ]*python[0-9.]* [^ ]*gpu_kernel_cache\.py" >/dev/null; then  # not a shell whose line names it
    echo "scripts/gpu_kernel_cache.py is still running: pack after it ends" >&2
    exit 1
fi
rm -f "$WORK/files/gpu_cache.tar.zst"
if [ -d .gpu_cache ]; then
    tar -cf - .gpu_cache | zstd -q -19 -T0 -o "$WORK/files/gpu_cache.tar.zst"
    echo "kernel cache: $(find .gpu_cache -name '*.cubin' | wc -l) CUDA binaries packed"
fi
rm -rf "$OUTDIR" && mkdir -p "$OUTDIR"
tar -C "$WORK/files" -cf - . | split -b "${PACK_MB}000000" -d -a 2 - "$OUTDIR/part"
i=0
for part in "$OUTDIR"/part*; do
    mkdir -p "$OUTDIR/pack$i" && mv "$part" "$OUTDIR/pack$i/"
    i=$((i + 1))
done
du -sh "$OUTDIR"/pack*
