import Foundation

/// A flight's `igc` map `{ path, sizeBytes, gzBytes, sha256, uploaded }` (schema §2 flights, §5.1).
public struct IGCBlobMap: Equatable, Sendable {
    /// `users/{uid}/igc/{flightId}.igc.gz`.
    public var path: String
    /// Size of the raw IGC file in bytes.
    public var sizeBytes: Int64
    /// Size of the gzipped object in bytes (what storageBytes counts, schema §6).
    public var gzBytes: Int64
    /// SHA-256 of the raw IGC bytes, 64 lowercase hex (= the flight id).
    public var sha256: String
    /// Whether the object has been uploaded; false when built (reserve, upload, then mark uploaded).
    public var uploaded: Bool

    /// Memberwise (e.g. for a map read back from a document); see ``build(uid:igcBytes:)`` to make one from bytes.
    public init(path: String, sizeBytes: Int64, gzBytes: Int64, sha256: String, uploaded: Bool) {
        self.path = path
        self.sizeBytes = sizeBytes
        self.gzBytes = gzBytes
        self.sha256 = sha256
        self.uploaded = uploaded
    }

    /// Builds the map and the gzip object from a flight's IGC bytes (uploaded = false).
    /// - Returns: the map and the gzipped bytes to upload.
    /// - Throws: ``BlobError/invalidUid(_:)``; ``BlobError/gzip(_:)`` if zlib fails.
    public static func build<D: DataProtocol>(uid: String, igcBytes: D) throws(BlobError) -> (
        map: IGCBlobMap, gzipped: Data
    ) {
        let flightId = DocumentIds.flightId(igcBytes: igcBytes)
        let path = try BlobPaths.igcObjectPath(uid: uid, flightId: flightId)
        let gz: Data
        do { gz = try Gzip.compress(igcBytes) } catch { throw .gzip(error) }
        let map = IGCBlobMap(
            path: path, sizeBytes: Int64(igcBytes.count), gzBytes: Int64(gz.count), sha256: flightId, uploaded: false)
        return (map, gz)
    }
}

/// A map file's `content` map `{ path, sizeBytes, gzBytes, uploaded }` (schema §2 mapFiles, §5.1).
public struct ContentBlobMap: Equatable, Sendable {
    /// `users/{uid}/files/{contentHash}.gz`.
    public var path: String
    /// Size of the raw content in bytes.
    public var sizeBytes: Int64
    /// Size of the gzipped object in bytes.
    public var gzBytes: Int64
    /// Whether the object has been uploaded; false when built.
    public var uploaded: Bool

    /// Memberwise (e.g. for a map read back from a document); see ``build(uid:contentBytes:)`` to make one from bytes.
    public init(path: String, sizeBytes: Int64, gzBytes: Int64, uploaded: Bool) {
        self.path = path
        self.sizeBytes = sizeBytes
        self.gzBytes = gzBytes
        self.uploaded = uploaded
    }

    /// Builds the map, the content hash and the gzip object from a map file's content bytes (uploaded = false).
    /// - Returns: the map, the content hash (64 lowercase hex) and the gzipped bytes to upload.
    /// - Throws: ``BlobError/invalidUid(_:)``; ``BlobError/gzip(_:)`` if zlib fails.
    public static func build<D: DataProtocol>(
        uid: String, contentBytes: D
    ) throws(BlobError) -> (map: ContentBlobMap, contentHash: String, gzipped: Data) {
        let hash = DocumentIds.contentHash(contentBytes: contentBytes)
        let path = try BlobPaths.contentObjectPath(uid: uid, contentHash: hash)
        let gz: Data
        do { gz = try Gzip.compress(contentBytes) } catch { throw .gzip(error) }
        return (
            ContentBlobMap(path: path, sizeBytes: Int64(contentBytes.count), gzBytes: Int64(gz.count), uploaded: false),
            hash, gz
        )
    }
}
