#!/usr/bin/env bash
# Install newton_gym (editable) with the given extras, e.g. `bash scripts/install.sh test`.
# torch is installed first as the CPU build pinned below unless some torch is already present (on a
# GPU machine, install the CUDA build of torch yourself first and this script keeps it).
set -euo pipefail
extras="${1:-all}"
cd "$(dirname "$0")/.."
start=$SECONDS
echo "newton_gym install ($extras) into $(python -c 'import sys; print(sys.prefix)')"
python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
if ! python -c "import torch" >/dev/null 2>&1; then
  echo "  [1/2] torch 2.13.0 (CPU build)"
  python -m pip install --quiet "torch==2.13.0"
else
  echo "  [1/2] torch $(python -c 'import torch; print(torch.__version__)') already installed, kept"
fi
echo "  [2/2] newton_gym[$extras] and its dependencies"
python -m pip install --quiet -e ".[${extras}]"
case ",$extras," in
  *,test,*)
    # the viewer's browser test drives a headless Chromium (Debian's package); elsewhere it is skipped
    if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      echo "  chromium (Debian package, for the browser test)"
      apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 \
        || echo "  chromium could not be installed: the browser test will be skipped"
    fi
    ;;
esac
echo "  installed in $((SECONDS - start)) s"
