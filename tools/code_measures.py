#!/usr/bin/python3
"""Measures of the code base that the architecture notes quote, reproducible by anyone:

  tools/code_measures.py [--functions N]

- the longest functions in generator/ (lines from the header line to the closing
  brace; a function whose first comment line says "Long because:" is listed apart),
- the largest source files in generator/,
- std::function and thread_local uses in generator/lower/,
- __asm__ blocks in crt/: how many access memory at fixed offsets and have no
  offset check, register pins, naked functions without a register contract.

An __asm__ block is an asm statement (`__asm__ [volatile] (...)`); a register pin
(`register int32_t m __asm__("r8")`) is counted apart. A block's text is the
statement with its file's macros expanded (asm text is often built by macros:
DWPK_ROW, KILN_PK_STEP). A block *accesses memory at fixed offsets* when its text
has a memory operand with an immediate offset from a base other than sp
(`[r3, #20]`, `[%[q], #32]`, `[%[wp], #" woff "]`; a post-indexed walk `[r7], #8`
and register offsets `[r6, r10]` are not) or an LDM without writeback
(`ldm r3, {r4, r5}`: consecutive fields of a record). Such a block is *guarded*
when its file holds a layout check: KILN_ASM_OFFSET / _CHECK / _EXPECT
(crt/src/kernels/asm_guard.h) or `offsetof(...) ==`. The check is per file, not
per struct: a file with a check for one struct and a block reading another
counts as guarded; the asm_guard.h comment asks for one check per field read.
A naked function has a register contract when a comment line within the 30 lines
above its definition holds "Register contract:".

A function is found by its shape, not parsed: a line that ends in '{', holds a '('
and starts like a declaration (not if/for/while/switch/else/do/namespace/class/
struct/enum/union, not a lambda or an initializer), closed by the first '}' at the
same indentation. Good enough for the code style of this repository (clang-format,
two-space indent)."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYWORDS = ("if", "for", "while", "switch", "else", "do", "namespace", "class", "struct",
            "enum", "union", "return", "case", "try", "catch", "extern")


def sources(folder, exts):
    for base, _, files in os.walk(os.path.join(ROOT, folder)):
        for f in sorted(files):
            if f.endswith(exts):
                yield os.path.join(base, f)


def header_start(lines, i):
    """The first line of the declaration that ends at line i (signatures may wrap)."""
    j = i
    while j > 0:
        prev = lines[j - 1].rstrip()
        if not prev or prev.endswith((";", "}", "{", ":")) or prev.lstrip().startswith(("//", "#", "*", "/*")):
            break
        j -= 1
    return j


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        s = line.rstrip()
        if not s.endswith("{") or s.lstrip().startswith(("//", "#")):
            continue
        start = header_start(lines, i)
        header = " ".join(l.strip() for l in lines[start:i + 1])
        word = re.match(r"[A-Za-z_~]+", header)
        if not word or word.group(0) in KEYWORDS or "(" not in header:
            continue
        if re.search(r"\]\s*\(.*\)\s*(mutable\s*)?(->\s*[\w:<>]+\s*)?\{$", header) or re.search(r"=\s*\[", header):
            continue  # a lambda
        if re.search(r"=\s*\{$", header) or re.match(r"^[\w:<>,\s*&]+\s+\w+\s*=", header):
            continue  # an initializer
        indent = len(lines[start]) - len(lines[start].lstrip())
        end = None
        for k in range(i + 1, len(lines)):
            t = lines[k]
            if t.strip().startswith("}") and len(t) - len(t.lstrip()) == indent:
                end = k
                break
        if end is None:
            continue
        name = re.search(r"([~\w:]+)\s*\(", header)
        reason = any("Long because:" in l for l in lines[max(0, start - 6):start + 3])
        out.append((end - start + 1, os.path.relpath(path, ROOT), start + 1, name.group(1) if name else "?", reason))
    return out


ASM_STATEMENT = re.compile(r"\b__asm__\s*(volatile\s*)?\(")
PIN = re.compile(r"\b__asm__\s*\(\s*\"(r\d+|lr|ip|fp)\"\s*\)")
FIXED_OFFSET = re.compile(r"\[\s*(%\[\w+\]|r\d+|lr|ip|fp)\s*,\s*#|\bldm(ia)?(\.w)?\s+(%\[\w+\]|r\d+|lr|ip)\s*,")
LAYOUT_CHECK = re.compile(r"\bKILN_ASM_(OFFSET|CHECK|EXPECT)\s*\(|offsetof\s*\([^)]*\)\s*==")


def macros(text):
    """The file's #define bodies by name (continuation lines joined)."""
    out = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)((?:[^\n]*\\\n)*[^\n]*)", text, re.M):
        out[m.group(1)] = m.group(2)
    return out


def expand(text, defs, depth=6):
    for _ in range(depth):
        names = [w for w in set(re.findall(r"\b[A-Z_][A-Z0-9_]*\b", text)) if w in defs]
        if not names:
            break
        for w in names:
            text = re.sub(r"\b%s\b" % w, lambda _m, w=w: " " + defs[w] + " ", text)
    return text


def statement_end(text, open_paren):
    depth = 0
    for k in range(open_paren, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return k + 1
    return len(text)


def asm_measures():
    blocks = fixed = unguarded = pins = naked = no_contract = 0
    worst = []
    for p in sources("crt", (".c", ".h")):
        text = open(p, encoding="utf-8", errors="replace").read()
        defs = macros(text)
        pin_at = {m.start() for m in PIN.finditer(text)}
        pins += len(pin_at)
        for m in ASM_STATEMENT.finditer(text):
            if m.start() in pin_at:
                continue
            blocks += 1
            body = expand(text[m.start():statement_end(text, m.end() - 1)], defs)
            if not FIXED_OFFSET.search(body):
                continue
            fixed += 1
            if not LAYOUT_CHECK.search(text):
                unguarded += 1
                worst.append(f"{os.path.relpath(p, ROOT)}:{text.count(chr(10), 0, m.start()) + 1}")
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if re.search(r"__attribute__\s*\(\(\s*naked", line):
                naked += 1
                if not any("Register contract:" in l for l in lines[max(0, i - 30):i]):
                    no_contract += 1
    out = (f"crt/: __asm__ blocks {blocks} (accessing memory at fixed offsets: {fixed}, of which without an offset "
           f"check: {unguarded}), register pins {pins}, naked functions {naked} (without a register contract: "
           f"{no_contract})")
    for w in worst:
        out += f"\n  unguarded: {w}"
    return out


def main():
    top = 15
    if "--functions" in sys.argv:
        top = int(sys.argv[sys.argv.index("--functions") + 1])
    funcs = []
    for p in sources("generator", (".cpp", ".h")):
        funcs += functions(p)
    funcs.sort(reverse=True)
    plain = [f for f in funcs if not f[4]]
    print(f"longest functions in generator/ ({len(funcs)} found; over 120 lines: "
          f"{sum(1 for f in plain if f[0] > 120)} without a stated reason, "
          f"{sum(1 for f in funcs if f[4] and f[0] > 120)} with one)")
    for n, path, line, name, reason in funcs[:top]:
        print(f"  {n:5d}  {path}:{line}  {name}{'  (reason stated)' if reason else ''}")
    sizes = sorted(((sum(1 for _ in open(p, encoding='utf-8', errors='replace')), os.path.relpath(p, ROOT))
                    for p in sources("generator", (".cpp", ".h"))), reverse=True)
    print("largest files in generator/ (lines)")
    for n, p in sizes[:5]:
        print(f"  {n:5d}  {p}")
    fn = tl = 0
    for p in sources("generator/lower", (".cpp", ".h")):
        text = open(p, encoding="utf-8").read()
        fn += len(re.findall(r"std::function\b", text))
        tl += len(re.findall(r"\bthread_local\b", text))
    print(f"generator/lower/: std::function uses {fn}, thread_local uses {tl}")
    print(asm_measures())


if __name__ == "__main__":
    main()
