import Foundation
import VultureSyncSchema

/// A Cloud Storage object as the engine sees it: its bytes (gzipped, schema §2 Storage objects) and
/// metadata.
public struct StorageObject: Sendable, Hashable {
    /// The object path (`users/{uid}/igc/{flightId}.igc.gz`).
    public var path: String
    /// The stored bytes.
    public var bytes: Data
    /// The content type (`application/gzip`).
    public var contentType: String
    /// The Content-Encoding header; nil when not set.
    public var contentEncoding: String?
    /// Custom metadata (`recordId` on a map file's content object).
    public var customMetadata: [String: String]
    /// The object's generation (a new number on every write).
    public var generation: Int64

    /// An object as stored.
    public init(
        path: String, bytes: Data, contentType: String, contentEncoding: String? = nil,
        customMetadata: [String: String] = [:], generation: Int64 = 1
    ) {
        self.path = path
        self.bytes = bytes
        self.contentType = contentType
        self.contentEncoding = contentEncoding
        self.customMetadata = customMetadata
        self.generation = generation
    }
}

/// Why a Cloud Storage request failed.
public struct CloudStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: String, Sendable, Hashable {
        /// The object does not exist (HTTP 404).
        case notFound
        /// `ifGenerationMatch` did not hold: the object exists already (HTTP 412).
        case preconditionFailed
        /// The rules or the credentials refused the request (HTTP 401/403).
        case permissionDenied
        /// A daily quota or rate limit (HTTP 429).
        case resourceExhausted
        /// The service or the network failed; the request may be retried (HTTP 5xx, a transport error).
        case unavailable
        /// Another failure (a malformed request).
        case invalid
    }

    /// The kind of failure.
    public var kind: Kind
    /// What went wrong, for a person.
    public var message: String
    /// The HTTP status, when the error came over HTTP.
    public var httpStatus: Int?

    /// An error.
    public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
    }

    /// `kind: message (HTTP n)`.
    public var description: String {
        "\(kind.rawValue): \(message)" + (httpStatus.map { " (HTTP \($0))" } ?? "")
    }
}

/// Cloud Storage as the sync engine drives it: synchronous calls, one step at a time (schema §2
/// Storage objects, §5.1). ``InMemoryCloudStorage`` and ``CloudStorageRESTClient`` implement it.
public protocol CloudStorage: AnyObject, Sendable {
    /// Stores `bytes` at `path` with the kind's metadata. With `onlyIfAbsent` the upload carries
    /// `ifGenerationMatch=0`: an existing object is left as it is and the call fails with
    /// ``CloudStorageError/Kind/preconditionFailed`` (an idempotent upload of a content-addressed
    /// object treats that as done).
    /// - Throws: ``CloudStorageError``.
    func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError)

    /// The object at `path`, or nil when there is none.
    /// - Throws: ``CloudStorageError`` for a failure other than a missing object.
    func download(_ path: String) throws(CloudStorageError) -> StorageObject?

    /// Removes the object at `path`; a missing object is no error.
    /// - Throws: ``CloudStorageError``.
    func delete(_ path: String) throws(CloudStorageError)
}

/// Cloud Storage in memory: objects by path, generations counted per write. Thread-safe.
public final class InMemoryCloudStorage: CloudStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var objects: [String: StorageObject] = [:]
    private var nextGeneration: Int64 = 1

    /// An empty bucket.
    public init() {}

    public func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError) {
        lock.lock()
        defer { lock.unlock() }
        if onlyIfAbsent, objects[object.path] != nil {
            throw CloudStorageError(.preconditionFailed, "\(object.path) exists (ifGenerationMatch=0)", httpStatus: 412)
        }
        var stored = object
        stored.generation = nextGeneration
        nextGeneration += 1
        objects[object.path] = stored
    }

    public func download(_ path: String) throws(CloudStorageError) -> StorageObject? {
        lock.lock()
        defer { lock.unlock() }
        return objects[path]
    }

    public func delete(_ path: String) throws(CloudStorageError) {
        lock.lock()
        defer { lock.unlock() }
        objects[path] = nil
    }

    /// Every object, sorted by path (for assertions and invariants).
    public var allObjects: [StorageObject] {
        lock.lock()
        defer { lock.unlock() }
        return objects.values.sorted { $0.path < $1.path }
    }
}
