import Foundation

extension IGCBlob {
    /// Builds a flight's `igc` map and its gzip object from the IGC bytes, `uploaded` false
    /// (schema §2 flights, §5.1: reserve, upload, then mark uploaded).
    /// - Returns: the map and the gzipped bytes to upload.
    /// - Throws: ``BlobError/invalidUid(_:)``; ``BlobError/gzip(_:)`` if zlib fails.
    public static func build<D: DataProtocol>(uid: String, igcBytes: D) throws(BlobError) -> (
        map: IGCBlob, gzipped: Data
    ) {
        let flightId = DocumentIds.flightId(igcBytes: igcBytes)
        let path = try BlobPaths.igcObjectPath(uid: uid, flightId: flightId)
        let gz: Data
        do { gz = try Gzip.compress(igcBytes) } catch { throw .gzip(error) }
        let map = IGCBlob(
            path: path, sizeBytes: Int64(igcBytes.count), gzBytes: Int64(gz.count), sha256: flightId, uploaded: false)
        return (map, gz)
    }
}

extension ContentBlob {
    /// Builds a map file's `content` map, its content hash and its gzip object from the content
    /// bytes, `uploaded` false (schema §2 mapFiles, §5.1).
    /// - Returns: the map, the content hash (64 lowercase hex) and the gzipped bytes to upload.
    /// - Throws: ``BlobError/invalidUid(_:)``; ``BlobError/gzip(_:)`` if zlib fails.
    public static func build<D: DataProtocol>(
        uid: String, contentBytes: D
    ) throws(BlobError) -> (map: ContentBlob, contentHash: String, gzipped: Data) {
        let hash = DocumentIds.contentHash(contentBytes: contentBytes)
        let path = try BlobPaths.contentObjectPath(uid: uid, contentHash: hash)
        let gz: Data
        do { gz = try Gzip.compress(contentBytes) } catch { throw .gzip(error) }
        return (
            ContentBlob(path: path, sizeBytes: Int64(contentBytes.count), gzBytes: Int64(gz.count), uploaded: false),
            hash, gz
        )
    }
}
