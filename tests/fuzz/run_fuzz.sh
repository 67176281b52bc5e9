#!/bin/bash
# Runs a fuzz target (onnx or tflite) for SECONDS at the lowest priority, one
# process, from its seed corpus, keeping what it learns in BUILD/fuzz/FORMAT/corpus.
# Crashes, timeouts and memory blow-ups land in BUILD/fuzz/FORMAT/artifacts/; each
# one found becomes a file of tests/malformed/ (make_corpus.py). Prints libFuzzer's
# final statistics (executions, exec/s, coverage: cov = edges, ft = features).
#   run_fuzz.sh BUILD FORMAT SECONDS
set -eu
build=$1 format=$2 seconds=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$build/fuzz/$format
mkdir -p "$work/corpus" "$work/artifacts"
[ -d "$work/seed" ] || "$here/make_seed_corpus.sh" "$format" "$work/seed"
# Leaks are not what this looks for (ONNX's schema registry lives until exit).
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
exec nice -n 19 "$build/tests/fuzz/kiln_fuzz_$format" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
  -malloc_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
  "$work/corpus" "$work/seed"
