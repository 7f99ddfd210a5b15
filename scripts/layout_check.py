#!/usr/bin/env python3
"""Every path docs/layout.md names exists (CI runs it: a map that names a
file that moved misleads the newcomer it is written for).

A path is a backticked name that starts at the repository's root: a folder
or file of the top level, then more. Names relative to a row's folder
(`rules.rs`) are not checked."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = set(os.listdir(ROOT)) - {"target", ".git"}

def main() -> int:
    text = open(os.path.join(ROOT, "docs", "layout.md"), encoding="utf-8").read()
    missing, checked = [], 0
    for name in re.findall(r"`([^`\s]+)`", text):
        first = name.split("/", 1)[0]
        if first not in TOP or "/" not in name and "." not in name:
            continue
        checked += 1
        if not os.path.exists(os.path.join(ROOT, name.rstrip("/"))):
            missing.append(name)
    for name in missing:
        print(f"docs/layout.md names {name}, which does not exist", file=sys.stderr)
    print(f"docs/layout.md: {checked} paths checked, {len(missing)} missing")
    return 1 if missing else 0

if __name__ == "__main__":
    sys.exit(main())
