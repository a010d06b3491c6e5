#!/usr/bin/env python3
"""An example testee for vulture-conformance, in Python with the standard library only.

It shows how another implementation (an Android or iOS encoder) wires itself into the suite:
read one JSON request per line on stdin, answer one JSON line on stdout (the testee protocol,
Goldens/protocol/README.md). It implements a subset — ids and Storage object paths, metadata
and the size cap — and answers `skipped` for the rest, which its failure list
(failure-list.txt next to this file) names, since a required case that is skipped fails
unless listed. Its home-base id uses Python's own str.strip() and str.lower(), which differ
from Kotlin on the JVM for a few characters; that case is listed too, as a team lists its
known gaps.

Run it:  swift run vulture-conformance run --testee 'python3 Tools/example-testee/testee.py' \
             --failure-list Tools/example-testee/failure-list.txt
"""
import base64
import hashlib
import json
import sys

PROTOCOL_VERSION = 1
MAX_OBJECT_BYTES = 32_000_000  # schema §2 Storage objects, pinned as 32,000,000 bytes
HEX = set("0123456789abcdef")


class Rejection(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def typed(value):
    """Canonical typed JSON → Python: {"$bytes": b64} → bytes; other wrappers are not needed here."""
    if isinstance(value, dict):
        if len(value) == 1 and "$bytes" in value:
            return base64.b64decode(value["$bytes"], validate=True)
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return value


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def is_sha256_hex(s):
    return isinstance(s, str) and len(s) == 64 and set(s) <= HEX


def check_document_id(s):
    if s == "":
        raise Rejection("id.empty", "a document id cannot be empty")
    if "/" in s:
        raise Rejection("id.contains-slash", "a document id cannot hold '/'")
    if s in (".", ".."):
        raise Rejection("id.dot-segment", "'.' and '..' are not document ids")
    if len(s) >= 4 and s.startswith("__") and s.endswith("__"):
        raise Rejection("id.reserved", "__.*__ is reserved")
    if len(s.encode("utf-8")) > 1500:
        raise Rejection("id.too-long", "over 1500 bytes")
    return s


def op_id_flight(i):
    return sha256_hex(i["igc"])


def op_id_homebase(i):
    # Python's strip()/lower(), not Kotlin's: see failure-list.txt.
    return sha256_hex(i["name"].strip().lower().encode("utf-8"))


def op_id_task(i):
    url = i.get("externalUrl")
    if not url:
        raise Rejection("id.random", "a task without externalUrl gets a random UUID")
    return sha256_hex(url.encode("utf-8"))


def op_id_map_file(i):
    source, kind = i.get("source"), i.get("type")
    if source not in ("USER", "XCSOAR", "OPENAIP") or kind not in ("WAYPOINTS", "AIRSPACE"):
        raise Rejection("id.invalid-map-file-key", "unknown source or type")
    if source == "USER":
        if not is_sha256_hex(i.get("contentHash")):
            raise Rejection("id.not-sha256-hex", "contentHash is 64 lowercase hex characters")
        return sha256_hex(f"USER|{kind}|{i['contentHash']}".encode("utf-8"))
    return sha256_hex(f"{source}|{kind}|{i['filename']}".encode("utf-8"))


def op_id_content_hash(i):
    variant, content = i["variant"], i["content"]
    if variant == "bytes":
        return sha256_hex(content)
    if variant == "iosText":
        return sha256_hex(content.encode("utf-8"))
    if variant == "iosCub":
        try:
            data = base64.b64decode(content, validate=True)
        except ValueError:
            raise Rejection("input.shape", "content is not standard padded Base64")
        if base64.b64encode(data).decode("ascii") != content:
            raise Rejection("input.shape", "content is not standard padded Base64")
        return sha256_hex(data)
    raise Rejection("input.shape", "variant is bytes, iosText or iosCub")


def op_id_recent_competition(i):
    return check_document_id(i["competitionId"])


def op_blob_path(i):
    uid, digest = i["uid"], i["hash"]
    try:
        check_document_id(uid)
    except Rejection as e:
        raise Rejection("blob.invalid-uid." + e.code, str(e))
    if not is_sha256_hex(digest):
        raise Rejection("blob.invalid-hash", "not 64 lowercase hex characters")
    if i["kind"] == "igc":
        return f"users/{uid}/igc/{digest}.igc.gz"
    return f"users/{uid}/files/{digest}.gz"


def op_blob_metadata(i):
    custom = {"recordId": i["recordId"]} if i["kind"] == "content" else {}
    return {"contentType": "application/gzip", "contentEncoding": None, "customMetadata": custom}


def op_blob_upload_check(i):
    if i["gzBytes"] > MAX_OBJECT_BYTES:
        raise Rejection("blob.object-too-large", "over 32 MB")
    return {}


OPERATIONS = {
    "id.flight": op_id_flight,
    "id.homebase": op_id_homebase,
    "id.task": op_id_task,
    "id.mapFile": op_id_map_file,
    "id.contentHash": op_id_content_hash,
    "id.recentCompetition": op_id_recent_competition,
    "blob.path": op_blob_path,
    "blob.metadata": op_blob_metadata,
    "blob.uploadCheck": op_blob_upload_check,
}


def answer(request):
    seq = request["seq"]
    operation = OPERATIONS.get(request["op"])
    if operation is None:
        return {"seq": seq, "skipped": f"this example implements no {request['op']}"}
    try:
        return {"seq": seq, "output": operation(typed(request["input"]))}
    except Rejection as e:
        return {"seq": seq, "error": {"code": e.code, "message": str(e)}}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        kind = request.get("type")
        if kind == "start":
            if request.get("protocolVersion") != PROTOCOL_VERSION:
                reply = {"type": "error", "error": {"code": "protocol.unsupported-version",
                                                    "message": f"this testee speaks version {PROTOCOL_VERSION}"}}
                print(json.dumps(reply), flush=True)
                return 1
            reply = {"type": "started", "protocolVersion": PROTOCOL_VERSION,
                     "implementation": "example-testee (Python, standard library) 1.0"}
        elif kind == "stop":
            return 0
        else:
            reply = answer(request)
        print(json.dumps(reply, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
