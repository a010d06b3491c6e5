import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// A fault the next matching request meets.
public enum FirestoreFault: Sendable, Hashable {
    /// The request is refused with this status; nothing is applied.
    case refuse(FirestoreStatus)
    /// A commit is applied, then its answer is lost: the caller sees UNAVAILABLE.
    case loseAcknowledgement
}

/// Which requests a fault applies to.
public enum FirestoreRequestKind: String, Sendable, Hashable, CaseIterable {
    /// `commit`.
    case commit
    /// `runQuery`.
    case query
    /// `get`.
    case get
}

/// One request as a ``RecordingFirestore`` saw it.
public struct FirestoreRequestRecord: Sendable, Hashable {
    /// The kind of request.
    public var kind: FirestoreRequestKind
    /// For a commit: its writes; for a query: none.
    public var writes: [FirestoreWrite]
    /// For a query: its collection id; for a get: the path; for a commit: "".
    public var target: String
    /// The fault it met, if any.
    public var fault: FirestoreFault?
    /// Whether the caller got a successful answer (a commit acknowledged).
    public var acknowledged: Bool = false
    /// For an acknowledged commit: its commit time.
    public var commitTime: FirestoreTimestamp?
}

/// A Firestore in front of another that records every request and injects queued faults: a commit
/// refused, a commit applied but its answer lost, a query page failing mid-pull. The engine tests,
/// the scenarios and the simulation drive it; faults are queued explicitly, never drawn at random
/// here.
public final class RecordingFirestore: FirestoreDatabase, @unchecked Sendable {
    /// The database behind.
    public let backend: FirestoreDatabase
    private let lock = NSLock()
    private var faults: [(FirestoreRequestKind, FirestoreFault)] = []
    private var log: [FirestoreRequestRecord] = []

    /// A recorder in front of `backend`.
    public init(_ backend: FirestoreDatabase) { self.backend = backend }

    public var database: String { backend.database }

    /// Queues a fault for the next request of `kind`.
    public func inject(_ fault: FirestoreFault, next kind: FirestoreRequestKind) {
        lock.lock()
        defer { lock.unlock() }
        faults.append((kind, fault))
    }

    /// Every request so far, in order.
    public var requests: [FirestoreRequestRecord] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    /// Drops every queued fault.
    public func clearFaults() {
        lock.lock()
        defer { lock.unlock() }
        faults.removeAll()
    }

    /// Forgets the recorded requests (queued faults stay).
    public func clearRequests() {
        lock.lock()
        defer { lock.unlock() }
        log.removeAll()
    }

    private func take(_ kind: FirestoreRequestKind) -> FirestoreFault? {
        lock.lock()
        defer { lock.unlock() }
        guard let i = faults.firstIndex(where: { $0.0 == kind }) else { return nil }
        return faults.remove(at: i).1
    }

    private func record(_ r: FirestoreRequestRecord) {
        lock.lock()
        defer { lock.unlock() }
        log.append(r)
    }

    public func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        let fault = take(.commit)
        var entry = FirestoreRequestRecord(kind: .commit, writes: writes, target: "", fault: fault)
        defer { record(entry) }
        switch fault {
        case .refuse(let status)?:
            throw FirestoreError(status, "injected: the commit is refused")
        case .loseAcknowledgement?:
            _ = try backend.commit(writes)
            throw FirestoreError(.unavailable, "injected: the commit was applied, its answer lost")
        case nil:
            let result = try backend.commit(writes)
            entry.acknowledged = true
            entry.commitTime = result.commitTime
            return result
        }
    }

    public func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? {
        let fault = take(.get)
        record(FirestoreRequestRecord(kind: .get, writes: [], target: path, fault: fault))
        if case .refuse(let status)? = fault { throw FirestoreError(status, "injected: the read is refused") }
        return try backend.get(path)
    }

    public func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        let fault = take(.query)
        record(FirestoreRequestRecord(kind: .query, writes: [], target: query.collectionId, fault: fault))
        if case .refuse(let status)? = fault { throw FirestoreError(status, "injected: the query is refused") }
        return try backend.runQuery(query)
    }
}

/// Which Cloud Storage requests a fault applies to.
public enum StorageRequestKind: String, Sendable, Hashable, CaseIterable {
    /// An upload.
    case upload
    /// A download.
    case download
    /// A delete.
    case delete
}

/// A Cloud Storage bucket in front of another that injects queued faults (an upload that fails, a
/// download that fails) and counts requests.
public final class RecordingCloudStorage: CloudStorage, @unchecked Sendable {
    /// The bucket behind.
    public let backend: CloudStorage
    private let lock = NSLock()
    private var faults: [(StorageRequestKind, CloudStorageError.Kind)] = []
    private var log: [(StorageRequestKind, String)] = []

    /// A recorder in front of `backend`.
    public init(_ backend: CloudStorage) { self.backend = backend }

    /// Queues a failure of this kind for the next request of `kind`.
    public func inject(_ failure: CloudStorageError.Kind, next kind: StorageRequestKind) {
        lock.lock()
        defer { lock.unlock() }
        faults.append((kind, failure))
    }

    /// Drops every queued failure.
    public func clearFaults() {
        lock.lock()
        defer { lock.unlock() }
        faults.removeAll()
    }

    /// Every request so far: its kind and object path.
    public var requests: [(kind: StorageRequestKind, path: String)] {
        lock.lock()
        defer { lock.unlock() }
        return log.map { (kind: $0.0, path: $0.1) }
    }

    private func take(_ kind: StorageRequestKind, _ path: String) -> CloudStorageError.Kind? {
        lock.lock()
        defer { lock.unlock() }
        log.append((kind, path))
        guard let i = faults.firstIndex(where: { $0.0 == kind }) else { return nil }
        return faults.remove(at: i).1
    }

    public func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError) {
        if let fault = take(.upload, object.path) { throw CloudStorageError(fault, "injected: the upload fails") }
        try backend.upload(object, onlyIfAbsent: onlyIfAbsent)
    }

    public func download(_ path: String) throws(CloudStorageError) -> StorageObject? {
        if let fault = take(.download, path) { throw CloudStorageError(fault, "injected: the download fails") }
        return try backend.download(path)
    }

    public func delete(_ path: String) throws(CloudStorageError) {
        if let fault = take(.delete, path) { throw CloudStorageError(fault, "injected: the delete fails") }
        try backend.delete(path)
    }
}
