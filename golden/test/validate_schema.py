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
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
