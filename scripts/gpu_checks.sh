#!/usr/bin/env bash
# The checks that need a GPU, for a machine that has one (run after scripts/install.sh test, with a CUDA
# build of torch for the env tests, and `pip install -e .[benchmark]` for the MuJoCo Warp and EnvPool
# peers): the CUDA params of the test suite, the GPU benchmark against MuJoCo Warp (the issue's target:
# >= 3 M Ant env-steps/s at 4096 worlds), the solver and env benchmarks on cuda:0, and where Nsight Systems
# (else Nsight Compute) is installed, a kernel summary of a short Ant run at 4096 worlds.
# Every output is also written under $OUT (default ./gpu_results).
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS="${OUT:-./gpu_results}"
mkdir -p "$RESULTS"
echo "results in $RESULTS"

# (-k cuda: the cuda:0 params and the test_cuda_* tests, e.g. the whole-step graph of tests/envs/test_step_graph.py)
python -m pytest -q -rs -k "cuda" tests 2>&1 | tee "$RESULTS/pytest_cuda.txt"
python benchmarks/bench_gpu.py --device cuda:0 --worlds 1024 4096 16384 2>&1 | tee "$RESULTS/bench_gpu.txt"
# the env step eager (no whole-step graph), to compare with the env-steps/s above
python benchmarks/bench_gpu.py --device cuda:0 --tasks Ant --worlds 4096 --no-graph 2>&1 |
    tee "$RESULTS/bench_gpu_no_graph.txt"
# the Newton Hessian by the lanes' own Cholesky instead of Warp's tile Cholesky (the CUDA default)
python benchmarks/bench_gpu.py --device cuda:0 --tasks Ant Go1 --worlds 4096 --no-tiles 2>&1 |
    tee "$RESULTS/bench_gpu_no_tiles.txt"
python benchmarks/bench_solver.py --device cuda:0 --worlds 1024 4096 16384 --steps 20 2>&1 |
    tee "$RESULTS/bench_solver.txt"
python benchmarks/bench_env.py --device cuda:0 --worlds 1024 4096 2>&1 | tee "$RESULTS/bench_env.txt"

# Profile: a short run (Ant, 4096 worlds, ours and MuJoCo Warp), kernels ranked by total GPU time.
short_run=(python benchmarks/bench_gpu.py --device cuda:0 --tasks Ant --worlds 4096 --control-steps 5 --repeat 1
    --settle 0.1)
if command -v nsys >/dev/null 2>&1; then
    report="$RESULTS/nsys_ant_4096"
    if nsys profile --stats=true --trace=cuda --force-overwrite=true -o "$report" "${short_run[@]}" \
        >"$RESULTS/nsys_profile.txt" 2>&1; then
        nsys stats --report cuda_gpu_kern_sum "$report.nsys-rep" >"$RESULTS/nsys_kernels.txt" 2>&1 || true
        echo "top kernels (nsys cuda_gpu_kern_sum; full table in $RESULTS/nsys_kernels.txt):"
        head -n 30 "$RESULTS/nsys_kernels.txt"
    else
        echo "nsys profile failed (see $RESULTS/nsys_profile.txt); profile skipped"
    fi
elif command -v ncu >/dev/null 2>&1; then
    # Nsight Compute replays each kernel: the first 300 launches are enough for a ranking.
    if ncu --launch-count 300 --print-summary per-kernel "${short_run[@]}" >"$RESULTS/ncu_kernels.txt" 2>&1; then
        echo "kernel summary (ncu, first 300 launches) in $RESULTS/ncu_kernels.txt"
        grep -E "^ +[A-Za-z_].*\(|Duration" "$RESULTS/ncu_kernels.txt" | head -n 40 || true
    else
        echo "ncu failed (see $RESULTS/ncu_kernels.txt); profile skipped"
    fi
else
    echo "neither nsys nor ncu on PATH: kernel profile skipped"
fi
