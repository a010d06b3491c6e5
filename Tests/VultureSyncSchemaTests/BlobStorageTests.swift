import Foundation
import Testing

@testable import VultureSyncSchema

@Suite("Storage objects (schema §2 Storage objects)")
struct BlobStorageTests {
    static let flightId = "6da01ed8043416c685e7887060e49337d8ec88adfecbedef0f6432549a6f869f"

    @Test func objectPaths() throws {
        #expect(
            try BlobPaths.igcObjectPath(uid: "u1X", flightId: Self.flightId)
                == "users/u1X/igc/6da01ed8043416c685e7887060e49337d8ec88adfecbedef0f6432549a6f869f.igc.gz")
        #expect(
            try BlobPaths.contentObjectPath(uid: "u1X", contentHash: Self.flightId)
                == "users/u1X/files/6da01ed8043416c685e7887060e49337d8ec88adfecbedef0f6432549a6f869f.gz")
    }

    /// `isObjectPath` compares piece by piece what `objectPath` would build, and answers false where
    /// `objectPath` throws.
    @Test func isObjectPathAgreesWithTheBuiltPath() throws {
        let igc = try BlobPaths.igcObjectPath(uid: "u1X", flightId: Self.flightId)
        #expect(BlobPaths.isObjectPath(igc, .igc, uid: "u1X", hash: Self.flightId))
        #expect(BlobPaths.isObjectPath(igc, .igc, uid: "u1X", hash: Self.flightId, hashChecked: true))
        let content = try BlobPaths.contentObjectPath(uid: "u1X", contentHash: Self.flightId)
        #expect(BlobPaths.isObjectPath(content, .mapFileContent, uid: "u1X", hash: Self.flightId))
        #expect(!BlobPaths.isObjectPath(content, .igc, uid: "u1X", hash: Self.flightId))
        for wrong in [
            String(igc.dropLast()), igc + "x", igc + "/", "/" + igc, String(igc.dropFirst(6)),
            igc.replacingOccurrences(of: "u1X", with: "u1x"), igc.uppercased(), "",
        ] {
            #expect(!BlobPaths.isObjectPath(wrong, .igc, uid: "u1X", hash: Self.flightId), "\(wrong)")
        }
        // Where objectPath throws: an invalid uid, a hash that is not 64 lowercase hex characters.
        #expect(!BlobPaths.isObjectPath("users/../igc/\(Self.flightId).igc.gz", .igc, uid: "..", hash: Self.flightId))
        let upper = Self.flightId.uppercased()
        #expect(!BlobPaths.isObjectPath("users/u1X/igc/\(upper).igc.gz", .igc, uid: "u1X", hash: upper))
    }

    @Test(arguments: [
        ("", BlobError.invalidUid(.empty)),
        ("a/b", .invalidUid(.containsSlash)),
        ("..", .invalidUid(.dotSegment)),
        ("__uid__", .invalidUid(.reserved)),
        (String(repeating: "u", count: 129), .invalidUid(.uidTooLong(byteCount: 129))),
    ])
    func invalidUidsAreRefused(uid: String, error: BlobError) {
        #expect(throws: error) { try BlobPaths.igcObjectPath(uid: uid, flightId: Self.flightId) }
        #expect(throws: error) { try BlobPaths.contentObjectPath(uid: uid, contentHash: Self.flightId) }
    }

    @Test(arguments: [
        "", "abc", String(repeating: "A", count: 64), String(repeating: "g", count: 64),
        String(repeating: "a", count: 65), "../" + String(repeating: "a", count: 61),
    ])
    func invalidHashesAreRefused(hash: String) {
        #expect(throws: BlobError.invalidHash(value: hash)) { try BlobPaths.igcObjectPath(uid: "u", flightId: hash) }
        #expect(throws: BlobError.invalidHash(value: hash)) {
            try BlobPaths.contentObjectPath(uid: "u", contentHash: hash)
        }
    }

    @Test func metadataIsGzipWithoutContentEncoding() throws {
        #expect(StorageObjectMetadata.igc.contentType == "application/gzip")
        #expect(StorageObjectMetadata.igc.contentEncoding == nil)
        #expect(StorageObjectMetadata.igc.customMetadata.isEmpty)
        let m = try StorageObjectMetadata.mapFileContent(
            recordId: "975081902730569c73c63590179edf94f525c1754e63f7510dbb5e76b1e1e854")
        #expect(m.contentType == "application/gzip")
        #expect(m.contentEncoding == nil)
        #expect(m.customMetadata == ["recordId": "975081902730569c73c63590179edf94f525c1754e63f7510dbb5e76b1e1e854"])
        #expect(throws: DocumentIdError.containsSlash) { try StorageObjectMetadata.mapFileContent(recordId: "a/b") }
    }

    @Test(arguments: [(Int64(0), true), (32_000_000, true), (32_000_001, false), (33_554_432, false)])
    func uploadSizeLimitPin(gzBytes: Int64, accepted: Bool) {
        if accepted {
            #expect(throws: Never.self) { try StorageLimits.checkUploadSize(gzBytes: gzBytes) }
        } else {
            #expect(throws: BlobError.objectTooLarge(byteCount: gzBytes, limit: 32_000_000)) {
                try StorageLimits.checkUploadSize(gzBytes: gzBytes)
            }
        }
    }

    @Test func downloadVerificationChecksTheFlightId() throws {
        let igc = Data("AXCSAAA\r\nHFDTE081116\r\nB1200004612345N00612345EA0123401234\r\n".utf8)
        let id = DocumentIds.flightId(igcBytes: igc)
        let gz = try Gzip.compress(igc)
        #expect(try IGCDownload.verify(gzipped: gz, flightId: id) == igc)
        let other = try Gzip.compress(igc + Data("x".utf8))
        #expect(
            throws: BlobError.flightIdMismatch(
                expected: id, actual: DocumentIds.flightId(igcBytes: igc + Data("x".utf8)))
        ) {
            try IGCDownload.verify(gzipped: other, flightId: id)
        }
        #expect(throws: BlobError.gzip(.truncated(offset: Int64(gz.count - 1)))) {
            try IGCDownload.verify(gzipped: gz.prefix(gz.count - 1), flightId: id)
        }
        #expect(throws: BlobError.invalidHash(value: "nope")) { try IGCDownload.verify(gzipped: gz, flightId: "nope") }
    }

    @Test func downloadVerificationStopsAGzipBombAtTheRawImportCap() throws {
        let compressor = try GzipCompressor(level: 9)
        var bomb = Data()
        let zeros = Data(count: 1 << 20)
        for _ in 0..<65 { compressor.compress(zeros) { bomb.append(contentsOf: $0) } }
        compressor.finish { bomb.append(contentsOf: $0) }
        #expect {
            try IGCDownload.verify(gzipped: bomb, flightId: Self.flightId)
        } throws: { error in
            guard case .gzip(.outputLimitExceeded(let limit, _)) = error as? BlobError else { return false }
            return limit == 64 * 1024 * 1024
        }
    }

    @Test func fileDownloadVerificationRemovesBadOutput() throws {
        let dir = try IdsTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let igc = IdsTestSupport.pseudoRandomBytes(count: 100_000)
        let gzPath = dir.appendingPathComponent("o.igc.gz").path
        let out = dir.appendingPathComponent("o.igc").path
        try Gzip.compress(igc).write(to: URL(fileURLWithPath: gzPath))
        try IGCDownload.verifyFile(at: gzPath, to: out, flightId: DocumentIds.flightId(igcBytes: igc))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == igc)
        #expect(
            throws: BlobError.flightIdMismatch(expected: Self.flightId, actual: DocumentIds.flightId(igcBytes: igc))
        ) {
            try IGCDownload.verifyFile(at: gzPath, to: out, flightId: Self.flightId)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func blobMapsAreBuiltFromTheBytes() throws {
        let igc = Data(repeating: UInt8(ascii: "B"), count: 10_000)
        let (map, gz) = try IGCBlob.build(uid: "uid1", igcBytes: igc)
        let id = DocumentIds.flightId(igcBytes: igc)
        #expect(
            map
                == IGCBlob(
                    path: "users/uid1/igc/\(id).igc.gz", sizeBytes: 10_000, gzBytes: Int64(gz.count), sha256: id,
                    uploaded: false))
        #expect(try Gzip.decompress(gz) == igc)

        let content = Data("name,code,country\n\"Spa\",SPA,BE\n".utf8)
        let (cmap, hash, cgz) = try ContentBlob.build(uid: "uid1", contentBytes: content)
        #expect(hash == SHA256Stream.hexDigest(of: content))
        #expect(
            cmap
                == ContentBlob(
                    path: "users/uid1/files/\(hash).gz", sizeBytes: Int64(content.count), gzBytes: Int64(cgz.count),
                    uploaded: false))
        #expect(throws: BlobError.invalidUid(.containsSlash)) { try IGCBlob.build(uid: "a/b", igcBytes: igc) }
    }
}
