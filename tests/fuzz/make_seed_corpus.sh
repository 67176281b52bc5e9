#!/bin/bash
# The fuzz target's seed corpus: every model the tests compile that is small enough
# to mutate quickly (the repo's test and example models, the ONNX node tests the
# conformance and e2e suites run, and the malformed corpus).
#   make_seed_corpus.sh OUT_DIR [MAX_BYTES]
set -eu
out=$1 max=${2:-65536}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
n=0
while IFS= read -r -d '' f; do
  [ "$(stat -c %s "$f")" -le "$max" ] || continue
  cp "$f" "$out/$(echo "${f#/}" | tr '/' '_')"
  n=$((n + 1))
done < <(find "$here/tests" "$here/examples" /usr/share/libonnx-testdata/data/node -name '*.onnx' -type f -print0 2>/dev/null)
echo "seed corpus: $n models in $out"
