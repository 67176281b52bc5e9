#!/bin/bash
# Memory benchmark (issue 16): the float32 networks of make_models.py on QEMU
# mps2-an386, each compiled three ways and checked against the reference on three
# data sets: "before" without the memory techniques (--schedule program --no-overlap
# --memory-priority speed), "after" with them (the defaults), and "after, ram" with
# --memory-priority ram. Prints one markdown table (workspace and its lower bound,
# instructions per inference) with onnx2c's .bss and the issue's target, and with
# --write FILE replaces the block between the memory markers in FILE with it.
#
#   memory_bench.sh KILN MODELS_SCRIPT WORK_DIR [--write docs/performance.md]
set -u
KILN=$1; SCRIPT=$2; WORK=$3; shift 3
WRITE=""
[ "${1:-}" = "--write" ] && WRITE=$2
. "$(dirname "$0")/bench_common.sh"
# onnx2c's .bss and the issue's workspace / instruction targets (issue 16).
declare -A ONNX2C=([kws_dscnn]=64,000 [vww_mobilenet_v1_025]=294,912 [ic_resnet8]=196,608 [mobilenet_v2_035]=995,328
                   [squeeze_concat]=137,408 [ad_autoencoder]=1,024)
declare -A TARGET=([kws_dscnn]="≤ 38,400" [vww_mobilenet_v1_025]="≤ 176,947" [ic_resnet8]="≤ 137,625"
                   [mobilenet_v2_035]="≤ 398,131" [squeeze_concat]="≤ 61,833" [ad_autoencoder]="bound")
make_models "$SCRIPT" "$WORK" || exit 1

{
  echo "| network | workspace before (bound) | after | after, ram priority | onnx2c .bss | target | instructions before | after | after, ram | instr. target | outputs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for m in $MODELS; do
    read -r i0 w0 b0 _ s0 <<< "$(verify "$KILN" "$WORK" $m mps2-an386 before --schedule program --no-overlap --memory-priority speed)"
    read -r i1 w1 b1 _ s1 <<< "$(verify "$KILN" "$WORK" $m mps2-an386 after)"
    read -r i2 w2 b2 _ s2 <<< "$(verify "$KILN" "$WORK" $m mps2-an386 ram --memory-priority ram)"
    st=PASS; [ "$s0$s1$s2" = PASSPASSPASS ] || st="FAIL ($s0/$s1/$s2)"
    echo "| ${LABEL[$m]} | $w0 ($b0) | $w1 ($b1) | $w2 ($b2) | ${ONNX2C[$m]} | ${TARGET[$m]} | $(fmt_m "$i0") | $(fmt_m "$i1") | $(fmt_m "$i2") | ${ITARGET[$m]} | $st |"
  done
} > "$WORK/memory_table.md"
cat "$WORK/memory_table.md"

if [ -n "$WRITE" ]; then
  write_block "$WRITE" memory "$WORK/memory_table.md"
  echo "memory_bench: table written into $WRITE"
fi
