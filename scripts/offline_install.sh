# Source this on the offline GPU machine: installs what scripts/offline_wheels.sh packed into /tmp/site
# and puts it and this checkout on PYTHONPATH.  Usage: source scripts/offline_install.sh FOLDER_WITH_PARTS
_stage="$1"
_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$_stage/files" /tmp/site/warp/bin
cat "$_stage"/part* | tar -C "$_stage/files" -xf - || return 3
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$_stage"/files/*.whl || return 4
for _lib in warp.so warp-clang.so warp_py.tar; do
    PYTHONPATH=/tmp/site python3 -c "import sys, zstandard
zstandard.ZstdDecompressor(max_window_size=2**28).copy_stream(open(sys.argv[1], 'rb'), open(sys.argv[2], 'wb'))" \
        "$_stage/files/$_lib.zst" "/tmp/site/warp/bin/$_lib" || return 5
done
tar -C /tmp/site -xf /tmp/site/warp/bin/warp_py.tar && rm /tmp/site/warp/bin/warp_py.tar || return 6
if [ -f "$_stage/files/gpu_cache.tar.zst" ]; then  # the kernel cache of scripts/gpu_kernel_cache.py
    PYTHONPATH=/tmp/site python3 -c "import sys, zstandard
zstandard.ZstdDecompressor().copy_stream(open(sys.argv[1], 'rb'), open(sys.argv[2], 'wb'))" \
        "$_stage/files/gpu_cache.tar.zst" "$_stage/gpu_cache.tar" && tar -C "$_repo" -xf "$_stage/gpu_cache.tar" || return 7
fi
export PYTHONPATH="$_repo:/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
echo "installed into /tmp/site; PYTHONPATH=$PYTHONPATH"
