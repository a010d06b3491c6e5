#!/usr/bin/env python3
"""Wrong variants of the example engine, each of which must fail a named required scenario.

The Swift `EngineMutantTests` does this for the reference engine; this does it for an engine that
shares no code with it, so that a scenario which only catches the reference's way of being wrong
shows up. Each mutant is one text replacement in a copy of this folder; the run fails when a
replacement no longer applies (the engine changed: update the mutant), when a mutant passes every
required scenario, or when the scenario named to catch it does not.

    python3 Tools/example-engine/mutants.py RUNNER [--only NAME]… [--all-scenarios]

RUNNER is the vulture-conformance executable. Each mutant runs only the scenario named to catch it
(about a second each); --all-scenarios runs every scenario for each (about eight seconds each) and
says which scenarios catch a mutant its own does not. Exit status: 0 every mutant caught, 1 a mutant
its scenario did not catch, 2 usage error or a replacement that did not apply.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, file, old text, new text, the required scenario that must catch it)
MUTANTS = [
    ("pull without the 120 s overlap", "schema.py",
     "PULL_OVERLAP = 120 * MICROS", "PULL_OVERLAP = 0", "overlap-late-commit"),
    ("clientUpdatedAt compared at milliseconds", "merge.py",
     "return micros(value) if value is not None else -1",
     "return micros(value) // 1000 if value is not None else -1", "same-field-microseconds"),
    ("equal clientUpdatedAt: local wins", "merge.py",
     'def three_way(self, tie="remote"):', 'def three_way(self, tie="local"):', "same-field-tie-server"),
    ("the base ignored (every field changed on both sides)", "merge.py",
     "self.base_known = base is not None", "self.base_known = False", "different-fields-both-kept"),
    ("no revival of a row made after the remote delete", "merge.py",
     "if local_created_at is not None and deleted_at", "if False and deleted_at", "reimport-after-local-delete"),
    ("recents keep 51", "engine.py",
     "dated[schema.RECENTS_MAX:]", "dated[schema.RECENTS_MAX + 1:]", "recents-past-50"),
    ("equal recents instants in arrival order", "engine.py",
     ', item[0].encode("utf-8")))', "))", "recents-tie-same-instant"),
    ("purge after 30 days", "engine.py",
     "cutoff = self.clock - schema.RETENTION", "cutoff = self.clock - 30 * 86_400_000_000", "tombstone-purge"),
    ("no R4 pass", "engine.py",
     'if self.platform == "ios" and not self.store["r4Done"]:', "if False:", "r4-duplicates-first-ios-pull"),
    ("the R4 pass after every pull", "engine.py",
     'if self.platform == "ios" and not self.store["r4Done"]:', 'if self.platform == "ios":',
     "r4-duplicates-first-ios-pull"),
    ("shared map-file content counted twice", "engine.py",
     'holder = self.holder_of_content(record_id, row["fields"].get("contentHash"))', "holder = None",
     "map-file-shared-content-counted-once"),
    ("a tombstone keeps its object", "engine.py",
     'self.server.request("delete", path=blob_map["path"])', "pass", "delete-tombstone"),
    ("a cap ten times too large", "engine.py",
     "self.storage_bytes() + delta > schema.STORAGE_CAP", "self.storage_bytes() + delta > 10 * schema.STORAGE_CAP",
     "storage-cap-then-pro"),
    ("Pro ignored at the cap", "engine.py", "if delta and not pro and", "if delta and", "storage-cap-then-pro"),
    ("the cursor shared by every collection", "engine.py",
     'None if full else self.store["cursors"].get(collection)',
     'None if full else max(self.store["cursors"].values(), default=None)', "cursor-per-collection"),
    ("the cursor from the device clock", "engine.py",
     "newest = updated if newest is None else max(newest, updated)",
     "newest = self.clock", "delete-against-skewed-clock"),
    ("the next page starts after the last updatedAt alone", "engine.py",
     '{"$reference": f"{self.database}/documents/{last[\'path\']}"}],',
     "],", "pull-page-edge-ties"),
    ("only the first page pulled", "engine.py",
     "if len(documents) < self.page_size:",
     "if True:", "pull-page-edge-ties"),
    ("the overlap edge exclusive", "engine.py",
     '"op": "GREATER_THAN_OR_EQUAL"',
     '"op": "GREATER_THAN"', "overlap-edge-inclusive"),
    ("an overlap of 120 ms", "schema.py",
     "PULL_OVERLAP = 120 * MICROS",
     "PULL_OVERLAP = 120 * 1000", "overlap-late-commit"),
    ("a tombstone keeps the record's fields", "engine.py",
     'fields = {"schema": 1, "clientUpdatedAt": self.now(),',
     'fields = {**{k: v for k, v in row["fields"].items() if k not in ("igc", "content")}, "schema": 1, "clientUpdatedAt": self.now(),', "delete-tombstone"),
    ("a tombstone without deletedAt", "engine.py",
     '"deleted": True, "deletedAt": self.now()}',
     '"deleted": True, "deletedAt": None}', "tombstone-purge"),
    ("the server purge takes a tombstone exactly the retention old", "engine.py",
     '"op": "LESS_THAN", "value": timestamp(cutoff)', '"op": "LESS_THAN_OR_EQUAL", "value": timestamp(cutoff)',
     "purge-edge-exclusive"),
    ("the device purge takes a tombstone exactly the retention old", "engine.py",
     "and micros(deleted_at) < cutoff", "and micros(deleted_at) <= cutoff", "purge-edge-exclusive"),
    ("the purge by updatedAt", "engine.py",
     '"filters": [{"field": "deletedAt", "op": "LESS_THAN"',
     '"filters": [{"field": "updatedAt", "op": "LESS_THAN"', "purge-by-deleted-at"),
    ("no purge on the server", "engine.py",
     "                try:\n                    self.commit(writes, [])",
     "                try:\n                    break", "tombstone-purge"),
    ("no purge on the device", "engine.py",
     "and not self.dirty(row):\n                    del rows[record_id]",
     "and not self.dirty(row):\n                    pass", "tombstone-purge"),
    ("purge batches of 500", "engine.py",
     '"startAt": None, "limit": schema.BATCH_MAX_WRITES}',
     '"startAt": None, "limit": 500}', "purge-over-400"),
    ("a revived row does not reserve its file again", "engine.py",
     '        if not revived:\n            row["created"] = None',
     '        if revived:\n            row["pending"] = None\n        if not revived:\n            row["created"] = None', "reimport-after-local-delete"),
    ("a remote delete loses to a later local edit", "merge.py",
     "        return dict(remote), False\n    if local_dead and not remote_dead:",
     '        if client_time(local) > client_time(remote):\n            return dict(local, updatedAt=remote.get("updatedAt")), True\n        return dict(remote), False\n    if local_dead and not remote_dead:', "delete-against-edit"),
    ("a local delete loses to a remote edit", "merge.py",
     'return dict(local, updatedAt=remote.get("updatedAt")), False  # the delete wins over an edit',
     "return dict(remote), False", "delete-tombstone"),
    ("a tombstone leaves storageBytes", "engine.py",
     '{"$increment": -blob_map.get("gzBytes", 0)}',
     '{"$increment": 0}', "delete-tombstone"),
    ("a tombstone lowers storageBytes by sizeBytes", "engine.py",
     '{"$increment": -blob_map.get("gzBytes", 0)}',
     '{"$increment": -blob_map.get("sizeBytes", 0)}', "delete-tombstone"),
    ("a reserve counts sizeBytes", "engine.py",
     'delta = 0 if holder else pending["gzBytes"]',
     'delta = 0 if holder else pending["sizeBytes"]', "reserve-upload-mark"),
    ("a capped record's metadata not pushed", "engine.py",
     "[i for i in sorted(rows) if self.dirty(rows[i])]",
     '[i for i in sorted(rows) if self.dirty(rows[i]) and not rows[i]["capHeld"]]', "storage-cap-then-pro"),
    ("the reserve says uploaded true", "engine.py",
     "fields = dict(self.effective(row), **{schema.BLOB_FIELD[collection]: pending})",
     "fields = dict(self.effective(row), **{schema.BLOB_FIELD[collection]: dict(pending, uploaded=True)})", "reserve-upload-mark"),
    ("never marked uploaded", "engine.py",
     'row["fields"][blob] = dict(blob_map, uploaded=True)',
     'row["fields"][blob] = dict(blob_map, uploaded=False)', "reserve-upload-mark"),
    ("the object uploaded not gzipped", "engine.py",
     '"bytes": from_bytes(schema.gzip_bytes(row["file"]))',
     '"bytes": from_bytes(row["file"])', "reserve-upload-mark"),
    ("a download before uploaded is true", "engine.py",
     'or not igc or igc.get("uploaded") is not True:',
     "or not igc:", "download-waits-for-uploaded"),
    ("batches of 500 writes", "schema.py",
     "BATCH_MAX_WRITES = 400",
     "BATCH_MAX_WRITES = 500", "first-sync-520-writes"),
    ("no payload limit", "engine.py",
     "size + estimate > schema.BATCH_MAX_PAYLOAD",
     "False", "batch-payload-under-4mb"),
    ("inLogbook by the three-way rule", "merge.py",
     "value = bool(sides.lv) or bool(sides.rv)",
     "value = sides.three_way()", "in-logbook-or"),
    ("importedAt the latest", "merge.py",
     "return min(times, key=micros)",
     "return max(times, key=micros)", "earliest-imported-at"),
    ("lastOpenedAt the earliest when both changed", "merge.py",
     'return sides.take("local" if micros(sides.lv) > micros(sides.rv) else "remote")',
     'return sides.take("local" if micros(sides.lv) < micros(sides.rv) else "remote")', "last-opened-latest"),
    ("a clear of lastOpenedAt never travels", "merge.py",
     "        elif key in LATEST_CLEAR_TRAVELS:\n",
     "        elif key in LATEST_CLEAR_TRAVELS:\n            sides.local_changed = sides.remote_changed = True\n", "clear-last-opened-travels"),
    ("usedAt by the three-way rule", "merge.py",
     ', ("homebases", "usedAt")}',
     "}", "latest-date-not-latest-edit"),
    ("usedAt the latest non-null date (a clear never travels)", "merge.py",
     "        elif key in LATEST_CLEAR_TRAVELS:\n            value = _latest_clear_travels(sides)",
     '        elif key == ("homebases", "usedAt"):\n'
     "            value = max((v for v in (sides.lv, sides.rv) if v is not None), key=micros, default=None)\n"
     "        elif key in LATEST_CLEAR_TRAVELS:\n            value = _latest_clear_travels(sides)",
     "clear-used-at-travels"),
    ("summary by the three-way rule", "merge.py",
     "value = sides.take(_ranked(sides, summary_rank(sides.lv), summary_rank(sides.rv)))",
     "value = sides.three_way()", "summary-higher-version"),
    ("a summary tie by the later clientUpdatedAt", "merge.py",
     "value = sides.take(_ranked(sides, summary_rank(sides.lv), summary_rank(sides.rv)))",
     "value = (sides.take(_ranked(sides, summary_rank(sides.lv), summary_rank(sides.rv)))\n"
     "                     if summary_rank(sides.lv) != summary_rank(sides.rv) else sides.three_way())",
     "summary-tie-keeps-local"),
    ("an equal rank (summary, track preview) goes to the server", "merge.py",
     "    return \"local\"\n\n\ndef summary_rank",
     "    return \"remote\"\n\n\ndef summary_rank",
     "summary-tie-keeps-local"),
    ("a trackPreviewVersion tie goes to the server", "merge.py",
     "winner = _ranked(pair, preview_rank(version.lv), preview_rank(version.rv))",
     "winner = (_ranked(pair, preview_rank(version.lv), preview_rank(version.rv))\n"
     "                      if preview_rank(version.lv) != preview_rank(version.rv)\n"
     "                      or not (pair.local_changed and pair.remote_changed) else \"remote\")",
     "track-preview-tie-keeps-local"),
    ("a failed preview outranks a real one", "merge.py",
     "        return (1, 0)",
     "        return (3, 0)", "track-preview-failed"),
    ("uploaded AND-ed", "merge.py",
     'merged[key] = bool(sides.lv.get("uploaded")) or bool(sides.rv.get("uploaded"))',
     'merged[key] = bool(sides.lv.get("uploaded")) and bool(sides.rv.get("uploaded"))', "download-waits-for-uploaded"),
    ("a blob map by the three-way rule", "merge.py",
     "value = _blob_map(sides, base)",
     "value = sides.three_way()", "uploaded-or-on-second-import"),
    ("an arrived task never assigned", "engine.py",
     'if row["deferredTaskId"] is not None and self.task_on_device(row["deferredTaskId"]):',
     "if False:", "task-pulled-after-flight"),
    ("a deferral kept across the pilot's edit", "engine.py",
     '(schema §5.5).\n        row["deferredTaskId"] = None',
     "(schema \xa75.5).\n        pass", "task-deferral-dropped-by-edit"),
    ("a deferred task id pushed as null", "engine.py",
     'if row["deferredTaskId"] is None:\n            return row["fields"]',
     'if True:\n            return row["fields"]', "task-pulled-after-flight"),
    ("settings: an equal t keeps the local value", "merge.py",
     'mine if mine.get("t", 0) > theirs.get("t", 0) else theirs',
     'mine if mine.get("t", 0) >= theirs.get("t", 0) else theirs', "settings-larger-t"),
    ("settings: the smaller t wins", "merge.py",
     'mine if mine.get("t", 0) > theirs.get("t", 0) else theirs',
     'mine if mine.get("t", 0) < theirs.get("t", 0) else theirs', "settings-larger-t"),
    ("settings values by the three-way rule", "merge.py",
     "value = _settings_values(local, remote)",
     "value = sides.three_way()", "settings-larger-t"),
    ("both changed: the earlier clientUpdatedAt wins", "merge.py",
     'return self.take("local" if local_time > remote_time else "remote")',
     'return self.take("local" if local_time < remote_time else "remote")', "same-field-later-wins"),
    ("both changed: the later updatedAt wins", "merge.py",
     'value = field(document, "clientUpdatedAt")',
     'value = field(document, "updatedAt")', "same-field-microseconds"),
    ("a logbook flight beyond the cap tombstoned", "engine.py",
     'if row["fields"].get("inLogbook") is True:\n                row["fields"]["lastOpenedAt"] = None',
     'if False:\n                row["fields"]["lastOpenedAt"] = None', "recents-past-50"),
    ("the recents trim keeps the oldest", "engine.py",
     "dated.sort(key=lambda item: (-micros(",
     "dated.sort(key=lambda item: (micros(", "recents-past-50"),
    ("no stranded sweep", "engine.py",
     'and row["origin"] == "server"):',
     "and False):", "recents-stranded"),
    ("lastSeenAt every push", "engine.py",
     "if last_seen is None or self.clock - micros(last_seen) >= DAY:",
     "if True:", "profile-last-seen-daily"),
    ("lastSeenAt never moved", "engine.py",
     "if last_seen is None or self.clock - micros(last_seen) >= DAY:",
     "if last_seen is None:", "profile-last-seen-daily"),
    ("platforms replaced by this one", "engine.py",
     'changes["platforms"] = list(profile.get("platforms") or []) + [self.platform]',
     'changes["platforms"] = [self.platform]', "first-sync-520-writes"),
    ("R4 keeps the latest import", "engine.py",
     "return (micros(imported) if imported is not None",
     "return (-micros(imported) if imported is not None", "r4-duplicates-first-ios-pull"),
    ("R4 over recents-only flights too", "engine.py",
     'fields.get("inLogbook") is not True or ',
     "", "r4-logbook-only"),
    ("R4 on Android too", "engine.py",
     'if self.platform == "ios" and not self.store["r4Done"]:',
     'if not self.store["r4Done"]:', "r4-duplicates-first-ios-pull"),
    ("a quota error ends the sync without a pause", "engine.py",
     'if failure.code == "RESOURCE_EXHAUSTED":',
     "if False:", "quota-pause"),
    ("home base id without lowercase", "schema.py",
     "name.strip().lower()",
     "name.strip()", "same-id-made-on-two-devices"),
    ("home base id without trim", "schema.py",
     "name.strip().lower()",
     "name.lower()", "homebase-id-trimmed-lowercase"),
    ("no recents trim after a pull", "engine.py",
     '            self.store["r4Done"] = True\n        self.trim_recents()',
     '            self.store["r4Done"] = True', "recents-past-50"),
    ("flights pushed before tasks", "schema.py",
     'PUSH_ORDER = ["tasks", "mapFiles", "homebases", "recentCompetitions", "flights", "settings"]',
     'PUSH_ORDER = ["flights", "tasks", "mapFiles", "homebases", "recentCompetitions", "settings"]', "push-order"),
    ("only this push's reserves uploaded", "engine.py",
     'if row["agreed"] is None or not self.holds_file(collection, record_id, row):',
     'if row["agreed"] is None or not self.holds_file(collection, record_id, row) or row["created"] is None:',
     "upload-crashed-then-retry"),
    ("a restart ends the quota pause", "engine.py",
     "self.store = clone(self.store)",
     'self.store = dict(clone(self.store), pauseUntil=None)', "quota-pause-survives-restart"),
    ("a restart forgets the R4 check was done", "engine.py",
     "self.store = clone(self.store)",
     'self.store = dict(clone(self.store), r4Done=False)', "r4-once-across-restart"),
    ("the server always wins over a dirty row", "engine.py",
     'merged, revived = merge(collection, base, self.effective(row), remote, row["created"])',
     "merged, revived = dict(remote), False", "different-fields-both-kept"),
    ("unknown fields dropped from pulled rows", "engine.py",
     'row = new_row(clone(remote), "server")',
     'row = new_row({k: v for k, v in clone(remote).items()\n'
     '                           if k in schema.DEFAULTS[collection] or k in schema.COMMON_FIELDS}, "server")',
     "unknown-field-survives"),
    ("the stranded sweep takes logbook flights too", "engine.py",
     'if (not is_tombstone(fields) and fields.get("inLogbook") is not True and fields.get("lastOpenedAt") is None',
     'if (not is_tombstone(fields) and fields.get("lastOpenedAt") is None', "recents-past-50"),
    ("a map file's tombstone deletes shared content", "engine.py",
     "        if not holder:\n            try:",
     "        if True:\n            try:", "map-file-shared-content-kept-on-delete"),
    ("R4 ignores pilotName", "engine.py",
     'key = (fields["filename"], micros(takeoff), fields.get("pilotName"))',
     'key = (fields["filename"], micros(takeoff))', "r4-same-pilot-merged"),
    ("R4 drops the duplicate's fields", "engine.py",
     'document, _ = merge("flights", None, self.effective(other), document)',
     "pass", "r4-same-pilot-merged"),
]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    runner, only, every = argv[1], [], False
    rest = argv[2:]
    while rest:
        if rest[0] == "--only" and len(rest) > 1:
            only.append(rest[1])
            rest = rest[2:]
        elif rest[0] == "--all-scenarios":
            every = True
            rest = rest[1:]
        else:
            print(f"mutants.py: unknown argument {rest[0]}", file=sys.stderr)
            return 2
    chosen = [m for m in MUTANTS if not only or m[0] in only]
    failures = 0
    for n, (name, file, old, new, catcher) in enumerate(chosen, 1):
        with tempfile.TemporaryDirectory() as work:
            copy = os.path.join(work, "engine")
            shutil.copytree(HERE, copy, ignore=shutil.ignore_patterns("__pycache__"))
            path = os.path.join(copy, file)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if text.count(old) != 1:
                print(f"mutants.py: {name}: the text to replace occurs {text.count(old)} times in {file}", file=sys.stderr)
                return 2
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new))
            selection = ["--only", "scenarios"] if every else ["--test", f"required.scenario.{catcher}"]
            run = subprocess.run(
                [runner, "run", "--testee", f"python3 {os.path.join(copy, 'testee.py')}"] + selection,
                capture_output=True, text=True)
            caught = sorted(line.split()[1].removeprefix("required.scenario.") for line in run.stdout.splitlines()
                            if line.startswith("FAIL required."))
            if catcher in caught:
                print(f"[{n}/{len(chosen)}] caught: {name} (by {catcher})")
            else:
                failures += 1
                if every:
                    why = f"caught only by {', '.join(caught)}" if caught else "passes every required scenario"
                else:
                    why = "passes it; --all-scenarios says which scenarios catch it"
                print(f"[{n}/{len(chosen)}] NOT CAUGHT by {catcher}: {name} ({why})")
    print(f"{len(chosen) - failures} of {len(chosen)} wrong engines caught by their scenario")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
