import Foundation
import Testing
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// The document goldens are valid documents by the schema tables and by the generated codecs.
@Suite struct DocumentGoldenTests {
    /// Every document golden, as written by each platform (`flight.android`, `flight.ios`, …).
    static let names = [
        "flight", "task", "mapFile", "homebase", "recentCompetition", "settings", "profile", "tombstone",
    ].flatMap { ["\($0).android", "\($0).ios"] }

    static func golden(_ name: String) throws -> [String: FirestoreValue] {
        let url = GoldenSuite.defaultRoot.appendingPathComponent("schema/\(name).json")
        return try CanonicalJSON.decode(Data(contentsOf: url), file: url.path).mapValue ?? [:]
    }

    @Test(arguments: names)
    func bothFormsAreValid(_ name: String) throws {
        let g = try Self.golden(name)
        guard case .string(let collection)? = g["collection"], let c = SyncSchema.vulture.collection(named: collection)
        else {
            Issue.record("\(name): no collection")
            return
        }
        let validator = SchemaValidator(schema: .vulture)
        for form in DocumentForm.allCases {
            let doc = try #require(g[form.rawValue]?.mapValue, "\(name) has no \(form.rawValue) form")
            let violations = validator.validate(
                doc, documentType: c.documentType, options: ValidationOptions(form: form, strict: true))
            #expect(violations.isEmpty, "\(name) \(form.rawValue): \(violations.map(\.description))")
            try FirestoreValue.map(doc).validate(form: form)
        }
    }

    /// Read with the generated type and written back, each form gives its own bytes back.
    @Test(arguments: names.filter { !$0.hasPrefix("tombstone.") })
    func generatedCodecsRoundTrip(_ name: String) throws {
        let g = try Self.golden(name)
        guard case .string(let collection)? = g["collection"],
            let type = SyncSchema.documentType(collection: collection)
        else {
            Issue.record("\(name): no document type")
            return
        }
        for form in DocumentForm.allCases {
            let doc = try #require(g[form.rawValue])
            let typed = try type.init(firestoreValue: doc, pointer: "", form: form)
            #expect(typed.firestoreValue(form: form) == doc, "\(name) \(form.rawValue)")
        }
    }

    @Test func tombstoneKeepsOnlyCommonFields() throws {
        let g = try Self.golden("tombstone.android")
        let common = Set(SyncSchema.vulture.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
        for form in DocumentForm.allCases {
            let doc = try #require(g[form.rawValue]?.mapValue)
            #expect(Set(doc.keys) == common)
            #expect(doc["deleted"] == .boolean(true))
        }
    }

    @Test func settingsGoldenCarriesAll42Keys() throws {
        let values = try #require(Self.golden("settings.android")["stored"]?.mapValue?["values"]?.mapValue)
        #expect(values.count == 42)
        #expect(Set(values.keys) == Set(SyncSchema.vulture.settingsKeys.map(\.key)))
    }

    @Test func flightGoldenUsesTheCorpusFileId() throws {
        let g = try Self.golden("flight.android")
        #expect(
            g["path"]
                == .string(
                    "users/Yx3v9QmT2hPZ0aLk7sWc1bN4dR8e/flights/62a3995ee8df49fd9ca474b9bc8ae7038f79a714d6edd2be53f50e7bbea62b36"
                ))
        #expect(g["write"]?[fieldPath: "updatedAt"] == .serverTimestamp)
        #expect(
            g["stored"]?[fieldPath: "updatedAt"]
                == .timestamp(try FirestoreTimestamp(seconds: 1_792_570_543, microseconds: 512_817)))
    }
}
