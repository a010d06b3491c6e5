"""Canonical typed JSON values (Goldens/FORMAT.md) as Python's json module reads them.

Python's json keeps `5` (int) and `5.0` (float) apart, so the typed form needs no parser of its own:
a timestamp stays the wrapper {"$timestamp": "…Z"}, bytes {"$bytes": "…"}, a sentinel
{"$serverTimestamp": true}. What this module adds: timestamps as integer microseconds since the
epoch (Firestore's precision), and equality by typed value (Python's `1 == 1.0 == True` is not).
"""
import base64
import calendar
import copy
import re
import time

MICROS = 1_000_000
DAY = 86_400 * MICROS

_TIMESTAMP = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z$")


def is_timestamp(value):
    return isinstance(value, dict) and len(value) == 1 and "$timestamp" in value


def micros(value):
    """{"$timestamp": "2026-10-20T14:03:07.5Z"} -> microseconds since 1970-01-01T00:00:00Z; None -> None."""
    if value is None:
        return None
    match = _TIMESTAMP.match(value["$timestamp"])
    if match is None:
        raise ValueError(f"not a canonical timestamp: {value!r}")
    year, month, day, hour, minute, second, fraction = match.groups()
    seconds = calendar.timegm((int(year), int(month), int(day), int(hour), int(minute), int(second)))
    fraction = (fraction or "").ljust(6, "0")[:6]
    return seconds * MICROS + int(fraction)


def timestamp(us):
    """Microseconds since the epoch -> {"$timestamp": …} with 0, 3 or 6 fraction digits (the shortest exact)."""
    seconds, fraction = divmod(us, MICROS)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    if fraction == 0:
        return {"$timestamp": text + "Z"}
    if fraction % 1000 == 0:
        return {"$timestamp": f"{text}.{fraction // 1000:03d}Z"}
    return {"$timestamp": f"{text}.{fraction:06d}Z"}


def from_bytes(data):
    return {"$bytes": base64.b64encode(data).decode("ascii")}


def to_bytes(value):
    return base64.b64decode(value["$bytes"], validate=True)


def same(a, b):
    """Equality by typed value: an integer is never a double or a boolean; timestamps by instant."""
    if is_timestamp(a) and is_timestamp(b):
        return micros(a) == micros(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def field(document, name):
    """A field of a document, absent read as null (Goldens/FORMAT.md, The stored form)."""
    if document is None:
        return None
    return document.get(name)


def clone(value):
    return copy.deepcopy(value)
