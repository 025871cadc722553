#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validates JSON documents against a JSON Schema (draft 2020-12,
python3-jsonschema), and shows the schema refuses what it exists to refuse:

    validate_schema.py SCHEMA DOCUMENT...

A schema's $ref to another file resolves among the *.schema.json beside it
(the golden manifests' shared definitions: ropecheck_golden_common.schema.json).
The first golden manifest and the first gate report (`check --json`,
`merge --json`) given are each altered in the ways their schema must refuse.
"""
import copy
import glob
import json
import os
import sys

import jsonschema


def validator_for(schema_path):
    schema = json.load(open(schema_path))
    jsonschema.Draft202012Validator.check_schema(schema)
    store = {}
    for path in glob.glob(os.path.join(os.path.dirname(os.path.abspath(schema_path)), "*.schema.json")):
        s = json.load(open(path))
        jsonschema.Draft202012Validator.check_schema(s)
        store[s["$id"]] = s
    resolver = jsonschema.RefResolver(schema["$id"], schema, store=store)
    return schema, jsonschema.Draft202012Validator(schema, resolver=resolver)


def manifest_alterations(doc):
    """(what, altered document) pairs a manifest schema must refuse."""
    out = []
    d = copy.deepcopy(doc)
    d["cases"][0]["files"][0]["sha256"] = "not-a-digest"
    out.append(("a malformed sha256", d))
    d = copy.deepcopy(doc)
    d["cases"][0]["unknownField"] = 1
    out.append(("a case field no version defines", d))
    multi = [i for i, c in enumerate(doc["cases"]) if "axes" in c]
    if multi:
        d = copy.deepcopy(doc)
        d["cases"][multi[0]]["axes"]["assignment"] = "rows"
        out.append(("an unknown axis assignment", d))
        d = copy.deepcopy(doc)
        d["cases"][multi[0]]["axes"]["assignment"] = "table"  # with sections and no table
        out.append(("a table assignment without its table", d))
    with_outputs = [c for c in doc["cases"] if c.get("outputs")]
    if doc.get("schemaVersion", 0) >= 3:
        d = copy.deepcopy(doc)
        d["cases"][0].pop("outputs")
        out.append(("a version 3 case without outputs", d))
    if with_outputs:
        i = doc["cases"].index(with_outputs[0])
        d = copy.deepcopy(doc)
        o = d["cases"][i]["outputs"][0]
        o["result"], o["allowedBy"] = "invalid", ["exact_f64"]
        out.append(("an invalid output some policy allows", d))
        d = copy.deepcopy(doc)
        d["cases"][i]["outputs"][0]["worstUnits"]["exact_f64"] = -1
        out.append(("negative worst units", d))
        d = copy.deepcopy(doc)
        d["cases"][i]["outputs"][0]["q"] = "q_budget_exact_f64"
        out.append(("an output tensor that is not an output", d))
    fused = [i for i, c in enumerate(doc["cases"]) if "kvWrite" in c]
    if fused:
        d = copy.deepcopy(doc)
        d["cases"][fused[0]]["kvWrite"]["cacheDtype"] = "fp4"
        out.append(("an unknown cache dtype", d))
        d = copy.deepcopy(doc)
        d["cases"][fused[0]]["kvWrite"].pop("scaleDirection")
        out.append(("a write without its scale direction", d))
        with_fused_outputs = [i for i in fused if doc["cases"][i]["outputs"]]
        if with_fused_outputs:
            d = copy.deepcopy(doc)
            d["cases"][with_fused_outputs[0]]["outputs"][0].pop("cacheSteps")
            out.append(("a fused case's output without cacheSteps", d))
    normed = [i for i, c in enumerate(doc["cases"]) if "qkNorm" in c]
    if normed:
        d = copy.deepcopy(doc)
        d["cases"][normed[0]]["qkNorm"]["intermediate"] = "round_twice"
        out.append(("an unknown qk-norm intermediate", d))
        if fused:
            d = copy.deepcopy(doc)
            d["cases"][normed[0]]["kvWrite"] = doc["cases"][fused[0]]["kvWrite"]
            out.append(("a qk-norm case with a KV-cache write too", d))
    cached = [i for i, c in enumerate(doc["cases"]) if "cosSinCache" in c]
    if cached:
        d = copy.deepcopy(doc)
        d["cases"][cached[0]]["cosSinCache"]["dtype"] = "f64"
        out.append(("a caller's cos/sin cache in f64", d))
        d = copy.deepcopy(doc)
        d["cases"][cached[0]]["cosSinCache"].pop("rows")
        out.append(("a caller's cos/sin cache without its rows", d))
    return out


def report_alterations(doc):
    """(what, altered document) pairs the gate report schema must refuse."""
    out = []
    d = copy.deepcopy(doc)
    d["report"]["implementations"][0]["properties"][0]["worstUnits"] = "nan"
    out.append(("a worst error that is neither a number nor \"inf\"", d))
    d = copy.deepcopy(doc)
    d["report"]["suite"] = "huge"
    out.append(("an unknown suite", d))
    d = copy.deepcopy(doc)
    d["report"]["implementations"][0]["bins"] = d["report"]["implementations"][0]["bins"][:3]
    out.append(("three position bins", d))
    d = copy.deepcopy(doc)
    d["report"]["extra"] = 1
    out.append(("a report field the schema does not define", d))
    d = copy.deepcopy(doc)
    d["sha256"] = "abc"
    out.append(("a malformed sha256", d))
    return out


def main():
    schema, validator = validator_for(sys.argv[1])
    bad = 0
    altered = set()  # the first document of each kind is altered (each alteration is a validation)
    for path in sys.argv[2:]:
        doc = json.load(open(path))
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:5]:
            print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}")
        bad += bool(errors)
        print(f"{path}: {'INVALID' if errors else 'valid'}")
        alter = report_alterations if doc.get("format") == "ropecheck-gate-report" else manifest_alterations
        if alter in altered:
            continue
        altered.add(alter)
        for what, wrong in alter(doc):
            if validator.is_valid(wrong):
                print(f"{path}: the schema accepted {what}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
