#!/bin/bash
# Float32 benchmark: the six networks of bench/float/make_models.py (standard layer
# shapes, random weights, numpy float64 references) through `kiln verify` on QEMU
# boards, three data sets each. Prints one markdown table (instructions per
# inference: the median of the three runs, which must all PASS; workspace bytes
# against the plan's lower bound; parameter bytes) with anchors beside the
# mps2-an386 rows (BEFORE / ONNX2C below, ITARGET in bench_common.sh), and with --write FILE replaces the block
# between the float markers in FILE with it.
#
#   float_bench.sh KILN MODELS_SCRIPT WORK_DIR [--boards "b1 b2"] [--write docs/performance.md]
set -u
KILN=$1; SCRIPT=$2; WORK=$3; shift 3
BOARDS="mps2-an386 mps3-an547"; WRITE=""
. "$(dirname "$0")/bench_common.sh"
bench_flags float_bench "$@"
# mps2-an386 anchors: Kiln before the register-blocked kernels on these same networks
# (main at 6ddaecf), onnx2c's instructions from issue 16's table (measured there on
# its versions of these architectures) and the issue's target (0.3x onnx2c).
declare -A BEFORE=([kws_dscnn]=13.81M [vww_mobilenet_v1_025]=31.08M [ic_resnet8]=43.16M [mobilenet_v2_035]=53.28M
                   [squeeze_concat]=7.99M [ad_autoencoder]=1.03M)
declare -A ONNX2C=([kws_dscnn]=24.95M [vww_mobilenet_v1_025]=68.9M [ic_resnet8]=235.3M [mobilenet_v2_035]=109.3M
                   [squeeze_concat]=21.9M [ad_autoencoder]=1.36M)
make_models "$SCRIPT" "$WORK" || exit 1

ratio() { [ "$1" = "-" ] && echo "-" || awk -v v="$1" -v o="${2%M}" 'BEGIN{printf "%.2f", v/(o*1e6)}'; }

{
  echo "| network | board | instructions / inference | Kiln before | onnx2c | ratio to onnx2c | target | workspace B | lower bound B | parameters B | outputs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for m in $MODELS; do
    for b in $BOARDS; do
      read -r instr ws lb par st <<< "$(verify "$KILN" "$WORK" $m $b default)"
      if [ "$b" = mps2-an386 ]; then
        echo "| ${LABEL[$m]} | $b | $(fmt_m "$instr") ($instr) | ${BEFORE[$m]} | ${ONNX2C[$m]} | $(ratio "$instr" "${ONNX2C[$m]}") | ${ITARGET[$m]} | $ws | $lb | $par | $st |"
      else
        echo "| ${LABEL[$m]} | $b | $(fmt_m "$instr") ($instr) | | | | | $ws | $lb | $par | $st |"
      fi
    done
  done
} > "$WORK/float_table.md"
cat "$WORK/float_table.md"

if [ -n "$WRITE" ]; then
  write_block "$WRITE" float "$WORK/float_table.md"
  echo "float_bench: table written into $WRITE"
fi
