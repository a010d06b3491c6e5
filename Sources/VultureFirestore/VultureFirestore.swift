// Firestore and Cloud Storage as the engine sees them: apply a Write exactly as Firestore does, an
// in-memory database, the REST client for the emulator or a real project, queries with cursors.
import Dispatch
import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// A stored Firestore document: its path, fields and the server's create and update times.
public struct FirestoreDocument: Sendable, Hashable {
    /// The path relative to the database root (`users/{uid}/flights/{id}`).
    public var path: String
    /// The fields, in stored form (no sentinels).
    public var fields: [String: FirestoreValue]
    /// When the document was created (the commit time of the write that created it).
    public var createTime: FirestoreTimestamp
    /// When the document last changed (a write that changes nothing leaves it).
    public var updateTime: FirestoreTimestamp

    /// A document.
    public init(
        path: String, fields: [String: FirestoreValue], createTime: FirestoreTimestamp, updateTime: FirestoreTimestamp
    ) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// The document's last path segment.
    public var id: String { String(FirestoreLimits.slashSegments(path).last ?? "") }
}

/// A Firestore status code, by its canonical name (google.rpc.Code).
public enum FirestoreStatus: String, Sendable, Hashable, CaseIterable {
    /// The request was cancelled.
    case cancelled = "CANCELLED"
    /// An error with no better code.
    case unknown = "UNKNOWN"
    /// The request is malformed: a bad field path, value, limit or combination of writes.
    case invalidArgument = "INVALID_ARGUMENT"
    /// The deadline passed before the request completed.
    case deadlineExceeded = "DEADLINE_EXCEEDED"
    /// A precondition `exists: true` on a missing document, or the document asked for is missing.
    case notFound = "NOT_FOUND"
    /// A precondition `exists: false` on an existing document.
    case alreadyExists = "ALREADY_EXISTS"
    /// Security rules refused the request.
    case permissionDenied = "PERMISSION_DENIED"
    /// A quota or limit was exhausted.
    case resourceExhausted = "RESOURCE_EXHAUSTED"
    /// A precondition `updateTime` that does not match, or a query that needs an index.
    case failedPrecondition = "FAILED_PRECONDITION"
    /// A transaction was aborted by contention.
    case aborted = "ABORTED"
    /// A value out of range.
    case outOfRange = "OUT_OF_RANGE"
    /// The operation is not implemented.
    case unimplemented = "UNIMPLEMENTED"
    /// An internal server error.
    case `internal` = "INTERNAL"
    /// The service (or the network to it) is unavailable.
    case unavailable = "UNAVAILABLE"
    /// Data was lost.
    case dataLoss = "DATA_LOSS"
    /// The request has no valid credentials.
    case unauthenticated = "UNAUTHENTICATED"
}

/// An error as Firestore reports it: a status, a message, and for the REST client the HTTP status.
public struct FirestoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status code (`INVALID_ARGUMENT`, `NOT_FOUND`, …).
    public var status: FirestoreStatus
    /// What went wrong, for a person.
    public var message: String
    /// The HTTP status of the REST answer, when the error came over HTTP (nil in memory and for a
    /// network failure).
    public var httpStatus: Int?

    /// An error.
    public init(_ status: FirestoreStatus, _ message: String, httpStatus: Int? = nil) {
        self.status = status
        self.message = message
        self.httpStatus = httpStatus
    }

    /// `STATUS: message` (with `(HTTP n)` when known).
    public var description: String {
        "\(status.rawValue): \(message)" + (httpStatus.map { " (HTTP \($0))" } ?? "")
    }
}

/// The result of one write in a commit.
public struct FirestoreWriteResult: Sendable, Hashable {
    /// The document's update time after the commit; nil when the commit leaves no document (a
    /// delete). A write that changes nothing reports the document's earlier update time.
    public var updateTime: FirestoreTimestamp?
    /// The value each transform set, in the order of `FirestoreWrite.transforms`.
    public var transformResults: [FirestoreValue]

    /// A write result.
    public init(updateTime: FirestoreTimestamp?, transformResults: [FirestoreValue] = []) {
        self.updateTime = updateTime
        self.transformResults = transformResults
    }
}

/// The result of a commit.
public struct FirestoreCommitResult: Sendable, Hashable {
    /// The commit time: the update time of every document the commit changed. Nil only where the
    /// server reports none (the emulator, for a commit without writes).
    public var commitTime: FirestoreTimestamp?
    /// One result per write, in order.
    public var writeResults: [FirestoreWriteResult]

    /// A commit result.
    public init(commitTime: FirestoreTimestamp?, writeResults: [FirestoreWriteResult]) {
        self.commitTime = commitTime
        self.writeResults = writeResults
    }
}

/// A Firestore database as the sync engine and the simulation drive it: synchronous calls, one
/// step at a time. ``InMemoryFirestore`` and ``FirestoreRESTClient`` implement it.
public protocol FirestoreDatabase: AnyObject, Sendable {
    /// `projects/{project}/databases/{database}`: the prefix of document names, which `__name__`
    /// cursors carry.
    var database: String { get }

    /// Applies the writes atomically (all or none), at most 500, in order.
    /// - Throws: `FirestoreError`: INVALID_ARGUMENT (a malformed write, a document limit, more than
    ///   500 writes, a combination of writes to one document Firestore refuses), NOT_FOUND /
    ///   ALREADY_EXISTS / FAILED_PRECONDITION (a precondition), or a transport status.
    func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult

    /// The document at `path` (relative to the database root), or nil when there is none.
    /// - Throws: `FirestoreError` for a malformed path or a transport failure.
    func get(_ path: String) throws(FirestoreError) -> FirestoreDocument?

    /// The documents of one collection that match the query, in its order.
    /// - Throws: `FirestoreError`: INVALID_ARGUMENT for a query Firestore refuses, or a transport status.
    func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument]

    /// How many independent commits ``commitEach(_:)`` has in flight at once: 1 (the default) commits
    /// them one after another; a client over a network raises it so round trips overlap.
    var commitsInFlight: Int { get }

    /// Commits each batch as ``commit(_:)`` does, up to ``commitsInFlight`` at once. The caller
    /// passes only batches that commute (none reads or preconditions what another writes; shared
    /// fields move by transforms such as `increment`), so any order of landing gives one result.
    /// - Returns: one result per batch, in the order given.
    func commitEach(_ batches: [[FirestoreWrite]]) -> [Result<FirestoreCommitResult, FirestoreError>]
}

extension FirestoreDatabase {
    /// One commit at a time.
    public var commitsInFlight: Int { 1 }

    /// The batches one after another, in order (``commitsInFlight`` is 1).
    public func commitEach(_ batches: [[FirestoreWrite]]) -> [Result<FirestoreCommitResult, FirestoreError>] {
        batches.map { batch in Result { () throws(FirestoreError) in try commit(batch) } }
    }

    /// ``commitEach(_:)`` on `threads` threads: each thread takes the next batch not yet taken, so at
    /// most `threads` commits are in flight; results in the order given. For blocking clients.
    public func commitConcurrently(_ batches: [[FirestoreWrite]], threads: Int)
        -> [Result<FirestoreCommitResult, FirestoreError>]
    {
        let box = ConcurrentCommits(count: batches.count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(threads, batches.count)) {
            group.enter()
            Thread.detachNewThread {
                while let index = box.take() {
                    box.store(index, Result { () throws(FirestoreError) in try self.commit(batches[index]) })
                }
                group.leave()
            }
        }
        group.wait()
        return box.results()
    }
}

/// The shared state of ``FirestoreDatabase/commitConcurrently(_:threads:)``: the next batch to take
/// and the results, under a lock.
private final class ConcurrentCommits: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    private var slots: [Result<FirestoreCommitResult, FirestoreError>?]

    init(count: Int) {
        self.count = count
        slots = Array(repeating: nil, count: count)
    }

    func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < count else { return nil }
        next += 1
        return next - 1
    }

    func store(_ index: Int, _ result: Result<FirestoreCommitResult, FirestoreError>) {
        lock.lock()
        slots[index] = result
        lock.unlock()
    }

    func results() -> [Result<FirestoreCommitResult, FirestoreError>] {
        lock.lock()
        defer { lock.unlock() }
        return slots.map { $0 ?? .failure(FirestoreError(.internal, "not committed")) }
    }
}
