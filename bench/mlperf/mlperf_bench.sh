#!/bin/bash
# MLPerf Tiny benchmark: every reference int8 model (tests/data/mlperf-tiny) through
# `kiln verify` on each QEMU board, three data sets each. Prints one markdown table
# (instructions per inference: the median of the three runs, which must all PASS;
# workspace bytes against the plan's lower bound and against the workspace of the
# same schedule without the memory passes, --no-overlap: the liveness bound of
# whole-tensor buffers; parameter bytes) and, with
# --write FILE, replaces the block between the mlperf markers in FILE with it.
#
#   mlperf_bench.sh KILN DATA_DIR WORK_DIR [--qdq QDQ_DIR] [--write docs/performance.md]
#
# MLPERF_BOARDS="b1 b2" measures only those boards (a new board's rows, without
# re-running the others; do not --write a partial table).
#
# QEMU counts instructions (-icount shift=0, SysTick), so the numbers are
# deterministic and comparable across runs and machines.
set -u
KILN=$1; DATA=$2; WORK=$3; shift 3
QDQ=""; WRITE=""
while [ $# -gt 0 ]; do
  case $1 in
    --qdq) QDQ=$2; shift 2 ;;
    --write) WRITE=$2; shift 2 ;;
    *) echo "mlperf_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
BOARDS_DIR=$(cd "$(dirname "$0")/../../boards" && pwd)
source "$(dirname "$0")/../bench_lib.sh"
MODELS="kws_ref_model vww_96_int8 pretrainedResnet_quant ad01_int8"
BOARDS=${MLPERF_BOARDS:-"mps2-an386 mps2-an500 mps3-an547 mps2-an505 mps2-an385 mps2-an385-m0plus"}
declare -A LABEL=([kws_ref_model]=KWS [vww_96_int8]=VWW [pretrainedResnet_quant]=IC [ad01_int8]=AD)
# Issue 13's instruction targets (M4 for every model, M55 for KWS).
declare -A TARGET=([kws_ref_model.mps2-an386]=4000000 [vww_96_int8.mps2-an386]=8000000
                   [pretrainedResnet_quant.mps2-an386]=15000000 [ad01_int8.mps2-an386]=400000
                   [kws_ref_model.mps3-an547]=1500000)
if [ ! -d "$DATA" ]; then
  echo "mlperf bench: $DATA not found (the MLPerf Tiny models), skipped"
  exit 0
fi
mkdir -p "$WORK"

# "target" is the figure of issue 13 where it names one, with the ratio measured/target.
# run FORMAT MODEL_FILE MODEL BOARD -> "instr workspace bound workspace_without_memory_passes params status"
run() {
  local fmt=$1 file=$2 model=$3 board=$4
  local log="$WORK/$fmt.$model.$board.log"
  "$KILN" verify "$file" --data "$DATA/$model/test_data_set_0" --data "$DATA/$model/test_data_set_1" \
      --data "$DATA/$model/test_data_set_2" --board "$board" --crt-cache "$WORK/crt-cache" \
      --with-workspace-buffer "name=sram" --with-parameter-buffer "name=flash" \
      --timeout 600 $( [ "$fmt" = qdq ] && echo "--int-tolerance 1" ) > "$log" 2>&1
  local rc=$?  # before any other command: `local` itself sets $? to 0
  local med ws lb par st
  read -r med ws lb par st <<< "$(verify_summary "$log" $rc)"
  # The same model and board without partial reuse (docs/memory-planning.md).
  # (kiln verify takes the CPU from the board's -mcpu flag; compile needs it given.)
  local mcpu=$(grep -o '"-mcpu=[^"]*"' "$BOARDS_DIR/$board/board.json" | head -1 | tr -d '"' | sed 's/^-mcpu=//')
  local before=$("$KILN" compile "$file" -o "$WORK/no_overlap.$fmt.$model.$board" --no-overlap \
      ${mcpu:+--mcpu "$mcpu"} --with-workspace-buffer "name=sram" --with-parameter-buffer "name=flash" 2>&1 |
      awk '$1=="sram" && $2=="workspace" {print $4; exit}')
  echo "$med $ws $lb ${before:--} $par $st"
}

{
  echo "| model | format | board | instructions / inference | target | workspace B | lower bound B | without memory passes B | parameters B | outputs |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for m in $MODELS; do
    for fmt in tflite qdq; do
      if [ "$fmt" = tflite ]; then file="$DATA/$m.tflite"; else
        if [ -z "$QDQ" ] || [ ! -f "$QDQ/$m.onnx" ]; then
          echo "mlperf bench: no ONNX QDQ form of $m in ${QDQ:-(no --qdq)} (the quant tests write it), skipped" >&2
          continue
        fi
        file="$QDQ/$m.onnx"; fi
      for b in $BOARDS; do
        read -r instr ws lb before par st <<< "$(run $fmt "$file" $m $b)"
        t=${TARGET[$m.$b]:-}
        tgt="-"; [ -n "$t" ] && [ "$instr" != "-" ] &&
          tgt="$(fmt_m "$t") ($(awk -v a="$instr" -v b="$t" 'BEGIN{printf "%.2fx", a/b}'))"
        echo "| ${LABEL[$m]} | $fmt | $b | $(fmt_m "$instr") ($instr) | $tgt | $ws | $lb | $before | $par | $st |"
      done
    done
  done
  # Where the time goes: the per-operator profile of KWS on the M4.
  echo
  echo "Per operator, KWS (.tflite) on mps2-an386, test_data_set_0 (\`kiln verify --profile\`):"
  echo
  echo '```'
  "$KILN" verify "$DATA/kws_ref_model.tflite" --data "$DATA/kws_ref_model/test_data_set_0" --board mps2-an386 \
      --crt-cache "$WORK/crt-cache" --profile --timeout 600 2>&1 |
    awk '/profile \(instructions per operator call\)/ {on = 1; next} on && /^memory:/ {exit} on {sub(/^    /, ""); print}'
  echo '```'
} > "$WORK/mlperf_table.md"
cat "$WORK/mlperf_table.md"

if [ -n "$WRITE" ]; then
  write_block "$WRITE" mlperf "$WORK/mlperf_table.md"
  echo "mlperf_bench: table written into $WRITE"
fi
