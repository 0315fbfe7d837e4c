#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ for a given time each, and fails on any crash.
#
# usage: bench/fuzz.sh SECONDS [TARGET...]
#   TARGET: codec_decode membership libsvm idx ratings_csv scenario checkpoint (default: all)
# environment:
#   FUZZ_BUILD     build folder (default build-fuzz; configured with clang-14 if it is not yet)
#   FUZZ_FINDINGS  where crashing inputs go, one folder per target (default $FUZZ_BUILD/findings)
#   FUZZ_PARALLEL  targets run at once (default 1)
#
# Each target starts from its corpus in $FUZZ_BUILD/corpus/TARGET (kept between runs and grown by
# libFuzzer), the seeds fuzz_seeds writes from the tests' inputs, and fuzz/regressions/TARGET
# (inputs that once crashed). A crash, a leak, a timeout (10 s) or running out of memory (2 GiB)
# saves the input as FINDINGS/TARGET/crash-* (leak-*, timeout-*, oom-*) and makes the script exit 1.
# Rerun one with: $FUZZ_BUILD/fuzz/TARGET_fuzz FILE
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(codec_decode membership libsvm idx ratings_csv scenario checkpoint)
[ $# -ge 1 ] && [[ $1 =~ ^[0-9]+$ ]] || { sed -n '2,8p' "$0" >&2; exit 2; }
seconds=$1
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target $t" >&2; exit 2; }
done

build=${FUZZ_BUILD:-build-fuzz}
findings=${FUZZ_FINDINGS:-$build/findings}
parallel=${FUZZ_PARALLEL:-1}

if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPSTWIN_FUZZ=ON -DPSTWIN_CUDA=OFF -DPSTWIN_BUILD_TESTS=OFF -DPSTWIN_BUILD_BENCH=OFF \
    "${launcher[@]}" >/dev/null
fi
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target fuzz_seeds \
  "${targets[@]/%/_fuzz}" >/dev/null

rm -rf "$build/seeds"
"$build/fuzz/fuzz_seeds" "$build/seeds"

# One target: SECONDS of fuzzing; its log in FINDINGS/TARGET.log.
run_one() {
  local t=$1
  local corpus=$build/corpus/$t out=$findings/$t
  mkdir -p "$corpus" "$out"
  local dirs=("$corpus" "$build/seeds/$t")
  [ -d "fuzz/regressions/$t" ] && dirs+=("fuzz/regressions/$t")
  local dict=()
  [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
  UBSAN_OPTIONS=print_stacktrace=1 "$build/fuzz/${t}_fuzz" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/" \
    "${dict[@]}" "${dirs[@]}" >"$findings/$t.log" 2>&1
}

mkdir -p "$findings"
declare -A status
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  (
    set +e
    run_one "$t"
    echo $? >"$findings/$t.rc"
  ) &
  running=$((running + 1))
done
wait

failed=0
printf '%-14s %14s %10s %8s  %s\n' target executions exec/s corpus result
for t in "${targets[@]}"; do
  log=$findings/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(find "$build/corpus/$t" -type f | wc -l)
  if [ "$(cat "$findings/$t.rc")" = 0 ]; then
    result=ok
  else
    failed=1
    saved=$(find "$findings/$t" -type f | head -3 | tr '\n' ' ')
    result="CRASH: ${saved:-no input saved}(log: $log)"
  fi
  printf '%-14s %14s %10s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$corpus" "$result"
done
exit "$failed"
