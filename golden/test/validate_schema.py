#!/usr/bin/env python3
"""Validates golden manifests against golden/schema (python3-jsonschema).

    validate_schema.py SCHEMA MANIFEST...
"""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
        for e in errors[:5]:
            print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}")
        bad += bool(errors)
        print(f"{path}: {'INVALID' if errors else 'valid'}")
    # The schema must refuse what it exists to refuse.
    doc = json.load(open(sys.argv[2]))
    doc["cases"][0]["files"][0]["sha256"] = "not-a-digest"
    if validator.is_valid(doc):
        print("schema accepted a malformed sha256")
        bad += 1
    multi = [c for c in json.load(open(sys.argv[2]))["cases"] if "axes" in c]
    if "axes" in schema["$defs"]["case"]["properties"] and multi:
        doc = json.load(open(sys.argv[2]))
        case = next(c for c in doc["cases"] if "axes" in c)
        case["axes"]["assignment"] = "rows"
        if validator.is_valid(doc):
            print("schema accepted an unknown axis assignment")
            bad += 1
        case["axes"]["assignment"] = "table"  # with sections and no table
        if validator.is_valid(doc):
            print("schema accepted a table assignment without its table")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
