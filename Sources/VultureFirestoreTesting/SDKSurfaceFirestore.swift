import Foundation
import VultureFirestore
import VultureSchemaCore

/// A `FirestoreClient` that offers only the Firebase client SDKs' surface over any
/// `FirestoreDatabase` (an in-memory one, a recorder with faults, a scenario device): snapshots
/// without times, batches whose only precondition is `updateData`'s `exists: true`, and
/// transactions. It is the test adapter that shows an engine needs nothing more than an app on
/// the SDKs has: run the engine over it and every version check must go through a transaction.
///
/// A transaction is optimistic, as the server's is for the SDKs: its reads note each document's
/// update time, and its commit writes under those (`updateTime`, or `exists: false` for a document
/// it read as absent); a write whose document changed meanwhile makes the commit fail, and the body
/// runs again. A document it read and does not write is read once more just before the commit.
public final class SDKSurfaceFirestore: FirestoreClient, @unchecked Sendable {
    /// The database the calls reach.
    public let backend: any FirestoreDatabase
    /// How many transaction bodies ran again after a conflict.
    public private(set) var transactionRetries = 0
    private let lock = NSLock()

    /// The SDKs' surface over `backend`.
    public init(_ backend: any FirestoreDatabase) { self.backend = backend }

    /// The backend's `projects/{p}/databases/{d}`.
    public var database: String { backend.database }

    /// The backend's document at `path`, without its times.
    /// - Throws: what the backend throws.
    public func getDocument(_ path: String) throws(FirestoreError) -> DocumentSnapshot {
        DocumentSnapshot(path: path, data: try backend.get(path)?.fields)
    }

    /// The backend's documents for `query`, without their times.
    /// - Throws: what the backend throws.
    public func getDocuments(_ query: FirestoreQuery) throws(FirestoreError) -> [DocumentSnapshot] {
        try backend.runQuery(query).map(DocumentSnapshot.init)
    }

    /// Commits the batch's writes, all or none (a `WriteBatch` holds only what an SDK call makes).
    /// - Throws: what the backend throws.
    public func commit(_ batch: WriteBatch) throws(FirestoreError) {
        _ = try backend.commit(batch.writes)
    }

    /// Runs `body`, then commits its writes under the update times of what it read; a conflict
    /// (a precondition that no longer holds) runs `body` again, up to `maxAttempts` times.
    /// - Throws: what `body` throws, ABORTED after `maxAttempts` conflicts, or the commit's error.
    public func runTransaction<T>(maxAttempts: Int, _ body: (Transaction) throws(FirestoreError) -> T)
        throws(FirestoreError) -> T
    {
        var attempt = 1
        while true {
            var read: [String: FirestoreTimestamp?] = [:]
            let transaction = Transaction { path throws(FirestoreError) in
                let document = try self.backend.get(path)
                read[path] = .some(document?.updateTime)
                return DocumentSnapshot(path: path, data: document?.fields)
            }
            let value = try body(transaction)
            var writes = transaction.batch.writes
            var conflict = false
            for index in writes.indices {
                guard let path = writes[index].path, let seen = read[path] else { continue }
                if let time = seen {
                    writes[index].precondition = .updateTime(time)
                } else if writes[index].precondition == nil {
                    writes[index].precondition = .exists(false)
                }
            }
            let written = Set(writes.compactMap(\.path))
            for (path, seen) in read.sorted(by: { $0.key < $1.key }) where !written.contains(path) {
                if try backend.get(path)?.updateTime != seen { conflict = true }
            }
            if !conflict {
                do {
                    if !writes.isEmpty { _ = try backend.commit(writes) }
                    return value
                } catch  where Self.conflicts.contains(error.status) {
                    conflict = true
                }
            }
            guard attempt < maxAttempts else {
                throw FirestoreError(.aborted, "the transaction met a conflict \(maxAttempts) times")
            }
            attempt += 1
            lock.lock()
            transactionRetries += 1
            lock.unlock()
        }
    }

    /// The statuses of a commit whose documents changed since the transaction read them.
    static let conflicts: Set<FirestoreStatus> = [.failedPrecondition, .alreadyExists, .notFound]
}
