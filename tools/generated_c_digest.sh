#!/bin/bash
# Digest of the C Kiln generates for a fixed set of models: one line per
# model x CPU, "sha256  model  cpu", over every generated file with the line that
# names the tool's version and commit removed. A refactoring that must not change
# the output is checked by running this before and after and comparing:
#   tools/generated_c_digest.sh build/kiln > before.txt   (on the old tree)
#   tools/generated_c_digest.sh build/kiln > after.txt    (on the new tree)
#   diff before.txt after.txt
# Models: the e2e and bufferize models, the examples, the MLPerf Tiny and field
# .tflite files, the MLPerf QDQ ONNX forms when the build made them
# (build/tests/quant/mlperf_qdq), and the foundation ONNX node tests.
# The copy of the runtime each module carries (its crt/ folder) is left out unless
# WITH_RUNTIME=1: a runtime change shows in every line otherwise, and the runtime
# is checked on its own (its objects' disassembly, the crt tests).
set -u
kiln=${1:-build/kiln}
runtime_filter='^\./crt/'
[ "${WITH_RUNTIME:-0}" = 1 ] && runtime_filter='^$'

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$(dirname "$kiln")" && pwd)
nodes=/usr/share/libonnx-testdata/data/node
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# A copy of the tool: a rebuild during the run does not change what is measured.
cp "$kiln" "$work/kiln" && kiln=$work/kiln

digest() {  # model cpu
  local out=$work/out
  rm -rf "$out"
  local mcpu=(); [ "$2" != host ] && mcpu=(--mcpu "$2")
  if "$kiln" compile "$1" -o "$out" -q "${mcpu[@]}" > "$work/log" 2>&1; then
    local sum
    sum=$(cd "$out" && find . -type f | grep -v -E "$runtime_filter" | LC_ALL=C sort | while read -r f; do
            echo "== $f"; grep -v -E 'kiln [0-9]+\.[0-9]+\.[0-9]+ \(commit' "$f"; done | sha256sum | cut -c1-16)
    echo "$sum  ${1#$root/}  $2"
  else
    echo "refused  ${1#$root/}  $2  $(tail -1 "$work/log" | cut -c1-100)"
  fi
}

models=$(cd "$root" && find tests/e2e/models tests/bufferize/models examples tests/data/mlperf-tiny tests/data/field-tflite \
           \( -name '*.onnx' -o -name '*.tflite' \) | LC_ALL=C sort)
for m in $models; do
  for cpu in host cortex-m4 cortex-m55 cortex-m3; do digest "$root/$m" "$cpu"; done
done
for m in $(find "$build/tests/quant/mlperf_qdq" -name '*.onnx' 2>/dev/null | LC_ALL=C sort); do
  for cpu in host cortex-m4 cortex-m55 cortex-m3; do digest "$m" "$cpu"; done
done
grep -v '^#' "$root/tests/e2e/foundation_node_tests.txt" | while read -r t; do
  [ -n "$t" ] && [ -f "$nodes/$t/model.onnx" ] && digest "$nodes/$t/model.onnx" cortex-m4
done
