#!/usr/bin/env python3
"""Wrong variants of the example engine, each of which must fail a named required scenario.

The Swift `EngineMutantTests` does this for the reference engine; this does it for an engine that
shares no code with it, so that a scenario which only catches the reference's way of being wrong
shows up. Each mutant is one text replacement in a copy of this folder; the run fails when a
replacement no longer applies (the engine changed: update the mutant), when a mutant passes every
required scenario, or when the scenario named to catch it does not.

    python3 Tools/example-engine/mutants.py RUNNER [--only NAME]…

RUNNER is the vulture-conformance executable. Exit status: 0 every mutant caught, 1 a mutant
passed or was caught by another scenario only, 2 usage error or a replacement that did not apply.
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
]


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    runner, only = argv[1], []
    rest = argv[2:]
    while rest:
        if rest[0] == "--only" and len(rest) > 1:
            only.append(rest[1])
            rest = rest[2:]
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
            run = subprocess.run(
                [runner, "run", "--testee", f"python3 {os.path.join(copy, 'testee.py')}", "--only", "scenarios"],
                capture_output=True, text=True)
            caught = sorted(line.split()[1].removeprefix("required.scenario.") for line in run.stdout.splitlines()
                            if line.startswith("FAIL required."))
            if catcher in caught:
                print(f"[{n}/{len(chosen)}] caught: {name} (by {catcher})")
            else:
                failures += 1
                why = f"caught only by {', '.join(caught)}" if caught else "passes every required scenario"
                print(f"[{n}/{len(chosen)}] NOT CAUGHT by {catcher}: {name} ({why})")
    print(f"{len(chosen) - failures} of {len(chosen)} wrong engines caught by their scenario")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
