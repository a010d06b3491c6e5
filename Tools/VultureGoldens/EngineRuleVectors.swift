import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// `Goldens/vectors/trim.json`: the recents trim, iOS's trimRecents (schema §5.3, §5.5).
enum TrimVectors {
    static func row(_ id: String, _ opened: FirestoreValue, logbook: Bool, origin: String = "server") -> FirestoreValue
    {
        .map(["id": .string(id), "lastOpenedAt": opened, "inLogbook": .boolean(logbook), "origin": .string(origin)])
    }

    /// `count` flights opened a minute apart, newest first (`f-000` the newest); every third in the logbook.
    static func opened(_ count: Int, prefix: String = "f") -> [FirestoreValue] {
        var rows: [FirestoreValue] = []
        for i in 0..<count {
            let id = prefix + "-" + String(String(1000 + i).dropFirst())
            let seconds = -60 * Int64(i)
            rows.append(row(id, at(seconds), logbook: i % 3 == 0))
        }
        return rows
    }

    static var file: VectorFile {
        let cap = Int(SchemaLimits.recentsMax)
        var cases: [VectorDefinition] = []
        func add(
            _ id: String, _ rows: [FirestoreValue], section: String = "schema §5.5", _ note: String,
            error: String? = nil, pins: [SchemaPin] = []
        ) {
            cases.append(
                VectorDefinition(
                    id: "trim.\(id)", section: section, op: "recents.trim",
                    input: .map(["rows": .array(rows)]),
                    note: note, expectedError: error, pins: pins))
        }
        add("at-cap", opened(cap), section: "schema §5.3", "exactly the cap of flights with a date: nothing changes")
        var logbookLast = opened(cap)
        logbookLast.append(row("f-oldest", at(-100_000), logbook: true))
        add(
            "edge-51-logbook", logbookLast.reversed(), section: "schema §5.3",
            "one flight beyond the cap, in the logbook: it loses its lastOpenedAt and stays in the logbook")
        var recentsLast = opened(cap)
        recentsLast.append(row("f-oldest", at(-100_000), logbook: false))
        add(
            "edge-51-recents-only", recentsLast, section: "schema §5.3",
            "one flight beyond the cap, recents-only: it is tombstoned")
        var tie = opened(cap - 1)
        for id in ["tie-c", "tie-a", "tie-b"] { tie.append(row(id, at(-90_000), logbook: id == "tie-c")) }
        add(
            "tie-by-id", tie, section: "schema §5.5 (pinned)",
            "pinned: three flights opened at one instant straddle the cap: the smallest id keeps its date, "
                + "the others are trimmed, so every device trims the same ones (given in another order)",
            pins: [.recentsTieOrder])
        add(
            "stranded", [row("s-1", .null, logbook: false), row("s-2", at(-10), logbook: false)],
            "a recents-only flight that arrived by sync without a date is tombstoned")
        add(
            "stranded-local-left-alone",
            [
                row("download", .null, logbook: false, origin: "local"),
                row("pulled", .null, logbook: false, origin: "server"),
                row("logbook", .null, logbook: true, origin: "server"),
            ],
            "only rows that came from the server are swept: a service download never selected is left alone; "
                + "a logbook flight without a date is not stranded")
        var local = opened(cap)
        local.append(row("l-new", at(600), logbook: false, origin: "local"))
        add(
            "cap-counts-local-rows", local, section: "schema §5.5 (pinned)",
            "pinned: a local flight with a date counts toward the cap like any other", pins: [.recentsCapEveryOrigin])
        add(
            "repeated-id", [row("a", at(0), logbook: true), row("a", at(1), logbook: false)],
            "one row per flight: an id given twice is refused", error: "input.shape")
        return VectorFile(area: "trim", summary: "the recents trim after a pull (iOS trimRecents)", cases: cases)
    }
}

/// `Goldens/vectors/tombstones.json`: the purge after the retention and what a delete releases (schema §5.4).
enum TombstoneVectors {
    static func candidate(_ name: String, _ deletedAt: FirestoreValue) -> FirestoreValue {
        .map(["name": .string(name), "deletedAt": deletedAt])
    }

    static var file: VectorFile {
        var cases: [VectorDefinition] = []
        let day: Int64 = 86_400
        let retention = SchemaConstants.tombstoneRetentionDays * day
        let now = at(0, 500_000)
        func purge(_ id: String, _ tombstones: [FirestoreValue], section: String = "schema §5.4", _ note: String) {
            cases.append(
                VectorDefinition(
                    id: "tombstones.purge.\(id)", section: section, op: "tombstones.purge",
                    input: .map(["now": now, "tombstones": .array(tombstones)]), note: note))
        }
        purge(
            "older-purged",
            [
                candidate("users/u1/flights/old", at(-retention - day)),
                candidate("users/u1/tasks/recent", at(-day)),
            ], "a tombstone deleted more than the retention ago is purged; a recent one is kept")
        purge(
            "boundary-kept",
            [
                candidate("users/u1/homebases/at-cutoff", at(-retention, 500_000)),
                candidate("users/u1/homebases/just-older", at(-retention, 499_999)),
            ],
            "strictly before now minus the retention: the one exactly at the cutoff is kept, a microsecond older goes")
        let size = Int(SchemaLimits.engineBatchMaxWrites)
        let many = (0...size).map { i in
            candidate("users/u1/flights/t" + String(String(10_000 + i).dropFirst()), at(-retention - Int64(i) - 1))
        }
        purge(
            "batches", many.reversed(),
            "one more than a batch of old tombstones: two batches, the oldest first, at most the batch size each")
        purge(
            "same-instant-by-name",
            [
                candidate("users/u1/tasks/b", at(-retention - day)),
                candidate("users/u1/tasks/a", at(-retention - day)),
                candidate("users/u1/tasks/c", .null),
            ], "tombstones deleted at one instant go in name order; one without deletedAt is never purged")

        func delete(
            _ id: String, _ collection: String, _ document: [String: FirestoreValue],
            others: [[String: FirestoreValue]] = [],
            section: String = "schema §5.4", _ note: String, pins: [SchemaPin] = []
        ) {
            cases.append(
                VectorDefinition(
                    id: "tombstones.delete.\(id)", section: section, op: "tombstones.delete",
                    input: .map([
                        "collection": .string(collection), "document": .map(document),
                        "otherLiveDocuments": .array(others.map { .map($0) }),
                        "context": .map([
                            "deviceId": .string("ios-2"), "platform": .string("ios"), "clientUpdatedAt": at(120),
                        ]),
                    ]), note: note, pins: pins))
        }
        let hashA = String(repeating: "a", count: 64)
        let hashB = String(repeating: "b", count: 64)
        func mapFile(_ hash: String?) -> [String: FirestoreValue] {
            stored(
                30,
                [
                    "contentHash": hash.map { .string($0) } ?? .null,
                    "content": hash.map { MergeVectors.content($0, gz: 9_120, uploaded: true) } ?? .null,
                ])
        }
        delete(
            "flight", "flights", stored(30, ["igc": MergeVectors.igc(gz: 48_213, uploaded: true)]),
            "a flight's tombstone deletes its IGC object and lowers storageBytes by its gzBytes in the same batch")
        delete(
            "flight-not-uploaded", "flights", stored(30, ["igc": MergeVectors.igc(gz: 48_213, uploaded: false)]),
            section: "schema §5.4 (pinned)", "pinned: a reserved object not yet uploaded is still counted and deleted",
            pins: [.tombstoneStorageBytes])
        delete(
            "shared-content-stays", "mapFiles", mapFile(hashA), others: [mapFile(hashA), mapFile(hashB)],
            "another live map file has the same contentHash: the object stays, storageBytes is unchanged")
        delete(
            "unshared-content-deleted", "mapFiles", mapFile(hashA), others: [mapFile(hashB), mapFile(nil)],
            "no live map file shares the hash: the content object is deleted")
        var dead = storedTombstone(10)
        dead["contentHash"] = .string(hashA)
        delete(
            "shared-only-by-a-tombstone", "mapFiles", mapFile(hashA), others: [dead],
            "a tombstone does not keep an object alive")
        delete(
            "no-blob", "homebases", stored(30, ["name": .string("Aalen")]), "a home base has no Storage object")
        return VectorFile(
            area: "tombstones", summary: "tombstones: the purge after the retention, the objects a delete releases",
            cases: cases)
    }
}

/// `Goldens/vectors/duplicates.json`: the R4 duplicate pass after iOS's first full pull (schema §4).
enum DuplicateVectors {
    static func flight(
        _ id: String, filename: String? = "2016-11-08-XCS-AAA-02.igc", takeoff: Int64? = -7_200,
        pilot: String? = "Jérôme Durand", importedAt: Int64?, clock: Int64 = 30,
        _ fields: [String: FirestoreValue] = [:]
    ) -> FirestoreValue {
        var f = stored(
            clock,
            [
                "filename": filename.map { .string($0) } ?? .null, "pilotName": pilot.map { .string($0) } ?? .null,
                "importedAt": importedAt.map { at($0) } ?? .null, "inLogbook": .boolean(true),
                "summary": .map(["analysisVersion": .integer(2), "takeoffAt": takeoff.map { at($0) } ?? .null]),
                "igc": MergeVectors.igc(id, uploaded: true),
            ])
        f.merge(fields) { _, new in new }
        return .map(["id": .string(id), "document": .map(f)])
    }

    static var file: VectorFile {
        var cases: [VectorDefinition] = []
        let android = DocumentIds.flightId(igcBytes: Data("HFPLTPILOT:J\u{E9}r\u{F4}me Durand\r\n".utf8))
        let ios = DocumentIds.flightId(igcBytes: Data("HFPLTPILOT:J\u{C3}\u{A9}r\u{C3}\u{B4}me Durand\r\n".utf8))
        let third = DocumentIds.flightId(igcBytes: Data("HFPLTPILOT:third copy\r\n".utf8))
        func add(
            _ id: String, _ flights: [FirestoreValue], tasks: [String]? = nil, section: String = "schema §4",
            _ note: String, pins: [SchemaPin] = []
        ) {
            var input: [String: FirestoreValue] = ["flights": .array(flights)]
            if let tasks { input["tasksOnDevice"] = .array(tasks.map { .string($0) }) }
            cases.append(
                VectorDefinition(
                    id: "duplicates.\(id)", section: section, op: "duplicates.r4", input: .map(input),
                    note: note, pins: pins))
        }
        add(
            "keep-earliest-import",
            [flight(ios, importedAt: 900), flight(android, importedAt: -86_400)],
            "the same filename, takeoff and pilot under two ids: the earliest importedAt (Android's) is kept, "
                + "the other tombstoned")
        add(
            "user-fields-merged",
            [
                flight(
                    android, importedAt: -86_400, clock: 30,
                    ["isFavorite": .boolean(false), "comments": .null, "lastOpenedAt": at(-600)]),
                flight(
                    ios, importedAt: 900, clock: 40,
                    [
                        "isFavorite": .boolean(true), "comments": .string("Best flight of the year"),
                        "lastOpenedAt": at(-60),
                    ]),
            ], section: "schema §4 (pinned)",
            "pinned: the other's fields merge into the kept one by the merge rules (the kept one as the server); "
                + "the kept flight keeps its own IGC object", pins: [.duplicatesMergeSides])
        add(
            "tie-smaller-id", [flight(ios, importedAt: 0), flight(android, importedAt: 0)],
            section: "schema §4 (pinned)", "pinned: equal importedAt: the smaller id is kept",
            pins: [.duplicatesKeepOrder])
        add(
            "missing-import-last", [flight(android, importedAt: nil), flight(ios, importedAt: 900)],
            section: "schema §4 (pinned)", "pinned: a flight without importedAt ranks after one with it",
            pins: [.duplicatesKeepOrder])
        add(
            "null-pilots-match", [flight(android, pilot: nil, importedAt: 0), flight(ios, pilot: nil, importedAt: 5)],
            section: "schema §4 (pinned)", "pinned: two flights without a pilot name are the same pilot",
            pins: [.duplicatesNullPilot])
        add(
            "different-takeoff", [flight(android, importedAt: 0), flight(ios, takeoff: -7_199, importedAt: 5)],
            "takeoffs a second apart: different flights, nothing changes")
        add(
            "no-filename", [flight(android, filename: nil, importedAt: 0), flight(ios, filename: nil, importedAt: 5)],
            "without a filename there is no match")
        add(
            "three-members",
            [flight(third, importedAt: 10), flight(ios, importedAt: 20), flight(android, importedAt: 5)],
            "three copies: one kept, two tombstoned in keep order")
        add(
            "tombstones-skipped",
            [flight(android, importedAt: 0), .map(["id": .string(ios), "document": .map(storedTombstone(10))])],
            "a tombstone is no duplicate")
        let task = DocumentIds.taskId(externalUrl: "soaringspot/competitions/9/task/open/1")
        add(
            "merged-task-deferred",
            [flight(android, importedAt: 0), flight(ios, importedAt: 5, clock: 50, ["taskId": .string(task)])],
            tasks: [], section: "schema §4 (pinned)",
            "pinned: the merged taskId (the later copy's, merged as local) names a task not on the device: "
                + "stored as null and remembered", pins: [.duplicatesMergeSides])
        return VectorFile(
            area: "duplicates", summary: "the R4 duplicate pass over the live flights after iOS's first full pull",
            cases: cases)
    }
}
