#!/usr/bin/python3
"""The emitter's rule (docs/architecture.md, "Emission"): the C text of the
generated files comes from templates/; the generator's emit code fills in names,
offsets and expressions (kernel call expressions, parameter initializers, buffer
addresses), never statements or declarations. This reads the string literals of
the given C++ files (comments removed) and fails on any that holds a piece of a
C statement: a statement end (a literal ending in ';'), a brace, a control
keyword with its parenthesis, a `return`, a pointer declaration (`T* const`), or the runtime calls operators.c makes
as statements (kiln_check_ptr, kiln_copy_bytes, kiln_poison_bytes).

  check_emitter_text.py FILE...     exit 1 and one line per offending literal
  check_emitter_text.py --self-test  the checker on samples it must flag or pass"""
import re
import sys

LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"')
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
FORBIDDEN = [
    (re.compile(r";\s*$"), "ends a statement"),
    (re.compile(r"[{}]"), "a brace"),
    (re.compile(r"\b(if|for|while|switch)\s*\("), "a control statement"),
    (re.compile(r"\breturn\b"), "a return"),
    (re.compile(r"\*\s*const\b"), "a pointer declaration"),
    (re.compile(r"\bkiln_(check_ptr|copy_bytes|poison_bytes)\b"), "a runtime call operators.c makes as a statement"),
]


def offending(text):
    text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for m in LITERAL.finditer(text):
        body = m.group(0)[1:-1]
        for pattern, why in FORBIDDEN:
            if pattern.search(body):
                yield text.count("\n", 0, m.start()) + 1, body, why
                break


def self_test():
    flagged = ['"if ((status = kiln_copy_bytes("', '"u)) != KILN_OK) return status;"', '"  for (kiln_iter_"',
               '"const void* const kiln_in[] = {"', '"uint8_t* const " + v + " = ";', '"}"', '"kiln_poison_bytes("']
    passed = ['"(const uint8_t*)inputs->"', '" + "', '"u"', '"(void*)("', '"NULL"', '"kiln_" + mod_ + "_p"',
              '// "if (x) return;" in a comment', '"_WORKSPACE_SIZE"']
    errors = [s for s in flagged if not list(offending("x = " + s + "\n"))]
    errors += [s for s in passed if list(offending("x = " + s + "\n"))]
    for s in errors:
        print("self-test: wrong answer for " + s)
    return 1 if errors else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    bad = 0
    for path in sys.argv[1:]:
        for line, body, why in offending(open(path, encoding="utf-8").read()):
            print(f"{path}:{line}: C text in the emitter ({why}): \"{body}\"")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
