import Foundation

extension IGCBlob {
    /// Builds a flight's `igc` map and its gzip object from the IGC bytes, `uploaded` false
    /// (schema §2 flights, §5.1: reserve, upload, then mark uploaded).
    /// `level` is zlib's (6, `gzip -6`, unless a writer chooses otherwise: Spec/pins.tsv `gzipWritten`).
    /// - Returns: the map and the gzipped bytes to upload.
    /// - Throws: ``BlobError/invalidUid(_:)``; ``BlobError/gzip(_:)`` if zlib fails.
    public static func build<D: DataProtocol>(uid: String, igcBytes: D, level: Int32 = 6) throws(BlobError) -> (
        map: IGCBlob, gzipped: Data
    ) {
        let flightId = DocumentIds.flightId(igcBytes: igcBytes)
        let path = try BlobPaths.igcObjectPath(uid: uid, flightId: flightId)
        let gz: Data
        do { gz = try Gzip.compress(igcBytes, level: level) } catch { throw .gzip(error) }
        let map = IGCBlob(
            path: path, sizeBytes: Int64(igcBytes.count), gzBytes: Int64(gz.count), sha256: flightId, uploaded: false)
        return (map, gz)
    }
}

extension ContentBlob {
    /// Builds a map file's `content` map, its content hash and its gzip object from the content
    /// bytes, `uploaded` false (schema §2 mapFiles, §5.1).
    /// `level` is zlib's, as for ``IGCBlob/build(uid:igcBytes:level:)``.
    /// - Returns: the map, the content hash (64 lowercase hex) and the gzipped bytes to upload.
    /// - Throws: ``BlobError/invalidUid(_:)``; ``BlobError/gzip(_:)`` if zlib fails.
    public static func build<D: DataProtocol>(
        uid: String, contentBytes: D, level: Int32 = 6
    ) throws(BlobError) -> (map: ContentBlob, contentHash: String, gzipped: Data) {
        let hash = DocumentIds.contentHash(contentBytes: contentBytes)
        let path = try BlobPaths.contentObjectPath(uid: uid, contentHash: hash)
        let gz: Data
        do { gz = try Gzip.compress(contentBytes, level: level) } catch { throw .gzip(error) }
        return (
            ContentBlob(path: path, sizeBytes: Int64(contentBytes.count), gzBytes: Int64(gz.count), uploaded: false),
            hash, gz
        )
    }
}
