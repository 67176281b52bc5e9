#!/bin/bash
# Kernel sweep (issue 30): every int8 layer shape of make_sweep_models.py through
# `kiln verify --profile` on each board, its output checked against TFLite Micro's
# integer result. Prints one markdown table: per layer and board the operator's
# instructions (QEMU -icount, deterministic) and instructions per MAC (convs, fully
# connected) or per output element (pools, Add); FAIL where the output differs.
# On the host board (no instruction count) each cell is PASS or FAIL: the ctest
# bench.kernel_sweep.host runs it that way, so the sweep's models stay right.
# With --write FILE it replaces the block between the kernels markers in FILE.
#
#   kernel_sweep.sh KILN WORK_DIR [--boards "b1 b2"] [--write docs/performance.md]
set -u
KILN=$1; WORK=$2; shift 2
BOARDS="mps2-an385 mps2-an386 mps3-an547"
WRITE=""
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../bench_lib.sh"
bench_flags kernel_sweep "$@"
models=$WORK/models
/usr/bin/python3 "$here/make_sweep_models.py" "$models" > /dev/null || { echo "kernel_sweep: writing the models failed"; exit 1; }

table=$WORK/table.md
{
  printf '| layer | MACs or elements |'
  for b in $BOARDS; do printf ' %s |' "$b"; done
  printf '\n|---|---|'
  for b in $BOARDS; do printf -- '---|'; done
  printf '\n'
  while read -r name unit count; do
    printf '| %s | %s %s |' "$name" "$count" "$unit"
    for b in $BOARDS; do
      log=$WORK/$b/$name.log
      mkdir -p "$WORK/$b"
      "$KILN" verify "$models/$name.tflite" --data "$models/$name/test_data_set_0" --board "$b" \
        --work-dir "$WORK/$b/$name" --profile -q > "$log" 2>&1
      rc=$?
      # The profile's row of the layer: "step operator ... MACs instructions share".
      instr=$(awk '$1 == "0" && $NF ~ /%$/ {print $(NF-1); exit}' "$log")
      if [ $rc -ne 0 ]; then
        printf ' FAIL |'
      elif [ "$b" = host ] || [ -z "$instr" ]; then
        printf ' PASS |'  # the host board counts no instructions
      else
        printf ' %s (%s) |' "$instr" "$(awk -v i="$instr" -v c="$count" 'BEGIN {printf "%.2f", i / c}')"
      fi
    done
    printf '\n'
  done < "$models/layers.txt"
} > "$table"
cat "$table"
[ -n "$WRITE" ] && write_block "$WRITE" kernels "$table"
exit 0
