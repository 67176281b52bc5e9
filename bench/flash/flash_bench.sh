#!/bin/bash
# Instructions against flash: the MLPerf Tiny int8 models (tests/data/mlperf-tiny)
# through `kiln verify` with the parameter pool unsized (the fastest weight forms),
# sized to what CMSIS-NN's build of the model holds in constants (issue 30), and at
# the smallest size the model compiles into (read off the error of a 1-byte pool).
# Three data sets each, all must PASS; instructions are their median. Prints one
# markdown table and, with --write FILE, replaces the block between the flash
# markers in FILE with it (docs/performance.md, "Flash as a budget").
#
#   flash_bench.sh KILN DATA_DIR WORK_DIR [--boards "mps2-an386 mps3-an547"] [--write docs/performance.md]
set -u
KILN=$1; DATA=$2; WORK=$3; shift 3
source "$(dirname "$0")/../bench_lib.sh"
BOARDS="mps2-an386 mps3-an547"; WRITE=""
bench_flags flash_bench "$@"
BOARDS_DIR=$(cd "$(dirname "$0")/../../boards" && pwd)
MODELS="kws_ref_model vww_96_int8 pretrainedResnet_quant ad01_int8"
declare -A LABEL=([kws_ref_model]=KWS [vww_96_int8]=VWW [pretrainedResnet_quant]=IC [ad01_int8]=AD)
# The model's own constant bytes (weights and biases as stored) and CMSIS-NN's
# constants and instructions on the M4 (issue 30).
declare -A OWN=([kws_ref_model]=24376 [vww_96_int8]=219072 [pretrainedResnet_quant]=78752 [ad01_int8]=270880)
declare -A CMSIS=([kws_ref_model]=30180 [vww_96_int8]=244208 [pretrainedResnet_quant]=82644 [ad01_int8]=271800)
declare -A CMSIS_INSTR=([kws_ref_model]=7690000 [vww_96_int8]=24090000 [pretrainedResnet_quant]=29860000
                        [ad01_int8]=580000)
mkdir -p "$WORK"

# run MODEL BOARD LABEL [SIZE] -> "instr params status"
run() {
  local model=$1 board=$2 label=$3 size=${4:-}
  local log="$WORK/$model.$board.$label.log"
  "$KILN" verify "$DATA/$model.tflite" --data "$DATA/$model/test_data_set_0" --data "$DATA/$model/test_data_set_1" \
      --data "$DATA/$model/test_data_set_2" --board "$board" --crt-cache "$WORK/crt-cache" \
      --with-workspace-buffer "name=sram" --with-parameter-buffer "name=flash${size:+;size=$size}" \
      --timeout 600 > "$log" 2>&1
  local rc=$? med ws lb par st
  read -r med ws lb par st <<< "$(verify_summary "$log" $rc)"
  # A pool below the compact forms: the compile's error names the smallest size.
  grep -q "kiln: error: parameter pool" "$log" && st="does not compile: needs $(grep -o 'compiles into is [0-9]*' "$log" | awk '{print $4}') B"
  echo "$med $par $st"
}

# The smallest parameter pool MODEL compiles into for BOARD's CPU.
smallest() {
  local model=$1 board=$2
  local mcpu=$(grep -o '"-mcpu=[^"]*"' "$BOARDS_DIR/$board/board.json" | head -1 | tr -d '"' | sed 's/^-mcpu=//')
  "$KILN" compile "$DATA/$model.tflite" -o "$WORK/smallest.$model.$board" -q ${mcpu:+--mcpu "$mcpu"} \
      --with-parameter-buffer "name=flash;size=1" 2>&1 | grep -o 'compiles into is [0-9]*' | awk '{print $4}'
}

{
  echo "| model | board | own constants B | pool | parameters B | instructions / inference | CMSIS-NN instructions / these (M4) | outputs |"
  echo "|---|---|---|---|---|---|---|---|"
  for m in $MODELS; do
    for b in $BOARDS; do
      min=$(smallest $m $b)
      for cfg in default cmsis smallest; do
        case $cfg in
          default) size=""; what="unsized (fastest forms)" ;;
          cmsis) size=${CMSIS[$m]}; what="CMSIS-NN's constants, $size B" ;;
          smallest) size=$min; what="smallest, ${min:-?} B" ;;
        esac
        read -r instr par st <<< "$(run $m $b $cfg $size)"
        ratio="-"
        [ "$b" = mps2-an386 ] && [ "$instr" != "-" ] &&
          ratio=$(awk -v a="$instr" -v c="${CMSIS_INSTR[$m]}" 'BEGIN{printf "%.2fx", c/a}')
        echo "| ${LABEL[$m]} | $b | ${OWN[$m]} | $what | $par | $(fmt_m "$instr") ($instr) | $ratio | $st |"
      done
    done
  done
} > "$WORK/flash_table.md"
cat "$WORK/flash_table.md"

if [ -n "$WRITE" ]; then
  write_block "$WRITE" flash "$WORK/flash_table.md"
  echo "flash_bench: table written into $WRITE"
fi
