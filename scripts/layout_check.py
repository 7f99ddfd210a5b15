#!/usr/bin/env python3
"""Every path docs/layout.md names exists (CI runs it: a map that names a
file that moved misleads the newcomer it is written for).

A path is a backticked name with a folder in it, or a file of the top level.
One that starts at the repository's root is checked there; one relative to
its row (`sandbox/fit.rs` in the data sets' row) is checked under the folders
the row names (and their `src/`). Routes, patterns and type names are not
paths."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = set(os.listdir(ROOT)) - {"target", ".git"}


def is_path(name: str) -> bool:
    if name.startswith("/") or re.search(r"[:{}*?=<>]", name):
        return False
    first = name.split("/", 1)[0]
    return "/" in name or (first in TOP and "." in name)


def exists(name: str, bases: list) -> bool:
    if name.split("/", 1)[0] in TOP:
        return os.path.exists(os.path.join(ROOT, name.rstrip("/")))
    return any(
        os.path.exists(os.path.join(ROOT, base, sub, name.rstrip("/")))
        for base in bases
        for sub in ("", "src")
    )


def main() -> int:
    text = open(os.path.join(ROOT, "docs", "layout.md"), encoding="utf-8").read()
    missing, checked = [], 0
    for line in text.splitlines():
        names = [n for n in re.findall(r"`([^`\s]+)`", line) if is_path(n)]
        bases = [n for n in names if n.split("/", 1)[0] in TOP and n.endswith("/")]
        bases += [os.path.dirname(n) for n in names if n.split("/", 1)[0] in TOP and not n.endswith("/")]
        for name in names:
            checked += 1
            if not exists(name, bases):
                missing.append(name)
    for name in missing:
        print(f"docs/layout.md names {name}, which does not exist", file=sys.stderr)
    print(f"docs/layout.md: {checked} paths checked, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
