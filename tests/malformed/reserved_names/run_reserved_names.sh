#!/bin/bash
# Compiles reserved_names.onnx as module "reserved" and builds check_macros.c
# against its metadata.h with -std=c99 -Wall -Wextra -Werror -pedantic (C) and
# the header alone as C++ (-Werror): every macro is defined once, each size macro
# is its tensor's size, no name is a keyword or a standard macro of either.
#   run_reserved_names.sh KILN WORK_DIR
set -eu
kiln=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
"$kiln" compile "$here/reserved_names.onnx" -o "$work/module" --module-name reserved -q
dups=$(grep -o '^#define [A-Za-z0-9_]*' "$work/module/metadata.h" | sort | uniq -d)
[ -z "$dups" ] || { echo "FAIL: defined more than once: $dups"; exit 1; }
cc -std=c99 -Wall -Wextra -Werror -pedantic -I "$work/module" -I "$work/module/crt/include" \
   "$here/check_macros.c" -o "$work/check_macros"
"$work/check_macros"
printf '#include "metadata.h"\nint main() { return 0; }\n' > "$work/header.cpp"
c++ -std=c++17 -Wall -Wextra -Werror -I "$work/module" -I "$work/module/crt/include" "$work/header.cpp" -o "$work/header"
echo "ok: $(grep -c '^#define KILN_RESERVED_\(IN\|OUT\)PUT_.*_SIZE' "$work/module/metadata.h") size macros checked"
