#!/usr/bin/env python3
"""check_test_paths.py finds what it should: a small repository (path_fixture/, its
files named *.fixture so the real check does not read them) is copied to a scratch
folder without the suffix and checked; every line marked BAD must be reported, and
no other line. Exits non-zero naming each line missed or wrongly reported.
"""
import pathlib
import shutil
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import check_test_paths  # noqa: E402

FIXTURE = HERE / "path_fixture"


def main():
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch) / "repo"
        expected = set()
        for src in sorted(FIXTURE.rglob("*.fixture")):
            rel = src.relative_to(FIXTURE).with_suffix("")
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, root / rel)
            for lineno, line in enumerate(src.read_text().splitlines(), 1):
                if line.rstrip().endswith("BAD"):
                    expected.add(f"{rel}:{lineno}")
        reported = {":".join(e.split(":")[:2]) for e in check_test_paths.check(root)}
    missed = sorted(expected - reported)
    wrong = sorted(reported - expected)
    for m in missed:
        print(f"not reported: {m}")
    for w in wrong:
        print(f"wrongly reported: {w}")
    if missed or wrong or not expected:
        sys.exit(1)
    print(f"check_test_paths.py reports all {len(expected)} bad lines of the fixture and no other")


if __name__ == "__main__":
    main()
