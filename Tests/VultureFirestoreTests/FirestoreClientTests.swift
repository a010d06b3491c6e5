import Dispatch
import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureSchemaCore

/// `FirestoreClient`, the Firebase client SDKs' surface: snapshots, batched writes and
/// transactions, in memory and (where it is installed) against the Firestore emulator.
@Suite struct FirestoreClientTests {
    static func memory() throws -> InMemoryFirestore {
        let start = try FirestoreTimestamp(seconds: 1_792_000_000)
        return InMemoryFirestore(clock: { start })
    }

    /// Increments `path`'s `n` in `count` transactions on each of two threads at once.
    static func incrementConcurrently(_ client: any FirestoreClient, path: String, count: Int, threads: Int = 2) throws
    {
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<count {
                do {
                    try client.runTransaction(maxAttempts: 50) { t throws(FirestoreError) in
                        let snapshot = try t.getDocument(path)
                        guard case .integer(let n)? = snapshot.data?["n"] ?? .integer(0) else { return }
                        try t.setData(["n": .integer(n + 1)], forDocument: path)
                    }
                } catch {
                    failures.add("\(error)")
                }
            }
        }
        #expect(failures.items.isEmpty)
    }

    @Test func aBatchAppliesEverySDKWriteTogether() throws {
        let db = try Self.memory()
        var seed = WriteBatch()
        try seed.setData(["a": .integer(1), "m": .map(["x": .integer(1), "y": .integer(2)])], forDocument: "c/one")
        try seed.setData(["gone": .boolean(true)], forDocument: "c/two")
        try db.commit(seed)
        var batch = WriteBatch()
        try batch.setData(["m": .map(["x": .integer(9)])], forDocument: "c/one", merge: true)
        try batch.setData(
            ["b": .integer(2), "c": .integer(3)], forDocument: "c/one", mergeFields: [try FieldPath(["b"])])
        try batch.updateData([try FieldPath(["a"]): .integer(10)], forDocument: "c/one")
        batch.deleteDocument("c/two")
        try db.commit(batch)
        let one = try db.getDocument("c/one")
        #expect(one.data == ["a": .integer(10), "b": .integer(2), "m": .map(["x": .integer(9), "y": .integer(2)])])
        #expect(one.documentID == "one")
        #expect(try db.getDocument("c/two") == DocumentSnapshot(path: "c/two", data: nil))
        #expect(try db.getDocuments(FirestoreQuery(parent: "", collectionId: "c")).map(\.path) == ["c/one"])
    }

    @Test func anUpdateOfAMissingDocumentFailsTheWholeBatch() throws {
        let db = try Self.memory()
        var batch = WriteBatch()
        try batch.setData(["a": .integer(1)], forDocument: "c/new")
        try batch.updateData([try FieldPath(["a"]): .integer(2)], forDocument: "c/missing")
        #expect(throws: FirestoreError.self) { try db.commit(batch) }
        #expect(try db.getDocument("c/new").exists == false)
        var bad = WriteBatch()
        #expect(throws: FirestoreError.self) {
            try bad.setData(["a": .delete], forDocument: "c/new")
        }
        #expect(bad.writes.isEmpty)
    }

    @Test func transactionsThatReadThenWriteLoseNoIncrement() throws {
        let db = try Self.memory()
        try Self.incrementConcurrently(db, path: "counters/c", count: 200)
        #expect(try db.getDocument("counters/c").data == ["n": .integer(400)])
    }

    @Test func aTransactionReadsBeforeItWritesAndAFailedBodyWritesNothing() throws {
        let db = try Self.memory()
        #expect(throws: FirestoreError(.invalidArgument, "a transaction reads every document before it writes any")) {
            try db.runTransaction { t throws(FirestoreError) in
                try t.setData(["a": .integer(1)], forDocument: "c/a")
                _ = try t.getDocument("c/b")
            }
        }
        #expect(throws: FirestoreError(.failedPrecondition, "the body gave up")) {
            try db.runTransaction { t throws(FirestoreError) in
                _ = try t.getDocument("c/a")
                try t.setData(["a": .integer(1)], forDocument: "c/a")
                throw FirestoreError(.failedPrecondition, "the body gave up")
            }
        }
        #expect(try db.getDocument("c/a").exists == false)
        let seen = try db.runTransaction { t throws(FirestoreError) in
            let before = try t.getDocument("c/a")
            try t.setData(["a": .integer(2)], forDocument: "c/a")
            return before.exists
        }
        #expect(seen == false)
        #expect(try db.getDocument("c/a").data == ["a": .integer(2)])
    }

    @Test(
        "transactions against the emulator lose no increment", .enabled(if: EmulatorSupport.enabled),
        .timeLimit(.minutes(10)))
    func emulatorTransactions() throws {
        let client = try EmulatorSupport.client()
        let path = EmulatorSupport.uniqueCollection("transactions") + "/counter"
        try Self.incrementConcurrently(client, path: path, count: 4)
        #expect(try client.getDocument(path).data == ["n": .integer(8)])
        var batch = WriteBatch()
        try batch.updateData([try FieldPath(["n"]): .integer(0)], forDocument: path + "-missing")
        #expect(throws: FirestoreError.self) { try client.commit(batch) }
    }
}

/// Errors collected from several threads.
final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    func add(_ item: String) {
        lock.lock()
        list.append(item)
        lock.unlock()
    }

    var items: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
