import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore

/// `SDKSurfaceFirestore`, the test adapter that offers only the Firebase client SDKs' surface, and
/// `WriteBatch.add(_:)`, which admits only the writes an SDK call makes.
@Suite struct SDKSurfaceFirestoreTests {
    static func memory() throws -> InMemoryFirestore {
        let start = try FirestoreTimestamp(seconds: 1_792_000_000)
        return InMemoryFirestore(clock: { start })
    }

    /// A database whose clock moves a second at every commit time it gives, as Firestore's update
    /// times differ from one version of a document to the next.
    static func ticking() throws -> InMemoryFirestore {
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_000_000))
        return InMemoryFirestore(clock: {
            clock.advance(seconds: 1)
            return clock.now
        })
    }

    @Test func aBatchAdmitsOnlyWritesAnSDKCallMakes() throws {
        var batch = WriteBatch()
        try batch.add(try FirestoreWrite(path: "c/a", fields: ["x": .integer(1)]))
        try batch.add(
            try FirestoreWrite(
                path: "c/b", fields: ["x": .serverTimestamp], mask: [FieldPath(["x"]), FieldPath(["y"])]))
        try batch.add(try .update([FieldPath(["x"]): .integer(2)], path: "c/c"))
        try batch.add(.delete(path: "c/d"))
        #expect(batch.writes.map(\.path) == ["c/a", "c/b", "c/c", "c/d"])

        let time = try FirestoreTimestamp(seconds: 1)
        for refused in [
            try FirestoreWrite(path: "c/e", fields: [:], precondition: .exists(false)),
            try FirestoreWrite(path: "c/e", fields: [:], mask: [FieldPath(["x"])], precondition: .updateTime(time)),
            try FirestoreWrite(path: "c/e", fields: [:], precondition: .exists(true)),
            .delete(path: "c/e", precondition: .exists(true)),
            try FirestoreWrite(fields: ["x": .integer(1)]),
        ] {
            #expect(throws: FirestoreError.self) { try batch.add(refused) }
        }
        #expect(batch.writes.count == 4)
    }

    @Test func aTransactionCommitsUnderWhatItRead() throws {
        let memory = try Self.memory()
        let recorder = RecordingFirestore(memory)
        let client = SDKSurfaceFirestore(recorder)
        var seed = WriteBatch()
        try seed.setData(["n": .integer(1)], forDocument: "c/old")
        try client.commit(seed)
        let read = try client.runTransaction { t throws(FirestoreError) in
            let old = try t.getDocument("c/old")
            let new = try t.getDocument("c/new")
            try t.setData(["n": .integer(2)], forDocument: "c/old")
            try t.setData(["n": .integer(1)], forDocument: "c/new")
            return [old.exists, new.exists]
        }
        #expect(read == [true, false])
        let commit = try #require(recorder.requests.last)
        #expect(commit.kind == .commit)
        let stored = try #require(try memory.get("c/old"))
        #expect(commit.writes.map(\.precondition) == [.updateTime(stored.createTime), .exists(false)])
        #expect(try memory.get("c/new")?.fields == ["n": .integer(1)])
        #expect(client.transactionRetries == 0)
    }

    @Test func aWriteBetweenTheReadAndTheCommitRunsTheBodyAgain() throws {
        let memory = try Self.ticking()
        let client = SDKSurfaceFirestore(memory)
        var seed = WriteBatch()
        try seed.setData(["n": .integer(1)], forDocument: "c/doc")
        try client.commit(seed)
        var runs = 0
        try client.runTransaction { t throws(FirestoreError) in
            runs += 1
            guard case .integer(let n)? = try t.getDocument("c/doc").data?["n"] else { return }
            if runs == 1 {
                // Another writer gets in between this read and the commit.
                _ = try memory.commit([try! FirestoreWrite(path: "c/doc", fields: ["n": .integer(10)])])
            }
            try t.setData(["n": .integer(n + 1)], forDocument: "c/doc")
        }
        #expect(runs == 2)
        #expect(client.transactionRetries == 1)
        #expect(try memory.get("c/doc")?.fields == ["n": .integer(11)])
    }

    @Test func aReadOnlyDocumentThatChangedAbortsAfterEveryAttempt() throws {
        let memory = try Self.ticking()
        let client = SDKSurfaceFirestore(memory)
        var runs = 0
        #expect(throws: FirestoreError(.aborted, "the transaction met a conflict 3 times")) {
            try client.runTransaction(maxAttempts: 3) { t throws(FirestoreError) in
                runs += 1
                _ = try t.getDocument("c/watched")
                _ = try memory.commit([try! FirestoreWrite(path: "c/watched", fields: ["run": .integer(Int64(runs))])])
                try t.setData(["x": .integer(1)], forDocument: "c/other")
            }
        }
        #expect(runs == 3)
        #expect(try memory.get("c/other") == nil)
    }

    @Test func anUpdateOfAMissingDocumentIsNotFound() throws {
        let client = SDKSurfaceFirestore(try Self.memory())
        var batch = WriteBatch()
        try batch.setData(["x": .integer(1)], forDocument: "c/a")
        try batch.updateData([try FieldPath(["x"]): .integer(2)], forDocument: "c/missing")
        do {
            try client.commit(batch)
            Issue.record("a batch updating a missing document committed")
        } catch {
            #expect(error.status == .notFound)
        }
        #expect(try client.getDocument("c/a").exists == false)
    }
}
