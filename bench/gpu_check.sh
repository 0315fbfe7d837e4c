#!/usr/bin/env bash
# The one prepared check of the CUDA kernels on a machine with an NVIDIA GPU (sm_90: H100/H200).
#
# 1. Beforehand, on a machine with this project's Debian packages (a developer's, or CI's):
#        bash bench/gpu_check.sh --prepare
#    copies GoogleTest and Google Benchmark (headers, libraries, CMake packages) into
#    build-gpu-deps/ (ignored by git, like every build*/ folder), because the GPU machine has
#    neither and cannot download them. Carry that folder to the GPU machine with the tree.
# 2. On the GPU machine, from the repository root:
#        bash bench/gpu_check.sh [BUILD_DIR]          (default BUILD_DIR: build-gpu)
#    configures a kernels-only build (PSTWIN_KERNELS_ONLY: no SimGrid, ZeroMQ, Boost, ...),
#    Release, CUDA architectures $CUDA_ARCH (default 90); builds only the CUDA tests and the
#    CUDA benchmark with -j$(nproc); runs `ctest -R Cuda`; runs bench/cuda_kernels_bench with
#    JSON output; and prints each memory-bound kernel's GB/s as a share of the device-to-device
#    copy bandwidth measured in the same run (the issue's goal: 70% or more), and pstwin's gemm
#    against cuBLAS called directly.
#
# Outputs go to $OUT when it is set (the device tool's folder), else BUILD_DIR/gpu-check/:
# ctest.log, cuda_kernels_bench.json, bench.log and table.txt. On 16 cores the whole check takes
# about two to three minutes (most of it nvcc). Exit status: 0 when everything passed; 1 when the
# build, a CUDA test or the benchmark failed, or when the kernel tests were skipped (no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEPS=$ROOT/build-gpu-deps

if [[ "${1:-}" == "--prepare" ]]; then
  rm -rf "$DEPS"
  mkdir -p "$DEPS"
  # Every file of these packages under /usr, at the same place under build-gpu-deps/ (their
  # CMake packages find their libraries relative to themselves).
  for pkg in libgtest-dev libbenchmark-dev libbenchmark1debian; do
    dpkg -L "$pkg" | while read -r f; do
      [[ "$f" == /usr/share/* || ! -e "$f" || -d "$f" ]] && continue
      mkdir -p "$DEPS/$(dirname "${f#/usr/}")"
      cp -P "$f" "$DEPS/${f#/usr/}"
    done
  done
  echo "gpu_check: copied GoogleTest and Google Benchmark into $DEPS ($(du -sh "$DEPS" | cut -f1))"
  exit 0
fi

BUILD=${1:-build-gpu}
RESULTS=${OUT:-$BUILD/gpu-check}
mkdir -p "$RESULTS"
JOBS=$(nproc)
START=$(date +%s)
step() { echo "== gpu_check [$(($(date +%s) - START)) s]: $*"; }

step "GPU"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2> /dev/null ||
  echo "(nvidia-smi is not available)"

command -v nvcc > /dev/null || export PATH=$PATH:/usr/local/cuda/bin
step "configure $BUILD"
GENERATOR=()
command -v ninja > /dev/null && GENERATOR=(-G Ninja)
PREFIX=()
if [[ -d "$DEPS" ]]; then
  PREFIX=(-DCMAKE_PREFIX_PATH="$DEPS" -DGTest_DIR="$DEPS/lib/x86_64-linux-gnu/cmake/GTest"
          -Dbenchmark_DIR="$DEPS/lib/x86_64-linux-gnu/cmake/benchmark")
fi
cmake -S . -B "$BUILD" "${GENERATOR[@]}" "${PREFIX[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DPSTWIN_KERNELS_ONLY=ON > "$RESULTS/configure.log" 2>&1 ||
  { cat "$RESULTS/configure.log"; exit 1; }
grep -q "^CMAKE_CUDA_COMPILER:[A-Z]*=.*nvcc" "$BUILD/CMakeCache.txt" ||
  { echo "gpu_check: nvcc was not found; nothing to check"; exit 1; }

step "build the CUDA tests and benchmark (-j$JOBS)"
cmake --build "$BUILD" -j "$JOBS" --target cuda_kernels_test cuda_select_backend_test cuda_kernels_bench \
  > "$RESULTS/build.log" 2>&1 || { tail -50 "$RESULTS/build.log"; exit 1; }

step "ctest -R Cuda"
status=0
ctest --test-dir "$BUILD" -R Cuda --output-on-failure --timeout 300 > "$RESULTS/ctest.log" 2>&1 || status=1
tail -25 "$RESULTS/ctest.log"
if grep -q "CudaKernels\..*Skipped" "$RESULTS/ctest.log"; then
  echo "gpu_check: the CUDA kernel tests were SKIPPED: this machine's GPU is not usable:"
  "$BUILD/tests/cuda_kernels_test" --gtest_filter='CudaKernels.Adam*' 2>&1 | grep -m1 -A1 "Skipped" || true
  status=1
fi

step "cuda_kernels_bench"
"$BUILD/bench/cuda_kernels_bench" --benchmark_out="$RESULTS/cuda_kernels_bench.json" \
  --benchmark_out_format=json --benchmark_counters_tabular=true > "$RESULTS/bench.log" 2>&1 ||
  { cat "$RESULTS/bench.log"; exit 1; }
cat "$RESULTS/bench.log"

step "table"
python3 - "$RESULTS/cuda_kernels_bench.json" > "$RESULTS/table.txt" << 'EOF'
import json, sys
runs = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
# The ceiling: the copy of the largest size (the smaller one may sit partly in the 60 MB L2).
copies = [b for b in runs if b["name"].startswith("BM_CopyDeviceToDevice")]
largest = max(copies, key=lambda b: int(b["name"].split("/")[1]))
copy = largest["GBps"]
print(f"device-to-device copy of {int(largest['name'].split('/')[1]) * 4 >> 20} MiB (read + write): "
      f"{copy:.0f} GB/s, the ceiling below")
print(f"{'kernel':44} {'GB/s':>8} {'of copy':>8}")
for b in runs:
    name = b["name"].split("/manual_time")[0].replace("/iterations:", " it:")
    if b["name"].startswith(("BM_CopyDeviceToDevice", "BM_Gemm")):
        continue
    share = b["GBps"] / copy
    print(f"{name:44} {b['GBps']:8.0f} {share:8.0%}{'' if share >= 0.7 else '   < 70%'}")
print()
print(f"{'gemm (m/n/k)':44} {'GFLOP/s':>8} {'of cuBLAS':>9}")
gemm = {b["name"]: b for b in runs if b["name"].startswith("BM_Gemm")}
for name, b in gemm.items():
    if "/pstwin/" not in name:
        continue
    direct = gemm.get(name.replace("/pstwin/", "/cublas/"))
    ratio = b["GFLOPs"] / direct["GFLOPs"] if direct else float("nan")
    print(f"{name.split('/iterations')[0]:44} {b['GFLOPs']:8.0f} {ratio:9.0%}")
EOF
cat "$RESULTS/table.txt"
step "done (status $status)"
exit $status
