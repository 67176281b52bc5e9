#!/usr/bin/env python3
"""check_test_folders.py finds what it should: on a scratch tree with a stage that
has no test folder, a test folder that registers nothing and a stray test folder it
reports exactly those three; on the same tree mended it reports nothing."""
import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import check_test_folders  # noqa: E402


def make(root, mended):
    for stage in ("lower", "emit", "fold"):
        (root / "generator" / stage).mkdir(parents=True)
    (root / "tests" / "lower").mkdir(parents=True)
    (root / "tests" / "lower" / "CMakeLists.txt").write_text("gtest_discover_tests(lower_test)\n")
    (root / "tests" / "emit").mkdir()
    (root / "tests" / "emit" / "CMakeLists.txt").write_text(
        "add_test(NAME emit COMMAND x)\n" if mended else "# nothing registered\n")
    (root / "tests" / "support").mkdir()  # cross-cutting: fine
    if mended:
        (root / "tests" / "fold").mkdir()
        (root / "tests" / "fold" / "CMakeLists.txt").write_text("add_test(NAME fold COMMAND x)\n")
    else:
        (root / "tests" / "stray").mkdir()


def main():
    with tempfile.TemporaryDirectory() as scratch:
        broken = pathlib.Path(scratch) / "broken"
        make(broken, mended=False)
        errors = check_test_folders.check(broken)
        mended = pathlib.Path(scratch) / "mended"
        make(mended, mended=True)
        clean = check_test_folders.check(mended)
    want = ["generator/fold/", "tests/emit/CMakeLists.txt registers no test", "tests/stray/"]
    missed = [w for w in want if not any(e.startswith(w) for e in errors)]
    ok = not missed and len(errors) == len(want) and not clean
    for m in missed:
        print(f"not reported: {m}")
    for e in clean:
        print(f"wrongly reported on the mended tree: {e}")
    if len(errors) != len(want):
        print(f"reported {len(errors)} breaches, expected {len(want)}: {errors}")
    if not ok:
        sys.exit(1)
    print(f"check_test_folders.py reports the {len(want)} breaches of the broken tree and none of the mended one")


if __name__ == "__main__":
    main()
