#!/usr/bin/env python3
"""Renders documents the way Google's Python Firestore SDK renders a Document: the SDK's own encoder
(`_helpers.encode_dict`) builds the `Value`s, proto-plus `Document.to_json()` prints them
(`"nullValue": 0`, integers as strings, key order as the SDK leaves it). The output is the REST
reader's and the validator's fixture of what an SDK really writes:

- NAME.json: the stored form of each document golden (Goldens/schema/NAME.json);
- none-dropped/NAME.json: the same document after the SDK idiom that drops None values
  (`{k: v for k, v in d.items() if v is not None}`): what a Python writer stores for a record
  without those values, and what a reader must accept as nulls (Goldens/FORMAT.md, the stored form);
- validate/CASE.json: the document of every stored-form `validate` case of
  Goldens/vectors/invalid-documents.json that a stored document can hold (a sentinel cannot be
  rendered, so that case is left out), valid and invalid; SDKRenderingTests expects validate's
  verdict on each to be the case's golden (no error, or the rule id).

Usage (from the package root):

    python3 -m venv .build/sdk-venv
    .build/sdk-venv/bin/pip install 'google-cloud-firestore==2.34.1'
    .build/sdk-venv/bin/python Tools/ci/render-goldens-with-sdk.py [OUT_DIR]

OUT_DIR defaults to Tests/VultureSyncSchemaTests/Fixtures/sdk-rest; one file per golden, named as
the golden. The canonical typed JSON of the goldens is read here with the standard library only.
"""

import base64
import datetime
import glob
import json
import math
import os
import sys

from google.cloud.firestore_v1 import _helpers
from google.cloud.firestore_v1.types import Document
from google.cloud.firestore_v1._helpers import GeoPoint
from google.api_core.datetime_helpers import DatetimeWithNanoseconds

DATABASE = "projects/vulture-sdk-render/databases/(default)"


def typed(value):
    """A canonical typed JSON value (README, "Canonical typed JSON") as the Python value the SDK
    encodes: int, float, str, bool, None, bytes, datetime, GeoPoint, list, dict."""
    if isinstance(value, list):
        return [typed(v) for v in value]
    if not isinstance(value, dict):
        return value  # null, booleans, integers, doubles (json keeps 5.0 a float), strings
    if len(value) == 1:
        ((key, inner),) = value.items()
        if key == "$double":
            return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}[inner]
        if key == "$timestamp":
            text = inner.replace("Z", "+00:00")
            return DatetimeWithNanoseconds.fromisoformat(text) if hasattr(
                DatetimeWithNanoseconds, "fromisoformat") else datetime.datetime.fromisoformat(text)
        if key == "$bytes":
            return base64.b64decode(inner)
        if key == "$geoPoint":
            return GeoPoint(inner["latitude"], inner["longitude"])
        if key == "$map":
            return {k: typed(v) for k, v in inner.items()}
        if key.startswith("$"):
            raise ValueError("cannot render %s in a stored document" % key)
    return {k: typed(v) for k, v in value.items()}


def render(fields, path=None):
    """The Document JSON of `fields` (a dict of SDK values), named by `path` when given."""
    document = Document(fields=_helpers.encode_dict(fields))
    if path is not None:
        document = Document(name=DATABASE + "/documents/" + path, fields=document.fields)
    return Document.to_json(document) + "\n"


def renderable(value):
    """Whether a canonical typed JSON value holds no write sentinel (which a Document cannot hold)."""
    if isinstance(value, list):
        return all(renderable(v) for v in value)
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in ("$serverTimestamp", "$increment", "$delete"):
            return False
        return all(renderable(v) for v in value.values())
    return True


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    root = os.getcwd()
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        root, "Tests", "VultureSyncSchemaTests", "Fixtures", "sdk-rest")
    os.makedirs(out_dir, exist_ok=True)
    goldens = sorted(glob.glob(os.path.join(root, "Goldens", "schema", "*.json")))
    if not goldens:
        sys.exit("render-goldens-with-sdk: no Goldens/schema/*.json under %s" % root)
    for path in goldens:
        with open(path, encoding="utf-8") as f:
            golden = json.load(f)
        name = os.path.basename(path)
        stored = typed(golden["stored"])
        write(os.path.join(out_dir, name), render(stored, golden["path"]))
        dropped = {k: v for k, v in stored.items() if v is not None}
        write(os.path.join(out_dir, "none-dropped", name), render(dropped, golden["path"]))
        print("rendered %s (and with None dropped)" % name)
    with open(os.path.join(root, "Goldens", "vectors", "invalid-documents.json"), encoding="utf-8") as f:
        vectors = json.load(f)
    for case in vectors["cases"]:
        i = case["input"]
        if case["op"] != "validate" or i["form"] != "stored":
            continue
        if not renderable(i["document"]):
            print("left out %s: a stored document cannot hold a sentinel" % case["id"])
            continue
        write(os.path.join(out_dir, "validate", case["id"] + ".json"), render(typed(i["document"])))
        print("rendered %s" % case["id"])


if __name__ == "__main__":
    main()
