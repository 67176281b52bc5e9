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
MODELS="kws_dscnn vww_mobilenet_v1_025 ic_resnet8 mobilenet_v2_035 squeeze_concat ad_autoencoder"
declare -A LABEL=([kws_dscnn]="KWS DS-CNN" [vww_mobilenet_v1_025]="VWW MobileNetV1-0.25" [ic_resnet8]="IC ResNet-8"
                  [mobilenet_v2_035]="MobileNetV2-0.35" [squeeze_concat]="squeeze-style concat net"
                  [ad_autoencoder]="FC autoencoder")
# onnx2c's .bss and the issue's workspace / instruction targets (issue 16).
declare -A ONNX2C=([kws_dscnn]=64,000 [vww_mobilenet_v1_025]=294,912 [ic_resnet8]=196,608 [mobilenet_v2_035]=995,328
                   [squeeze_concat]=137,408 [ad_autoencoder]=1,024)
declare -A TARGET=([kws_dscnn]="≤ 38,400" [vww_mobilenet_v1_025]="≤ 176,947" [ic_resnet8]="≤ 137,625"
                   [mobilenet_v2_035]="≤ 398,131" [squeeze_concat]="≤ 61,833" [ad_autoencoder]="bound")
declare -A ITARGET=([kws_dscnn]="≤ 7.5M" [vww_mobilenet_v1_025]="≤ 20.7M" [ic_resnet8]="≤ 43.6M"
                    [mobilenet_v2_035]="≤ 32.8M" [squeeze_concat]="≤ 6.6M" [ad_autoencoder]="≤ 0.41M")
mkdir -p "$WORK/models"
for m in $MODELS; do
  [ -f "$WORK/models/$m/test_data_set_2/output_0.pb" ] || /usr/bin/python3 "$SCRIPT" "$WORK/models" "$m" > /dev/null || exit 1
done

# run MODEL TAG FLAGS... -> "instr workspace bound status"
run() {
  local model=$1 tag=$2; shift 2
  local log="$WORK/$model.$tag.log" d="$WORK/models/$model"
  "$KILN" verify "$d/model.onnx" --data "$d/test_data_set_0" --data "$d/test_data_set_1" --data "$d/test_data_set_2" \
      --board mps2-an386 --crt-cache "$WORK/crt-cache" --with-workspace-buffer "name=sram" \
      --with-parameter-buffer "name=flash" --timeout 600 "$@" > "$log" 2>&1
  local rc=$?
  local instr=$(grep -o '[0-9]* instructions per inference' "$log" | awk '{print $1}' | sort -n | sed -n 2p)
  local ws=$(awk '$1=="sram" && $2=="workspace" {print $4; exit}' "$log")
  local lb=$(awk '$1=="sram" && $2=="workspace" {print $5; exit}' "$log")
  local st=PASS; [ $rc -eq 0 ] || st=FAIL
  echo "${instr:--} ${ws:--} ${lb:--} $st"
}
fmt_m() { [ "$1" = "-" ] && echo "-" || awk -v v="$1" 'BEGIN{printf "%.2fM", v/1e6}'; }

{
  echo "| network | workspace before (bound) | after | after, ram priority | onnx2c .bss | target | instructions before | after | after, ram | instr. target | outputs |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for m in $MODELS; do
    read -r i0 w0 b0 s0 <<< "$(run $m before --schedule program --no-overlap --memory-priority speed)"
    read -r i1 w1 b1 s1 <<< "$(run $m after)"
    read -r i2 w2 b2 s2 <<< "$(run $m ram --memory-priority ram)"
    st=PASS; [ "$s0$s1$s2" = PASSPASSPASS ] || st="FAIL ($s0/$s1/$s2)"
    echo "| ${LABEL[$m]} | $w0 ($b0) | $w1 ($b1) | $w2 ($b2) | ${ONNX2C[$m]} | ${TARGET[$m]} | $(fmt_m "$i0") | $(fmt_m "$i1") | $(fmt_m "$i2") | ${ITARGET[$m]} | $st |"
  done
} > "$WORK/memory_table.md"
cat "$WORK/memory_table.md"

if [ -n "$WRITE" ]; then
  awk -v table="$WORK/memory_table.md" '
    /<!-- memory:begin -->/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
    /<!-- memory:end -->/ { skip = 0 }
    !skip { print }' "$WRITE" > "$WRITE.tmp" && mv "$WRITE.tmp" "$WRITE"
fi
