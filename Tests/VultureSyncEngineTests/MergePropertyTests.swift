import Foundation
import Testing
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// SplitMix64: a small deterministic generator, so every run checks the same documents.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<n.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// True with `percent` % probability.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}

/// Random documents of every record collection, drawn from small pools so that equal values,
/// equal clocks, clears, missing maps and tombstones are common.
struct DocumentSource {
    var rng: SplitMix64

    static let hashes = [String(repeating: "a", count: 64), String(repeating: "b", count: 64)]

    mutating func time(_ pool: [Int64]) -> FirestoreValue { ts(rng.pick(pool), Int32(rng.below(2))) }
    mutating func maybeTime(_ pool: [Int64]) -> FirestoreValue { rng.chance(30) ? .null : time(pool) }
    mutating func string(_ pool: [String]) -> FirestoreValue { rng.chance(20) ? .null : .string(rng.pick(pool)) }

    /// One field's new value, by collection and name.
    mutating func value(_ collection: SyncCollection, _ field: String) -> FirestoreValue? {
        switch (collection, field) {
        case (_, "glideRatio"): return rng.chance(40) ? nil : .double(Double(rng.below(3)) + 40)
        case (.flights, "inLogbook"), (.flights, "isFavorite"), (.mapFiles, "isVisible"):
            return .boolean(rng.chance(50))
        case (.flights, "importedAt"), (.flights, "createdAt"), (.tasks, "importedAt"), (.mapFiles, "importedAt"):
            return maybeTime([1, 2, 3])
        case (.flights, "lastOpenedAt"), (.recentCompetitions, "lastOpenedAt"), (.homebases, "usedAt"):
            return maybeTime([5, 6, 7])
        case (.flights, "comments"), (.tasks, "notes"), (.homebases, "name"), (.recentCompetitions, "name"):
            return string(["a", "b", "c"])
        case (.flights, "rating"): return .integer(Int64(rng.below(3)))
        case (.flights, "taskId"): return string(["t1", "t2"])
        case (.flights, "summary"):
            return .map([
                "analysisVersion": .integer(Int64(rng.below(3))), "duration": .integer(Int64(rng.below(3))),
                "takeoffAt": ts(100),
            ])
        case (.flights, "trackPreviewVersion"): return .integer(rng.pick([0, -1, -2, 1, 2]))
        case (.flights, "trackPreview"): return rng.chance(30) ? .null : .bytes(Data([UInt8(rng.below(3))]))
        case (.flights, "igc"):
            if rng.chance(30) { return .null }
            return .map([
                "path": .string(rng.pick(["users/u/igc/1.igc.gz", "users/u/igc/2.igc.gz"])),
                "sizeBytes": .integer(100), "gzBytes": .integer(Int64(20 + rng.below(2))), "sha256": .string("s"),
                "uploaded": .boolean(rng.chance(50)),
            ])
        case (.mapFiles, "contentHash"): return rng.chance(30) ? .string("") : string(Self.hashes)
        case (.mapFiles, "content"):
            if rng.chance(30) { return .null }
            return .map([
                "path": .string("users/u/files/\(rng.pick(Self.hashes)).gz"), "sizeBytes": .integer(9),
                "gzBytes": .integer(Int64(3 + rng.below(2))), "uploaded": .boolean(rng.chance(50)),
            ])
        case (.settings, "values"):
            var values: [String: FirestoreValue] = [:]
            for key in ["sport", "mapStyle", "isPinned"] where rng.chance(70) {
                values[key] = .map([
                    "v": .string(rng.pick(["x", "y", "z"])), "t": .integer(Int64(rng.below(3))),
                    "d": .string(rng.pick(["a", "b"])),
                ])
            }
            return .map(values)
        default: return .null
        }
    }

    static func fields(_ collection: SyncCollection) -> [String] {
        let own: [String]
        switch collection {
        case .flights:
            own = [
                "inLogbook", "isFavorite", "importedAt", "createdAt", "lastOpenedAt", "comments", "rating", "taskId",
                "summary", "trackPreview", "trackPreviewVersion", "igc",
            ]
        case .mapFiles: own = ["isVisible", "importedAt", "contentHash", "content"]
        case .settings: own = ["values"]
        case .homebases: own = ["name", "usedAt"]
        case .tasks: own = ["importedAt", "notes"]
        case .recentCompetitions: own = ["name", "lastOpenedAt"]
        case .users: own = []
        }
        return own + ["glideRatio"]
    }

    mutating func document(_ collection: SyncCollection) -> [String: FirestoreValue] {
        var fields: [String: FirestoreValue] = [:]
        for f in Self.fields(collection) { fields[f] = value(collection, f) }
        return live(10, fields)
    }

    /// An edit of `base`: some fields changed, the clock moved (often to the same instant as the
    /// other side's), sometimes a delete.
    mutating func edit(_ base: [String: FirestoreValue], _ collection: SyncCollection) -> [String: FirestoreValue] {
        if rng.chance(8) { return tombstone(rng.pick([15, 20, 25])) }
        var d = base
        for f in Self.fields(collection) where rng.chance(35) { d[f] = value(collection, f) }
        d["clientUpdatedAt"] = ts(rng.pick([20, 21]), Int32(rng.below(2)))
        return d
    }
}

/// The merge's properties over seeded random documents of every record collection (schema §5.3–§5.5):
/// idempotent, convergent whichever device syncs first, and nothing the rules protect is lost.
@Suite struct MergePropertyTests {
    static let scenarios = 1_200
    static let collections: [SyncCollection] = [
        .flights, .flights, .flights, .mapFiles, .settings, .homebases, .tasks, .recentCompetitions,
    ]

    struct Counter {
        var merges = 0

        mutating func merge(
            _ base: [String: FirestoreValue]?, _ local: [String: FirestoreValue], _ remote: [String: FirestoreValue],
            _ collection: SyncCollection, _ context: MergeContext
        ) -> MergeResult {
            merges += 1
            return DocumentMerge.merge(
                base: base, local: local, remote: remote, collection: collection, context: context)
        }
    }

    /// One device: its row, its sync base and its context.
    struct Device {
        var row: [String: FirestoreValue]
        var base: [String: FirestoreValue]
    }

    /// Pull (merge against the server) then push (the server takes the merged row).
    static func sync(
        _ device: inout Device, server: inout [String: FirestoreValue], _ collection: SyncCollection,
        _ counter: inout Counter
    ) {
        let context = MergeContext(tasksOnDevice: ["t1", "t2"], localCreatedAt: time(0))
        let merged = counter.merge(device.base, device.row, server, collection, context)
        server = merged.document
        device.row = merged.document
        device.base = merged.document
    }

    @Test func idempotentConvergentAndNothingProtectedIsLost() {
        var source = DocumentSource(rng: SplitMix64(state: 0x5EED_2026))
        var counter = Counter()
        for scenario in 0..<Self.scenarios {
            let collection = source.rng.pick(Self.collections)
            let base = source.document(collection)
            let a = source.edit(base, collection)
            let b = source.edit(base, collection)
            let tasks: Set<String> = source.rng.pick([[], ["t1"], ["t1", "t2"]])
            let created = source.rng.pick([nil, time(0), time(22)])
            let context = MergeContext(tasksOnDevice: tasks, localCreatedAt: created)
            let m = counter.merge(base, a, b, collection, context)
            let label = "scenario \(scenario) (\(collection))"

            // Idempotent: the same remote applied again, against the old base or with the remote as base.
            var again = context
            again.deferredTaskId = m.deferredTaskId
            #expect(counter.merge(base, m.document, b, collection, again) == m, "\(label): merge(base, m, remote)")
            #expect(counter.merge(b, m.document, b, collection, again) == m, "\(label): merge(remote, m, remote)")

            // Convergent: both devices end on the server's document, whichever syncs first.
            for firstIsA in [true, false] {
                var server = base
                var deviceA = Device(row: a, base: base)
                var deviceB = Device(row: b, base: base)
                if firstIsA {
                    Self.sync(&deviceA, server: &server, collection, &counter)
                    Self.sync(&deviceB, server: &server, collection, &counter)
                    Self.sync(&deviceA, server: &server, collection, &counter)
                } else {
                    Self.sync(&deviceB, server: &server, collection, &counter)
                    Self.sync(&deviceA, server: &server, collection, &counter)
                    Self.sync(&deviceB, server: &server, collection, &counter)
                }
                #expect(deviceA.row == deviceB.row, "\(label): devices differ, A first: \(firstIsA)")
                #expect(deviceA.row == server, "\(label): device and server differ, A first: \(firstIsA)")
                let settled = server
                Self.sync(&deviceA, server: &server, collection, &counter)
                Self.sync(&deviceB, server: &server, collection, &counter)
                #expect(server == settled, "\(label): a further sync changed the document")
            }

            // Never lost, when neither side deleted.
            guard a["deleted"] != .boolean(true), b["deleted"] != .boolean(true) else { continue }
            Self.checkProtectedValues(collection, a, b, m.document, label)
        }
        #expect(counter.merges >= 10_000, "only \(counter.merges) merges")
    }

    static func checkProtectedValues(
        _ collection: SyncCollection, _ a: [String: FirestoreValue], _ b: [String: FirestoreValue],
        _ m: [String: FirestoreValue], _ label: String
    ) {
        if a["inLogbook"] == .boolean(true) || b["inLogbook"] == .boolean(true) {
            #expect(m["inLogbook"] == .boolean(true), "\(label): an OR-ed true was lost")
        }
        let imported = [a["importedAt"], b["importedAt"]].compactMap { v -> FirestoreTimestamp? in
            if case .timestamp(let t)? = v { return t }
            return nil
        }
        if let earliest = imported.min() {
            #expect(m["importedAt"] == .timestamp(earliest), "\(label): the earliest importedAt was lost")
        }
        func version(_ d: [String: FirestoreValue]) -> Int64 {
            if case .integer(let v)? = d["summary"]?.mapValue?["analysisVersion"] { return v }
            return -1
        }
        if collection == .flights {
            #expect(version(m) == max(version(a), version(b)), "\(label): a higher analysis version was lost")
        }
        for field in ["igc", "content"] {
            let maps = [a[field]?.mapValue, b[field]?.mapValue].compactMap { $0 }
            guard let merged = m[field]?.mapValue else {
                #expect(maps.isEmpty, "\(label): a blob map was dropped")
                continue
            }
            if maps.count == 2, maps[0]["path"] == maps[1]["path"],
                maps.contains(where: { $0["uploaded"] == .boolean(true) })
            {
                #expect(merged["uploaded"] == .boolean(true), "\(label): an OR-ed uploaded was lost")
            }
        }
    }

    @Test func theGeneratorIsSeeded() {
        var x = SplitMix64(state: 1)
        var y = SplitMix64(state: 1)
        let first = (0..<5).map { _ in x.next() }
        #expect(first == (0..<5).map { _ in y.next() })
        #expect(Set(first).count == 5)
        #expect(first[0] == 0x910A_2DEC_8902_5CC1)
    }
}
