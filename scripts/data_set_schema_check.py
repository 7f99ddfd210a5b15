"""The data set format's JSON Schema (openapi/data-set.schema.json) against
the data sets this repository commits, as an editor would check them: the
demo data set and every fixture pass; a fixture with a misspelled array, a
relative date that does not parse, or a string where a number goes fails.

Usage: python scripts/data_set_schema_check.py [FILE...]: FILEs are checked
too (scripts/test.sh passes the snapshots tests/api/snapshots.rs took). Needs
`jsonschema_rs`: the schemathesis venv of scripts/test.sh has it."""

import copy
import glob
import json
import os
import sys

import jsonschema_rs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return json.load(handle)


def main():
    schema = load("openapi/data-set.schema.json")
    jsonschema_rs.meta.validate(schema)
    # Formats asserted, as editors check them (a date-time must be one).
    validator = jsonschema_rs.Draft202012Validator(schema, validate_formats=True)
    failed = 0
    files = ["crates/data-sets/src/demo.json"] + sorted(
        os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "examples/fixtures/*.json"))
    )
    files += sys.argv[1:]
    for path in files:
        errors = list(validator.iter_errors(load(path)))
        for error in errors[:5]:
            print(f"{path}: /{'/'.join(map(str, error.instance_path))}: {error.message[:200]}")
        failed += bool(errors)
        print(f"{path}: {'ok' if not errors else f'{len(errors)} problems'}")
    fixture = load(files[-1])
    broken = {
        "a misspelled array": lambda d: d.__setitem__("siets", []),
        "a relative date that does not parse": lambda d: d["subscriptions"][0].__setitem__("createdTime", "now-P11X"),
        "a string for a number": lambda d: d["sites"][0].__setitem__("id", "seventy"),
        "an unknown property of a row": lambda d: d["subscriptions"][0].__setitem__("nmae", "x"),
        # The API's bodies ignore unknown names; a data set's rows of them do not.
        "a misspelt name of an API body": lambda d: d["siteBillingProfiles"][0].__setitem__("isChargedAutomaticaly", True),
        "an invoice status that is not one": lambda d: d["invoices"][0].__setitem__("status", "Unpaid"),
    }
    for what, change in broken.items():
        data = copy.deepcopy(fixture)
        change(data)
        if validator.is_valid(data):
            print(f"{what}: passed the schema")
            failed += 1
        else:
            print(f"{what}: refused")
    if failed:
        sys.exit(f"{failed} checks failed")


if __name__ == "__main__":
    main()
