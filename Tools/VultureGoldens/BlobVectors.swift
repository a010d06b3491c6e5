import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// Storage object paths, metadata, the size cap and download verification (schema §2 Storage objects).
enum BlobVectors {
    static var file: VectorFile {
        let sha = String(repeating: "0f", count: 32)
        let igc = Data(IdVectors.asciiIGC.utf8)
        let flightId = DocumentIds.flightId(igcBytes: igc)
        let gz = try! Gzip.compress(igc, level: 6)
        var cases: [VectorDefinition] = []
        func add(
            _ id: String, _ op: String, _ input: [String: FirestoreValue], _ note: String, error: String? = nil,
            pins: [SchemaPin] = []
        ) {
            cases.append(
                VectorDefinition(
                    id: "blobs.\(id)", section: "schema §2 Storage objects", op: op, input: .map(input),
                    note: note, expectedError: error, pins: pins))
        }
        add(
            "path.igc", "blob.path", ["kind": .string("igc"), "uid": .string("u1"), "hash": .string(flightId)],
            StorageObjectKind.igc.pathTemplate)
        add(
            "path.content", "blob.path", ["kind": .string("content"), "uid": .string("u1"), "hash": .string(sha)],
            StorageObjectKind.mapFileContent.pathTemplate)
        add(
            "path.upper-case-hash", "blob.path",
            ["kind": .string("igc"), "uid": .string("u1"), "hash": .string(sha.uppercased())],
            "hashes are lowercase hex; another spelling is refused, never lowered", error: "blob.invalid-hash",
            pins: [.storagePathHashes])
        add(
            "path.uid-with-slash", "blob.path",
            ["kind": .string("igc"), "uid": .string("u1/x"), "hash": .string(flightId)], "a uid is one path segment",
            error: "blob.invalid-uid.id.contains-slash", pins: [.storageUid])
        add(
            "metadata.igc", "blob.metadata", ["kind": .string("igc")],
            "contentType \(StorageObjectKind.igc.contentType), no Content-Encoding, no custom metadata")
        add(
            "metadata.content", "blob.metadata", ["kind": .string("content"), "recordId": .string(sha)],
            "a map file's object names its record in the recordId custom metadata")
        add(
            "upload-cap.at-limit", "blob.uploadCheck", ["gzBytes": .integer(SchemaLimits.storageObjectMaxBytes)],
            "32,000,000 bytes is allowed under either reading of 32 MB (decimal or binary)")
        add(
            "upload-cap.over-limit", "blob.uploadCheck", ["gzBytes": .integer(32_000_001)],
            "over 32 MB (pinned decimal: 32,000,000 bytes) is refused before upload", error: "blob.object-too-large",
            pins: [.decimalSizes])
        add(
            "verify.ok", "blob.verify", ["gz": .bytes(gz), "flightId": .string(flightId)],
            "gunzip, then SHA-256 equals the flight id")
        add(
            "verify.wrong-id", "blob.verify", ["gz": .bytes(gz), "flightId": .string(sha)],
            "another file's bytes are discarded", error: "blob.flight-id-mismatch")
        add(
            "verify.truncated", "blob.verify", ["gz": .bytes(gz.prefix(gz.count - 5)), "flightId": .string(flightId)],
            "a truncated stream is an error", error: "gzip.truncated")
        var badCRC = gz
        badCRC[badCRC.count - 6] ^= 0xFF
        add(
            "verify.bad-crc", "blob.verify", ["gz": .bytes(badCRC), "flightId": .string(flightId)],
            "a CRC mismatch is an error", error: "gzip.crc")
        var badLength = gz
        badLength[badLength.count - 1] ^= 0x01
        add(
            "verify.bad-length", "blob.verify", ["gz": .bytes(badLength), "flightId": .string(flightId)],
            "an ISIZE trailer that does not match the data's length is an error (the CRC is right)",
            error: "gzip.length")
        add(
            "verify.trailing-garbage", "blob.verify",
            ["gz": .bytes(gz + Data("junk".utf8)), "flightId": .string(flightId)],
            "bytes after the gzip member are an error", error: "gzip.trailing-garbage", pins: [.gzipRead])
        return VectorFile(area: "blobs", summary: "Storage object paths, metadata and checks", cases: cases)
    }
}
