#!/usr/bin/env python3
"""The peers of `vulture-benchmark`, on the same inputs: Python's json, orjson, jsonschema-rs and
fastjsonschema (installed by the benchmark under .build/bench-venv, pinned).

Every timed call runs with Python's cyclic garbage collector off (collected before, enabled after), as
the fastest way to run these libraries; objects are freed outside the timed part, as on our side. Times
are the calling thread's CPU time (time.thread_time), as on our side: the machine may be shared, and
wall time would count the time spent waiting for a core.

Commands (each prints one JSON object on stdout, or for the whole-process ones a summary line):

  versions                         the versions of Python and of the three libraries
  parse FILE                       seconds of orjson.loads and json.loads of the whole file
  write FILE                       seconds of orjson.dumps(OPT_INDENT_2 | OPT_SORT_KEYS) of the file's
                                   value, and whether its bytes plus a final newline are the file's
  lines SCHEMA JSONL               per line of a JSON Lines file held in memory: seconds of json.loads,
                                   orjson.loads, orjson.loads + jsonschema-rs is_valid, and orjson.loads +
                                   fastjsonschema; how many lines each validator accepts
  load FILE                        read and parse the file with orjson, then exit (for peak memory)
  files SCHEMA DIR [--fast]        a whole validating CLI: every *.json under DIR in path order, read,
                                   orjson.loads, validated with jsonschema-rs (or fastjsonschema);
                                   prints "N valid, N invalid", exit status 1 when any is invalid
  stream SCHEMA                    the same over JSON Lines on standard input, line by line

Exit status 2 on a usage error.
"""
import argparse
import gc
import json
import os
import platform
import sys
import time
from importlib.metadata import version

import fastjsonschema
import jsonschema_rs
import orjson


def timed(fn):
    """CPU seconds of fn() on this thread with the cyclic collector off, and its result."""
    gc.collect()
    gc.disable()
    try:
        start = time.thread_time()
        result = fn()
        return time.thread_time() - start, result
    finally:
        gc.enable()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def validators(schema_path):
    schema = json.loads(read(schema_path))
    return jsonschema_rs.validator_for(schema), fastjsonschema.compile(schema)


def cmd_versions(_):
    print(json.dumps({
        "python": platform.python_version(),
        "orjson": version("orjson"),
        "jsonschema-rs": version("jsonschema-rs"),
        "fastjsonschema": version("fastjsonschema"),
    }))


def cmd_parse(args):
    data = read(args.file)
    t_orjson, value = timed(lambda: orjson.loads(data))
    del value
    t_json, value = timed(lambda: json.loads(data))
    del value
    print(json.dumps({"orjson": t_orjson, "json": t_json}))


def cmd_write(args):
    data = read(args.file)
    value = orjson.loads(data)
    t, out = timed(lambda: orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
    print(json.dumps({"orjson": t, "bytes": len(out) + 1, "identical": out + b"\n" == data}))


def cmd_lines(args):
    lines = [line for line in read(args.jsonl).split(b"\n") if line]
    rs, fast = validators(args.schema)

    def parse_json():
        for line in lines:
            json.loads(line)

    def parse_orjson():
        for line in lines:
            orjson.loads(line)

    def with_rs():
        valid = 0
        for line in lines:
            if rs.is_valid(orjson.loads(line)):
                valid += 1
        return valid

    def with_fast():
        valid = 0
        for line in lines:
            try:
                fast(orjson.loads(line))
                valid += 1
            except fastjsonschema.JsonSchemaException:
                pass
        return valid

    out = {"documents": len(lines)}
    out["json"], _ = timed(parse_json)
    out["orjson"], _ = timed(parse_orjson)
    out["jsonschema-rs"], out["valid jsonschema-rs"] = timed(with_rs)
    if not args.no_fast:
        out["fastjsonschema"], out["valid fastjsonschema"] = timed(with_fast)
    print(json.dumps(out))


def cmd_load(args):
    value = orjson.loads(read(args.file))
    print(type(value).__name__)


def check_with(args):
    rs, fast = validators(args.schema)
    if args.fast:
        def ok(value):
            try:
                fast(value)
                return True
            except fastjsonschema.JsonSchemaException:
                return False
        return ok
    return rs.is_valid


def cmd_files(args):
    gc.disable()
    ok = check_with(args)
    valid = invalid = 0
    for root, dirs, files in os.walk(args.dir):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(root, name), "rb") as f:
                if ok(orjson.loads(f.read())):
                    valid += 1
                else:
                    invalid += 1
    print(f"{valid} valid, {invalid} invalid")
    return 1 if invalid else 0


def cmd_stream(args):
    gc.disable()
    ok = check_with(args)
    valid = invalid = 0
    for line in sys.stdin.buffer:
        if line.strip():
            if ok(orjson.loads(line)):
                valid += 1
            else:
                invalid += 1
    print(f"{valid} valid, {invalid} invalid")
    return 1 if invalid else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("versions")
    p = sub.add_parser("parse")
    p.add_argument("file")
    p = sub.add_parser("write")
    p.add_argument("file")
    p = sub.add_parser("lines")
    p.add_argument("schema")
    p.add_argument("jsonl")
    p.add_argument("--no-fast", action="store_true")
    p = sub.add_parser("load")
    p.add_argument("file")
    p = sub.add_parser("files")
    p.add_argument("schema")
    p.add_argument("dir")
    p.add_argument("--fast", action="store_true")
    p = sub.add_parser("stream")
    p.add_argument("schema")
    p.add_argument("--fast", action="store_true")
    args = parser.parse_args()
    command = {
        "versions": cmd_versions, "parse": cmd_parse, "write": cmd_write, "lines": cmd_lines,
        "load": cmd_load, "files": cmd_files, "stream": cmd_stream,
    }[args.command]
    return command(args) or 0


if __name__ == "__main__":
    sys.exit(main())
