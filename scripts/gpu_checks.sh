#!/usr/bin/env bash
# The checks that need a GPU, most important first, each under a time limit, so that a short lease returns
# what it reached. Run after scripts/install.sh test with a CUDA build of torch and `pip install -e
# .[benchmark]` for the MuJoCo Warp peer (on an offline machine: scripts/offline_wheels.sh here, then
# `source scripts/offline_install.sh FOLDER` there).
#
# 1. warm-up: one process compiles the kernels of Ant, Go1 and Humanoid (ours and MuJoCo Warp's) that the
#    kernel cache lacks. A cache built without a GPU by scripts/gpu_kernel_cache.py is used where
#    .gpu_cache/ exists (WARP_CACHE_PATH); the later steps then find every kernel compiled.
# 2. bench_gpu.py at 4096 worlds: env-steps/s, physics steps/s, MuJoCo Warp on the same MJCF (the issue's
#    target: >= 3 M Ant env-steps/s, >= 1.5x MuJoCo Warp).
# 3. bench_gpu at 4096 worlds with the per-world pass kernels capped at 128 and 64 registers per thread
#    (Option.cuda_registers; the first H200 run: 255 registers, 8 resident worlds per SM), then one thread
#    per world (block_dim 1, 64 worlds to a CUDA block) against 32 lanes per world at 4096 and 16384 worlds.
# 4. a per-kernel profile of the Ant step at 4096 worlds (benchmarks/profile_gpu.py, Warp's CUDA timers).
# 5. the CUDA params of the test suite (-k cuda; 42 of 50 passed and 7 were not reached in the first run).
# 6. bench_gpu at 1024 and 16384 worlds, the env step without its graph, the lanes' own Cholesky instead of
#    tiles, bench_solver and bench_env on cuda:0.
#
# 7. a short Go1-Flat training run at 4096 worlds with rsl_rl (env-steps/s while training, the return and
#    tracking error reached; its learning curve (CSV, and PNG where written) is copied next to the log).
#
# GPU_STEPS picks and orders the steps (names as in the case below).
# GPU_BUDGET_S (default 3600): seconds for the whole run; a step that would start with less than its
# limit left is cut to what is left, and skipped under 30 s. All output is also written to
# $OUT/gpu_checks.log (default ./gpu_results).
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS="${OUT:-./gpu_results}"
BUDGET="${GPU_BUDGET_S:-3600}"
START=$(date +%s)
mkdir -p "$RESULTS"
exec > >(tee -a "$RESULTS/gpu_checks.log") 2>&1
echo "results in $RESULTS; budget ${BUDGET} s"
if [ -d .gpu_cache ]; then
    export WARP_CACHE_PATH="$PWD/.gpu_cache"
    echo "kernel cache: $WARP_CACHE_PATH ($(find .gpu_cache -name '*.cubin' | wc -l) CUDA binaries)"
fi
export PYTHONUNBUFFERED=1

# step NAME LIMIT_S COMMAND...: run COMMAND under LIMIT_S seconds (less where the budget is shorter)
step() {
    local name=$1 limit=$2 left
    shift 2
    left=$((BUDGET - ($(date +%s) - START)))
    if [ "$left" -lt 30 ]; then
        echo "=== $name: skipped, ${left} s of the budget left"
        return 0
    fi
    [ "$left" -lt "$limit" ] && limit=$left
    echo "=== $name (at $(($(date +%s) - START)) s, limit ${limit} s): $*"
    timeout "$limit" "$@"
    [ $? -eq 124 ] && printf '\n=== %s: stopped at its limit\n' "$name"
    return 0
}

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
# one CUDA test stuck in a build must not take the whole test step (pytest-timeout, where installed)
TEST_TIMEOUT=()
python -c "import pytest_timeout" 2>/dev/null && TEST_TIMEOUT=(--timeout "${PYTEST_TIMEOUT_S:-120}")
# GPU_STEPS: the steps to run, in this order (default: all, most important first)
for name in ${GPU_STEPS:-warmup bench_gpu bench_gpu_registers bench_gpu_lanes profile_ant pytest_cuda bench_gpu_sizes bench_gpu_no_graph bench_gpu_no_tiles bench_solver bench_env train_go1}; do
    case $name in
    warmup) step warmup 420 python benchmarks/bench_gpu.py --device cuda:0 --worlds 64 --control-steps 2 --repeat 1 --settle 0.02 ;;
    bench_gpu) step bench_gpu 300 python benchmarks/bench_gpu.py --device cuda:0 --worlds 4096 --repeat 3 ;;
    # (-k cuda: the cuda:0 params and the test_cuda_* tests, e.g. the whole-step graph of tests/envs/test_step_graph.py;
    # not tests/test_cuda_codegen.py, 146 s of NVRTC builds into a temporary folder that CI runs without a GPU)
    # the per-world pass kernels at register caps (Option.cuda_registers): more resident worlds per SM
    bench_gpu_registers) step bench_gpu_registers 240 python benchmarks/bench_gpu.py --device cuda:0 --worlds 4096 \
        --cuda-registers 0 128 64 --no-peer --repeat 3 ;;
    # one thread per world (block_dim 1: 64 worlds to a CUDA block) against 32 lanes per world
    bench_gpu_lanes) step bench_gpu_lanes 240 python benchmarks/bench_gpu.py --device cuda:0 --worlds 4096 16384 \
        --lanes 32 1 --no-peer --repeat 3 ;;
    pytest_cuda) step pytest_cuda "${PYTEST_LIMIT_S:-600}" python -m pytest -q -rs -p no:cacheprovider "${TEST_TIMEOUT[@]}" -k cuda \
        --ignore=tests/test_cuda_codegen.py tests ;;
    profile_ant) step profile_ant 120 python benchmarks/profile_gpu.py --task Ant --worlds 4096 ;;
    bench_gpu_sizes) step bench_gpu_sizes 400 python benchmarks/bench_gpu.py --device cuda:0 --worlds 1024 16384 ;;
    # the env step eager (no whole-step graph), to compare with the env-steps/s above
    bench_gpu_no_graph) step bench_gpu_no_graph 200 python benchmarks/bench_gpu.py --device cuda:0 --tasks Ant --worlds 4096 --no-graph ;;
    # the Newton Hessian by the lanes' own Cholesky instead of Warp's tile Cholesky (the CUDA default)
    bench_gpu_no_tiles) step bench_gpu_no_tiles 300 python benchmarks/bench_gpu.py --device cuda:0 --tasks Ant Go1 --worlds 4096 --no-tiles ;;
    bench_solver) step bench_solver 400 python benchmarks/bench_solver.py --device cuda:0 --worlds 1024 4096 16384 --steps 20 --repeats 5 ;;
    bench_env) step bench_env 300 python benchmarks/bench_env.py --device cuda:0 --worlds 1024 4096 ;;
    train_go1)
        step train_go1 300 python -m newton_gym train --config configs/train_go1.toml --num-envs 4096 --device cuda \
            --minutes 3 --out /tmp/newton_gym_train_go1 --no-progress
        cp /tmp/newton_gym_train_go1/learning_curve.* "$RESULTS/" 2>/dev/null ;;
    *) echo "=== $name: no such step" ;;
    esac
done
echo "=== done at $(($(date +%s) - START)) s"
