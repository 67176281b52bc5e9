#!/bin/sh
# patch_form_taken.sh KILN MODEL WORK: models/inverted_residual compiles with blocks
# a and b patch-based (KilnInvertedResidual) and block c as five ops, with speed and
# with RAM priority (the ops the --report JSON lists).
set -e
KILN=$1; MODEL=$2; WORK=$3
rm -rf "$WORK"; mkdir -p "$WORK"
for priority in speed ram; do
  "$KILN" compile "$MODEL" -o "$WORK/$priority" -q --memory-priority $priority --report "$WORK/$priority.json"
  for op in "KilnInvertedResidual 'a_project'" "KilnInvertedResidual 'b_project'" "Conv 'c_expand'" "Conv 'c_dw'"; do
    grep -q "\"op\": \"$op\"" "$WORK/$priority.json" || { echo "patch_form_taken: $priority: no $op"; exit 1; }
  done
  n=$(grep -c '"op": "KilnInvertedResidual' "$WORK/$priority.json")
  [ "$n" -eq 2 ] || { echo "patch_form_taken: $priority: $n patch-based blocks, expected 2"; exit 1; }
done
echo "patch_form_taken: blocks a and b patch-based, c not (speed and ram)"
