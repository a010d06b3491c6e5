"""The facts of the sync schema the engine needs, copied from Goldens/SCHEMA.md by hand.

Collections in push order, document paths, every field's default (a full write lists every field),
the id rules (schema §4), the Storage objects and their blob maps (schema §2), limits and constants.
"""
import gzip
import hashlib

from values import DAY, MICROS

# Collections, schema §5.1 push order (Goldens/SCHEMA.md, Collections).
PUSH_ORDER = ["tasks", "mapFiles", "homebases", "recentCompetitions", "flights", "settings"]
COMMON_FIELDS = ["schema", "updatedAt", "clientUpdatedAt", "updatedBy", "platform", "deleted", "deletedAt"]

# Limits and constants (Goldens/SCHEMA.md, Limits and Constants).
BATCH_MAX_WRITES = 400
BATCH_MAX_PAYLOAD = 4_000_000
PULL_OVERLAP = 120 * MICROS
RETENTION = 90 * DAY
STORAGE_CAP = 100_000_000
RECENTS_MAX = 50
PRO_ENTITLEMENT = "all"

SUMMARY_DEFAULT = {
    "analysisVersion": 0, "takeoffAt": None, "landingAt": None, "sportKind": None,
    "isTaskCompleted": False, "taskDeclaredDistance": 0.0, "taskCompletedDistance": 0.0,
    "taskAverageSpeed": 0.0, "optimizedDistance": 0.0, "optimizedAverageSpeed": 0.0,
    "fastestAverageSpeed": 0.0, "duration": 0, "altitudeGained": 0, "averageCruisingSpeed": 0.0,
    "bestThermalVario": 0.0, "rightThermalCount": 0, "leftThermalCount": 0,
}

# Every field of each document but the common fields, with the value a full write gives it when the
# record does not say: null when nullable, else the schema's default (Goldens/SCHEMA.md, Documents).
DEFAULTS = {
    "flights": {
        "filename": None, "inLogbook": False, "createdAt": None, "importedAt": None, "lastOpenedAt": None,
        "pilotName": None, "passengerName": None, "gliderRegistration": None, "gliderType": None,
        "competitionIdentification": None, "competitionClass": None, "isRead": False, "isFavorite": False,
        "isContest": False, "isFieldLanding": False, "isRecordedByVulture": False, "comments": None,
        "waterBallast": 0, "rating": 0, "taskId": None, "weglideFlightId": None, "skylinesFlightId": None,
        "takeoffCode": None, "takeoffName": None, "takeoffCountryCode": None, "isTakeoffProcessed": False,
        "summary": SUMMARY_DEFAULT, "trackPreview": None, "trackPreviewVersion": 0, "igc": None,
    },
    "tasks": {
        "name": None, "importedAt": None, "distance": 0.0, "minimumAatDuration": 0, "turnpoints": [],
        "waypointsText": None, "externalName": None, "externalUrl": None, "externalVersion": None,
        "notes": None, "inactiveAirspace": None, "isStartProcessed": False, "startCountryCode": None,
    },
    "mapFiles": {
        "type": "WAYPOINTS", "source": "USER", "filename": None, "importedAt": None, "itemCount": 0,
        "isVisible": False, "contentUpdatedAt": None, "contentArea": None, "contentHash": None, "content": None,
    },
    "homebases": {"name": "", "latitude": 0.0, "longitude": 0.0, "usedAt": None},
    "recentCompetitions": {
        "name": None, "location": None, "country": None, "startDate": None, "endDate": None, "lastOpenedAt": None,
    },
    "settings": {"values": {}},
}

# The blob map of the collections with a Storage object (schema §2): its field in the document.
BLOB_FIELD = {"flights": "igc", "mapFiles": "content"}


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def document_path(uid, collection, record_id):
    if collection == "users":
        return f"users/{uid}"
    return f"users/{uid}/{collection}/{record_id}"


def split_path(path):
    """users/u1/flights/ID -> ("flights", "ID")."""
    parts = path.split("/")
    return parts[-2], parts[-1]


def homebase_id(name):
    # schema §4: SHA-256 of name.trim().lowercase(); Python's strip() and lower() agree with Kotlin's for
    # the names of the scenarios, not for every character (see the example codec testee's failure list).
    return sha256_hex(name.strip().lower().encode("utf-8"))


def task_id(external_url):
    return sha256_hex(external_url.encode("utf-8")) if external_url else None


def map_file_id(source, kind, filename, content_hash):
    # The pinned id strings (pins mapFileIdDownloaded, mapFileIdUser): SOURCE|TYPE|filename, USER|TYPE|contentHash.
    if source == "USER":
        return sha256_hex(f"USER|{kind}|{content_hash}".encode("utf-8"))
    return sha256_hex(f"{source}|{kind}|{filename}".encode("utf-8"))


def object_path(uid, collection, record_id, content_hash):
    if collection == "flights":
        return f"users/{uid}/igc/{record_id}.igc.gz"
    return f"users/{uid}/files/{content_hash}.gz"


def gzip_bytes(data):
    # A gzip member without a file name and with mtime 0, so equal input gives an equal object.
    return gzip.compress(data, compresslevel=6, mtime=0)


def blob_map(uid, collection, record_id, raw, gz, content_hash):
    """The blob map a reserve writes (schema §5.1): uploaded false until the object is in the bucket."""
    blob = {"path": object_path(uid, collection, record_id, content_hash), "sizeBytes": len(raw), "gzBytes": len(gz),
            "uploaded": False}
    if collection == "flights":
        blob["sha256"] = record_id
    return blob


def object_metadata(collection, record_id):
    return {"recordId": record_id} if collection == "mapFiles" else {}

