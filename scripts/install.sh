#!/usr/bin/env bash
# Install newton_gym (editable) with the given extras, e.g. `bash scripts/install.sh test`.
# torch is installed first as the CPU build pinned below unless some torch is already present (on a
# GPU machine, install the CUDA build of torch yourself first and this script keeps it).
set -euo pipefail
extras="${1:-all}"
cd "$(dirname "$0")/.."
python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
if ! python -c "import torch" >/dev/null 2>&1; then
  python -m pip install --quiet "torch==2.13.0"
fi
python -m pip install --quiet -e ".[${extras}]"
