#!/bin/bash
# Float32 benchmark: the six networks of bench/float/make_models.py (standard layer
# shapes, random weights, numpy float64 references) through `kiln verify` on QEMU
# boards, three data sets each. Prints one markdown table (instructions per
# inference: the median of the three runs, which must all PASS; workspace bytes
# against the plan's lower bound; parameter bytes) with anchors beside the
# mps2-an386 rows (see BEFORE / ONNX2C / TARGET below), and with --write FILE replaces the block
# between the float markers in FILE with it.
#
#   float_bench.sh KILN MODELS_SCRIPT WORK_DIR [--boards "b1 b2"] [--write docs/performance.md]
set -u
KILN=$1; SCRIPT=$2; WORK=$3; shift 3
BOARDS="mps2-an386 mps3-an547"; WRITE=""
while [ $# -gt 0 ]; do
  case $1 in
    --boards) BOARDS=$2; shift 2 ;;
    --write) WRITE=$2; shift 2 ;;
    *) echo "float_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
MODELS="kws_dscnn vww_mobilenet_v1_025 ic_resnet8 mobilenet_v2_035 squeeze_concat ad_autoencoder"
declare -A LABEL=([kws_dscnn]="KWS DS-CNN" [vww_mobilenet_v1_025]="VWW MobileNetV1-0.25" [ic_resnet8]="IC ResNet-8"
                  [mobilenet_v2_035]="MobileNetV2-0.35" [squeeze_concat]="squeeze-style concat net"
                  [ad_autoencoder]="FC autoencoder")
# mps2-an386 anchors: Kiln before the register-blocked kernels on these same networks
# (main at 6ddaecf), onnx2c's instructions from issue 16's table (measured there on
# its versions of these architectures) and the issue's target (0.3x onnx2c).
declare -A BEFORE=([kws_dscnn]=13.81M [vww_mobilenet_v1_025]=31.08M [ic_resnet8]=43.16M [mobilenet_v2_035]=53.28M
                   [squeeze_concat]=7.99M [ad_autoencoder]=1.03M)
declare -A ONNX2C=([kws_dscnn]=24.95M [vww_mobilenet_v1_025]=68.9M [ic_resnet8]=235.3M [mobilenet_v2_035]=109.3M
                   [squeeze_concat]=21.9M [ad_autoencoder]=1.36M)
declare -A TARGET=([kws_dscnn]="≤ 7.5M" [vww_mobilenet_v1_025]="≤ 20.7M" [ic_resnet8]="≤ 43.6M"
                   [mobilenet_v2_035]="≤ 32.8M" [squeeze_concat]="≤ 6.6M" [ad_autoencoder]="≤ 0.41M")
mkdir -p "$WORK/models"
for m in $MODELS; do
  [ -f "$WORK/models/$m/test_data_set_2/output_0.pb" ] || /usr/bin/python3 "$SCRIPT" "$WORK/models" "$m" > /dev/null || exit 1
done

median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# run MODEL BOARD -> "instr workspace bound params status"
run() {
  local model=$1 board=$2 log="$WORK/$1.$2.log" d="$WORK/models/$1"
  "$KILN" verify "$d/model.onnx" --data "$d/test_data_set_0" --data "$d/test_data_set_1" --data "$d/test_data_set_2" \
      --board "$board" --crt-cache "$WORK/crt-cache" --with-workspace-buffer "name=sram" \
      --with-parameter-buffer "name=flash" --timeout 600 > "$log" 2>&1
  local rc=$?
  local instr=($(grep -o '[0-9]* instructions per inference' "$log" | awk '{print $1}'))
  local ws=$(awk '$1=="sram" && $2=="workspace" {print $4; exit}' "$log")
  local lb=$(awk '$1=="sram" && $2=="workspace" {print $5; exit}' "$log")
  local par=$(awk '$1=="flash" && $2=="parameter" {print $4; exit}' "$log")
  local status=PASS; [ $rc -eq 0 ] || status=FAIL
  # A network larger than the board's RAM or flash is not a kernel failure.
  grep -q "may not fit the board's memory" "$log" && status="does not fit the board's memory"
  local med="-"; [ ${#instr[@]} -eq 3 ] && med=$(median3 "${instr[@]}")
  echo "$med ${ws:--} ${lb:--} ${par:--} $status"
}

fmt_m() { [ "$1" = "-" ] && echo "-" || awk -v v="$1" 'BEGIN{printf "%.2fM", v/1e6}'; }
ratio() { [ "$1" = "-" ] && echo "-" || awk -v v="$1" -v o="${2%M}" 'BEGIN{printf "%.2f", v/(o*1e6)}'; }

{
  echo "| network | board | instructions / inference | Kiln before | onnx2c | ratio to onnx2c | target | workspace B | lower bound B | parameters B | outputs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for m in $MODELS; do
    for b in $BOARDS; do
      read -r instr ws lb par st <<< "$(run $m $b)"
      if [ "$b" = mps2-an386 ]; then
        echo "| ${LABEL[$m]} | $b | $(fmt_m "$instr") ($instr) | ${BEFORE[$m]} | ${ONNX2C[$m]} | $(ratio "$instr" "${ONNX2C[$m]}") | ${TARGET[$m]} | $ws | $lb | $par | $st |"
      else
        echo "| ${LABEL[$m]} | $b | $(fmt_m "$instr") ($instr) | | | | | $ws | $lb | $par | $st |"
      fi
    done
  done
} > "$WORK/float_table.md"
cat "$WORK/float_table.md"

if [ -n "$WRITE" ]; then
  awk -v table="$WORK/float_table.md" '
    /<!-- float:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
    /<!-- float:end -->/ { skip = 0 }
    !skip { print }' "$WRITE" > "$WRITE.tmp" && mv "$WRITE.tmp" "$WRITE"
  echo "float_bench: table written into $WRITE"
fi
