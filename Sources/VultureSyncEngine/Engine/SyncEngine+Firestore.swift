import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// The Firestore a ``SyncEngine`` talks to (README "The sync engine").
public enum SyncFirestore: Sendable {
    /// A database with Firestore's whole write model (`InMemoryFirestore`, `FirestoreRESTClient`): a
    /// record write carries a precondition on the agreed update time, and every commit answers with
    /// update times and transform results.
    case database(any FirestoreDatabase)
    /// Only what the Firebase client SDKs offer an app (`FirestoreClient`): snapshots without
    /// times, batched writes without preconditions, transactions. A write that needs a version
    /// check goes in a transaction that first reads the document and compares it with the row's
    /// base, every field but `updatedAt` (an edit always changes `clientUpdatedAt` and
    /// `updatedBy`, so another device's write cannot match); one that needs none goes in a batch.
    case client(any FirestoreClient)
}

extension SyncEngine {
    /// `projects/{project}/databases/{database}`, the prefix of the names `__name__` cursors carry.
    var databaseName: String {
        switch backend {
        case .database(let database): database.database
        case .client(let client): client.database
        }
    }

    /// How many independent commits go in flight at once: a client's transactions one at a time.
    var commitsInFlight: Int {
        switch backend {
        case .database(let database): database.commitsInFlight
        case .client: 1
        }
    }

    /// The document at `path`, or nil. From a client, whose snapshots carry no times, as
    /// ``document(_:)`` makes it: a version the engine checks by content there, never by time.
    /// - Throws: what the backend throws.
    func read(_ path: String) throws(FirestoreError) -> FirestoreDocument? {
        switch backend {
        case .database(let database): return try database.get(path)
        case .client(let client): return Self.document(try client.getDocument(path))
        }
    }

    /// The documents of a query, in its order.
    /// - Throws: what the backend throws.
    func query(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        switch backend {
        case .database(let database): return try database.runQuery(query)
        case .client(let client): return try client.getDocuments(query).compactMap(Self.document)
        }
    }

    /// Commits `writes` (of `rows`), all or none. A database judges their preconditions itself.
    /// Through a client a batch without preconditions is committed as it is; otherwise a
    /// transaction reads each preconditioned document and checks it (`exists: false`: absent; any
    /// other: present and, where a row of `rows` has its path and a base, equal to that base but
    /// for `updatedAt`) before it writes them all, so the answer is the status the precondition
    /// would have met. A client's result has no times.
    /// - Throws: the backend's error; through a client ALREADY_EXISTS, NOT_FOUND or
    ///   FAILED_PRECONDITION for a check that failed, INTERNAL for an update time without a base.
    func send(_ writes: [FirestoreWrite], rows: [LocalRow] = []) throws(FirestoreError)
        -> FirestoreCommitResult
    {
        switch backend {
        case .database(let database):
            return try database.commit(writes)
        case .client(let client):
            let untimed = FirestoreCommitResult(
                commitTime: nil, writeResults: writes.map { _ in FirestoreWriteResult(updateTime: nil) })
            if writes.allSatisfy({ $0.precondition == nil }) {
                var batch = WriteBatch()
                for write in writes { try batch.add(write) }
                try client.commit(batch)
                return untimed
            }
            let bases = bases(rows)
            try client.runTransaction { (transaction: Transaction) throws(FirestoreError) in
                for write in writes {
                    guard let precondition = write.precondition, let path = write.path else { continue }
                    try Self.check(precondition, of: try transaction.getDocument(path), base: bases[path])
                }
                for var write in writes {
                    write.precondition = nil
                    try transaction.add(write)
                }
            }
            return untimed
        }
    }

    /// ``send(_:rows:)`` for batches that commute, up to ``commitsInFlight`` at once.
    func sendEach(_ batches: [(writes: [FirestoreWrite], rows: [LocalRow])])
        -> [Result<FirestoreCommitResult, FirestoreError>]
    {
        switch backend {
        case .database(let database):
            return database.commitEach(batches.map(\.writes))
        case .client:
            return batches.map { batch in
                Result { () throws(FirestoreError) in try send(batch.writes, rows: batch.rows) }
            }
        }
    }

    /// The precondition a row's write carries for the version it last agreed with the server: its
    /// base's update time from a database; from a client, which reports none, `exists: true`, which
    /// ``send(_:rows:)`` checks against the base. Nil for a row without a base.
    func basePrecondition(_ row: LocalRow) -> FirestorePrecondition? {
        if let time = row.baseUpdateTime { return .updateTime(time) }
        if case .client = backend, row.base != nil { return .exists(true) }
        return nil
    }

    /// The bases of `rows` by document path, for ``send(_:rows:)``.
    func bases(_ rows: [LocalRow]) -> [String: [String: FirestoreValue]] {
        var out: [String: [String: FirestoreValue]] = [:]
        for row in rows { if let base = row.base { out[row.path(uid: uid)] = base } }
        return out
    }

    /// Throws the status Firestore answers a precondition `precondition` with when `snapshot`
    /// breaks it, comparing content with `base` where Firestore compares update times.
    static func check(
        _ precondition: FirestorePrecondition, of snapshot: DocumentSnapshot, base: [String: FirestoreValue]?
    )
        throws(FirestoreError)
    {
        switch precondition {
        case .exists(false):
            if snapshot.exists { throw FirestoreError(.alreadyExists, "\(snapshot.path) exists") }
        case .exists(true), .updateTime:
            guard let data = snapshot.data else { throw FirestoreError(.notFound, "\(snapshot.path) does not exist") }
            if case .updateTime = precondition, base == nil {
                throw FirestoreError(.internal, "no agreed version of \(snapshot.path) to check its update time by")
            }
            if let base, LocalRow.hasChangedFields(from: base, to: data) {
                throw FirestoreError(.failedPrecondition, "\(snapshot.path) changed since this device agreed it")
            }
        }
    }

    /// A client's snapshot as a document: its update time is its `updatedAt`, its create time
    /// unknown (`FirestoreTimestamp.minimum`), so a document made again after its purge is told
    /// from an edit only by the object it lost (``apply(_:collection:movesCursor:)``).
    static func document(_ snapshot: DocumentSnapshot) -> FirestoreDocument? {
        guard let data = snapshot.data else { return nil }
        let time: FirestoreTimestamp
        if case .timestamp(let t)? = data[CommonFields.Field.updatedAt] { time = t } else { time = .minimum }
        return FirestoreDocument(path: snapshot.path, fields: data, createTime: .minimum, updateTime: time)
    }
}
