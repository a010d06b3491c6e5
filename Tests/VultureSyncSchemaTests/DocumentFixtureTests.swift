import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// The fixtures of the JSON Schema cross-check (`Goldens/jsonschema/fixtures/`), read by the generated
/// Swift decoders and the validator: the valid ones decode and break no rule, every broken one is
/// rejected with the rule its case names (a tombstone carrying a record's fields, by the validator:
/// a typed decoder reads a live document).
/// `Tools/ci/jsonschema-crosscheck.py` holds the same fixtures to the generated JSON Schemas.
@Suite struct DocumentFixtureTests {
    static let fixtures = packageRoot.appendingPathComponent("Goldens/jsonschema/fixtures")

    /// The rule each broken case must raise (the case is the third part of the file name).
    static let expectedRules: [String: InputRule] = [
        "missing-field": .schemaMissingField,
        "misspelt-field": .schemaMissingField,
        "wrong-type": .schemaType,
        "null-not-nullable": .schemaType,
        "enum-outside": .schemaEnum,
        "too-long": .schemaLimit,
        "updatedAt-timestamp": .schemaType,
        "null-unless": .schemaNullUnless,
    ]

    /// The broken cases only the validator rejects, and its rule.
    static let validatorRules: [String: String] = ["tombstone-with-fields": SchemaRule.tombstone.rawValue]

    static func files(_ kind: String) -> [String] {
        let names = try? FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent(kind).path)
        return (names ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    /// Decodes `kind/name` as canonical JSON in the form its name gives, with the collection's document type.
    static func decode(_ kind: String, _ name: String) throws {
        let parts = name.split(separator: ".").map(String.init)
        let form = try #require(DocumentForm(rawValue: parts[1]), "form of \(name)")
        let type = try #require(SyncSchema.documentType(collection: parts[0]), "collection of \(name)")
        let data = try Data(contentsOf: fixtures.appendingPathComponent(kind).appendingPathComponent(name))
        let value = try CanonicalJSON.decode(data, file: name, form: form)
        _ = try type.init(firestoreValue: value, pointer: "", form: form)
    }

    /// The validator's verdict on `kind/name` as a document of its collection in its form.
    static func violations(_ kind: String, _ name: String) throws -> [SchemaViolation] {
        let parts = name.split(separator: ".").map(String.init)
        let form = try #require(DocumentForm(rawValue: parts[1]), "form of \(name)")
        let type = try #require(SyncSchema.vulture.collection(named: parts[0])?.documentType, "collection of \(name)")
        let data = try Data(contentsOf: fixtures.appendingPathComponent(kind).appendingPathComponent(name))
        let fields = try #require(try CanonicalJSON.decode(data, file: name, form: form).mapValue, "\(name) is a map")
        return SchemaValidator(schema: .vulture).validate(
            fields, documentType: type, options: ValidationOptions(form: form))
    }

    @Test func everyCollectionAndFormHasFixtures() {
        let valid = Self.files("valid")
        #expect(valid.count == SyncSchema.vulture.collections.count * 2, "\(valid)")
        #expect(Self.files("invalid").count >= 30)
        #expect(Self.files("invalid").contains("flights.stored.too-long.json"))
        #expect(Self.files("invalid").contains("flights.write.updatedAt-timestamp.json"))
        #expect(Self.files("invalid").contains("homebases.stored.tombstone-with-fields.json"))
    }

    @Test(arguments: files("valid"))
    func validFixtureDecodes(_ name: String) throws {
        try Self.decode("valid", name)
        #expect(try Self.violations("valid", name) == [])
    }

    @Test(arguments: files("invalid"))
    func brokenFixtureIsRejected(_ name: String) throws {
        let caseName = name.split(separator: ".").map(String.init)[2]
        if let rule = Self.validatorRules[caseName] {
            try Self.decode("invalid", name)
            let violations = try Self.violations("invalid", name)
            #expect(!violations.isEmpty && violations.allSatisfy { $0.rule == rule }, "\(name): \(violations)")
            return
        }
        let rule = try #require(Self.expectedRules[caseName], "unknown broken case \(caseName)")
        let error = #expect(throws: SchemaInputError.self) { try Self.decode("invalid", name) }
        #expect(error?.rule == rule, "\(name): \(error.map(String.init(describing:)) ?? "no error")")
    }

    @Test func errorsNameTheFieldPath() throws {
        let value = try CanonicalJSON.decode(
            Data(contentsOf: Self.fixtures.appendingPathComponent("valid/tasks.stored.json")), form: .stored)
        var fields = try #require(value.mapValue)
        guard case .array(let turnpoints)? = fields["turnpoints"], case .map(var turnpoint)? = turnpoints.first else {
            Issue.record("the task fixture has no turnpoint")
            return
        }
        var zone = try #require(turnpoint["zone"]?.mapValue)
        zone["A1"] = .double(200.0)
        turnpoint["zone"] = .map(zone)
        fields["turnpoints"] = .array([.map(turnpoint)])
        let error = #expect(throws: SchemaInputError.self) { try TaskDocument(firestoreValue: .map(fields)) }
        #expect(error?.rule == .schemaLimit)
        #expect(error?.pointer == "/turnpoints/0/zone/A1")
        zone["A1"] = .integer(20)
        turnpoint["zone"] = .map(zone)
        fields["turnpoints"] = .array([.map(turnpoint)])
        let typeError = #expect(throws: SchemaInputError.self) { try TaskDocument(firestoreValue: .map(fields)) }
        #expect(typeError?.rule == .schemaType)
        #expect(typeError?.description == "/turnpoints/0/zone/A1: schema.type: expected a double, found integer")
    }

    @Test func absentAndNullAreAlikeAndDefaultsFillIn() throws {
        let minimal: FirestoreValue = .map([
            "updatedAt": .timestamp(try FirestoreTimestamp(seconds: 1_792_504_987)),
            "clientUpdatedAt": .timestamp(try FirestoreTimestamp(seconds: 1_792_504_987)),
            "updatedBy": .string("device-1"),
            "platform": .string("ios"),
            "name": .string("Klippeneck"),
            "usedAt": .null,
        ])
        let homebase = try HomebaseDocument(firestoreValue: minimal, form: .stored)
        #expect(homebase.schema == 1)
        #expect(homebase.deleted == false)
        #expect(homebase.deletedAt == nil)
        #expect(homebase.usedAt == nil)
        #expect(homebase.latitude == 0.0)
        #expect(homebase.platform == .ios)
        // A full write lists every field: nullable ones as null, the server timestamp as the sentinel.
        let write = try #require(homebase.firestoreValue(form: .write).mapValue)
        #expect(write["usedAt"] == .null)
        #expect(write["deletedAt"] == .null)
        #expect(write["updatedAt"] == .serverTimestamp)
        #expect(write["latitude"] == .double(0.0))
        // The same map is not a full write.
        let error = #expect(throws: SchemaInputError.self) {
            try HomebaseDocument(firestoreValue: minimal, form: .write)
        }
        #expect(error?.rule == .schemaMissingField)
        #expect(error?.pointer == "/schema", "the first field of the table that a full write lacks")
        var full = try #require(homebase.firestoreValue(form: .write).mapValue)
        #expect(try HomebaseDocument(firestoreValue: .map(full), form: .write).name == "Klippeneck")
        full["updatedAt"] = .timestamp(try FirestoreTimestamp(seconds: 1_792_504_987))
        let sentinel = #expect(throws: SchemaInputError.self) {
            try HomebaseDocument(firestoreValue: .map(full), form: .write)
        }
        #expect(sentinel?.rule == .schemaType)
        #expect(sentinel?.pointer == "/updatedAt")
    }

    @Test func anOptionalWithoutAValueIsLeftOut() throws {
        var summary = try SchemaFieldTests.sampleFlightSummary()
        summary.thermalAltitudeGained = nil
        summary.sportKind = nil
        let fields = try #require(summary.firestoreValue(form: .write).mapValue)
        #expect(fields["thermalAltitudeGained"] == nil, "optional presence: left out")
        #expect(fields["sportKind"] == .null, "required and nullable: written as null")
    }

    @Test func storageBytesMovesByIncrementInTheWriteForm() throws {
        let profile = try SchemaFieldTests.sampleProfileDocument()
        #expect(profile.firestoreValue(form: .write).mapValue?["storageBytes"] == .increment(.integer(1)))
        #expect(profile.firestoreValue(form: .stored).mapValue?["storageBytes"] == .integer(1))
    }

    @Test func codableUsesTheCloudNamesAndKeepsDoublesApart() throws {
        let zone = try SchemaFieldTests.sampleTurnpointZone()
        let data = try JSONEncoder().encode(zone)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"R1\""))
        #expect(!text.contains("\"r1\""))
        #expect(try JSONDecoder().decode(TurnpointZone.self, from: data) == zone)
        let entry = SettingsEntry(v: .double(5.0), t: 0, d: "device-1")
        let again = try JSONDecoder().decode(SettingsEntry.self, from: JSONEncoder().encode(entry))
        #expect(again.v == .double(5.0))
        #expect(again.v != .integer(5))
    }
}
