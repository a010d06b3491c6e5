import VultureFirestore
import VultureSchemaCore

/// An `AsyncFirestoreClient` over a synchronous `FirestoreClient` (an `SDKSurfaceFirestore`, an
/// `InMemoryFirestore`): every call first suspends, then runs on the cooperative pool, as an app's
/// adapter over the Firebase SDK's async API would. For tests of the async path.
public final class AwaitedFirestore: AsyncFirestoreClient, Sendable {
    /// The client each call reaches.
    public let client: any FirestoreClient

    /// The async surface of `client`.
    public init(_ client: any FirestoreClient) { self.client = client }

    /// The client's `projects/{p}/databases/{d}`.
    public var database: String { client.database }

    /// The client's `FirestoreClient/getDocument(_:)`, after a suspension.
    /// - Throws: what it throws.
    public func getDocument(_ path: String) async throws(FirestoreError) -> DocumentSnapshot {
        await Task.yield()
        return try client.getDocument(path)
    }

    /// The client's `FirestoreClient/getDocuments(_:)`, after a suspension.
    /// - Throws: what it throws.
    public func getDocuments(_ query: FirestoreQuery) async throws(FirestoreError) -> [DocumentSnapshot] {
        await Task.yield()
        return try client.getDocuments(query)
    }

    /// The client's `FirestoreClient/commit(_:)`, after a suspension.
    /// - Throws: what it throws.
    public func commit(_ batch: WriteBatch) async throws(FirestoreError) {
        await Task.yield()
        try client.commit(batch)
    }

    /// The client's `FirestoreClient/runTransaction(maxAttempts:_:)`, after a suspension.
    /// - Throws: what it throws.
    public func runTransaction<T: Sendable>(
        maxAttempts: Int, _ body: @escaping @Sendable (Transaction) throws(FirestoreError) -> T
    ) async throws(FirestoreError) -> T {
        await Task.yield()
        return try client.runTransaction(maxAttempts: maxAttempts, body)
    }
}

/// An `AsyncCloudStorage` over a synchronous `CloudStorage`: every call first suspends.
public final class AwaitedCloudStorage: AsyncCloudStorage, Sendable {
    /// The bucket each call reaches.
    public let storage: any CloudStorage

    /// The async surface of `storage`.
    public init(_ storage: any CloudStorage) { self.storage = storage }

    /// The bucket's `CloudStorage/upload(_:onlyIfAbsent:)`, after a suspension.
    /// - Throws: what it throws.
    public func upload(_ object: StorageObject, onlyIfAbsent: Bool) async throws(CloudStorageError) {
        await Task.yield()
        try storage.upload(object, onlyIfAbsent: onlyIfAbsent)
    }

    /// The bucket's `CloudStorage/download(_:)`, after a suspension.
    /// - Throws: what it throws.
    public func download(_ path: String) async throws(CloudStorageError) -> StorageObject? {
        await Task.yield()
        return try storage.download(path)
    }

    /// The bucket's `CloudStorage/delete(_:)`, after a suspension.
    /// - Throws: what it throws.
    public func delete(_ path: String) async throws(CloudStorageError) {
        await Task.yield()
        try storage.delete(path)
    }
}
