"""One device's sync engine, written from Goldens/ENGINE.md, Goldens/SCHEMA.md and the sync schema (000).

A `Device` keeps a local store of rows — per record the fields as the device has them, the document
as last agreed with the server and its update time, whether the pilot made the row here since that
agreement (and when), where it came from, a deferred task id, and the file it holds — plus a pull
cursor per collection, the profile as last read, a quota pause and the R4 flag. It reaches Firestore
and Cloud Storage only through `server.request(op, …)`: the testee protocol's server requests
(Goldens/protocol/README.md, Engine operations).

Where the seed leaves room this engine chooses, and says so (`# choice:`), differently from the
reference where that is just as right: nothing is retried within a sync (a failed request ends the
sync with its status and the next sync goes on), edits carry an update-time precondition and a
refused write is read, merged and written again, and a device back after more than the retention
drops the clean rows the server no longer has instead of pushing them again.
"""
import gzip
import hashlib
import json

import schema
from merge import is_tombstone, merge
from values import DAY, clone, field, from_bytes, micros, same, timestamp, to_bytes


class RequestFailed(Exception):
    """A server request answered with an error: `code` is the Firestore status or storage.KIND."""

    def __init__(self, code, message=""):
        super().__init__(f"{code}: {message}")
        self.code = code


class WriteRefused(Exception):
    """A commit refused by a precondition: the records it wrote, to read again and merge."""

    def __init__(self, code, records):
        super().__init__(code)
        self.code = code
        self.records = records


class Paused(Exception):
    pass


PRECONDITION_CODES = {"FAILED_PRECONDITION", "ALREADY_EXISTS", "NOT_FOUND"}
MAX_REWRITES = 3


def quote_path(name):
    """A field name in Firestore's field-path syntax: plain, or in backticks (Goldens/FORMAT.md, Writes)."""
    if name and (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c == "_" for c in name) and name.isascii():
        return name
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def new_row(fields, origin):
    return {"fields": fields, "agreed": None, "version": None, "created": None, "origin": origin,
            "deferredTaskId": None, "file": None, "pending": None, "capHeld": False}


class Device:
    """One app install: its store, its clock and its token (engine.reset makes one per device)."""

    def __init__(self, server, config, uid, database, start_us, page_size):
        self.server = server
        self.name = config["name"]
        self.platform = config["platform"]
        self.device_id = config["deviceId"]
        self.entitlements = list(config.get("entitlements", []))
        self.clock = start_us + config.get("clockOffsetSeconds", 0) * 1_000_000
        self.uid = uid
        self.database = database
        self.page_size = page_size
        self.store = {
            "rows": {c: {} for c in schema.PUSH_ORDER},
            "cursors": {},
            "profile": None,
            "profileRead": False,
            "pauseUntil": None,
            "r4Done": False,
            "lastCompletePull": None,
            "randomIds": 0,
        }

    # ---- the store ------------------------------------------------------------------------------

    def restart(self):
        """The app is killed and started again. Every local change and every pull page is saved in
        `self.store` when it is made (the store is this engine's durable point), and the engine keeps
        nothing besides it, so the restart starts afresh on exactly what was saved."""
        self.store = clone(self.store)

    def rows(self, collection):
        return self.store["rows"][collection]

    def effective(self, row):
        """The row as it stands against the server: a deferred task id counts as the flight's taskId."""
        if row["deferredTaskId"] is None:
            return row["fields"]
        return dict(row["fields"], taskId=row["deferredTaskId"])

    def dirty(self, row):
        """The row holds a change the server does not have (Goldens/ENGINE.md, What the device keeps)."""
        if row["agreed"] is None:
            return True
        fields, agreed = self.effective(row), row["agreed"]
        for name in set(fields) | set(agreed):
            if name != "updatedAt" and not same(field(fields, name), field(agreed, name)):
                return True
        return row["pending"] is not None and not row["capHeld"] and not is_tombstone(fields)

    def holds_file(self, collection, record_id, row):
        data = row["file"]
        if data is None:
            return False
        expected = record_id if collection == "flights" else field(row["fields"], "contentHash")
        return hashlib.sha256(data).hexdigest() == expected

    def task_on_device(self, task_id):
        row = self.rows("tasks").get(task_id)
        return row is not None and not is_tombstone(row["fields"])

    def now(self):
        return timestamp(self.clock)

    def stamp(self, fields):
        """stampCommonFields: every change the pilot makes sets the common fields."""
        fields.update({"schema": 1, "clientUpdatedAt": self.now(), "updatedBy": self.device_id,
                       "platform": self.platform, "deleted": False, "deletedAt": None})

    def tombstone_fields(self, row):
        fields = {"schema": 1, "clientUpdatedAt": self.now(), "updatedBy": self.device_id,
                  "platform": self.platform, "deleted": True, "deletedAt": self.now()}
        if "updatedAt" in row["fields"]:
            fields["updatedAt"] = row["fields"]["updatedAt"]
        return fields

    def make_tombstone(self, row):
        row["fields"] = self.tombstone_fields(row)
        row.update(created=None, deferredTaskId=None, file=None, pending=None, capHeld=False)

    # ---- the pilot's changes ---------------------------------------------------------------------

    def make_record(self, collection, record_id, values, file=None, pending=None):
        """A record made on this device (an import, or a save of a record it has no live row of)."""
        rows = self.rows(collection)
        old = rows.get(record_id)
        fields = clone(schema.DEFAULTS[collection])
        fields.update(clone(values))
        self.stamp(fields)
        row = new_row(fields, "local")
        if old is not None:  # a tombstone made again keeps its agreement with the server
            row.update(agreed=old["agreed"], version=old["version"])
            if "updatedAt" in old["fields"]:
                fields["updatedAt"] = old["fields"]["updatedAt"]
        row.update(created=self.clock, file=file, pending=pending)
        rows[record_id] = row
        return record_id

    def import_flight(self, igc, given):
        record_id = hashlib.sha256(igc).hexdigest()
        row = self.rows("flights").get(record_id)
        if row is not None and not is_tombstone(row["fields"]):
            return  # a live flight imported again changes nothing
        values = {"importedAt": self.now(), "createdAt": self.now()}
        values.update(given)
        values["igc"] = None
        pending = schema.blob_map(self.uid, "flights", record_id, igc, schema.gzip_bytes(igc), None)
        self.make_record("flights", record_id, values, file=igc, pending=pending)

    def import_map_file(self, content, given):
        content_hash = hashlib.sha256(content).hexdigest()
        values = {"importedAt": self.now()}
        values.update(given)
        values.update(contentHash=content_hash, content=None)
        source = values.get("source") or schema.DEFAULTS["mapFiles"]["source"]
        kind = values.get("type") or schema.DEFAULTS["mapFiles"]["type"]
        record_id = schema.map_file_id(source, kind, values.get("filename"), content_hash)
        row = self.rows("mapFiles").get(record_id)
        if row is not None and not is_tombstone(row["fields"]):
            return
        pending = schema.blob_map(self.uid, "mapFiles", record_id, content, schema.gzip_bytes(content), content_hash)
        self.make_record("mapFiles", record_id, values, file=content, pending=pending)

    def record_id_for_save(self, collection, record_id, changes):
        if collection == "settings":
            return "synced"
        if record_id is not None:
            return record_id
        if collection == "homebases":
            return schema.homebase_id(changes["name"])
        if collection == "tasks" and changes.get("externalUrl"):
            return schema.task_id(changes["externalUrl"])
        if collection == "tasks":
            # choice: a task without a source gets a random UUID (schema §4); drawn here from a counter and
            # the device id so that a scenario replays the same way.
            self.store["randomIds"] += 1
            digest = hashlib.sha256(f"{self.device_id}/{self.store['randomIds']}".encode()).hexdigest()
            return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}"
        if collection == "mapFiles":
            return schema.map_file_id(changes.get("source", "USER"), changes.get("type", "WAYPOINTS"),
                                      changes.get("filename"), changes.get("contentHash"))
        raise ValueError(f"a save in {collection} needs an id")

    def save(self, collection, record_id, changes, fill):
        values = {name: "x" * count for name, count in (fill or {}).items()}
        values.update(changes)
        record_id = self.record_id_for_save(collection, record_id, values)
        row = self.rows(collection).get(record_id)
        if row is None or is_tombstone(row["fields"]):
            self.make_record(collection, record_id, values)
            return
        fields = row["fields"]
        for name, value in values.items():
            if collection == "settings" and name == "values":
                fields["values"] = dict(fields.get("values") or {}, **clone(value))  # key by key
            else:
                fields[name] = clone(value)
        self.stamp(fields)
        # The pilot changed the flight: a task assignment still waiting for its task is dropped (schema §5.5).
        row["deferredTaskId"] = None

    def delete(self, collection, record_id):
        row = self.rows(collection).get(record_id)
        if row is None:
            raise ValueError(f"no {collection} row {record_id} to delete")
        self.make_tombstone(row)

    def open_flight(self, record_id):
        row = self.rows("flights").get(record_id)
        if row is None or is_tombstone(row["fields"]):
            raise ValueError(f"no live flight {record_id} to open")
        row["fields"]["lastOpenedAt"] = self.now()
        self.stamp(row["fields"])
        igc = row["fields"].get("igc")
        if self.holds_file("flights", record_id, row) or not igc or igc.get("uploaded") is not True:
            return None  # a reader downloads only a blob whose uploaded is true (schema §5.1)
        try:
            answer = self.server.request("download", path=igc["path"])
        except RequestFailed as failure:
            return failure.code  # the open still succeeded; the file stays missing
        obj = answer.get("object")
        if obj is None:
            return None
        try:
            data = gzip.decompress(to_bytes(obj["bytes"]))
        except (OSError, EOFError, ValueError):
            return None  # not gzip: discarded
        if hashlib.sha256(data).hexdigest() == record_id:
            row["file"] = data  # kept only when the SHA-256 of the gunzipped bytes is the flight id
        return None

    # ---- sync ------------------------------------------------------------------------------------

    def check_pause(self):
        until = self.store["pauseUntil"]
        if until is not None and self.clock < until:
            raise Paused()

    def run(self, action):
        """A sync, pull or push: None, or the outcome that ended it (paused, a status, storage.KIND)."""
        try:
            self.check_pause()
            action()
            return None
        except Paused:
            return "paused"
        except (RequestFailed, WriteRefused) as failure:
            if failure.code == "RESOURCE_EXHAUSTED":
                # choice (pin quotaPauseNextUTCDay): a daily quota pauses until the next 00:00 UTC by this clock.
                self.store["pauseUntil"] = (self.clock // DAY + 1) * DAY
                return "paused"
            return failure.code

    def sync(self):
        self.pull()
        self.push()
        self.purge()

    # ---- pull ------------------------------------------------------------------------------------

    def pull(self):
        last = self.store["lastCompletePull"]
        # choice (the seed leaves it open how a device away longer than the retention catches up): it pulls
        # every collection in full and then drops the clean rows the server no longer has.
        full = last is None or self.clock - last > schema.RETENTION
        brought = set()
        for collection in schema.PUSH_ORDER:
            self.pull_collection(collection, None if full else self.store["cursors"].get(collection), brought)
        profile = self.server.request("get", path=schema.document_path(self.uid, "users", None))["document"]
        self.store["profile"] = profile["fields"] if profile else None
        self.store["profileRead"] = True
        if full:
            self.forget_rows_not_brought(brought)
        self.store["lastCompletePull"] = self.clock
        self.after_pull()

    def pull_collection(self, collection, cursor, brought):
        start_at = None
        while True:
            filters = []
            if cursor is not None:
                filters.append({"field": "updatedAt", "op": "GREATER_THAN_OR_EQUAL",
                                "value": timestamp(cursor - schema.PULL_OVERLAP)})
            query = {"parent": f"users/{self.uid}", "collectionId": collection, "filters": filters,
                     "orderBy": [{"field": "updatedAt", "direction": "ASCENDING"},
                                 {"field": "__name__", "direction": "ASCENDING"}],
                     "startAt": start_at, "limit": self.page_size}
            documents = self.server.request("runQuery", query=query)["documents"]
            newest = self.store["cursors"].get(collection)
            for document in documents:
                self.apply_pulled(collection, document)
                brought.add((collection, schema.split_path(document["path"])[1]))
                updated = micros(document["fields"]["updatedAt"])
                newest = updated if newest is None else max(newest, updated)
            if newest is not None:
                self.store["cursors"][collection] = newest  # saved with the page's rows
            if len(documents) < self.page_size:
                return
            last = documents[-1]
            start_at = {"values": [last["fields"]["updatedAt"],
                                   {"$reference": f"{self.database}/documents/{last['path']}"}],
                        "before": False}

    def apply_pulled(self, collection, document):
        """pullMerge: a pulled document merged with its row, which then agrees with it."""
        record_id = schema.split_path(document["path"])[1]
        remote = document["fields"]
        rows = self.rows(collection)
        row = rows.get(record_id)
        if row is None:
            row = new_row(clone(remote), "server")
            row.update(agreed=clone(remote), version=document["updateTime"])
            rows[record_id] = row
            self.defer_task(collection, row)
            return
        if row["version"] is not None and same(row["version"], document["updateTime"]):
            return  # applied before: applying it twice changes nothing
        base = row["agreed"]
        if base is not None and row["version"] is not None and micros(document["createTime"]) > micros(row["version"]):
            base = None  # made again since the agreement: two records that never agreed
        merged, revived = merge(collection, base, self.effective(row), remote, row["created"])
        row.update(fields=merged, agreed=clone(remote), version=document["updateTime"], deferredTaskId=None)
        if not revived:
            row["created"] = None
        if is_tombstone(merged):
            row.update(file=None, pending=None, capHeld=False)
            return
        self.defer_task(collection, row)
        blob = schema.BLOB_FIELD.get(collection)
        if blob and row["pending"] is not None and (merged.get(blob) or {}).get("path") == row["pending"]["path"]:
            row["pending"] = None  # the server already names this object: no second reserve

    def defer_task(self, collection, row):
        """taskAssignmentDeferred: a flight naming a task not on the device stores taskId null and remembers it."""
        task_id = row["fields"].get("taskId")
        if collection == "flights" and task_id and not is_tombstone(row["fields"]) and not self.task_on_device(task_id):
            row["fields"]["taskId"] = None
            row["deferredTaskId"] = task_id

    def forget_rows_not_brought(self, brought):
        for collection in schema.PUSH_ORDER:
            rows = self.rows(collection)
            for record_id in sorted(rows):
                row = rows[record_id]
                if row["agreed"] is None or (collection, record_id) in brought:
                    continue
                if not self.dirty(row):
                    del rows[record_id]  # its document was purged: the delete it carried holds here too
                    continue
                row.update(agreed=None, version=None)  # pushed again as a record the server does not have
                blob = schema.BLOB_FIELD.get(collection)
                if blob and row["fields"].get(blob) is not None:
                    if self.holds_file(collection, record_id, row):
                        row["pending"] = dict(row["fields"][blob], uploaded=False)
                    row["fields"][blob] = None  # its object went with the document: reserved again, or none

    def after_pull(self):
        """afterPull: arrived tasks are assigned, the R4 pass runs (iOS, once), the recents are trimmed."""
        for row in self.rows("flights").values():
            if row["deferredTaskId"] is not None and self.task_on_device(row["deferredTaskId"]):
                row["fields"]["taskId"] = row["deferredTaskId"]
                row["deferredTaskId"] = None
        if self.platform == "ios" and not self.store["r4Done"]:
            self.duplicate_pass()
            self.store["r4Done"] = True
        self.trim_recents()

    def duplicate_pass(self):
        """Risk R4 (schema §4): flights of the logbook with the same filename, summary.takeoffAt and pilotName
        under different ids are one flight: the earliest importedAt is kept, the others merged into it and
        tombstoned."""
        groups = {}
        for record_id, row in self.rows("flights").items():
            fields = row["fields"]
            takeoff = (fields.get("summary") or {}).get("takeoffAt")
            if is_tombstone(fields) or fields.get("inLogbook") is not True or not fields.get("filename") or takeoff is None:
                continue
            key = (fields["filename"], micros(takeoff), fields.get("pilotName"))
            groups.setdefault(key, []).append(record_id)
        rows = self.rows("flights")
        for key in sorted(groups, key=repr):
            members = groups[key]
            if len(members) < 2:
                continue

            def keep_order(record_id):
                imported = rows[record_id]["fields"].get("importedAt")
                return (micros(imported) if imported is not None else float("inf"), record_id.encode("utf-8"))

            members.sort(key=keep_order)
            kept = rows[members[0]]
            document = self.effective(kept)
            blob = document.get("igc")
            for other_id in members[1:]:
                other = rows[other_id]
                document, _ = merge("flights", None, self.effective(other), document)
                self.make_tombstone(other)
            document["igc"] = blob
            if "updatedAt" not in kept["fields"]:
                document.pop("updatedAt", None)
            kept["fields"] = document
            kept["deferredTaskId"] = None
            self.defer_task("flights", kept)

    def trim_recents(self):
        """iOS trimRecents: at most 50 flights keep lastOpenedAt, newest first, equal instants by id; beyond
        that a logbook flight loses its date and a recents-only flight is tombstoned; a recents-only flight
        that arrived by sync without a date is tombstoned."""
        live = [(i, r) for i, r in self.rows("flights").items() if not is_tombstone(r["fields"])]
        dated = [(i, r) for i, r in live if r["fields"].get("lastOpenedAt") is not None]
        # choice (pin recentsTieOrder is the reference's): equal instants keep the smaller id first.
        dated.sort(key=lambda item: (-micros(item[1]["fields"]["lastOpenedAt"]), item[0].encode("utf-8")))
        for record_id, row in dated[schema.RECENTS_MAX:]:
            if row["fields"].get("inLogbook") is True:
                row["fields"]["lastOpenedAt"] = None
            else:
                self.make_tombstone(row)
        for record_id, row in live:
            fields = row["fields"]
            if (not is_tombstone(fields) and fields.get("inLogbook") is not True and fields.get("lastOpenedAt") is None
                    and row["origin"] == "server"):
                self.make_tombstone(row)

    # ---- push ------------------------------------------------------------------------------------

    def push(self):
        self.write_profile()
        for collection in schema.PUSH_ORDER:
            for attempt in range(MAX_REWRITES + 1):
                try:
                    self.push_collection(collection)
                    break
                except WriteRefused as refused:
                    if attempt == MAX_REWRITES:
                        raise
                    for refused_collection, record_id in refused.records:
                        self.read_again(refused_collection, record_id)

    def read_again(self, collection, record_id):
        """A write refused by its precondition: read the document, merge it with the row, write again."""
        if collection == "users":
            document = self.server.request("get", path=schema.document_path(self.uid, "users", None))["document"]
            self.store["profile"] = document["fields"] if document else None
            self.store["profileRead"] = True
            return
        document = self.server.request("get", path=schema.document_path(self.uid, collection, record_id))["document"]
        row = self.rows(collection)[record_id]
        if document is None:
            row.update(agreed=None, version=None)
            return
        self.apply_pulled(collection, document)

    def commit(self, writes, records):
        """One commit; a precondition refusal raises WriteRefused naming `records` (collection, id)."""
        try:
            return self.server.request("commit", writes=writes)
        except RequestFailed as failure:
            if failure.code in PRECONDITION_CODES:
                raise WriteRefused(failure.code, records)
            raise

    def write_profile(self):
        """The profile at the start of each push, in commits of its own (schema §2 profile)."""
        path = schema.document_path(self.uid, "users", None)
        if not self.store["profileRead"]:
            document = self.server.request("get", path=path)["document"]
            self.store["profile"] = document["fields"] if document else None
            self.store["profileRead"] = True
        for _ in range(MAX_REWRITES + 1):
            profile = self.store["profile"]
            try:
                if profile is None:
                    fields = {"schema": 1, "createdAt": self.now(), "lastSeenAt": self.now(),
                              "platforms": [self.platform], "storageBytes": 0, "storageRef": None}
                    self.commit([{"path": path, "fields": fields, "precondition": {"exists": False}}], [("users", None)])
                    self.store["profile"] = fields
                    return
                changes = {}
                if self.platform not in (profile.get("platforms") or []):
                    changes["platforms"] = list(profile.get("platforms") or []) + [self.platform]
                last_seen = profile.get("lastSeenAt")
                # choice: "at most once a day" read as 24 hours of the device clock.
                if last_seen is None or self.clock - micros(last_seen) >= DAY:
                    changes["lastSeenAt"] = self.now()
                if not changes:
                    return
                self.commit([{"path": path, "fields": changes, "mask": sorted(changes),
                              "precondition": {"exists": True}}], [("users", None)])
                profile.update(changes)
                return
            except WriteRefused:
                self.read_again("users", None)
        raise RequestFailed("FAILED_PRECONDITION", "the profile changed under every write")

    def record_write(self, collection, record_id, fields, row):
        """editAsFieldMerge: a record the server has is sent as the difference from its agreed document; one
        it does not have, a tombstone, or a record revived over a tombstone is written whole."""
        path = schema.document_path(self.uid, collection, record_id)
        agreed = row["agreed"]
        if agreed is None or is_tombstone(fields) or is_tombstone(agreed):
            document = {k: v for k, v in fields.items() if k != "updatedAt"}
            document["updatedAt"] = {"$serverTimestamp": True}
            precondition = {"exists": False} if agreed is None else {"updateTime": row["version"]}
            return {"path": path, "fields": document, "precondition": precondition}
        values, mask = {}, set()
        for name in set(fields) | set(agreed):
            if name == "updatedAt" or same(field(fields, name), field(agreed, name)):
                continue
            if collection == "settings" and name == "values":
                mine, theirs = fields.get("values") or {}, agreed.get("values") or {}
                for key in set(mine) | set(theirs):
                    if not same(mine.get(key), theirs.get(key)):
                        mask.add("values." + quote_path(key))
                        if key in mine:
                            values.setdefault("values", {})[key] = mine[key]
                continue
            mask.add(quote_path(name))
            if name in fields:
                values[name] = fields[name]
        for name in schema.COMMON_FIELDS:
            if name in fields:
                values[name] = fields[name]
            mask.add(name)
        values["updatedAt"] = {"$serverTimestamp": True}
        return {"path": path, "fields": values, "mask": sorted(mask), "precondition": {"updateTime": row["version"]}}

    def agree(self, row, written, result):
        """A record write acknowledged: the row now agrees with what it wrote, at the write's update time."""
        updated_at = result["transformResults"][0] if result.get("transformResults") else None
        if updated_at is not None:
            written["updatedAt"] = updated_at
        row["fields"] = dict(row["fields"], updatedAt=updated_at) if updated_at is not None else row["fields"]
        row.update(agreed=clone(written), version=result["updateTime"], created=None)

    def push_collection(self, collection):
        rows = self.rows(collection)
        blob = schema.BLOB_FIELD.get(collection)
        if blob:
            for record_id in sorted(rows):
                row = rows[record_id]
                if row["pending"] is not None and not is_tombstone(row["fields"]):
                    self.reserve(collection, record_id, row)
            for record_id in sorted(rows):
                row = rows[record_id]
                if is_tombstone(row["fields"]) and self.dirty(row) and row["agreed"] and not is_tombstone(row["agreed"]) \
                        and row["agreed"].get(blob) is not None:
                    self.push_counted_tombstone(collection, record_id, row)
        self.write_batches(collection, [i for i in sorted(rows) if self.dirty(rows[i])])
        if blob:
            marked = []
            for record_id in sorted(rows):
                row = rows[record_id]
                blob_map = row["fields"].get(blob)
                if is_tombstone(row["fields"]) or not blob_map or blob_map.get("uploaded") is not False:
                    continue
                if row["agreed"] is None or not self.holds_file(collection, record_id, row):
                    continue
                self.upload(collection, record_id, row, blob_map)
                row["fields"][blob] = dict(blob_map, uploaded=True)
                marked.append(record_id)
            self.write_batches(collection, marked)

    def write_batches(self, collection, record_ids):
        """batchWrites, batchPayload: at most 400 writes and 4,000,000 bytes of estimated payload a commit.
        The estimate is the write's canonical JSON length, which is never below Firestore's storage size."""
        rows = self.rows(collection)
        batch, size = [], 0
        for record_id in record_ids + [None]:
            write = None
            if record_id is not None:
                row = rows[record_id]
                write = self.record_write(collection, record_id, self.effective(row), row)
                estimate = len(json.dumps(write, ensure_ascii=False).encode("utf-8"))
            if batch and (write is None or len(batch) == schema.BATCH_MAX_WRITES or size + estimate > schema.BATCH_MAX_PAYLOAD):
                answer = self.commit([w for _, w in batch], [(collection, i) for i, _ in batch])
                for (done_id, done_write), result in zip(batch, answer["writeResults"]):
                    self.agree(rows[done_id], dict(self.effective(rows[done_id])), result)
                batch, size = [], 0
            if write is not None:
                batch.append((record_id, write))
                size += estimate

    def storage_bytes(self):
        return (self.store["profile"] or {}).get("storageBytes", 0)

    def holder_of_content(self, record_id, content_hash):
        """A live map file other than this one whose document names the content object (a query on contentHash)."""
        query = {"parent": f"users/{self.uid}", "collectionId": "mapFiles",
                 "filters": [{"field": "contentHash", "op": "EQUAL", "value": content_hash}],
                 "orderBy": [], "startAt": None, "limit": None}
        for document in self.server.request("runQuery", query=query)["documents"]:
            holder = schema.split_path(document["path"])[1]
            if holder != record_id and not is_tombstone(document["fields"]) and document["fields"].get("content"):
                return holder
        return None

    def reserve(self, collection, record_id, row):
        """reserveCommit: the record with its blob map (uploaded false) and the storageBytes increment naming
        it, in one commit; the cap keeps the file on the device (capKeepsFileLocal)."""
        pending = row["pending"]
        holder = None
        if collection == "mapFiles":
            holder = self.holder_of_content(record_id, row["fields"].get("contentHash"))
        delta = 0 if holder else pending["gzBytes"]
        pro = schema.PRO_ENTITLEMENT in self.entitlements
        if delta and not pro and self.storage_bytes() + delta > schema.STORAGE_CAP:
            row["capHeld"] = True
            return
        row["capHeld"] = False
        fields = dict(self.effective(row), **{schema.BLOB_FIELD[collection]: pending})
        writes = [self.record_write(collection, record_id, fields, row)]
        profile_path = schema.document_path(self.uid, "users", None)
        if holder:  # pin sharedContentNamed: a shared object moves nothing and names the map file holding it
            writes.append({"path": profile_path, "fields": {"storageRef": {"collection": collection, "id": holder}},
                           "mask": ["storageRef"], "precondition": {"exists": True}})
        else:
            writes.append({"path": profile_path,
                           "fields": {"storageBytes": {"$increment": delta},
                                      "storageRef": {"collection": collection, "id": record_id}},
                           "mask": ["storageBytes", "storageRef"], "precondition": {"exists": True}})
        answer = self.commit(writes, [(collection, record_id)])
        row["fields"] = dict(row["fields"], **{schema.BLOB_FIELD[collection]: pending})
        row["pending"] = None
        self.agree(row, dict(self.effective(row)), answer["writeResults"][0])
        self.after_profile_write(answer["writeResults"][1], writes[1]["fields"])

    def after_profile_write(self, result, fields):
        profile = self.store["profile"] if self.store["profile"] is not None else {}
        if "storageRef" in fields:
            profile["storageRef"] = fields["storageRef"]
        if "storageBytes" in fields and result.get("transformResults"):
            profile["storageBytes"] = result["transformResults"][0]
        self.store["profile"] = profile

    def push_counted_tombstone(self, collection, record_id, row):
        """storageBytesInTombstoneBatch: a tombstone that deletes a counted object lowers storageBytes by its
        gzBytes in a commit of its own, then the object is deleted (a map file's only when no live document
        shares its content)."""
        agreed = row["agreed"]
        blob_map = agreed[schema.BLOB_FIELD[collection]]
        holder = None
        if collection == "mapFiles" and agreed.get("contentHash"):
            holder = self.holder_of_content(record_id, agreed["contentHash"])
        writes = [self.record_write(collection, record_id, row["fields"], row)]
        profile_path = schema.document_path(self.uid, "users", None)
        if holder:
            writes.append({"path": profile_path, "fields": {"storageRef": {"collection": collection, "id": holder}},
                           "mask": ["storageRef"], "precondition": {"exists": True}})
        else:
            writes.append({"path": profile_path,
                           "fields": {"storageBytes": {"$increment": -blob_map.get("gzBytes", 0)},
                                      "storageRef": {"collection": collection, "id": record_id}},
                           "mask": ["storageBytes", "storageRef"], "precondition": {"exists": True}})
        answer = self.commit(writes, [(collection, record_id)])
        self.agree(row, dict(row["fields"]), answer["writeResults"][0])
        self.after_profile_write(answer["writeResults"][1], writes[1]["fields"])
        if not holder:
            try:
                self.server.request("delete", path=blob_map["path"])
            except RequestFailed as failure:
                if failure.code != "storage.notFound":
                    raise

    def upload(self, collection, record_id, row, blob_map):
        """uploadThenMark: the gzipped object, replacing whatever is at its path."""
        obj = {"path": blob_map["path"], "bytes": from_bytes(schema.gzip_bytes(row["file"])),
               "contentType": "application/gzip", "contentEncoding": None,
               "customMetadata": schema.object_metadata(collection, record_id)}
        self.server.request("upload", object=obj, onlyIfAbsent=False)

    # ---- purge -----------------------------------------------------------------------------------

    def purge(self):
        """Tombstones whose deletedAt is before now − 90 days, on the server in batches of at most 400
        (oldest first) and on the device."""
        cutoff = self.clock - schema.RETENTION
        for collection in schema.PUSH_ORDER:
            for _ in range(MAX_REWRITES + 1):
                query = {"parent": f"users/{self.uid}", "collectionId": collection,
                         "filters": [{"field": "deletedAt", "op": "LESS_THAN", "value": timestamp(cutoff)}],
                         "orderBy": [{"field": "deletedAt", "direction": "ASCENDING"},
                                     {"field": "__name__", "direction": "ASCENDING"}],
                         "startAt": None, "limit": schema.BATCH_MAX_WRITES}
                documents = self.server.request("runQuery", query=query)["documents"]
                if not documents:
                    break
                writes = [{"path": d["path"], "delete": True, "precondition": {"updateTime": d["updateTime"]}}
                          for d in documents]
                try:
                    self.commit(writes, [])
                except WriteRefused:
                    continue  # one was written since the query (revived?): ask again
                if len(documents) < schema.BATCH_MAX_WRITES:
                    break
            rows = self.rows(collection)
            for record_id in sorted(rows):
                row = rows[record_id]
                deleted_at = row["fields"].get("deletedAt")
                if is_tombstone(row["fields"]) and deleted_at is not None and micros(deleted_at) < cutoff \
                        and not self.dirty(row):
                    del rows[record_id]

    # ---- what engine.rows answers ----------------------------------------------------------------

    def answer_rows(self, collection):
        answer = {}
        for record_id, row in self.rows(collection).items():
            entry = {"fields": row["fields"], "dirty": self.dirty(row)}
            if collection in schema.BLOB_FIELD:
                entry["file"] = self.holds_file(collection, record_id, row)
            answer[record_id] = entry
        return answer
