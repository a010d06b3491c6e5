import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// The validator's checks of a flight's `igc` map and a map file's `content` map (schema §2 Storage
/// objects; `Spec/blobs.tsv`, `Spec/limits.tsv`), over the golden documents with one value changed.
@Suite struct BlobMapValidationTests {
    static let validator = SchemaValidator(schema: .vulture)

    /// A golden document's stored form and path (`Goldens/schema/NAME.android.json`).
    static func golden(_ name: String) throws -> (path: String, fields: [String: FirestoreValue]) {
        let url = IdsTestSupport.packageRoot.appendingPathComponent("Goldens/schema/\(name).android.json")
        let golden = try CanonicalJSON.decode(Data(contentsOf: url))
        guard case .string(let path)? = golden[fieldPath: "path"] else { throw CocoaError(.fileReadCorruptFile) }
        return (path, try #require(golden[fieldPath: "stored"]?.mapValue))
    }

    /// `fields` with `map.key` set to `value`.
    static func setting(
        _ fields: [String: FirestoreValue], _ map: String, _ key: String, _ value: FirestoreValue
    ) -> [String: FirestoreValue] {
        var out = fields
        var m = out[map]?.mapValue ?? [:]
        m[key] = value
        out[map] = .map(m)
        return out
    }

    /// The findings of a stored document, as `POINTER: RULE: message`.
    static func findings(_ fields: [String: FirestoreValue], _ type: String) -> [String] {
        validator.validate(fields, documentType: type, options: ValidationOptions(form: .stored)).map {
            "\($0.pointer): \($0.rule): \($0.message)"
        }
    }

    @Test func gzBytesIsAtMostTheLargestStorageObject() throws {
        let flight = try Self.golden("flight").fields
        #expect(Self.findings(Self.setting(flight, "igc", "gzBytes", .integer(32_000_000)), "FlightDocument") == [])
        #expect(
            Self.findings(Self.setting(flight, "igc", "gzBytes", .integer(32_000_001)), "FlightDocument") == [
                "/igc/gzBytes: schema.range: IGCBlob.gzBytes is 32000001; at most 32000000"
            ])
        let mapFile = try Self.golden("mapFile").fields
        #expect(
            Self.findings(Self.setting(mapFile, "content", "gzBytes", .integer(32_000_000)), "MapFileDocument") == [])
        #expect(
            Self.findings(Self.setting(mapFile, "content", "gzBytes", .integer(33_554_433)), "MapFileDocument") == [
                "/content/gzBytes: schema.range: ContentBlob.gzBytes is 33554433; at most 32000000"
            ])
    }

    @Test func igcSizeBytesIsAtMostTheImportCapAndContentHasNone() throws {
        let flight = try Self.golden("flight").fields
        #expect(Self.findings(Self.setting(flight, "igc", "sizeBytes", .integer(67_108_864)), "FlightDocument") == [])
        #expect(
            Self.findings(Self.setting(flight, "igc", "sizeBytes", .integer(67_108_865)), "FlightDocument") == [
                "/igc/sizeBytes: schema.range: IGCBlob.sizeBytes is 67108865; at most 67108864"
            ])
        // The seed caps only IGC imports (schema §2 Storage objects): a map file's raw size has no cap.
        let mapFile = try Self.golden("mapFile").fields
        #expect(
            Self.findings(Self.setting(mapFile, "content", "sizeBytes", .integer(500_000_000)), "MapFileDocument")
                == [])
    }

    static let uid = "Yx3v9QmT2hPZ0aLk7sWc1bN4dR8e"
    static let flightId = "62a3995ee8df49fd9ca474b9bc8ae7038f79a714d6edd2be53f50e7bbea62b36"
    static let contentHash = "3c5e0a1f9b7d2c4e6a8f0b1d3c5e7a9f1b3d5c7e9a0b2d4f6a8c0e2b4d6f8a0c"

    @Test(arguments: [
        "igc/\(flightId).igc.gz",  // no users/{uid}/ prefix
        "users/\(uid)/igc/\(flightId).igc",  // not gzipped
        "users/\(uid)/igc/\(flightId.uppercased()).igc.gz",  // an upper-case hash
        "users/\(uid)/igc/\(String(repeating: "0", count: 64)).igc.gz",  // another flight's id
        "users/\(uid)/files/\(flightId).gz",  // a map file's folder
        "users/a/b/igc/\(flightId).igc.gz",  // a uid of two segments
        "users/../igc/\(flightId).igc.gz",  // not a uid
        "",
    ])
    func igcPathIsTheFlightsObject(_ path: String) throws {
        let flight = try Self.golden("flight").fields
        #expect(
            Self.findings(Self.setting(flight, "igc", "path", .string(path)), "FlightDocument") == [
                "/igc/path: schema.storage-path: IGCBlob.path is \"\(path)\"; expected users/{uid}/igc/\(Self.flightId).igc.gz: "
                    + "the Storage path users/{uid}/igc/{flightId}.igc.gz (schema §2 Storage objects) with {uid} a "
                    + "Firebase Auth uid, {flightId} the document's id, igc.sha256 (the flight id is the SHA-256 of "
                    + "the IGC file)"
            ])
        // The same path under any valid uid is the flight's object while the document's path is unknown.
        let anyUid = Self.setting(flight, "igc", "path", .string("users/u2/igc/\(Self.flightId).igc.gz"))
        #expect(Self.findings(anyUid, "FlightDocument") == [])
    }

    @Test func contentPathIsTheContentHashsObject() throws {
        let mapFile = try Self.golden("mapFile").fields
        let other = String(repeating: "ab", count: 32)
        let path = "users/\(Self.uid)/files/\(other).gz"
        #expect(
            Self.findings(Self.setting(mapFile, "content", "path", .string(path)), "MapFileDocument") == [
                "/content/path: schema.storage-path: ContentBlob.path is \"\(path)\"; expected "
                    + "users/{uid}/files/\(Self.contentHash).gz: the Storage path users/{uid}/files/{contentHash}.gz "
                    + "(schema §2 Storage objects) with {uid} a Firebase Auth uid, {contentHash} the document's "
                    + "contentHash"
            ])
        // contentHash null (unknown): any 64 lowercase hex characters, never an upper-case one.
        var unknown = Self.setting(mapFile, "content", "path", .string(path))
        unknown["contentHash"] = .null
        #expect(Self.findings(unknown, "MapFileDocument") == [])
        unknown = Self.setting(unknown, "content", "path", .string("users/\(Self.uid)/files/\(other.uppercased()).gz"))
        #expect(
            Self.findings(unknown, "MapFileDocument").map { String($0.prefix(34)) } == [
                "/content/path: schema.storage-path"
            ])
    }

    @Test func aKnownDocumentPathFixesTheUidAndId() throws {
        let (path, flight) = try Self.golden("flight")
        let v = Self.validator
        #expect(v.pathViolations(path: path, fields: flight).violations == [])
        // The document of another user: the object path names this document's uid.
        let moved = "users/u2/flights/\(Self.flightId)"
        #expect(
            v.pathViolations(path: moved, fields: flight).violations.map { "\($0.pointer): \($0.rule): \($0.message)" }
                == [
                    "/igc/path: schema.storage-path: IGCBlob.path is \"users/\(Self.uid)/igc/\(Self.flightId).igc.gz\"; "
                        + "expected users/u2/igc/\(Self.flightId).igc.gz: the Storage path "
                        + "users/{uid}/igc/{flightId}.igc.gz (schema §2 Storage objects) with {uid} this document's "
                        + "uid, {flightId} this document's id"
                ])
        // A wrong path validate already reports is not reported again by the path check.
        let wrong = Self.setting(flight, "igc", "path", .string("igc/x.igc.gz"))
        #expect(v.pathViolations(path: path, fields: wrong).violations == [])
        #expect(Self.findings(wrong, "FlightDocument").count == 1)
        // A map file's content path under another uid.
        let (mapPath, mapFile) = try Self.golden("mapFile")
        #expect(v.pathViolations(path: mapPath, fields: mapFile).violations == [])
        #expect(
            v.pathViolations(path: mapPath.replacingOccurrences(of: Self.uid, with: "u2"), fields: mapFile).violations
                .map { "\($0.pointer): \($0.rule)" } == ["/content/path: schema.storage-path"])
        // A tombstone has no blob map.
        #expect(v.storagePathViolations(["deleted": .boolean(true)], documentType: "FlightDocument") == [])
    }

    @Test func aTaskWithoutExternalUrlHasALowercaseUUID() throws {
        let v = Self.validator
        let task: [String: FirestoreValue] = ["externalUrl": .null, "name": .string("Omarama 300")]
        #expect(
            v.pathViolations(path: "users/u1/tasks/6f9619ff-8b86-d011-b42d-00c04fc964ff", fields: task).violations == []
        )
        #expect(
            v.pathViolations(
                path: "users/u1/tasks/6f9619ff-8b86-d011-b42d-00c04fc964ff", fields: ["externalUrl": .string("")]
            )
            .violations == [])
        for id in ["6F9619FF-8B86-D011-B42D-00C04FC964FF", "6f9619ff8b86d011b42d00c04fc964ff", "task-1"] {
            #expect(
                v.pathViolations(path: "users/u1/tasks/\(id)", fields: task).violations.map {
                    "\($0.pointer): \($0.rule): \($0.message)"
                } == [
                    ": schema.document-id: the document id is \(id); a task without externalUrl has a random UUID "
                        + "written lowercase 8-4-4-4-12 (schema §4 says \"a random UUID string\"; the form is pinned "
                        + "taskRandomId, a choice)"
                ])
        }
        // A tombstone keeps its id whatever it is; a task with externalUrl has the id its hash gives.
        #expect(v.pathViolations(path: "users/u1/tasks/task-1", fields: ["deleted": .boolean(true)]).violations == [])
        #expect(
            v.pathViolations(path: "users/u1/tasks/task-1", fields: ["externalUrl": .string("https://x")]).violations
                .map(\.rule) == ["schema.document-id"])
        #expect(SchemaValidator.isLowercaseUUID("00000000-0000-0000-0000-000000000000"))
        #expect(!SchemaValidator.isLowercaseUUID("00000000-0000-0000-0000-00000000000g"))
    }

    @Test func aMaskedWriteOfABlobMapNamesThisDocumentsObject() throws {
        let id = Self.flightId
        func found(_ path: String) throws -> [WriteViolation] {
            let igc: FirestoreValue = .map([
                "path": .string(path), "sizeBytes": .integer(5_000), "gzBytes": .integer(1_000), "sha256": .string(id),
                "uploaded": .boolean(false),
            ])
            let write = try FirestoreWrite(
                path: "users/u1/flights/\(id)", fields: ["igc": igc], mask: [FieldPath(["igc"])])
            // The write lacks the common fields (schema.missing-field at /mask): only the path is looked at here.
            return Self.validator.validate(write: write).filter { $0.violation.rule == "schema.storage-path" }
        }
        #expect(try found("users/u1/igc/\(id).igc.gz").isEmpty)
        let other = try found("users/u2/igc/\(id).igc.gz")
        #expect(
            other.map { "\($0.violation.pointer): \($0.violation.message)" } == [
                "/fields/igc/path: IGCBlob.path is \"users/u2/igc/\(id).igc.gz\"; expected users/u1/igc/\(id).igc.gz: "
                    + "the Storage path users/{uid}/igc/{flightId}.igc.gz (schema §2 Storage objects) with {uid} this "
                    + "document's uid, {flightId} this document's id"
            ])
        #expect(other.first?.place == .field("/igc/path"))
    }
}
