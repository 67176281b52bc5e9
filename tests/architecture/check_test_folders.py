#!/usr/bin/env python3
"""Tests mirror the source: every stage folder of generator/ has a test folder of
the same name under tests/ whose CMakeLists.txt registers at least one test, and
every folder of tests/ is either such a mirror or one of the cross-cutting folders
below, each with the reason it stands on its own.

  check_test_folders.py REPO_ROOT      exits non-zero naming each breach
"""
import pathlib
import re
import sys

# Test folders that do not mirror one stage: they test the whole tool, the runtime,
# or hold what several folders share.
CROSS_CUTTING = {
    "architecture": "checks of the code base itself (include boundaries, test paths, this rule)",
    "conformance": "the ONNX backend node tests through the whole tool, on host and QEMU",
    "crt": "the C runtime and its kernels (crt/), not a generator stage",
    "data": "data the tests read (models, planner instances), with sources and licenses",
    "e2e": "models compiled, built and run end to end",
    "fuzz": "the libFuzzer harness over the whole pipeline",
    "int8": "the MLPerf Tiny int8 models end to end on the boards",
    "malformed": "hostile and broken models through the whole tool",
    "support": "headers shared by the unit tests (graph builders, references)",
}

REGISTERS = re.compile(r"\b(add_test|gtest_discover_tests)\s*\(")


def check(root):
    root = pathlib.Path(root)
    stages = sorted(p.name for p in (root / "generator").iterdir() if p.is_dir())
    tests = sorted(p.name for p in (root / "tests").iterdir() if p.is_dir())
    errors = []
    for stage in stages:
        lists = root / "tests" / stage / "CMakeLists.txt"
        if not lists.is_file():
            errors.append(f"generator/{stage}/ has no test folder tests/{stage}/ with a CMakeLists.txt")
        elif not REGISTERS.search(lists.read_text()):
            errors.append(f"tests/{stage}/CMakeLists.txt registers no test (add_test or gtest_discover_tests)")
    for t in tests:
        if t not in stages and t not in CROSS_CUTTING:
            errors.append(f"tests/{t}/ mirrors no folder of generator/ and is not a listed cross-cutting folder "
                          f"(tests/architecture/check_test_folders.py)")
    return errors


def main():
    errors = check(sys.argv[1])
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print("every generator/ folder has its tests/ folder, and every tests/ folder has its reason")


if __name__ == "__main__":
    main()
