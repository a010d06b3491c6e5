import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// Behaviours of Firestore's writes found by probing the emulator, pinned: each case runs the same
/// commits in memory (always) and against the emulator (where it is installed), and both must give
/// the stated result — a refusal with its status, or the documents afterwards.
///
/// Writes are canonical typed JSON (README, "Writes") with `C/` standing for a collection of the
/// run's own; `SETUP_TIME` is the commit time of the last setup commit, `UPDATE_TIME` the update
/// time of `C/a` before the commit under test, `LATER_TIME` one second after it; the fields
/// `RESERVED` and `DEEP` stand for what canonical JSON cannot hold (see ``unreserving(_:)``).
struct PinnedCase: Sendable, CustomTestStringConvertible {
    /// What the case pins.
    var name: String
    /// Commits made first; each must succeed.
    var setup: [String]
    /// The commit under test: a JSON array of writes.
    var commit: String
    /// `refused` with a status, or the documents of `C/` afterwards by id (null = missing).
    var expected: Expected

    enum Expected: Sendable {
        case refused(FirestoreStatus)
        case documents(String)
    }

    var testDescription: String { name }

    static let cases: [PinnedCase] = [
        // Increments (the emulator saturates at the int64 limits, adds in doubles when either side is one).
        PinnedCase(
            name: "increment past int64 max stays at max",
            setup: [#"[{"path": "C/a", "fields": {"n": 9223372036854775807}}]"#],
            commit: #"[{"path": "C/a", "fields": {"n": {"$increment": 1}}, "mask": ["n"]}]"#,
            expected: .documents(#"{"a": {"n": 9223372036854775807}}"#)),
        PinnedCase(
            name: "increment past int64 min stays at min",
            setup: [#"[{"path": "C/a", "fields": {"n": -9223372036854775808}}]"#],
            commit: #"[{"path": "C/a", "fields": {"n": {"$increment": -5}}, "mask": ["n"]}]"#,
            expected: .documents(#"{"a": {"n": -9223372036854775808}}"#)),
        PinnedCase(
            name: "integer + double increment is a double",
            setup: [#"[{"path": "C/a", "fields": {"n": 2, "d": 0.5}}]"#],
            commit:
                #"[{"path": "C/a", "fields": {"n": {"$increment": 0.25}, "d": {"$increment": 2}}, "mask": ["d", "n"]}]"#,
            expected: .documents(#"{"a": {"n": 2.25, "d": 2.5}}"#)),
        PinnedCase(
            name: "increment of a missing or non-numeric field sets the operand",
            setup: [#"[{"path": "C/a", "fields": {"s": "x", "m": {"k": 1}, "z": null}}]"#],
            commit:
                #"[{"path": "C/a", "fields": {"s": {"$increment": 3}, "m": {"$increment": 1.5}, "z": {"$increment": 2}, "new": {"$increment": -1}}, "mask": ["m", "new", "s", "z"]}]"#,
            expected: .documents(#"{"a": {"s": 3, "m": 1.5, "z": 2, "new": -1}}"#)),
        PinnedCase(
            name: "-0.0 is stored as 0.0, also from an increment", setup: [],
            commit:
                #"[{"path": "C/a", "fields": {"z": {"$double": "-0"}, "m": {"k": [{"$double": "-0"}]}, "i": {"$increment": -0.0}}}]"#,
            expected: .documents(#"{"a": {"z": 0.0, "m": {"k": [0.0]}, "i": 0.0}}"#)),
        // Preconditions.
        PinnedCase(
            name: "exists: true on a missing document is NOT_FOUND", setup: [],
            commit: #"[{"path": "C/a", "fields": {"x": 1}, "mask": ["x"], "precondition": {"exists": true}}]"#,
            expected: .refused(.notFound)),
        PinnedCase(
            name: "exists: false on an existing document is ALREADY_EXISTS",
            setup: [#"[{"path": "C/a", "fields": {}}]"#],
            commit: #"[{"path": "C/a", "fields": {"x": 1}, "precondition": {"exists": false}}]"#,
            expected: .refused(.alreadyExists)),
        PinnedCase(
            name: "updateTime equal to the document's applies", setup: [#"[{"path": "C/a", "fields": {"x": 1}}]"#],
            commit:
                #"[{"path": "C/a", "fields": {"y": 2}, "mask": ["y"], "precondition": {"updateTime": {"$timestamp": "UPDATE_TIME"}}}]"#,
            expected: .documents(#"{"a": {"x": 1, "y": 2}}"#)),
        PinnedCase(
            name: "updateTime earlier than the document's is FAILED_PRECONDITION",
            setup: [#"[{"path": "C/a", "fields": {"x": 1}}]"#],
            commit:
                #"[{"path": "C/a", "delete": true, "precondition": {"updateTime": {"$timestamp": "2020-01-01T00:00:00Z"}}}]"#,
            expected: .refused(.failedPrecondition)),
        PinnedCase(
            name: "updateTime later than the document's is INVALID_ARGUMENT",
            setup: [#"[{"path": "C/a", "fields": {"x": 1}}]"#],
            commit: #"[{"path": "C/a", "fields": {}, "precondition": {"updateTime": {"$timestamp": "LATER_TIME"}}}]"#,
            expected: .refused(.invalidArgument)),
        PinnedCase(
            name: "updateTime before the epoch is INVALID_ARGUMENT", setup: [],
            commit:
                #"[{"path": "C/a", "fields": {}, "precondition": {"updateTime": {"$timestamp": "1969-12-31T23:59:59Z"}}}]"#,
            expected: .refused(.invalidArgument)),
        PinnedCase(
            name: "updateTime at the epoch on a never-written document applies (version 0)", setup: [],
            commit:
                #"[{"path": "C/a", "fields": {"x": 1}, "precondition": {"updateTime": {"$timestamp": "1970-01-01T00:00:00Z"}}}]"#,
            expected: .documents(#"{"a": {"x": 1}}"#)),
        PinnedCase(
            name: "updateTime of a deleted document's deletion is NOT_FOUND",
            setup: [#"[{"path": "C/a", "fields": {}}]"#, #"[{"path": "C/a", "delete": true}]"#],
            commit:
                #"[{"path": "C/a", "fields": {"x": 1}, "precondition": {"updateTime": {"$timestamp": "SETUP_TIME"}}}]"#,
            expected: .refused(.notFound)),
        PinnedCase(
            name: "updateTime at the epoch on a deleted document is FAILED_PRECONDITION",
            setup: [#"[{"path": "C/a", "fields": {}}]"#, #"[{"path": "C/a", "delete": true}]"#],
            commit:
                #"[{"path": "C/a", "fields": {"x": 1}, "precondition": {"updateTime": {"$timestamp": "1970-01-01T00:00:00Z"}}}]"#,
            expected: .refused(.failedPrecondition)),
        // The same document twice in one commit.
        PinnedCase(
            name: "set then update (exists: true) of a new document applies both", setup: [],
            commit:
                #"[{"path": "C/a", "fields": {"x": 1}}, {"path": "C/a", "fields": {"y": 2}, "mask": ["y"], "precondition": {"exists": true}}]"#,
            expected: .documents(#"{"a": {"x": 1, "y": 2}}"#)),
        PinnedCase(
            name: "set then create (exists: false) is INVALID_ARGUMENT", setup: [],
            commit:
                #"[{"path": "C/a", "fields": {"x": 1}}, {"path": "C/a", "fields": {"y": 2}, "precondition": {"exists": false}}]"#,
            expected: .refused(.invalidArgument)),
        PinnedCase(
            name: "delete then create (exists: false) of an existing document applies",
            setup: [#"[{"path": "C/a", "fields": {"x": 1}}]"#],
            commit:
                #"[{"path": "C/a", "delete": true}, {"path": "C/a", "fields": {"y": 2}, "precondition": {"exists": false}}]"#,
            expected: .documents(#"{"a": {"y": 2}}"#)),
        PinnedCase(
            name: "delete then update (exists: true) is INVALID_ARGUMENT",
            setup: [#"[{"path": "C/a", "fields": {"x": 1}}]"#],
            commit:
                #"[{"path": "C/a", "delete": true}, {"path": "C/a", "fields": {"y": 2}, "mask": ["y"], "precondition": {"exists": true}}]"#,
            expected: .refused(.invalidArgument)),
        PinnedCase(
            name: "set then a write with an updateTime precondition is INVALID_ARGUMENT",
            setup: [#"[{"path": "C/a", "fields": {"x": 1}}]"#],
            commit:
                #"[{"path": "C/a", "fields": {"x": 2}}, {"path": "C/a", "fields": {"y": 2}, "mask": ["y"], "precondition": {"updateTime": {"$timestamp": "UPDATE_TIME"}}}]"#,
            expected: .refused(.invalidArgument)),
        PinnedCase(
            name: "a precondition refused in a later write undoes the whole commit",
            setup: [#"[{"path": "C/a", "fields": {"x": 1}}]"#],
            commit:
                #"[{"path": "C/a", "fields": {"x": 2}}, {"path": "C/b", "fields": {"y": 2}, "mask": ["y"], "precondition": {"exists": true}}]"#,
            expected: .refused(.notFound)),
        // Masks.
        PinnedCase(
            name: "a leaf merge keeps the map's other keys",
            setup: [#"[{"path": "C/a", "fields": {"summary": {"a": 1, "b": 2}}}]"#],
            commit: #"[{"path": "C/a", "fields": {"summary": {"a": 5}}, "mask": ["summary.a"]}]"#,
            expected: .documents(#"{"a": {"summary": {"a": 5, "b": 2}}}"#)),
        PinnedCase(
            name: "a mask path replaces its map whole",
            setup: [#"[{"path": "C/a", "fields": {"summary": {"a": 1, "b": 2}}}]"#],
            commit: #"[{"path": "C/a", "fields": {"summary": {"a": 5}}, "mask": ["summary"]}]"#,
            expected: .documents(#"{"a": {"summary": {"a": 5}}}"#)),
        PinnedCase(
            name: "an empty map at a mask path wipes the stored map",
            setup: [#"[{"path": "C/a", "fields": {"values": {"a": 1}}}]"#],
            commit: #"[{"path": "C/a", "fields": {"values": {}}, "mask": ["values"]}]"#,
            expected: .documents(#"{"a": {"values": {}}}"#)),
        PinnedCase(
            name: "a mask path without a value deletes; its emptied map stays",
            setup: [#"[{"path": "C/a", "fields": {"m": {"k": 1}}}]"#],
            commit: #"[{"path": "C/a", "fields": {}, "mask": ["m.k", "nothing.here"]}]"#,
            expected: .documents(#"{"a": {"m": {}}}"#)),
        PinnedCase(
            name: "a mask path through a non-map replaces it with a map",
            setup: [#"[{"path": "C/a", "fields": {"m": 5, "l": [1, 2]}}]"#],
            commit: #"[{"path": "C/a", "fields": {"m": {"k": 1}, "l": [3]}, "mask": ["l", "m.k"]}]"#,
            expected: .documents(#"{"a": {"m": {"k": 1}, "l": [3]}}"#)),
        PinnedCase(
            name: "a transform beneath a mask path applies after the value",
            setup: [#"[{"path": "C/a", "fields": {"m": {"old": 1}}}]"#],
            commit: #"[{"path": "C/a", "fields": {"m": {"k": 1, "n": {"$increment": 2}}}, "mask": ["m"]}]"#,
            expected: .documents(#"{"a": {"m": {"k": 1, "n": 2}}}"#)),
        PinnedCase(
            name: "field names that need backticks", setup: [],
            commit:
                #"[{"path": "C/a", "fields": {"x y": {"a.b": 1, "back`tick": 2}}, "mask": ["`x y`.`a.b`", "`x y`.`back\\`tick`"]}]"#,
            expected: .documents(#"{"a": {"x y": {"a.b": 1, "back`tick": 2}}}"#)),
        // Limits.
        PinnedCase(
            name: "a reserved field name is refused even when a later write deletes the document", setup: [],
            commit: #"[{"path": "C/a", "fields": {"RESERVED": 1}}, {"path": "C/a", "delete": true}]"#,
            expected: .refused(.invalidArgument)),
        PinnedCase(
            name: "an empty field name a later write replaces is not checked", setup: [],
            commit: #"[{"path": "C/a", "fields": {"": 1}}, {"path": "C/a", "fields": {"b": 1}}]"#,
            expected: .documents(#"{"a": {"b": 1}}"#)),
        PinnedCase(
            name: "an empty field name is refused", setup: [], commit: #"[{"path": "C/a", "fields": {"": 1}}]"#,
            expected: .refused(.invalidArgument)),
        PinnedCase(
            name: "maps nested 20 deep with a scalar at 21 are accepted", setup: [],
            commit: "[{\"path\": \"C/a\", \"fields\": \(nested(20, "1"))}]",
            expected: .documents("{\"a\": \(nested(20, "1"))}")),
        PinnedCase(
            name: "a map at depth 21 is refused, even empty", setup: [],
            commit: #"[{"path": "C/a", "fields": {"DEEP": {}}}]"#, expected: .refused(.invalidArgument)),
    ]

    /// The write with what canonical JSON refuses to read put in: its field `RESERVED` renamed
    /// `__x__`, its field `DEEP` replaced by 21 nested maps (the innermost at depth 21).
    static func unreserving(_ w: FirestoreWrite) throws -> FirestoreWrite {
        guard var fields = w.fields else { return w }
        if let v = fields.removeValue(forKey: "RESERVED") { fields["__x__"] = v }
        if fields.removeValue(forKey: "DEEP") != nil {
            var deep = FirestoreValue.map([:])
            for _ in 0..<20 { deep = .map(["d": deep]) }
            fields["d"] = deep
        }
        return try FirestoreWrite(path: w.path, fields: fields, mask: w.mask, precondition: w.precondition)
    }

    /// `{"d": {"d": … inner}}` with `maps` maps (the outermost is the document's fields).
    static func nested(_ maps: Int, _ inner: String) -> String {
        var s = inner
        for _ in 0..<maps { s = "{\"d\": \(s)}" }
        return s
    }

    /// Runs the case on `db` in `collection`; returns a failure description or nil.
    func run(on db: any FirestoreDatabase, collection: String) throws -> String? {
        func writes(_ text: String, replacing: [String: String] = [:]) throws -> [FirestoreWrite] {
            var t = text.replacingOccurrences(of: "\"C/", with: "\"\(collection)/")
            for (k, v) in replacing { t = t.replacingOccurrences(of: k, with: v) }
            let node = try StrictJSONReader.parse(Array(t.utf8))
            guard case .array(let elements) = node.kind else { return [] }
            return try elements.map { try Self.unreserving(CanonicalJSON.decodeWrite(node: $0)) }
        }
        var setupTime = FirestoreTimestamp.minimum
        for s in setup { setupTime = try db.commit(try writes(s)).commitTime ?? setupTime }
        var replacing = ["SETUP_TIME": setupTime.rfc3339]
        if let a = try db.get(collection + "/a") {
            replacing["UPDATE_TIME"] = a.updateTime.rfc3339
            replacing["LATER_TIME"] =
                (try? FirestoreTimestamp(seconds: a.updateTime.seconds + 1, microseconds: a.updateTime.microseconds))?
                .rfc3339
        }
        let result: Result<FirestoreCommitResult, FirestoreError>
        do { result = .success(try db.commit(try writes(commit, replacing: replacing))) } catch let e as FirestoreError
        {
            result = .failure(e)
        }
        switch (expected, result) {
        case (.refused(let status), .failure(let e)):
            return e.status == status ? nil : "refused with \(e), expected \(status.rawValue)"
        case (.refused(let status), .success(let r)):
            return "applied (\(r)), expected a refusal with \(status.rawValue)"
        case (.documents, .failure(let e)):
            return "refused with \(e), expected it to apply"
        case (.documents(let text), .success):
            guard case .map(let expectedDocs) = try CanonicalJSON.decode(Array(text.utf8)) else {
                return "bad expectation"
            }
            for (id, value) in expectedDocs.sorted(by: { $0.key < $1.key }) {
                let actual = try db.get(collection + "/" + id)?.fields
                let wanted = value == .null ? nil : value.mapValue
                if actual != wanted {
                    return "\(id): expected \(wanted.map { CanonicalJSON.string(.map($0)) } ?? "no document"), "
                        + "found \(actual.map { CanonicalJSON.string(.map($0)) } ?? "no document")"
                }
            }
            return nil
        }
    }
}

/// A server clock for tests: starts at 2026-10-20T14:03:07Z and moves 1.5 ms per commit.
final class SteppingClock: @unchecked Sendable {
    private let lock = NSLock()
    private var micros: Int64 = 1_792_504_987_000_000

    func now() -> FirestoreTimestamp {
        lock.lock()
        defer { lock.unlock() }
        micros += 1500
        return (try? FirestoreTimestamp(seconds: micros / 1_000_000, microseconds: Int32(micros % 1_000_000)))
            ?? .minimum
    }
}

@Suite struct PinnedBehaviourTests {
    @Test("pinned Firestore behaviour, in memory", arguments: PinnedCase.cases)
    func inMemory(_ c: PinnedCase) throws {
        let clock = SteppingClock()
        let db = InMemoryFirestore(clock: { clock.now() })
        let failure = try c.run(on: db, collection: "pinned")
        #expect(failure == nil, "\(c.name): \(failure ?? "")")
    }

    @Test(
        "pinned Firestore behaviour, on the emulator",
        .enabled(if: EmulatorSupport.enabled, EmulatorSupport.skipReason),
        arguments: PinnedCase.cases)
    func onEmulator(_ c: PinnedCase) throws {
        let db = try EmulatorSupport.client()
        let failure = try c.run(on: db, collection: EmulatorSupport.uniqueCollection("pinned"))
        #expect(failure == nil, "\(c.name): \(failure ?? "")")
    }
}
