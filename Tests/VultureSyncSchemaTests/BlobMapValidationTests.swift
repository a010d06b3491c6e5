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
}
