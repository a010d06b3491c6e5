#!/usr/bin/env python3
"""Renders the stored form of each document golden (Goldens/schema/*.json) the way Google's Python
Firestore SDK renders a Document: the SDK's own encoder (`_helpers.encode_dict`) builds the
`Value`s, proto-plus `Document.to_json()` prints them (`"nullValue": 0`, integers as strings, key
order as the SDK leaves it). The output is the REST reader's fixture of what an SDK really writes.

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
        fields = _helpers.encode_dict(typed(golden["stored"]))
        document = Document(name=DATABASE + "/documents/" + golden["path"], fields=fields)
        text = Document.to_json(document)
        with open(os.path.join(out_dir, os.path.basename(path)), "w", encoding="utf-8") as f:
            f.write(text + "\n")
        print("rendered %s" % os.path.basename(path))


if __name__ == "__main__":
    main()
