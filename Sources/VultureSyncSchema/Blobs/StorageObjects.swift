import Foundation

/// Why a Cloud Storage object (path, upload or download) was refused (schema §2, Storage objects).
public enum BlobError: Error, Equatable, Sendable {
    /// The uid is not a valid path segment (``DocumentIdError`` says which rule).
    case invalidUid(DocumentIdError)
    /// A flight id or content hash is not 64 lowercase hex characters.
    case invalidHash(value: String)
    /// The gzipped object is `byteCount` bytes, over the per-object limit `limit` (refused before upload).
    case objectTooLarge(byteCount: Int64, limit: Int64)
    /// The gunzipped IGC's SHA-256 is `actual`, not the flight id `expected`; the bytes were discarded.
    case flightIdMismatch(expected: String, actual: String)
    /// The downloaded object is not a valid gzip stream, or exceeds the raw-import cap.
    case gzip(GzipError)
}

/// Cloud Storage object paths (schema §2, Cloud Storage layout; `Spec/blobs.tsv` path templates).
public enum BlobPaths {
    /// Firebase Auth's maximum uid length in bytes.
    public static let maximumUidBytes = 128

    /// Checks a Firebase Auth uid used as a path segment: the document-id rules plus ≤ 128 bytes.
    /// - Throws: ``BlobError/invalidUid(_:)``.
    public static func validate(uid: String) throws(BlobError) {
        do { try DocumentIds.validate(documentId: uid) } catch { throw .invalidUid(error) }
        if uid.utf8.count > maximumUidBytes { throw .invalidUid(.uidTooLong(byteCount: uid.utf8.count)) }
    }

    /// The object path of `kind` for `uid` and the object's hash: the kind's path template with
    /// `{uid}` and its other placeholder (`{flightId}`, `{contentHash}`) filled.
    /// - Throws: ``BlobError/invalidUid(_:)``, ``BlobError/invalidHash(value:)``.
    public static func objectPath(_ kind: StorageObjectKind, uid: String, hash: String) throws(BlobError) -> String {
        try validate(uid: uid)
        guard DocumentIds.isLowercaseHexSHA256(hash) else { throw .invalidHash(value: hash) }
        let parts = templateParts[kind] ?? []
        var out = ""
        out.reserveCapacity(kind.pathTemplate.utf8.count + uid.utf8.count + hash.utf8.count)
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .uid: out += uid
            case .hash: out += hash
            }
        }
        return out
    }

    /// Whether `path` is ``objectPath(_:uid:hash:)`` of these values, compared piece by piece without
    /// building it (a validator asks this of every document with a blob map); false where that throws.
    /// `hashChecked`: the caller has checked that `hash` is 64 lowercase hex characters.
    public static func isObjectPath(
        _ path: String, _ kind: StorageObjectKind, uid: String, hash: String, hashChecked: Bool = false
    ) -> Bool {
        guard (try? validate(uid: uid)) != nil, hashChecked || DocumentIds.isLowercaseHexSHA256(hash) else {
            return false
        }
        var path = path
        return path.withUTF8 { bytes in
            var offset = 0
            for part in templateParts[kind] ?? [] {
                var piece =
                    switch part {
                    case .text(let text): text
                    case .uid: uid
                    case .hash: hash
                    }
                let matches = piece.withUTF8 { wanted in
                    guard bytes.count - offset >= wanted.count else { return false }
                    guard let p = bytes.baseAddress, let q = wanted.baseAddress else { return true }
                    return memcmp(p + offset, q, wanted.count) == 0
                }
                guard matches else { return false }
                offset += piece.utf8.count
            }
            return offset == bytes.count
        }
    }

    /// A piece of a path template: literal text, `{uid}`, or the other placeholder.
    private enum TemplatePart: Sendable {
        case text(String)
        case uid
        case hash
    }

    /// Each kind's path template in pieces, parsed once (an engine asks for an object path several
    /// times per record and push).
    private static let templateParts: [StorageObjectKind: [TemplatePart]] = Dictionary(
        uniqueKeysWithValues: StorageObjectKind.allCases.map { kind in
            var parts: [TemplatePart] = []
            var rest = Substring(kind.pathTemplate)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
                parts.append(rest[rest.index(after: open)..<close] == "uid" ? .uid : .hash)
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { parts.append(.text(String(rest))) }
            return (kind, parts)
        })

    /// `users/{uid}/igc/{flightId}.igc.gz`, the flight's gzipped IGC file.
    /// - Throws: ``BlobError/invalidUid(_:)``, ``BlobError/invalidHash(value:)``.
    public static func igcObjectPath(uid: String, flightId: String) throws(BlobError) -> String {
        try objectPath(.igc, uid: uid, hash: flightId)
    }

    /// `users/{uid}/files/{contentHash}.gz`, a map file's gzipped content, shared by every
    /// mapFiles document with that hash.
    /// - Throws: ``BlobError/invalidUid(_:)``, ``BlobError/invalidHash(value:)``.
    public static func contentObjectPath(uid: String, contentHash: String) throws(BlobError) -> String {
        try objectPath(.mapFileContent, uid: uid, hash: contentHash)
    }
}

/// The metadata a Storage object is uploaded with (schema §2, Storage objects; `Spec/blobs.tsv`).
///
/// The kind's content type (`application/gzip`) and Content-Encoding (none, so no client or proxy
/// transcodes the object); a map file's content object carries the custom metadata `recordId` (the
/// mapFiles document id), because its path holds only the content hash.
public struct StorageObjectMetadata: Equatable, Sendable {
    /// The kind's content type.
    public let contentType: String
    /// The kind's Content-Encoding; nil: not set (the app gunzips itself).
    public let contentEncoding: String?
    /// Custom metadata: empty for an IGC object, `["recordId": fileId]` for a map file's content.
    public let customMetadata: [String: String]

    /// Metadata of an object of `kind` with its custom metadata values.
    init(_ kind: StorageObjectKind, customMetadata: [String: String]) {
        contentType = kind.contentType
        contentEncoding = kind.contentEncoding
        self.customMetadata = customMetadata
    }

    /// Metadata of `users/{uid}/igc/{flightId}.igc.gz`.
    public static let igc = StorageObjectMetadata(.igc, customMetadata: [:])

    /// Metadata of `users/{uid}/files/{contentHash}.gz` for the mapFiles document `recordId`.
    /// - Throws: ``DocumentIdError`` when `recordId` is not a valid document id.
    public static func mapFileContent(recordId: String) throws(DocumentIdError) -> StorageObjectMetadata {
        try DocumentIds.validate(documentId: recordId)
        let keys = StorageObjectKind.mapFileContent.customMetadataKeys
        return StorageObjectMetadata(
            .mapFileContent, customMetadata: Dictionary(uniqueKeysWithValues: keys.map { ($0, recordId) }))
    }
}

/// Size limits of Storage objects (schema §2 Storage objects, §3; `Spec/limits.tsv`).
public enum StorageLimits {
    /// Largest gzipped object accepted for upload, in bytes (`storageObjectMaxBytes`).
    ///
    /// **Pin** (`Spec/pins.tsv` decimalSizes): the seed says "≤ 32 MB"; decimal MB, the stricter
    /// reading: an object this check accepts is accepted by the rule whichever unit the rule uses.
    public static let maximumObjectBytes: Int64 = SchemaLimits.storageObjectMaxBytes

    /// The raw IGC import cap, 64 MiB (`igcImportMaxRawBytes`): gunzip stops past it.
    public static let maximumRawIGCBytes: Int64 = SchemaLimits.igcImportMaxRawBytes

    /// Refuses an object before upload when its gzipped size is over ``maximumObjectBytes``.
    /// - Throws: ``BlobError/objectTooLarge(byteCount:limit:)``.
    public static func checkUploadSize(gzBytes: Int64) throws(BlobError) {
        if gzBytes > maximumObjectBytes { throw .objectTooLarge(byteCount: gzBytes, limit: maximumObjectBytes) }
    }
}

/// Download verification of an IGC object (schema §2, Storage objects).
public enum IGCDownload {
    /// Gunzips a downloaded IGC object (at most 64 MiB of output) and checks that the SHA-256 of
    /// the result equals `flightId`. Returns the IGC bytes.
    /// - Throws: ``BlobError/gzip(_:)`` for a broken stream or past the raw-import cap (decompression
    ///   stops there, so a gzip bomb never exhausts memory); ``BlobError/flightIdMismatch(expected:actual:)``
    ///   when the hash differs (the bytes are discarded); ``BlobError/invalidHash(value:)`` for a malformed id.
    public static func verify<D: DataProtocol>(gzipped: D, flightId: String) throws(BlobError) -> Data {
        guard DocumentIds.isLowercaseHexSHA256(flightId) else { throw .invalidHash(value: flightId) }
        let decompressor: GzipDecompressor
        do { decompressor = try GzipDecompressor(maximumOutputBytes: StorageLimits.maximumRawIGCBytes) } catch {
            throw .gzip(error)
        }
        let hasher = SHA256Stream()
        var raw = Data()
        do {
            try decompressor.decompress(gzipped) { chunk in
                hasher.update(chunk)
                raw.append(contentsOf: chunk)
            }
            try decompressor.finish()
        } catch {
            throw .gzip(error as! GzipError)
        }
        let actual = hasher.finalizeHex()
        guard actual == flightId else { throw .flightIdMismatch(expected: flightId, actual: actual) }
        return raw
    }

    /// Streaming variant: gunzips the object file at `source` into `destination` (64 KiB chunks,
    /// flat memory) and checks the flight id; on any error `destination` is removed.
    /// - Throws: as ``verify(gzipped:flightId:)``; I/O failures as ``BlobError/gzip(_:)`` with ``GzipError/file(_:)``.
    public static func verifyFile(at source: String, to destination: String, flightId: String) throws(BlobError) {
        guard DocumentIds.isLowercaseHexSHA256(flightId) else { throw .invalidHash(value: flightId) }
        do {
            try Gzip.decompressFile(at: source, to: destination, maximumOutputBytes: StorageLimits.maximumRawIGCBytes)
        } catch { throw .gzip(error) }
        let actual: String
        do { actual = try SHA256Stream.hexDigest(ofFileAt: destination) } catch {
            unlink(destination)
            throw .gzip(.file(error))
        }
        guard actual == flightId else {
            unlink(destination)
            throw .flightIdMismatch(expected: flightId, actual: actual)
        }
    }
}

extension BlobError: CustomStringConvertible {
    /// A one-line message naming the rule broken.
    public var description: String {
        switch self {
        case .invalidUid(let e): return "invalid uid: \(e)"
        case .invalidHash(let v): return "'\(v)' is not a SHA-256 written as 64 lowercase hex characters"
        case .objectTooLarge(let n, let l): return "object is \(n) bytes gzipped, over the \(l)-byte limit"
        case .flightIdMismatch(let e, let a): return "downloaded IGC hashes to \(a), not the flight id \(e); discarded"
        case .gzip(let e): return e.description
        }
    }
}
