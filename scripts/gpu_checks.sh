#!/usr/bin/env bash
# The checks that need a GPU, for a machine that has one (run after scripts/install.sh test, with a CUDA
# build of torch for the env tests): the CUDA params of the test suite, then the solver and env benchmarks
# on cuda:0 (the issue's target: >= 3 M Ant env-steps/s at 4096 worlds).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pytest -q -rs -k "cuda" tests
python benchmarks/bench_solver.py --device cuda:0 --worlds 1024 4096 16384 --control-steps 20
python benchmarks/bench_env.py --device cuda:0 --worlds 1024 4096
