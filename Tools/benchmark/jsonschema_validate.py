#!/usr/bin/env python3
"""Reference side of `vulture-benchmark validate`: Python jsonschema on the same documents.

Reads a JSON Lines file (one document per line), parses each line with json.loads and validates it
against one generated JSON Schema (Goldens/jsonschema/<collection>.<form>.schema.json) with
jsonschema's Draft202012Validator, built once before timing. Times two passes over the file, each
the best of --repeat runs and each including the file read:

  parse     read the file, json.loads every line
  validate  read the file, json.loads every line and validate it (Validator.is_valid)

Prints one JSON object on stdout: versions, document count, valid count, the first few rejected
lines with jsonschema's best-match message, and the two best times in seconds.

Usage: jsonschema_validate.py SCHEMA JSONL [--repeat N]. Exit status 0 when it ran (whatever the
verdicts), 2 on a usage error. Needs jsonschema (the benchmark pins 4.23.0 from PyPI).
"""
import argparse
import json
import platform
import sys
import time
from importlib.metadata import version

import jsonschema


def parse_pass(path):
    """Read the file and parse every line; the number of documents."""
    count = 0
    with open(path, "rb") as f:
        for line in f.read().splitlines():
            json.loads(line)
            count += 1
    return count


def validate_pass(path, validator):
    """Read, parse and validate every line; (documents, valid, line numbers of the rejected)."""
    count = 0
    valid = 0
    rejected = []
    with open(path, "rb") as f:
        for line in f.read().splitlines():
            count += 1
            if validator.is_valid(json.loads(line)):
                valid += 1
            else:
                rejected.append(count)
    return count, valid, rejected


def best_of(repeat, body):
    """The best wall-clock time of `repeat` calls of body, and the last call's result."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = body()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("schema")
    parser.add_argument("jsonl")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    with open(args.schema, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)

    parse_seconds, parsed = best_of(args.repeat, lambda: parse_pass(args.jsonl))
    validate_seconds, (count, valid, rejected) = best_of(args.repeat, lambda: validate_pass(args.jsonl, validator))

    errors = []
    if rejected:
        with open(args.jsonl, "rb") as f:
            lines = f.read().splitlines()
        for number in rejected[:5]:
            error = jsonschema.exceptions.best_match(validator.iter_errors(json.loads(lines[number - 1])))
            pointer = "/" + "/".join(map(str, error.absolute_path))
            errors.append(f"line {number}: {pointer}: {error.message[:200]}")

    print(
        json.dumps(
            {
                "python": platform.python_version(),
                "jsonschema": version("jsonschema"),
                "documents": count,
                "parsed": parsed,
                "valid": valid,
                "errors": errors,
                "repeat": args.repeat,
                "parse_seconds": parse_seconds,
                "validate_seconds": validate_seconds,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
