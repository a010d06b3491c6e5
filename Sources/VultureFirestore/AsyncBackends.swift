import Dispatch
import Foundation
import VultureSchemaCore

/// Firestore as the Firebase SDKs' async API gives it to an app (`try await ref.getDocument()`,
/// `try await batch.commit()`, `try await db.runTransaction { … }`): the surface of
/// ``FirestoreClient``, awaited. An app implements it over the SDK; ``BlockingFirestoreClient``
/// lets the engine, which runs on a queue of its own (`SyncEngineActor`), call it.
public protocol AsyncFirestoreClient: Sendable {
    /// `projects/{project}/databases/{database}`, the prefix of document names.
    var database: String { get }

    /// `getDocument()`: the document at `path`.
    /// - Throws: `FirestoreError` for a malformed path or a transport failure.
    func getDocument(_ path: String) async throws(FirestoreError) -> DocumentSnapshot

    /// `getDocuments()` of a query: the matching documents, in its order.
    /// - Throws: `FirestoreError`: INVALID_ARGUMENT for a query Firestore refuses, or a transport status.
    func getDocuments(_ query: FirestoreQuery) async throws(FirestoreError) -> [DocumentSnapshot]

    /// `commit()` of a batch: all its writes or none.
    /// - Throws: `FirestoreError`: NOT_FOUND for an update of a missing document, INVALID_ARGUMENT
    ///   for a write Firestore refuses, or a transport status.
    func commit(_ batch: WriteBatch) async throws(FirestoreError)

    /// `runTransaction`, as ``FirestoreClient/runTransaction(maxAttempts:_:)``. The body is
    /// synchronous, as the SDKs' is: they run it on a queue of their own, and its
    /// `Transaction.getDocument` returns, it does not await.
    /// - Throws: what `body` throws, ABORTED after `maxAttempts` conflicts, or the commit's error.
    func runTransaction<T: Sendable>(
        maxAttempts: Int, _ body: @escaping @Sendable (Transaction) throws(FirestoreError) -> T
    ) async throws(FirestoreError) -> T
}

/// Cloud Storage as the Firebase SDK's async API gives it to an app (`putDataAsync`, `data`,
/// `delete`): the surface of ``CloudStorage``, awaited. ``BlockingCloudStorage`` lets the engine
/// call it.
public protocol AsyncCloudStorage: Sendable {
    /// Stores the object, as ``CloudStorage/upload(_:onlyIfAbsent:)``.
    /// - Throws: ``CloudStorageError``; `preconditionFailed` for an existing object with `onlyIfAbsent`.
    func upload(_ object: StorageObject, onlyIfAbsent: Bool) async throws(CloudStorageError)

    /// The object at `path`, or nil when there is none.
    /// - Throws: ``CloudStorageError`` for a failure other than a missing object.
    func download(_ path: String) async throws(CloudStorageError) -> StorageObject?

    /// Removes the object at `path`; a missing object is no error.
    /// - Throws: ``CloudStorageError``.
    func delete(_ path: String) async throws(CloudStorageError)
}

/// A ``FirestoreClient`` over an ``AsyncFirestoreClient``: each call runs in a task of its own
/// while the calling thread waits for it. For a thread outside Swift's cooperative pool only,
/// such as `SyncEngineActor`'s queue: a cooperative thread that waits here may hold the thread the
/// task needs.
public final class BlockingFirestoreClient: FirestoreClient, Sendable {
    /// The client the calls reach.
    public let client: any AsyncFirestoreClient

    /// Waits for `client`'s calls.
    public init(_ client: any AsyncFirestoreClient) { self.client = client }

    /// The client's `projects/{p}/databases/{d}`.
    public var database: String { client.database }

    /// Waits for ``AsyncFirestoreClient/getDocument(_:)``.
    /// - Throws: what it throws.
    public func getDocument(_ path: String) throws(FirestoreError) -> DocumentSnapshot {
        let client = client
        return try waitFor { () async throws(FirestoreError) in try await client.getDocument(path) }
    }

    /// Waits for ``AsyncFirestoreClient/getDocuments(_:)``.
    /// - Throws: what it throws.
    public func getDocuments(_ query: FirestoreQuery) throws(FirestoreError) -> [DocumentSnapshot] {
        let client = client
        return try waitFor { () async throws(FirestoreError) in try await client.getDocuments(query) }
    }

    /// Waits for ``AsyncFirestoreClient/commit(_:)``.
    /// - Throws: what it throws.
    public func commit(_ batch: WriteBatch) throws(FirestoreError) {
        let client = client
        try waitFor { () async throws(FirestoreError) in try await client.commit(batch) }
    }

    /// Waits for ``AsyncFirestoreClient/runTransaction(maxAttempts:_:)``; `body` runs while this
    /// thread waits, so it may use what the caller holds.
    /// - Throws: what it throws.
    public func runTransaction<T>(maxAttempts: Int, _ body: (Transaction) throws(FirestoreError) -> T)
        throws(FirestoreError) -> T
    {
        let client = client
        return try withoutActuallyEscaping(body) { (escapable) throws(FirestoreError) -> T in
            // The task may outlive the wait by a moment: it holds the body only through this box,
            // emptied before `body` goes out of scope.
            let carried = TransactionBody(escapable)
            defer { carried.body = nil }
            let value = try waitFor { () async throws(FirestoreError) -> Unchecked<T> in
                try await client.runTransaction(maxAttempts: maxAttempts) {
                    (transaction: Transaction) throws(FirestoreError) -> Unchecked<T> in
                    guard let body = carried.body else {
                        throw FirestoreError(.cancelled, "the transaction ran after its caller stopped waiting")
                    }
                    return Unchecked(try body(transaction))
                }
            }
            return value.value
        }
    }

    /// A transaction body carried into the task the caller waits for.
    private final class TransactionBody<T>: @unchecked Sendable {
        var body: ((Transaction) throws(FirestoreError) -> T)?
        init(_ body: @escaping (Transaction) throws(FirestoreError) -> T) { self.body = body }
    }
}

/// A ``CloudStorage`` over an ``AsyncCloudStorage``: each call runs in a task of its own while the
/// calling thread waits for it (the same care as ``BlockingFirestoreClient``).
public final class BlockingCloudStorage: CloudStorage, Sendable {
    /// The bucket the calls reach.
    public let storage: any AsyncCloudStorage

    /// Waits for `storage`'s calls.
    public init(_ storage: any AsyncCloudStorage) { self.storage = storage }

    /// Waits for ``AsyncCloudStorage/upload(_:onlyIfAbsent:)``.
    /// - Throws: what it throws.
    public func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError) {
        let storage = storage
        try waitFor { () async throws(CloudStorageError) in try await storage.upload(object, onlyIfAbsent: onlyIfAbsent)
        }
    }

    /// Waits for ``AsyncCloudStorage/download(_:)``.
    /// - Throws: what it throws.
    public func download(_ path: String) throws(CloudStorageError) -> StorageObject? {
        let storage = storage
        return try waitFor { () async throws(CloudStorageError) in try await storage.download(path) }
    }

    /// Waits for ``AsyncCloudStorage/delete(_:)``.
    /// - Throws: what it throws.
    public func delete(_ path: String) throws(CloudStorageError) {
        let storage = storage
        try waitFor { () async throws(CloudStorageError) in try await storage.delete(path) }
    }
}

/// A value carried across the wait of ``waitFor(_:)``: only one thread touches it at a time (the
/// waiting one before and after, the task between).
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The outcome of a task that a thread waits for.
private final class Outcome<Value, Failure: Error>: @unchecked Sendable {
    var result: Result<Value, Failure>?
    let done = DispatchSemaphore(value: 0)
}

/// Runs `operation` in a task and blocks the calling thread until it ends.
/// - Throws: what `operation` throws.
func waitFor<Value, Failure: Error>(_ operation: @escaping @Sendable () async throws(Failure) -> Value)
    throws(Failure) -> Value
{
    let outcome = Outcome<Value, Failure>()
    Task {
        do throws(Failure) {
            outcome.result = .success(try await operation())
        } catch {
            outcome.result = .failure(error)
        }
        outcome.done.signal()
    }
    outcome.done.wait()
    guard let result = outcome.result else { preconditionFailure("a task ended without an outcome") }
    return try result.get()
}
