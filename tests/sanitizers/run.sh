#!/usr/bin/env bash
# Builds pstwin under sanitizers in a folder of its own and runs tests there (clang-14).
#
# usage: tests/sanitizers/run.sh asan|tsan [CTEST_ARGS...]
#   asan  build-asan: AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included),
#         every test but three long ones (below)
#   tsan  build-tsan: ThreadSanitizer, the tests of real networking and threads (net_*_test,
#         cli_launch*_test, cli_hybrid_sync_test: ZeroMQ, in-process threads, launched processes)
#
# Every sanitizer report, from a test or from any pstwin process a test starts (whose exit status
# a test may not look at), is written to build-*/sanitizer-reports/ and fails the run; the reports
# are printed at the end. Third-party noise is suppressed by the commented files in this folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=$PWD/tests/sanitizers

mode=${1:-}
shift || true
case "$mode" in
  asan) sanitize=address,undefined; tests=() ;;
  tsan) sanitize=thread; tests=(net_inproc_env_test net_zmq_env_test net_ucx_env_test net_buffer_reuse_test net_metrics_server_test
                                net_job_fingerprint_test cli_launch_test
                                cli_launch_mf_test cli_launch_faults_test cli_launch_nodes_test
                                cli_launch_variants_test cli_launch_stragglers_test cli_launch_bad_data_test
                                net_straggler_hold_test cli_hybrid_sync_test cli_launch_compression_test
                                cli_launch_partition_test cli_launch_join_test cli_launch_metrics_test cli_trace_test
                                net_router_receive_test net_inproc_handoff_test net_zmq_parts_test cli_launch_lost_test
                                cli_launch_stop_test cli_launch_value_parts_test net_zmq_checksum_test
                                net_zmq_values_stream_test cli_launch_stopped_figures_test cli_launch_interrupt_test) ;;
  *) sed -n '2,9p' "$0" >&2; exit 2 ;;
esac
build=build-$mode
reports=$PWD/$build/sanitizer-reports

if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPSTWIN_SANITIZE="$sanitize" -DPSTWIN_CUDA=OFF -DPSTWIN_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
fi
targets=()
[ ${#tests[@]} -gt 0 ] && targets=(--target pstwin "${tests[@]}")
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" "${targets[@]}"

rm -rf "$reports"
mkdir -p "$reports"
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
# SimGrid's default raw contexts switch stacks behind the sanitizers' backs (ASan reports false
# stack overflows and aborts); its thread contexts run each actor on a real thread instead.
export PSTWIN_SIMGRID_CFG=contexts/factory:thread
# Instrumented processes run slower: launched tests with heartbeats stretch their timeouts (and
# only their timeouts) by this factor (tests/sim_test_support.h, time_scale()).
common=exitcode=66:log_path=$reports/report
# UCX (--transport ucx) patches malloc and mmap to watch registered memory, as the sanitizers
# interpose them: its hooks are off here (they serve RDMA's registration cache, unused on loopback).
export UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none
if [ "$mode" = asan ]; then
  export PSTWIN_TEST_TIME_SCALE=${PSTWIN_TEST_TIME_SCALE:-3}
  export ASAN_OPTIONS=$common:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:detect_leaks=1
  export LSAN_OPTIONS=suppressions=$here/lsan.supp:print_suppressions=0
  # UBSan stops at its first report (-fno-sanitize-recover=undefined), which no suppression file
  # can skip: undefined behaviour is fixed, never suppressed.
  export UBSAN_OPTIONS=$common:print_stacktrace=1:halt_on_error=1
  label_args=()
else
  export PSTWIN_TEST_TIME_SCALE=${PSTWIN_TEST_TIME_SCALE:-10}
  export TSAN_OPTIONS=$common:suppressions=$here/tsan.supp:print_suppressions=0:second_deadlock_stack=1
  label_args=(-L "^($(IFS='|'; echo "${tests[*]}"))\$")
fi

# Left out under both sanitizers, run in the Release stage only: each is minutes of the same
# arithmetic that shorter tests already take through the same code (an MLP trained to its
# accuracy goal; the exact model's BSP rounds against a wide NIC window), or a ratio of measured
# compute times that instrumentation distorts (a straggler's hold). Under ASan they took 12.5 of
# the 25 test minutes, the stragglers' one serially.
slow_arithmetic='FmnistMlp\.BspReachesTestAccuracyOfAtLeast086|NicWindow\.QuickstartBspRoundsTakeTheExactModelsTimeUnderAWideWindow'
slow_arithmetic+='|LaunchStragglers\.ASlowWorkerComputesAboutThreeTimesAsLongAsItsPeer'

status=0
ctest --test-dir "$build" --output-on-failure -j2 "${label_args[@]}" -E "^($slow_arithmetic)\$" "$@" || status=1
# A process that runs SimGrid's raw or ucontext contexts (tests that try those factories on
# purpose) makes ASan warn, once, that it cannot follow user-level stack switches. The warning
# alone is no finding; a report with anything more (an ERROR, a runtime error, a leak) still is.
warned=0
for f in "$reports"/*; do
  [ -f "$f" ] || continue
  if ! grep -v -e "ASan is ignoring requested __asan_handle_no_return" \
               -e "ASan doesn't fully support makecontext/swapcontext" \
               -e "^False positive error reports may follow" \
               -e "^For details see https://github.com/google/sanitizers/issues/189" "$f" | grep -q '[^[:space:]]'; then
    mkdir -p "$reports/context-warnings"
    mv "$f" "$reports/context-warnings/"
    warned=$((warned + 1))
  fi
done
[ "$warned" -eq 0 ] || echo "note: $warned processes warned that ASan cannot follow SimGrid's user-level context switches (kept in $reports/context-warnings/; not findings)"
if compgen -G "$reports/report*" >/dev/null; then
  echo "sanitizer reports ($reports):" >&2
  for f in "$reports"/report*; do echo "==== $f" >&2; cat "$f" >&2; done
  status=1
fi
exit "$status"
