#!/bin/sh
# same_outputs.sh KILN WORK CRT_CACHE MODEL DATA BOARD -- BASE_FLAGS -- MEMORY_FLAGS
# Runs `kiln verify` twice on one data set (both must pass against the reference)
# and requires the dumped outputs to be byte-identical: the memory techniques
# (schedule, overlap, fusion, smaller tiles) must not change a single bit.
set -e
KILN=$1; WORK=$2; CACHE=$3; MODEL=$4; DATA=$5; BOARD=$6; shift 6
[ "$1" = "--" ] && shift
BASE=""; while [ $# -gt 0 ] && [ "$1" != "--" ]; do BASE="$BASE $1"; shift; done
[ "$1" = "--" ] && shift
rm -rf "$WORK/base" "$WORK/memory"
"$KILN" verify "$MODEL" --data "$DATA" --board "$BOARD" --work-dir "$WORK/base.work" --dump-outputs "$WORK/base" \
    --crt-cache "$CACHE" --timeout 300 $BASE
"$KILN" verify "$MODEL" --data "$DATA" --board "$BOARD" --work-dir "$WORK/memory.work" --dump-outputs "$WORK/memory" \
    --crt-cache "$CACHE" --timeout 300 "$@"
n=0
for f in "$WORK"/base/*.pb; do
  cmp "$f" "$WORK/memory/$(basename "$f")"
  n=$((n + 1))
done
[ $n -gt 0 ] || { echo "same_outputs: no outputs dumped"; exit 1; }
echo "same_outputs: $n output(s) byte-identical"
