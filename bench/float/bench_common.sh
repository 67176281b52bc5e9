# Shared by float_bench.sh and memory_bench.sh (sourced): the six float32 networks of
# make_models.py, one `kiln verify` run of a network on a board, and the rewrite of a
# marked table block in a markdown file.
MODELS="kws_dscnn vww_mobilenet_v1_025 ic_resnet8 mobilenet_v2_035 squeeze_concat ad_autoencoder"
declare -A LABEL=([kws_dscnn]="KWS DS-CNN" [vww_mobilenet_v1_025]="VWW MobileNetV1-0.25" [ic_resnet8]="IC ResNet-8"
                  [mobilenet_v2_035]="MobileNetV2-0.35" [squeeze_concat]="squeeze-style concat net"
                  [ad_autoencoder]="FC autoencoder")
# Issue 16's instruction targets (0.3x onnx2c's).
declare -A ITARGET=([kws_dscnn]="≤ 7.5M" [vww_mobilenet_v1_025]="≤ 20.7M" [ic_resnet8]="≤ 43.6M"
                    [mobilenet_v2_035]="≤ 32.8M" [squeeze_concat]="≤ 6.6M" [ad_autoencoder]="≤ 0.41M")

# make_models SCRIPT WORK: every network with its three data sets under WORK/models.
make_models() {
  local script=$1 work=$2 m
  mkdir -p "$work/models"
  for m in $MODELS; do
    [ -f "$work/models/$m/test_data_set_2/output_0.pb" ] || /usr/bin/python3 "$script" "$work/models" "$m" > /dev/null ||
      return 1
  done
}

median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# verify KILN WORK MODEL BOARD TAG [FLAGS...] -> "instr workspace bound params status": the
# median instructions of the three data sets (all must PASS), the workspace pool and
# its lower bound, the parameter pool; log in WORK/MODEL.BOARD.TAG.log.
verify() {
  local kiln=$1 work=$2 model=$3 board=$4 tag=$5; shift 5
  local log="$work/$model.$board.$tag.log" d="$work/models/$model"
  "$kiln" verify "$d/model.onnx" --data "$d/test_data_set_0" --data "$d/test_data_set_1" --data "$d/test_data_set_2" \
      --board "$board" --crt-cache "$work/crt-cache" --with-workspace-buffer "name=sram" \
      --with-parameter-buffer "name=flash" --timeout 600 "$@" > "$log" 2>&1
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

# write_block FILE MARKER TABLE: replaces the lines between <!-- MARKER:begin --> and
# <!-- MARKER:end --> in FILE with TABLE's.
write_block() {
  local file=$1 marker=$2 table=$3
  awk -v table="$table" -v b="<!-- $marker:begin -->" -v e="<!-- $marker:end -->" '
    $0 == b { print; while ((getline line < table) > 0) print line; skip = 1; next }
    $0 == e { skip = 0 }
    !skip { print }' "$file" > "$file.tmp" && mv "$file.tmp" "$file"
}
