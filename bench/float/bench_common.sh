# Shared by float_bench.sh and memory_bench.sh (sourced): the six float32 networks of
# make_models.py and one `kiln verify` run of a network on a board (log reading and
# table writing from bench/bench_lib.sh).
source "$(dirname "${BASH_SOURCE[0]}")/../bench_lib.sh"
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

# verify KILN WORK MODEL BOARD TAG [FLAGS...] -> "instr workspace bound params status": the
# median instructions of the three data sets (all must PASS), the workspace pool and
# its lower bound, the parameter pool; log in WORK/MODEL.BOARD.TAG.log.
verify() {
  local kiln=$1 work=$2 model=$3 board=$4 tag=$5; shift 5
  local log="$work/$model.$board.$tag.log" d="$work/models/$model"
  "$kiln" verify "$d/model.onnx" --data "$d/test_data_set_0" --data "$d/test_data_set_1" --data "$d/test_data_set_2" \
      --board "$board" --crt-cache "$work/crt-cache" --with-workspace-buffer "name=sram" \
      --with-parameter-buffer "name=flash" --timeout 600 "$@" > "$log" 2>&1
  verify_summary "$log" $?
}
