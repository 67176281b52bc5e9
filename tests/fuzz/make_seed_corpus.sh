#!/bin/bash
# A fuzz target's seed corpus: every model of the format that the tests compile and
# that is small enough to mutate quickly. onnx: the repo's test and example models,
# the ONNX node tests the conformance and e2e suites run, the malformed corpus.
# tflite: the repo's .tflite test models (valid and malformed).
#   make_seed_corpus.sh FORMAT OUT_DIR [MAX_BYTES]
set -eu
format=$1 out=$2 max=${3:-65536}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
case "$format" in
  onnx) dirs=("$here/tests" "$here/examples" /usr/share/libonnx-testdata/data/node) ;;
  tflite) dirs=("$here/tests" "$here/examples") ;;
  *) echo "unknown format '$format'"; exit 2 ;;
esac
n=0
while IFS= read -r -d '' f; do
  [ "$(stat -c %s "$f")" -le "$max" ] || continue
  cp "$f" "$out/$(echo "${f#/}" | tr '/' '_')"
  n=$((n + 1))
done < <(find "${dirs[@]}" -name "*.$format" -type f -print0 2>/dev/null)
echo "seed corpus: $n $format models in $out"
