#!/usr/bin/env python3
"""The test suite reads only the repository: a clone on its own runs every test.

Checks every test source, script and CMake file (everything under tests/, the
top-level CMakeLists.txt and cmake/) for a path that leaves the repository:

1. the project's shared data folder (`../shared`, `shared/data`): a user's clone
   has no such folder beside it; copy the files into tests/data/ instead;
2. a relative path whose `..` steps climb out of the repository, resolved against
   the file's folder (`${CMAKE_SOURCE_DIR}` and `${CMAKE_CURRENT_SOURCE_DIR}` /
   `${CMAKE_CURRENT_LIST_DIR}` resolved as CMake would);
3. an absolute path into a machine's own folders (/work, /home, /root, /tmp, /opt,
   /mnt, /srv, /media, /var): the system's installed files (/usr, /etc, /dev,
   /proc, /bin) are fine, they come from Debian packages.

    check_test_paths.py [ROOT]
Exits non-zero listing every violation (file:line, the path, the rule).
"""
import os
import pathlib
import re
import sys

SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".h", ".hpp", ".py", ".sh", ".cmake", ".in", ".mustache"}
SOURCE_NAMES = {"CMakeLists.txt", "Makefile"}
C_SUFFIXES = {".c", ".cc", ".cpp", ".h", ".hpp"}
# This file states the rules, so it names the very paths it looks for.
SELF = pathlib.Path(__file__).resolve()
SHARED_RE = re.compile(r"\.\./shared\b|\bshared/data\b")
MACHINE_RE = re.compile(r"(?:^|[\s\"'=(:,;\[{])(/(?:work|home|root|tmp|opt|mnt|srv|media|var)(?:/[^\s\"'),;]*)?)")
# Characters that end a path token in C++, Python, shell and CMake text.
TOKEN_SPLIT_RE = re.compile(r"[\s\"'`(),;<>=\[\]]+")
CMAKE_DIR_RE = re.compile(r"^\$\{(CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR|CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}")


def files_to_check(root):
    """The test suite's text files: tests/**, cmake/**, the top-level CMakeLists.txt."""
    found = [root / "CMakeLists.txt"] if (root / "CMakeLists.txt").is_file() else []
    for top in ("tests", "cmake"):
        for path in sorted((root / top).rglob("*")):
            if path.resolve() == SELF:
                continue
            if path.is_file() and (path.suffix in SOURCE_SUFFIXES or path.name in SOURCE_NAMES):
                found.append(path)
    return found


def escapes(token, folder, root):
    """Whether a path token with `..` steps resolves outside root."""
    m = CMAKE_DIR_RE.match(token)
    if m:
        base = root if m.group(1) in ("CMAKE_SOURCE_DIR", "PROJECT_SOURCE_DIR") else folder
        rest = token[m.end():].lstrip("/")
    elif token.startswith("$") or token.startswith("/"):
        return False  # another variable's folder (the build tree), or absolute: rule 3
    else:
        base, rest = folder, token
    resolved = os.path.normpath(os.path.join(str(base), rest))
    return os.path.commonpath([resolved, str(root)]) != str(root)


def code_of(line, suffix):
    """The line without its comment: prose may say "../cnn" about a copied-out tree."""
    marker = "//" if suffix in C_SUFFIXES else "#"
    m = re.search(r"(?:^|\s)" + re.escape(marker), line)
    return line[:m.start()] if m else line


def check_line(line, path, root):
    """The rule each path of one line breaks, as (path, rule) pairs. Rules 1 and 3
    hold in comments too (a comment naming the shared folder misleads)."""
    found = []
    folder = path.parent
    for m in SHARED_RE.finditer(line):
        found.append((m.group(0), "the shared data folder is not in a clone: copy the files into tests/data/"))
    for m in MACHINE_RE.finditer(line):
        found.append((m.group(1), "an absolute path into this machine's folders"))
    for token in TOKEN_SPLIT_RE.split(code_of(line, path.suffix)):
        if ".." in token.split("/") and not SHARED_RE.search(token) and escapes(token, folder, root):
            found.append((token, "climbs out of the repository"))
    return found


def check(root):
    root = pathlib.Path(os.path.normpath(str(root.resolve())))
    errors = []
    for path in files_to_check(root):
        text = path.read_bytes()
        if b"\0" in text:
            continue  # binary
        for lineno, line in enumerate(text.decode("utf-8", errors="replace").splitlines(), 1):
            for found, rule in check_line(line, path, root):
                errors.append(f"{path.relative_to(root)}:{lineno}: {found}: {rule}")
    return errors


def main():
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2]
    errors = check(root)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} path(s) outside the repository in the test suite (tests/architecture/check_test_paths.py)")
        sys.exit(1)
    print("the test suite reads only the repository")


if __name__ == "__main__":
    main()
