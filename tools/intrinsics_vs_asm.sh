#!/bin/bash
# Issue 27's question "would ACLE intrinsics do as well as the runtime's inline
# assembly?", answered from the code GCC generates: each file of tools/intrinsics/
# holds a kernel's asm form (the runtime's own inline function) and the same
# computation written with arm_acle.h intrinsics. Both are compiled for the
# Cortex-M4 with the runtime's flags, and for each function (NAME_asm, NAME_acle,
# NAME_c) this prints its hot loop's length: of its loops, the one with the fewest
# instructions per work instruction (SMLAD, SXTAB16, PKH, VADD, VMLADAVA); with no work
# instruction in any loop (C that GCC did not turn into PKH), the shortest loop. QEMU counts
# instructions, so instructions per pass are what the benchmarks see.
#   tools/intrinsics_vs_asm.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
flags=(-O2 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -ffunction-sections
       -I"$root/crt/include" -I"$root/crt/src/kernels")
# Files named mve_*.c are for the Cortex-M55 (Helium, arm_mve.h).
m55=(-O2 -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -ffunction-sections -I"$root/crt/include" -I"$root/crt/src/kernels")
for src in "$root"/tools/intrinsics/*.c; do
  obj=$work/$(basename "$src" .c).o
  case $(basename "$src") in
    mve_*) arm-none-eabi-gcc "${m55[@]}" -c "$src" -o "$obj" ;;
    *) arm-none-eabi-gcc "${flags[@]}" -c "$src" -o "$obj" ;;
  esac
  echo "== $(basename "$src")"
  arm-none-eabi-objdump -d --no-show-raw-insn -m armv8.1-m.main "$obj" | /usr/bin/python3 -c '
import re, sys
funcs, name = {}, None
for line in sys.stdin:
    m = re.match(r"^[0-9a-f]+ <(\w+)>:", line)
    if m:
        name = m.group(1); funcs[name] = []; continue
    m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line)
    if m and name:
        funcs[name].append((int(m.group(1), 16), m.group(2), m.group(3)))
MAC = ("vmladava.s8", "vmladava.s16", "vmlava.s8", "vmlava.s16", "vadd.f32", "sxtab16", "pkhbt", "pkhtb", "smlad", "smladx", "smlabb", "smlabt", "smlatb", "smlatt", "vfma.f32", "vmla.f32")
for name, ins in funcs.items():
    if not re.search(r"_(asm|acle|c)$", name):
        continue
    best = None
    for addr, op, args in ins:
        t = re.search(r"([0-9a-f]+) <", args)
        if (op.startswith("b") or op in ("le", "letp")) and t and int(t.group(1), 16) < addr:
            body = [i for i in ins if int(t.group(1), 16) <= i[0] <= addr]
            macs = sum(1 for i in body if i[1] in MAC)
            key = (len(body) / macs if macs else float("inf"), len(body))
            if best is None or key < best[2]:
                best = (len(body), macs, key)
    if best:
        print(f"  {name:<16} hot loop: {best[0]:3d} instructions, of them {best[1]:2d} SMLAD / SXTAB16 / PKH / VADD / VMLADAVA")
'
done
