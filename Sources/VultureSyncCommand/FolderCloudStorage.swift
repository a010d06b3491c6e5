import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// A bucket in a folder on this machine: what `vulture-sync` uploads to when no Cloud Storage
/// emulator is given. Objects stay with the state directory (`DIR/bucket/`), so another device —
/// another state directory, a phone — cannot download them; `status` says so.
///
/// Each object is two files: its bytes, and `NAME.metadata.json` (canonical typed JSON: content
/// type, content encoding, custom metadata, generation). The object path's `/` become `_`.
public final class FolderCloudStorage: CloudStorage, @unchecked Sendable {
    /// The bucket's folder.
    public let folder: URL
    private let lock = NSLock()

    /// A bucket in `folder` (made on the first upload).
    public init(folder: URL) { self.folder = folder }

    private func url(_ path: String) -> URL {
        folder.appendingPathComponent(path.replacingOccurrences(of: "/", with: "_"))
    }

    private func metadataURL(_ path: String) -> URL {
        folder.appendingPathComponent(path.replacingOccurrences(of: "/", with: "_") + ".metadata.json")
    }

    /// Writes the object's bytes and metadata (each by an atomic rename).
    /// - Throws: ``CloudStorageError`` `preconditionFailed` for an existing object with
    ///   `onlyIfAbsent`, `unavailable` when a file cannot be written.
    public func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError) {
        lock.lock()
        defer { lock.unlock() }
        let fm = FileManager.default
        if onlyIfAbsent, fm.fileExists(atPath: metadataURL(object.path).path) {
            throw CloudStorageError(.preconditionFailed, "\(object.path) exists (ifGenerationMatch=0)", httpStatus: 412)
        }
        var custom: [String: FirestoreValue] = [:]
        for (k, v) in object.customMetadata { custom[k] = .string(v) }
        let generation = (try? readMetadata(object.path))?.generation ?? 0
        let metadata: FirestoreValue = .map([
            "contentType": .string(object.contentType),
            "contentEncoding": object.contentEncoding.map { .string($0) } ?? .null,
            "customMetadata": .map(custom), "generation": .integer(generation + 1),
        ])
        do {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            try object.bytes.write(to: url(object.path), options: .atomic)
            try Data(CanonicalJSON.encode(metadata)).write(to: metadataURL(object.path), options: .atomic)
        } catch {
            throw CloudStorageError(.unavailable, "\(url(object.path).path): \(systemReason(of: error))")
        }
    }

    /// The object, or nil when there is none.
    /// - Throws: ``CloudStorageError`` `unavailable` for files that cannot be read, `invalid` for a metadata file it did not write.
    public func download(_ path: String) throws(CloudStorageError) -> StorageObject? {
        lock.lock()
        defer { lock.unlock() }
        guard FileManager.default.fileExists(atPath: metadataURL(path).path) else { return nil }
        let metadata = try readMetadata(path)
        guard let bytes = FileManager.default.contents(atPath: url(path).path) else {
            throw CloudStorageError(.unavailable, "\(url(path).path): cannot be read")
        }
        return StorageObject(
            path: path, bytes: bytes, contentType: metadata.contentType, contentEncoding: metadata.contentEncoding,
            customMetadata: metadata.custom, generation: metadata.generation)
    }

    /// Removes the object's files; a missing object is no error.
    public func delete(_ path: String) throws(CloudStorageError) {
        lock.lock()
        defer { lock.unlock() }
        try? FileManager.default.removeItem(at: metadataURL(path))
        try? FileManager.default.removeItem(at: url(path))
    }

    /// How many objects the folder holds.
    public var objectCount: Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".metadata.json") }.count
    }

    private func readMetadata(_ path: String) throws(CloudStorageError) -> (
        contentType: String, contentEncoding: String?, custom: [String: String], generation: Int64
    ) {
        let file = metadataURL(path)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw CloudStorageError(.unavailable, "\(file.path): cannot be read")
        }
        let value: FirestoreValue
        do { value = try CanonicalJSON.decode(data, file: file.path) } catch {
            throw CloudStorageError(.invalid, "\(error)")
        }
        guard case .map(let m) = value, case .string(let type)? = m["contentType"],
            case .integer(let generation)? = m["generation"]
        else { throw CloudStorageError(.invalid, "\(file.path): not a metadata file (contentType, generation)") }
        var custom: [String: String] = [:]
        if case .map(let c)? = m["customMetadata"] {
            for (k, v) in c { if case .string(let s) = v { custom[k] = s } }
        }
        var encoding: String?
        if case .string(let e)? = m["contentEncoding"] { encoding = e }
        return (type, encoding, custom, generation)
    }
}
