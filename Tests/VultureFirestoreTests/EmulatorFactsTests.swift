import Dispatch
import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Facts about Firestore's commits found on the emulator that the pinned cases cannot state as
/// documents: times, limits at their exact boundary, the 500-write cap, and REST writes the model
/// refuses to read while the emulator accepts them.
@Suite struct EmulatorFactsTests {
    static func memory() -> InMemoryFirestore {
        let clock = SteppingClock()
        return InMemoryFirestore(clock: { clock.now() })
    }

    /// Both sides: in memory always, the emulator where it is installed.
    static func sides() throws -> [(String, any FirestoreDatabase, String)] {
        var out: [(String, any FirestoreDatabase, String)] = [("in memory", memory(), "facts")]
        if EmulatorSupport.enabled {
            out.append(("emulator", try EmulatorSupport.client(), EmulatorSupport.uniqueCollection("facts")))
        }
        return out
    }

    @Test func serverTimestampsOfOneCommitAreEqualWithMillisecondPrecision() throws {
        for (side, db, c) in try Self.sides() {
            let writes = [
                try FirestoreWrite.set(["t": .serverTimestamp], path: "\(c)/a"),
                try FirestoreWrite.set(["t": .serverTimestamp, "n": .integer(1)], merge: true, path: "\(c)/b"),
            ]
            let result = try db.commit(writes)
            let a = try #require(try db.get("\(c)/a")?.fields["t"], "\(side)")
            let b = try #require(try db.get("\(c)/b")?.fields["t"], "\(side)")
            #expect(a == b, "\(side)")
            guard case .timestamp(let t) = a, let commitTime = result.commitTime else {
                Issue.record("\(side): not a timestamp: \(a)")
                continue
            }
            #expect(t.microseconds % 1000 == 0, "\(side): \(t)")
            #expect(t <= commitTime, "\(side): request time \(t) after the commit time \(commitTime)")
            #expect(result.writeResults.map(\.transformResults) == [[a], [a]], "\(side)")
            #expect(result.writeResults.map(\.updateTime) == [commitTime, commitTime], "\(side)")
        }
    }

    @Test func aWriteThatChangesNothingKeepsTheUpdateTime() throws {
        for (side, db, c) in try Self.sides() {
            let first = try db.commit([try .set(["x": .integer(1)], path: "\(c)/a")])
            let second = try db.commit([
                try .set(["x": .integer(2)], path: "\(c)/a"), try .set(["x": .integer(1)], path: "\(c)/a"),
            ])
            #expect(second.commitTime != first.commitTime, "\(side)")
            #expect(second.writeResults.map(\.updateTime) == [first.commitTime, first.commitTime], "\(side)")
            let doc = try #require(try db.get("\(c)/a"), "\(side)")
            #expect(doc.updateTime == first.commitTime && doc.createTime == first.commitTime, "\(side)")
        }
    }

    /// Commit times increase even where the server clock has not moved (in memory: a clock that
    /// stands still, a microsecond before a whole second): an update time names one version, so a
    /// precondition on it fails once a later commit changed the document.
    @Test func commitTimesIncreaseSoAnUpdateTimeNamesOneVersion() throws {
        let still = try FirestoreTimestamp(seconds: 1_792_504_987, microseconds: 999_999)
        var sides: [(String, any FirestoreDatabase, String)] = [
            ("in memory, the clock standing still", InMemoryFirestore(clock: { still }), "facts")
        ]
        if EmulatorSupport.enabled {
            sides.append(("emulator", try EmulatorSupport.client(), EmulatorSupport.uniqueCollection("facts")))
        }
        for (side, db, c) in sides {
            let first = try #require(try db.commit([try .set(["x": .integer(1)], path: "\(c)/a")]).commitTime)
            let second = try #require(try db.commit([try .set(["x": .integer(2)], path: "\(c)/a")]).commitTime)
            let other = try #require(try db.commit([try .set(["y": .integer(1)], path: "\(c)/b")]).commitTime)
            #expect(first < second && second < other, "\(side): \(first), \(second), \(other)")
            if side != "emulator" {
                let expected = [still, still.adding(microseconds: 1), still.adding(microseconds: 2)]
                #expect([first, second, other] == expected)
            }
            var stale = try FirestoreWrite.set(["x": .integer(3)], path: "\(c)/a")
            stale.precondition = .updateTime(first)
            let refused = #expect(throws: FirestoreError.self, "\(side)") { try db.commit([stale]) }
            #expect(refused?.status == .failedPrecondition, "\(side): \(String(describing: refused))")
            #expect(try db.get("\(c)/a")?.fields == ["x": .integer(2)], "\(side)")
            var current = stale
            current.precondition = .updateTime(second)
            _ = try db.commit([current])
            #expect(try db.get("\(c)/a")?.fields == ["x": .integer(3)], "\(side)")
        }
    }

    @Test func deletedAndWrittenAgainInOneCommitIsCreatedAgain() throws {
        for (side, db, c) in try Self.sides() {
            let first = try db.commit([try .set(["x": .integer(1)], path: "\(c)/a")])
            let second = try db.commit([.delete(path: "\(c)/a"), try .set(["x": .integer(1)], path: "\(c)/a")])
            let doc = try #require(try db.get("\(c)/a"), "\(side)")
            #expect(doc.createTime == second.commitTime && doc.createTime != first.commitTime, "\(side)")
            let gone = try db.commit([try .set(["y": .integer(1)], path: "\(c)/b"), .delete(path: "\(c)/b")])
            #expect(gone.writeResults.map(\.updateTime) == [nil, nil], "\(side)")
            #expect(try db.get("\(c)/b") == nil, "\(side)")
        }
    }

    /// 1 MiB by the storage-size formula, with an empty map or array counted as 1 byte.
    @Test func documentSizeLimitIsExact() throws {
        for (side, db, c) in try Self.sides() {
            let path = "\(c)/big"
            func fields(total: Int) -> [String: FirestoreValue] {
                var f: [String: FirestoreValue] = [
                    "f1": .string(String(repeating: "a", count: 600_000)), "e": .map([:]),
                ]
                let rest =
                    total - FirestoreDocumentLimits.size(path: path, fields: f.merging(["f2": .string("")]) { $1 })
                f["f2"] = .string(String(repeating: "b", count: rest))
                return f
            }
            let fits = fields(total: 1_048_576)
            #expect(FirestoreDocumentLimits.size(path: path, fields: fits) == 1_048_576)
            #expect(StorageSize.document(path: path, fields: fits) == 1_048_575, "the empty map counts 1 byte")
            _ = try db.commit([try .set(fits, path: path)])
            do {
                _ = try db.commit([try .set(fields(total: 1_048_577), path: path)])
                Issue.record("\(side): a document of 1,048,577 bytes was accepted")
            } catch let e as FirestoreError {
                #expect(e.status == .invalidArgument, "\(side): \(e)")
            }
        }
    }

    @Test func stringValueLimitIs1048487Bytes() throws {
        for (side, db, c) in try Self.sides() {
            _ = try db.commit([try .set(["s": .string(String(repeating: "s", count: 1_048_487))], path: "\(c)/s")])
            do {
                _ = try db.commit([try .set(["s": .bytes(Data(count: 1_048_488))], path: "\(c)/s")])
                Issue.record("\(side): bytes of 1,048,488 were accepted")
            } catch let e as FirestoreError {
                #expect(e.status == .invalidArgument, "\(side): \(e)")
            }
        }
    }

    /// Firestore allows 500 writes per commit; the emulator does not check it (pinned), the
    /// in-memory database does.
    @Test func fiveHundredWritesPerCommit() throws {
        let writes = { (c: String, n: Int) in
            try (0..<n).map { try FirestoreWrite.set(["i": .integer(Int64($0))], path: "\(c)/w\($0)") }
        }
        let memory = Self.memory()
        #expect(try memory.commit(writes("m", 500)).writeResults.count == 500)
        let many = try writes("m", 501)
        #expect(throws: FirestoreError(.invalidArgument, "a commit holds at most 500 writes, this one 501")) {
            try memory.commit(many)
        }
        if EmulatorSupport.enabled {
            let emulator = try EmulatorSupport.client()
            let result = try emulator.commit(writes(EmulatorSupport.uniqueCollection("cap"), 501))
            #expect(result.writeResults.count == 501, "the emulator accepts 501 writes")
        }
    }

    /// REST writes the model refuses to read (they cannot be held as one value per field path),
    /// and what the emulator makes of them.
    @Test(.enabled(if: EmulatorSupport.enabled, EmulatorSupport.skipReason))
    func restWritesTheModelRefuses() throws {
        let emulator = try EmulatorSupport.client()
        let c = EmulatorSupport.uniqueCollection("raw")
        let name = "\(emulator.database)/documents/\(c)"
        let cases: [(json: String, rule: InputRule, doc: String, expected: [String: FirestoreValue])] = [
            // A field in the update that the mask does not list: Firestore ignores it.
            (
                #"{"update": {"name": "NAME/a", "fields": {"x": {"integerValue": "1"}, "y": {"integerValue": "2"}}}, "updateMask": {"fieldPaths": ["x"]}}"#,
                .writeMask, "a", ["x": .integer(1)]
            ),
            // A transform on a field the update sets: the increment adds to the value set.
            (
                #"{"update": {"name": "NAME/b", "fields": {"n": {"integerValue": "5"}}}, "updateTransforms": [{"fieldPath": "n", "increment": {"integerValue": "1"}}]}"#,
                .writeTransform, "b", ["n": .integer(6)]
            ),
            // Two transforms on one field apply in order.
            (
                #"{"update": {"name": "NAME/d", "fields": {}}, "updateTransforms": [{"fieldPath": "n", "increment": {"integerValue": "2"}}, {"fieldPath": "n", "increment": {"doubleValue": 0.5}}]}"#,
                .writeTransform, "d", ["n": .double(2.5)]
            ),
        ]
        for (json, rule, doc, expected) in cases {
            let text = json.replacingOccurrences(of: "NAME", with: name)
            #expect {
                try FirestoreRESTJSON.decodeWrite(Array(text.utf8))
            } throws: {
                ($0 as? SchemaInputError)?.rule == rule
            }
            let status = try Self.rawCommit(emulator, body: "{\"writes\": [\(text)]}")
            #expect(status == 200)
            #expect(try emulator.get("\(c)/\(doc)")?.fields == expected, "\(json)")
        }
    }

    final class Box: @unchecked Sendable { var status = 0 }

    /// POSTs a raw CommitRequest body; returns the HTTP status.
    static func rawCommit(_ client: FirestoreRESTClient, body: String) throws -> Int {
        let url = try #require(URL(string: "\(client.baseURL.absoluteString)/v1/\(client.database)/documents:commit"))
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, response, _ in
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        done.wait()
        return box.status
    }
}
