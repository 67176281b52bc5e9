#!/bin/sh
# `make bench` (planner, models part): plans real models with every
# --memory-planner algorithm and prints the workspace size each one reaches next
# to the lower bound (max over schedule steps of the live bytes). Numbers, not
# pass/fail. Usage: model_plans.sh KILN MODEL...
set -eu
kiln=$1; shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-28s %-20s %10s %12s %8s %8s\n' model algorithm workspace "lower bound" ratio "wall s"
for model in "$@"; do
  name=$(basename "$(dirname "$model")")/$(basename "$model" .onnx)
  for algo in greedy-by-size greedy-by-conflicts greedy-by-area greedy-by-lifetime hill-climb exact auto; do
    start=$(date +%s.%N)
    if ! "$kiln" compile "$model" -o "$work/out" --memory-planner "$algo" \
         --with-workspace-buffer "name=sram" > "$work/log" 2>&1; then
      printf '%-28s %-20s %s\n' "$name" "$algo" "compile failed: $(tail -1 "$work/log")"
      continue
    fi
    end=$(date +%s.%N)
    # The summary line of the workspace pool: name kind owner bytes lower-bound buffers.
    line=$(awk '$1 == "sram" && $2 == "workspace" { print $4, $5 }' "$work/log")
    bytes=${line% *}; lower=${line#* }
    awk -v n="$name" -v a="$algo" -v b="$bytes" -v l="$lower" -v s="$start" -v e="$end" \
      'BEGIN { printf "%-28s %-20s %10d %12d %8.4f %8.2f\n", n, a, b, l, (l > 0 ? b / l : 1), e - s }'
  done
done
