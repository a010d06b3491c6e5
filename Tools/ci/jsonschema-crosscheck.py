#!/usr/bin/env python3
"""Independent cross-check of the generated JSON Schemas (Goldens/jsonschema/*.schema.json).

Validates every fixture under Goldens/jsonschema/fixtures/ with Python's jsonschema (draft 2020-12):
valid/<collection>.<form>.json must pass the schema of that collection and form, and every
invalid/<collection>.<form>.<case>.json must be rejected. The same fixtures are decoded by the
generated Swift types in Tests/VultureSyncSchemaTests/DocumentFixtureTests.swift, which must
reject the same invalid ones.

A JSON Schema cannot tell 5.0 from 5 (both are integers to it), so a double field accepts any
JSON number here; the Swift canonical reader keeps them apart (Goldens/SCHEMA.md, JSON Schemas).

Usage: jsonschema-crosscheck.py [PACKAGE_ROOT]. Exit status 0 when every fixture behaves, 1 otherwise.
"""
import json
import pathlib
import sys

import jsonschema


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    base = root / "Goldens" / "jsonschema"
    schemas = {}
    for path in sorted(base.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator.check_schema(schema)
        collection, form = path.name.split(".")[:2]
        schemas[(collection, form)] = jsonschema.Draft202012Validator(schema)
    if not schemas:
        print(f"no schemas under {base}")
        return 1

    failures = 0
    checked = 0
    for kind in ("valid", "invalid"):
        for path in sorted((base / "fixtures" / kind).glob("*.json")):
            parts = path.name.split(".")
            collection, form = parts[0], parts[1]
            validator = schemas.get((collection, form))
            if validator is None:
                print(f"FAIL {path}: no schema for {collection} {form}")
                failures += 1
                continue
            document = json.loads(path.read_text(encoding="utf-8"))
            errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
            checked += 1
            if kind == "valid" and errors:
                failures += 1
                print(f"FAIL {path}: rejected a valid document")
                for error in errors[:5]:
                    print(f"  /{'/'.join(map(str, error.absolute_path))}: {error.message[:200]}")
            elif kind == "invalid" and not errors:
                failures += 1
                print(f"FAIL {path}: accepted a broken document")
    print(f"jsonschema {jsonschema_version()}: {checked - failures} passed, {failures} failed")
    return 1 if failures or checked == 0 else 0


def jsonschema_version() -> str:
    from importlib.metadata import version

    return version("jsonschema")


if __name__ == "__main__":
    sys.exit(main())
