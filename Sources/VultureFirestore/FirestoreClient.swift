import Foundation
import VultureSchemaCore

/// A document as the Firebase client SDKs' `DocumentSnapshot` shows it: its path and its data, nil
/// when it does not exist. It carries no update or create time, because the SDKs give none.
public struct DocumentSnapshot: Sendable, Hashable {
    /// The document path (`users/u1/flights/…`).
    public let path: String
    /// The fields, or nil when the document does not exist.
    public let data: [String: FirestoreValue]?

    /// A snapshot of `path` holding `data`.
    public init(path: String, data: [String: FirestoreValue]?) {
        self.path = path
        self.data = data
    }

    /// The snapshot of a stored document, without its times.
    public init(_ document: FirestoreDocument) {
        self.init(path: document.path, data: document.fields)
    }

    /// Whether the document exists.
    public var exists: Bool { data != nil }

    /// The document id: the last segment of the path (split by scalars, as `FirestoreLimits.slashSegments` splits).
    public var documentID: String { FirestoreLimits.slashSegments(path).last.map(String.init) ?? "" }
}

/// The SDKs' batched write: `set`, `set` with `merge` or `mergeFields`, `update` and `delete`,
/// committed together, all or none, at most 500 writes. No write carries a precondition of the
/// caller's choosing: `update` alone requires the document to exist.
public struct WriteBatch: Sendable {
    /// The writes, in the order they were added.
    public private(set) var writes: [FirestoreWrite] = []

    /// An empty batch.
    public init() {}

    /// `setData(_:forDocument:)`: replaces the whole document.
    /// - Throws: INVALID_ARGUMENT for data the SDKs refuse (a `$delete` sentinel).
    public mutating func setData(_ data: [String: FirestoreValue], forDocument path: String) throws(FirestoreError) {
        try add { try .set(data, path: path) }
    }

    /// `setData(_:forDocument:merge:)`: with `merge`, sets each leaf of `data` and keeps the rest.
    /// - Throws: INVALID_ARGUMENT for data the SDKs refuse.
    public mutating func setData(_ data: [String: FirestoreValue], forDocument path: String, merge: Bool)
        throws(FirestoreError)
    {
        try add { try .set(data, merge: merge, path: path) }
    }

    /// `setData(_:forDocument:mergeFields:)`: sets exactly `mergeFields`, each whole.
    /// - Throws: INVALID_ARGUMENT when a field path is not in `data`.
    public mutating func setData(
        _ data: [String: FirestoreValue], forDocument path: String, mergeFields: [FieldPath]
    ) throws(FirestoreError) {
        try add { try .set(data, mergeFields: mergeFields, path: path) }
    }

    /// `updateData(_:forDocument:)`: sets each field path whole; the document must exist (else the
    /// commit fails with NOT_FOUND).
    /// - Throws: INVALID_ARGUMENT when one path lies beneath another.
    public mutating func updateData(_ fields: [FieldPath: FirestoreValue], forDocument path: String)
        throws(FirestoreError)
    {
        try add { try .update(fields, path: path) }
    }

    /// `deleteDocument(_:)`: deletes the document (nothing happens when there is none).
    public mutating func deleteDocument(_ path: String) {
        writes.append(.delete(path: path))
    }

    /// Adds `write` as the SDK call that makes it: a delete is `deleteDocument`, a write without a
    /// mask `setData`, one with a mask `setData(mergeFields:)` (a mask path the fields leave out
    /// holding `FieldValue.delete()`), and one with a mask under `exists: true` `updateData`.
    /// - Throws: INVALID_ARGUMENT for a write no SDK call makes: one without a path, or under any
    ///   other precondition (a version check belongs in a transaction).
    public mutating func add(_ write: FirestoreWrite) throws(FirestoreError) {
        guard write.path != nil else { throw FirestoreError(.invalidArgument, "a batched write names its document") }
        switch write.precondition {
        case nil: break
        case .exists(true)? where write.mask != nil: break
        case let other?:
            throw FirestoreError(
                .invalidArgument,
                "no SDK call writes \(write.path ?? "") under the precondition \(other): read it in a transaction")
        }
        writes.append(write)
    }

    private mutating func add(_ make: () throws -> FirestoreWrite) throws(FirestoreError) {
        do { writes.append(try make()) } catch { throw FirestoreError(.invalidArgument, "\(error)") }
    }
}

/// The SDKs' transaction: it reads documents, then writes; the writes land only if no document it
/// read has changed since, else the whole body runs again (``FirestoreClient/runTransaction(maxAttempts:_:)``).
/// Like the SDKs, it reads single documents only, and refuses a read after a write.
public final class Transaction {
    private let read: (String) throws(FirestoreError) -> DocumentSnapshot
    /// The writes so far, committed when the body returns.
    public private(set) var batch = WriteBatch()

    /// A transaction that reads through `read` (the backend's transactional get).
    public init(read: @escaping (String) throws(FirestoreError) -> DocumentSnapshot) {
        self.read = read
    }

    /// `getDocument(_:)`: the document as of the transaction.
    /// - Throws: INVALID_ARGUMENT after a write (the SDKs' rule: every read comes first), or what
    ///   the backend throws.
    public func getDocument(_ path: String) throws(FirestoreError) -> DocumentSnapshot {
        guard batch.writes.isEmpty else {
            throw FirestoreError(.invalidArgument, "a transaction reads every document before it writes any")
        }
        return try read(path)
    }

    /// ``WriteBatch/setData(_:forDocument:)`` in the transaction.
    /// - Throws: INVALID_ARGUMENT for data the SDKs refuse.
    public func setData(_ data: [String: FirestoreValue], forDocument path: String) throws(FirestoreError) {
        try batch.setData(data, forDocument: path)
    }

    /// ``WriteBatch/setData(_:forDocument:merge:)`` in the transaction.
    /// - Throws: INVALID_ARGUMENT for data the SDKs refuse.
    public func setData(_ data: [String: FirestoreValue], forDocument path: String, merge: Bool)
        throws(FirestoreError)
    {
        try batch.setData(data, forDocument: path, merge: merge)
    }

    /// ``WriteBatch/setData(_:forDocument:mergeFields:)`` in the transaction.
    /// - Throws: INVALID_ARGUMENT when a field path is not in `data`.
    public func setData(_ data: [String: FirestoreValue], forDocument path: String, mergeFields: [FieldPath])
        throws(FirestoreError)
    {
        try batch.setData(data, forDocument: path, mergeFields: mergeFields)
    }

    /// ``WriteBatch/updateData(_:forDocument:)`` in the transaction.
    /// - Throws: INVALID_ARGUMENT when one path lies beneath another.
    public func updateData(_ fields: [FieldPath: FirestoreValue], forDocument path: String) throws(FirestoreError) {
        try batch.updateData(fields, forDocument: path)
    }

    /// ``WriteBatch/deleteDocument(_:)`` in the transaction.
    public func deleteDocument(_ path: String) { batch.deleteDocument(path) }

    /// ``WriteBatch/add(_:)`` in the transaction.
    /// - Throws: as ``WriteBatch/add(_:)``.
    public func add(_ write: FirestoreWrite) throws(FirestoreError) { try batch.add(write) }
}

/// Firestore as the Firebase client SDKs let an app use it: documents and queries read as
/// snapshots (no update times), batched writes without preconditions, and transactions that read
/// and then write under what they read. `InMemoryFirestore` and `FirestoreRESTClient` implement it.
public protocol FirestoreClient: AnyObject, Sendable {
    /// `projects/{project}/databases/{database}`: the prefix of document names, which `__name__`
    /// cursors carry (the SDKs know it from the app's options).
    var database: String { get }

    /// `getDocument()`: the document at `path`.
    /// - Throws: `FirestoreError` for a malformed path or a transport failure.
    func getDocument(_ path: String) throws(FirestoreError) -> DocumentSnapshot

    /// `getDocuments()` of a query: the matching documents, in its order.
    /// - Throws: `FirestoreError`: INVALID_ARGUMENT for a query Firestore refuses, or a transport status.
    func getDocuments(_ query: FirestoreQuery) throws(FirestoreError) -> [DocumentSnapshot]

    /// `commit()` of a batch: all its writes or none.
    /// - Throws: `FirestoreError`: NOT_FOUND for an update of a missing document, INVALID_ARGUMENT
    ///   for a write Firestore refuses, or a transport status.
    func commit(_ batch: WriteBatch) throws(FirestoreError)

    /// `runTransaction`: runs `body`, then commits its writes if no document it read has changed
    /// since; when one has, runs `body` again, up to `maxAttempts` times (the SDKs' default is 5).
    /// An error thrown by `body` ends the transaction without writing.
    /// - Returns: what the last run of `body` returned.
    /// - Throws: what `body` throws, ABORTED after `maxAttempts` conflicts, or the commit's error.
    func runTransaction<T>(maxAttempts: Int, _ body: (Transaction) throws(FirestoreError) -> T) throws(FirestoreError)
        -> T
}

extension FirestoreClient {
    /// ``runTransaction(maxAttempts:_:)`` with the SDKs' 5 attempts.
    /// - Throws: as ``runTransaction(maxAttempts:_:)``.
    public func runTransaction<T>(_ body: (Transaction) throws(FirestoreError) -> T) throws(FirestoreError) -> T {
        try runTransaction(maxAttempts: 5, body)
    }
}

extension FirestoreClient where Self: FirestoreDatabase {
    /// The document at `path` as a snapshot (``FirestoreDatabase/get(_:)`` without the times).
    /// - Throws: as ``FirestoreDatabase/get(_:)``.
    public func getDocument(_ path: String) throws(FirestoreError) -> DocumentSnapshot {
        DocumentSnapshot(path: path, data: try get(path)?.fields)
    }

    /// The query's documents as snapshots.
    /// - Throws: as ``FirestoreDatabase/runQuery(_:)``.
    public func getDocuments(_ query: FirestoreQuery) throws(FirestoreError) -> [DocumentSnapshot] {
        try runQuery(query).map(DocumentSnapshot.init)
    }

    /// Commits the batch's writes, all or none.
    /// - Throws: as ``FirestoreDatabase/commit(_:)``.
    public func commit(_ batch: WriteBatch) throws(FirestoreError) {
        _ = try commit(batch.writes)
    }
}

extension InMemoryFirestore: FirestoreClient {
    /// Runs `body` and commits its writes while no other call can change a document: a transaction
    /// here never conflicts, so `body` runs once.
    /// - Throws: what `body` or the commit throws.
    public func runTransaction<T>(maxAttempts: Int, _ body: (Transaction) throws(FirestoreError) -> T)
        throws(FirestoreError) -> T
    {
        try exclusively { () throws(FirestoreError) -> T in
            let transaction = Transaction { path throws(FirestoreError) in try self.getDocument(path) }
            let value = try body(transaction)
            if !transaction.batch.writes.isEmpty { _ = try commit(transaction.batch.writes) }
            return value
        }
    }
}

extension FirestoreRESTClient: FirestoreClient {
    /// `beginTransaction`, the body's reads with the transaction id, then `commit` with it; ABORTED
    /// (another transaction or write got there first) runs the body again, up to `maxAttempts`
    /// times. An error from `body` rolls the transaction back.
    /// - Throws: what `body` throws, ABORTED after `maxAttempts` conflicts, or a request's error.
    public func runTransaction<T>(maxAttempts: Int, _ body: (Transaction) throws(FirestoreError) -> T)
        throws(FirestoreError) -> T
    {
        var attempt = 1
        while true {
            let id = try beginTransaction()
            let transaction = Transaction { path throws(FirestoreError) in
                DocumentSnapshot(path: path, data: try self.get(path, transaction: id)?.fields)
            }
            let value: T
            do {
                value = try body(transaction)
            } catch {
                // A read the server aborted (a lock another transaction holds) is a conflict too.
                try? rollback(id)
                guard error.status == .aborted, attempt < maxAttempts else { throw error }
                attempt += 1
                continue
            }
            do {
                _ = try commit(transaction.batch.writes, transaction: id)
                return value
            } catch  where error.status == .aborted && attempt < maxAttempts {
                attempt += 1
            }
        }
    }
}
