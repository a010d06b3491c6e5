#!/usr/bin/env python3
"""Validates every golden file against the JSON Schema of its format (Goldens/protocol/):
Goldens/vectors/*.json against vector-file.schema.json, Goldens/schema/*.json against
document-golden.schema.json, and each vector case whose operation has a schema of its own
(OP with "." as "-", e.g. merge-document.schema.json) its input and output against that schema's
$defs/input and $defs/output. Independent of the Swift loader; run by .ci/run with Python's
jsonschema (pinned, from PyPI). Usage: goldens-schema-check.py PACKAGE_ROOT
"""
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource


def main(root):
    protocol = root / "Goldens" / "protocol"
    schemas = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in protocol.glob("*.schema.json")}
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values()
    )
    for name, schema in schemas.items():
        Draft202012Validator.check_schema(schema)
    checks = [("vectors", "vector-file.schema.json"), ("schema", "document-golden.schema.json")]
    passed = failed = 0
    for folder, schema_name in checks:
        validator = Draft202012Validator(schemas[schema_name], registry=registry)
        for path in sorted((root / "Goldens" / folder).glob("*.json")):
            errors = sorted(validator.iter_errors(json.loads(path.read_text(encoding="utf-8"))), key=lambda e: list(e.path))
            if errors:
                failed += 1
                for e in errors[:5]:
                    pointer = "/" + "/".join(str(p) for p in e.absolute_path)
                    print(f"{path.relative_to(root)}: {pointer}: {e.message[:200]}")
            else:
                passed += 1
    print(f"golden formats: {passed} passed, {failed} failed")
    op_passed, op_failed = check_operations(root, schemas, registry)
    print(f"operation schemas: {op_passed} cases passed, {op_failed} failed")
    return 1 if failed or passed == 0 or op_failed or op_passed == 0 else 0


def check_operations(root, schemas, registry):
    """Each vector case of an operation with its own schema: input and output against it."""
    passed = failed = 0
    validators = {}
    for path in sorted((root / "Goldens" / "vectors").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            name = case["op"].replace(".", "-") + ".schema.json"
            if name not in schemas:
                continue
            problems = []
            for part in ("input", "output"):
                if part not in case:
                    continue
                key = (name, part)
                if key not in validators:
                    validators[key] = Draft202012Validator(
                        {"$ref": schemas[name]["$id"] + "#/$defs/" + part}, registry=registry)
                problems += [(part, e) for e in validators[key].iter_errors(case[part])]
            if problems:
                failed += 1
                for part, e in problems[:5]:
                    pointer = "/" + "/".join(str(p) for p in e.absolute_path)
                    print(f"{path.relative_to(root)}: {case['id']}: {part}{pointer}: {e.message[:200]}")
            else:
                passed += 1
    return passed, failed


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
