import VultureFirestore
import VultureSchemaCore

/// An ``AsyncFirestoreClient`` over a synchronous `FirestoreClient` (an `SDKSurfaceFirestore`, an
/// `InMemoryFirestore`): every call first suspends, then runs on the cooperative pool, as an app's
/// adapter over the Firebase SDK's async API would. For tests of the async path.
public final class AwaitedFirestore: AsyncFirestoreClient, Sendable {
    /// The client each call reaches.
    public let client: any FirestoreClient

    /// The async surface of `client`.
    public init(_ client: any FirestoreClient) { self.client = client }

    public var database: String { client.database }

    public func getDocument(_ path: String) async throws(FirestoreError) -> DocumentSnapshot {
        await Task.yield()
        return try client.getDocument(path)
    }

    public func getDocuments(_ query: FirestoreQuery) async throws(FirestoreError) -> [DocumentSnapshot] {
        await Task.yield()
        return try client.getDocuments(query)
    }

    public func commit(_ batch: WriteBatch) async throws(FirestoreError) {
        await Task.yield()
        try client.commit(batch)
    }

    public func runTransaction<T: Sendable>(
        maxAttempts: Int, _ body: @escaping @Sendable (Transaction) throws(FirestoreError) -> T
    ) async throws(FirestoreError) -> T {
        await Task.yield()
        return try client.runTransaction(maxAttempts: maxAttempts, body)
    }
}

/// An ``AsyncCloudStorage`` over a synchronous `CloudStorage`: every call first suspends.
public final class AwaitedCloudStorage: AsyncCloudStorage, Sendable {
    /// The bucket each call reaches.
    public let storage: any CloudStorage

    /// The async surface of `storage`.
    public init(_ storage: any CloudStorage) { self.storage = storage }

    public func upload(_ object: StorageObject, onlyIfAbsent: Bool) async throws(CloudStorageError) {
        await Task.yield()
        try storage.upload(object, onlyIfAbsent: onlyIfAbsent)
    }

    public func download(_ path: String) async throws(CloudStorageError) -> StorageObject? {
        await Task.yield()
        return try storage.download(path)
    }

    public func delete(_ path: String) async throws(CloudStorageError) {
        await Task.yield()
        try storage.delete(path)
    }
}
