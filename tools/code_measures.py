#!/usr/bin/python3
"""Measures of the code base that the architecture notes quote, reproducible by anyone:

  tools/code_measures.py [--functions N]

- the longest functions in generator/ (lines from the header line to the closing
  brace; a function whose first comment line says "Long because:" is listed apart),
- the largest source files in generator/,
- std::function and thread_local uses in generator/lower/,
- __asm__ blocks in crt/ and how many of them have no offsetof check in their file.

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
    blocks = unguarded = naked = 0
    for p in sources("crt", (".c", ".h", ".S")):
        text = open(p, encoding="utf-8", errors="replace").read()
        b = len(re.findall(r"__asm__", text))
        naked += len(re.findall(r"__attribute__\s*\(\(\s*naked", text))
        blocks += b
        if b and "offsetof" not in text:
            unguarded += b
    print(f"crt/: __asm__ blocks {blocks} (in files with no offsetof check: {unguarded}), naked functions {naked}")


if __name__ == "__main__":
    main()
