#!/usr/bin/env python3
"""The floor plan holds (CI runs it): each crate depends only on the crates its
layer may use, read from `cargo metadata`; no re-export makes a path look
local; no product file begins `use super::*`; the code names decision
records, not a tracker's issue numbers.

The layers, bottom up (docs/layout.md):
  billing-rules, entities, macros, migration   nothing of ours
  kernel                                       the schema, macros, migrations
  secure-forms, voicebots, partner-billing     the kernel beneath; never one another
  data-sets                                    the three interfaces' stores
  test-mode                                    data sets and partner billing
  switchboard (the server)                     everything
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = {"switchboard-entities", "switchboard-macros", "migration"}
KERNEL = BASE | {"switchboard-kernel"}
ALLOWED = {
    "switchboard-billing-rules": set(),
    "switchboard-entities": set(),
    "switchboard-macros": set(),
    "migration": set(),
    "switchboard-kernel": BASE,
    "switchboard-secure-forms": KERNEL,
    "switchboard-voicebots": KERNEL,
    "switchboard-partner-billing": KERNEL | {"switchboard-billing-rules"},
    "switchboard-data-sets": KERNEL
    | {"switchboard-billing-rules", "switchboard-secure-forms", "switchboard-voicebots", "switchboard-partner-billing"},
    "switchboard-test-mode": KERNEL
    | {"switchboard-billing-rules", "switchboard-partner-billing", "switchboard-data-sets"},
    "switchboard-parity": KERNEL,
    "ceiling": set(),
}
# Glob re-exports a prelude may need; none today.
MAX_GLOB_REEXPORTS = 5


def crate_edges(problems: list) -> int:
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
    )
    ours = {p["name"] for p in meta["packages"]}
    edges = 0
    for package in meta["packages"]:
        name = package["name"]
        if name == "switchboard":
            continue
        if name not in ALLOWED:
            problems.append(f"crate {name} has no layer in scripts/house_check.py")
            continue
        for dep in package["dependencies"]:
            if dep["name"] not in ours:
                continue
            edges += 1
            if dep["name"] not in ALLOWED[name]:
                problems.append(f"crate {name} depends on {dep['name']}, which its layer may not use")
    return edges


def rust_files():
    for top in ("src", "crates", "tests", "migrations"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for file in files:
                if file.endswith(".rs"):
                    yield os.path.join(folder, file)


def sources(problems: list) -> int:
    globs, files = 0, 0
    for path in rust_files():
        files += 1
        rel = os.path.relpath(path, ROOT)
        text = open(path, encoding="utf-8").read()
        test_from = min(
            [m.start() for m in re.finditer(r"#\[cfg\(test\)\]|\nmod tests\b", text)] or [len(text)]
        )
        product = text[:test_from]
        if re.search(r"^\s*pub use switchboard_", product, re.M):
            problems.append(f"{rel}: re-exports another crate (`pub use switchboard_...`)")
        globs += len(re.findall(r"^\s*pub use [\w:]+::\*;", product, re.M))
        is_test_file = rel.startswith("tests/") or rel.endswith("/tests.rs")
        if not is_test_file and re.search(r"^use super::\*;", product, re.M):
            problems.append(f"{rel}: a product file begins `use super::*`")
        for m in re.finditer(r"\b(?:issue|DESIGN) \d+", text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{rel}:{line}: names `{m.group(0)}`; name the decision record instead")
    if globs > MAX_GLOB_REEXPORTS:
        problems.append(f"{globs} glob re-exports (at most {MAX_GLOB_REEXPORTS})")
    return files


def main() -> int:
    problems: list = []
    edges = crate_edges(problems)
    files = sources(problems)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"house: {edges} crate edges and {files} Rust files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
