#!/usr/bin/env python3
"""Validates every golden file against the JSON Schema of its format, and every case against the
JSON Schemas of its operation, with Python's jsonschema (pinned, from PyPI); independent of the Swift
loader, run by .ci/run.

- Goldens/vectors/*.json against Goldens/protocol/vector-file.schema.json, Goldens/schema/*.json
  against document-golden.schema.json;
- each case's input against Goldens/protocol/operations/<op>.input.schema.json (cases whose golden
  rejection is input.shape send a malformed input on purpose and are left out), and its expected
  output against <op>.output.schema.json;
- each document golden's fixture against <collection>.fixture.schema.json, and its write and stored
  documents against Goldens/jsonschema/<collection>.<form>.schema.json;
- Goldens/scenarios/*.json against scenario-file.schema.json, and each device step as an engine.step input.

Every schema of Goldens/jsonschema/ and Goldens/protocol/operations/ has its file name as $id, so
they are loaded into one registry and a "$ref": "flights.write.schema.json" resolves.
Usage: goldens-schema-check.py PACKAGE_ROOT
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource


def load(paths):
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in paths}


def main(root):
    protocol = root / "Goldens" / "protocol"
    formats = load(protocol.glob("*.schema.json"))
    operations = load((protocol / "operations").glob("*.schema.json"))
    documents = load((root / "Goldens" / "jsonschema").glob("*.schema.json"))
    every = {**formats, **operations, **documents}
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in every.values())
    for schema in every.values():
        Draft202012Validator.check_schema(schema)
    passed = failed = 0

    def check(label, schema, value):
        nonlocal passed, failed
        errors = sorted(Draft202012Validator(schema, registry=registry).iter_errors(value), key=lambda e: list(e.path))
        if errors:
            failed += 1
            for e in errors[:5]:
                pointer = "/" + "/".join(str(p) for p in e.absolute_path)
                print(f"{label}: {pointer}: {e.message[:300]}")
        else:
            passed += 1

    for path in sorted((root / "Goldens" / "vectors").glob("*.json")):
        golden = json.loads(path.read_text(encoding="utf-8"))
        name = path.relative_to(root)
        check(name, formats["vector-file.schema.json"], golden)
        for i, case in enumerate(golden.get("cases", [])):
            op = case.get("op")
            if f"{op}.input.schema.json" not in operations:
                failed += 1
                print(f"{name}: /cases/{i}: op {op} has no JSON Schema in Goldens/protocol/operations/")
                continue
            if case.get("error") != "input.shape":
                check(f"{name}: {case['id']} input", operations[f"{op}.input.schema.json"], case["input"])
            if "output" in case:
                check(f"{name}: {case['id']} output", operations[f"{op}.output.schema.json"], case["output"])
    for path in sorted((root / "Goldens" / "schema").glob("*.json")):
        golden = json.loads(path.read_text(encoding="utf-8"))
        name = path.relative_to(root)
        check(name, formats["document-golden.schema.json"], golden)
        collection = golden["collection"]
        check(f"{name}: fixture", operations[f"{collection}.fixture.schema.json"], golden["fixture"])
        if not golden["fixture"].get("tombstone"):
            for form in ("write", "stored"):
                check(f"{name}: {form}", documents[f"{collection}.{form}.schema.json"], golden[form])
        for form in ("write", "stored"):
            check(
                f"{name}: encode input",
                operations["encode.input.schema.json"],
                {"collection": collection, "form": form, "fixture": golden["fixture"]},
            )
            check(
                f"{name}: encode output",
                operations["encode.output.schema.json"],
                {"path": golden["path"], "document": golden[form]},
            )
    for path in sorted((root / "Goldens" / "scenarios").glob("*.json")):
        golden = json.loads(path.read_text(encoding="utf-8"))
        name = path.relative_to(root)
        check(name, formats["scenario-file.schema.json"], golden)
        for i, step in enumerate(golden.get("steps", [])):
            if step.get("op") not in ("serverCommit", "fault", "clearFaults", "expect"):
                check(f"{name}: /steps/{i} engine.step input", operations["engine.step.input.schema.json"], {"step": step})
    print(f"golden formats and operation schemas: {passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
