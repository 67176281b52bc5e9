#!/bin/bash
# Runs a fuzz target (onnx or tflite) for SECONDS at the lowest priority with JOBS
# worker processes (libFuzzer's fork mode), from its seed corpus, keeping what it
# learns in BUILD/fuzz/FORMAT/corpus. A crash, sanitizer report, leak, timeout or
# memory blow-up does not end the run: each lands in BUILD/fuzz/FORMAT/artifacts/
# and the run goes on; each one found becomes a file of tests/malformed/ (or
# tests/tflite/malformed/) once fixed.
#
# Accepted modules go through the module oracle (module_oracle.h): compiled with
# the host C compiler and, when small, run under ASan/UBSan, once per structure, in
# BUILD/fuzz/FORMAT/oracle/ (the structures seen, the runtime objects, oracle.log).
#
# At the end it writes BUILD/fuzz/FORMAT/report.txt: this run's executions, exec/s,
# wall time, coverage (cov = edges, ft = features, libFuzzer's counters), faults,
# the totals over every run recorded in history.tsv, and the edges covered per
# folder of generator/ by the whole corpus (-print_coverage over one pass of it).
#   run_fuzz.sh BUILD FORMAT SECONDS [JOBS]
set -eu
build=$1 format=$2 seconds=$3 jobs=${4:-1}
here=$(cd "$(dirname "$0")" && pwd)
target=$build/tests/fuzz/kiln_fuzz_$format
work=$build/fuzz/$format
mkdir -p "$work/corpus" "$work/artifacts" "$work/logs"
[ -d "$work/seed" ] || "$here/make_seed_corpus.sh" "$format" "$work/seed"
# One copy of the binary per run: rebuilding during a run does not touch it.
stamp=$(date -u +%Y%m%dT%H%M%SZ)
bin=$work/logs/kiln_fuzz_$format.$stamp
cp "$target" "$bin"
log=$work/logs/run-$stamp.log

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export KILN_FUZZ_ORACLE_DIR=$work/oracle
mkdir -p "$KILN_FUZZ_ORACLE_DIR"
oracle_before=$(cat "$KILN_FUZZ_ORACLE_DIR/oracle.log" 2>/dev/null | wc -l)
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# -timeout is wall-clock: at nice 19 on a loaded machine an input gets a fraction of
# a core, so it is generous; the memory limits match run_malformed.sh's 2 GiB.
set +e
nice -n 19 "$bin" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
  -max_total_time="$seconds" -timeout=120 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seed" > "$log" 2>&1
rc=$?
set -e

# The last progress line: "#EXECS: cov: E ft: F corp: C exec/s R oom/timeout/crash: O/T/K time: Ss ..."
last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<< "$last")
cov=$(sed -E 's/.* cov: ([0-9]+) .*/\1/' <<< "$last")
ft=$(sed -E 's/.* ft: ([0-9]+) .*/\1/' <<< "$last")
corp=$(sed -E 's/.* corp: ([0-9]+) .*/\1/' <<< "$last")
faults=$(sed -E 's|.* oom/timeout/crash: ([0-9]+/[0-9]+/[0-9]+) .*|\1|' <<< "$last")
secs=$(sed -E 's/.* time: ([0-9]+)s.*/\1/' <<< "$last")
[ -n "$execs" ] && [ "${secs:-0}" -gt 0 ] || { echo "run_fuzz: no progress line in $log (exit $rc)"; tail -20 "$log"; exit 1; }
[ -f "$work/history.tsv" ] || printf 'start_utc\tseconds\tjobs\texecutions\texec_per_s\tcov\tft\tcorpus\toom/timeout/crash\n' > "$work/history.tsv"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$stamp" "$secs" "$jobs" "$execs" "$((execs / secs))" "$cov" "$ft" "$corp" \
  "$faults" >> "$work/history.tsv"

# Coverage of the corpus and the seeds by source folder: one pass, no mutation
# (in fork mode the corpus folder only gains inputs that add to what the seeds cover);
# the oracle keeps to its in-process checks there.
covlog=$work/logs/coverage-$stamp.log
KILN_FUZZ_ORACLE_DIR=off nice -n 19 "$bin" -runs=0 -print_coverage=1 -artifact_prefix="$work/artifacts/coverage-pass-" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=120 \
  "$work/corpus" "$work/seed" > "$covlog" 2>&1 || true

{
  echo "kiln fuzz report: $format, run $stamp ($jobs job(s), nice 19)"
  echo "this run:  $execs executions in ${secs} s ($((execs / secs)) exec/s), cov $cov edges, ft $ft features, corpus $corp"
  echo "           oom/timeout/crash: $faults (libFuzzer exit $rc)"
  awk -F'\t' 'NR > 1 { e += $4; s += $2; n++ } END {
    printf "all runs:  %d executions in %.2f h over %d run(s) (%d exec/s)\n", e, s / 3600, n, s ? e / s : 0 }' \
    "$work/history.tsv"
  # oracle.log: "<structure> ran|compiled <seconds> [unusual]", one line per module compiled.
  tail -n +"$((oracle_before + 1))" "$work/oracle/oracle.log" 2>/dev/null | awk -v secs="$secs" '
    { n++; t += $3; if ($2 == "ran") r++; if ($4 == "unusual") u++ }
    END { printf "oracle:    %d module(s) compiled (%d also run under ASan/UBSan, %d for an unusual literal) in %.0f s, %.1f%% of the run\n",
      n, r, u, t, secs ? 100 * t / secs : 0 }'
  echo "           $(ls "$work/oracle/seen" 2>/dev/null | wc -l) structures seen over all runs; slow runs (not faults): $(cat "$work/oracle/slow_runs.log" 2>/dev/null | wc -l)"
  echo "artifacts: $(ls "$work/artifacts" | wc -l) in $work/artifacts (crash-*, leak-*, timeout-*, oom-*, slow-unit-*)"
  ls "$work/artifacts" | sed 's/^/           /'
  echo
  echo "edges covered by the corpus, per folder of generator/ (-print_coverage):"
  # The pass runs in one process: a fault in the corpus ends it early.
  grep -q '^Done [0-9]* runs' "$covlog" ||
    echo "  (partial: the coverage pass stopped at a fault, see $covlog)"
  grep -E '^(UN)?COVERED_FUNC' "$covlog" | awk '
    { file = $NF; sub(/:[0-9]+$/, "", file)
      if (file !~ /\/generator\//) next
      sub(/.*\/generator\//, "", file); dir = file; sub(/\/.*/, "", dir)
      for (i = 1; i <= NF; ++i) if ($i == "edges:") { split($(i + 1), e, "/"); hit[dir] += e[1]; all[dir] += e[2] } }
    END { for (d in all) print d, hit[d], all[d] }' | sort | awk '
    { printf "  %-12s %6d / %6d edges (%4.1f%%)\n", $1, $2, $3, 100 * $2 / $3; h += $2; a += $3 }
    END { if (a) printf "  %-12s %6d / %6d edges (%4.1f%%)\n", "total", h, a, 100 * h / a }'
} > "$work/report.txt"
cat "$work/report.txt"
