#!/bin/bash
# Runs the ONNX fuzz target for SECONDS at the lowest priority, one process, from
# the seed corpus, keeping what it learns in BUILD/fuzz/corpus. Crashes, timeouts
# and memory blow-ups land in BUILD/fuzz/artifacts/; each one found becomes a file
# of tests/malformed/ (make_corpus.py). Prints libFuzzer's final statistics.
#   run_fuzz.sh BUILD SECONDS
set -eu
build=$1 seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$build/fuzz
mkdir -p "$work/corpus" "$work/artifacts"
[ -d "$work/seed" ] || "$here/make_seed_corpus.sh" "$work/seed"
# Leaks are not what this looks for (ONNX's schema registry lives until exit).
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
exec nice -n 19 "$build/tests/fuzz/kiln_fuzz_onnx" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
  -malloc_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
  "$work/corpus" "$work/seed"
