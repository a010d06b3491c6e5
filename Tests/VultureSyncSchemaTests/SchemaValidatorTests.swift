import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// The validator over a small hand-built schema, so its rules are pinned independently of Spec/.
@Suite struct SchemaValidatorTests {
    static let mini = SyncSchema(
        collections: [
            SchemaCollection(
                name: "flights", pathTemplate: "users/{uid}/flights/{flightId}", documentType: "FlightDocument",
                idRecord: "flight", hasCommonFields: true, pushOrder: 1),
            SchemaCollection(
                name: "settings", pathTemplate: "users/{uid}/settings/synced", documentType: "SettingsDocument",
                idRecord: "settings", hasCommonFields: true, pushOrder: 2),
        ],
        fields: [
            SchemaField(
                owner: "CommonFields", name: "updatedAt", type: .timestamp, isRequired: true, isNullable: false,
                writeAs: .serverTimestamp, meaning: "", source: ""),
            SchemaField(
                owner: "CommonFields", name: "platform", type: .enumeration("Platform"), isRequired: true,
                isNullable: false, meaning: "", source: ""),
            SchemaField(
                owner: "CommonFields", name: "deleted", type: .boolean, isRequired: true, isNullable: false,
                meaning: "", source: ""),
            SchemaField(
                owner: "CommonFields", name: "deletedAt", type: .timestamp, isRequired: true, isNullable: true,
                meaning: "", source: ""),
            SchemaField(
                owner: "FlightDocument", name: "comments", type: .string, isRequired: true, isNullable: true,
                limits: SchemaFieldLimits(maxChars: 5), meaning: "", source: ""),
            SchemaField(
                owner: "FlightDocument", name: "waterBallast", type: .integer, isRequired: true, isNullable: false,
                limits: SchemaFieldLimits(minimum: 0), meaning: "", source: ""),
            SchemaField(
                owner: "FlightDocument", name: "summary", type: .map("FlightSummary"), isRequired: true,
                isNullable: false, meaning: "", source: ""),
            SchemaField(
                owner: "FlightDocument", name: "day", type: .dateString, isRequired: false, isNullable: true,
                meaning: "", source: ""),
            SchemaField(
                owner: "FlightSummary", name: "optimizedDistance", type: .double, isRequired: true, isNullable: true,
                unit: "m", meaning: "", source: ""),
            SchemaField(
                owner: "FlightSummary", name: "sha256", type: .string, isRequired: false, isNullable: false,
                limits: SchemaFieldLimits(hexLength: 64), meaning: "", source: ""),
            SchemaField(
                owner: "SettingsDocument", name: "values", type: .dictionary(.map("SettingsEntry")), isRequired: true,
                isNullable: false, meaning: "", source: ""),
            SchemaField(
                owner: "SettingsEntry", name: "v", type: .settingValue, isRequired: true, isNullable: true, meaning: "",
                source: ""),
            SchemaField(
                owner: "SettingsEntry", name: "t", type: .integer, isRequired: true, isNullable: false, meaning: "",
                source: ""),
        ],
        enums: [
            SchemaEnum(
                name: "Platform",
                cases: [
                    SchemaEnumCase(name: "android", cloudValue: .string("android")),
                    SchemaEnumCase(name: "ios", cloudValue: .string("ios")),
                ])
        ],
        settingsKeys: [
            SchemaSettingsKey(
                key: "speedUnit", type: .unit("speedUnit"), isNullable: false, defaultValue: .string("kph"),
                iosKeys: ["VultureSpeedUnit"], iosMapping: .unitIndex),
            SchemaSettingsKey(
                key: "opacity", type: .double, isNullable: false, defaultValue: .double(0.5), range: 0...1,
                iosKeys: ["VultureOpacity"], iosMapping: .direct),
        ],
        unitTables: [SchemaUnitTable(name: "speedUnit", units: ["kph", "mph", "kt"])])

    static let t = FirestoreValue.timestamp(try! FirestoreTimestamp(seconds: 1_792_504_987))

    static var validFlight: [String: FirestoreValue] {
        [
            "updatedAt": t, "platform": .string("ios"), "deleted": .boolean(false), "deletedAt": .null,
            "comments": .null, "waterBallast": .integer(0), "summary": .map(["optimizedDistance": .double(1000)]),
        ]
    }

    func violations(
        _ fields: [String: FirestoreValue], _ type: String = "FlightDocument",
        _ options: ValidationOptions = ValidationOptions()
    ) -> [String] {
        SchemaValidator(schema: Self.mini).validate(fields, documentType: type, options: options).map(\.description)
    }

    /// NaN is below no bound and above none (every comparison is false): one finding names the
    /// range; infinities break the one bound they pass.
    @Test func aNaNOutsideARangeIsOneFinding() throws {
        let valid = try #require(
            try CanonicalJSON.decode(
                Data(contentsOf: DocumentFixtureTests.fixtures.appendingPathComponent("valid/homebases.stored.json")),
                form: .stored
            ).mapValue)
        func found(_ latitude: Double) -> [String] {
            var fields = valid
            fields["latitude"] = .double(latitude)
            return SchemaValidator(schema: .vulture).validate(
                fields, documentType: "HomebaseDocument", options: ValidationOptions(form: .stored)
            ).map(\.description)
        }
        #expect(found(.nan) == ["/latitude: schema.range: HomebaseDocument.latitude is NaN; from -90 to 90"])
        #expect(found(.infinity) == ["/latitude: schema.range: HomebaseDocument.latitude is Infinity; at most 90"])
        #expect(found(-.infinity) == ["/latitude: schema.range: HomebaseDocument.latitude is -Infinity; at least -90"])
        #expect(found(45) == [])
    }

    @Test func validStoredFlightHasNoViolations() {
        #expect(violations(Self.validFlight).isEmpty)
    }

    @Test(arguments: [
        (
            "waterBallast", FirestoreValue.double(1),
            "/waterBallast: schema.type: FlightDocument.waterBallast is integer, found double; write an integer without a fraction: 1, not 1.0"
        ),
        ("waterBallast", .integer(-1), "/waterBallast: schema.range: FlightDocument.waterBallast is -1; at least 0"),
        ("waterBallast", .null, "/waterBallast: schema.null: FlightDocument.waterBallast is not nullable"),
        (
            "comments", .string("123456"),
            "/comments: schema.max-chars: FlightDocument.comments is 6 characters (code points); at most 5"
        ),
        (
            "platform", .string("windows"),
            "/platform: schema.enum: CommonFields.platform \"windows\" is not one of Platform: \"android\", \"ios\""
        ),
        (
            "day", .string("2026-02-30"),
            "/day: schema.date-string: FlightDocument.day \"2026-02-30\" is not a calendar day yyyy-MM-dd"
        ),
        (
            "summary", .map(["optimizedDistance": .integer(1000)]),
            "/summary/optimizedDistance: schema.type: FlightSummary.optimizedDistance is double, found integer; write a double with a fraction: 1000.0, not 1000"
        ),
        (
            "summary", .map(["optimizedDistance": .null, "sha256": .string("ABC")]),
            "/summary/sha256: schema.hex-length: FlightSummary.sha256 must be 64 lowercase hex characters, found \"ABC\""
        ),
        (
            "updatedAt", .serverTimestamp,
            "/updatedAt: schema.sentinel: a serverTimestamp sentinel has no place in the stored form"
        ),
    ])
    func storedFormViolations(_ field: String, _ value: FirestoreValue, _ expected: String) {
        var doc = Self.validFlight
        doc[field] = value
        #expect(violations(doc) == [expected])
    }

    @Test func missingAndUnknownFields() {
        var doc = Self.validFlight
        doc.removeValue(forKey: "waterBallast")
        doc["waterBalast"] = .integer(3)
        #expect(
            violations(doc) == [
                "/waterBallast: schema.missing-field: FlightDocument.waterBallast (integer) is required; a reader has neither a value nor a default for it",
                "/waterBalast: schema.unknown-field: warning: the schema has no field \"waterBalast\" here; did you mean waterBallast?",
            ])
        #expect(
            SchemaValidator(schema: Self.mini).validate(
                doc, documentType: "FlightDocument", options: ValidationOptions(strict: true)
            )
            .map(\.severity) == [.error, .error])
    }

    /// A reader treats an absent nullable field as null (Goldens/FORMAT.md, "The stored form"): the
    /// stored form accepts it, as Google's SDKs store a dictionary whose None values were dropped;
    /// only a full write lists every field.
    @Test func absentNullableFieldsAreStoredNulls() {
        var doc = Self.validFlight
        for key in ["comments", "deletedAt"] { doc.removeValue(forKey: key) }
        #expect(violations(doc) == [])
        doc["updatedAt"] = .serverTimestamp
        #expect(
            SchemaValidator(schema: Self.mini).validate(
                doc, documentType: "FlightDocument", options: ValidationOptions(form: .write)
            ).map(\.description) == [
                "/deletedAt: schema.missing-field: CommonFields.deletedAt (timestamp) is required; a field without a value is written as null (Goldens/FORMAT.md)",
                "/comments: schema.missing-field: FlightDocument.comments (string) is required; a field without a value is written as null (Goldens/FORMAT.md)",
            ])
    }

    @Test func writeFormWantsTheServerTimestampSentinel() {
        var doc = Self.validFlight
        #expect(
            violations(doc, "FlightDocument", ValidationOptions(form: .write)) == [
                "/updatedAt: schema.server-timestamp: updatedAt must be the server-timestamp sentinel {\"$serverTimestamp\": true}, never a client time (schema §2)"
            ])
        doc["updatedAt"] = .serverTimestamp
        #expect(violations(doc, "FlightDocument", ValidationOptions(form: .write)).isEmpty)
        doc["waterBallast"] = .increment(.integer(1))
        #expect(
            violations(doc, "FlightDocument", ValidationOptions(form: .write)) == [
                "/waterBallast: schema.sentinel: FlightDocument.waterBallast is not written with the increment sentinel"
            ])
    }

    @Test func mergeWriteCarriesCommonFieldsAndMayDelete() {
        let merge: [String: FirestoreValue] = ["updatedAt": .serverTimestamp, "day": .delete]
        #expect(
            violations(merge, "FlightDocument", ValidationOptions(form: .write, mergeWrite: true)) == [
                "/platform: schema.missing-field: a merge write carries the common fields (schema §5.1); platform is absent",
                "/deleted: schema.missing-field: a merge write carries the common fields (schema §5.1); deleted is absent",
                "/deletedAt: schema.missing-field: a merge write carries the common fields (schema §5.1); deletedAt is absent",
            ])
    }

    @Test func tombstoneKeepsOnlyCommonFields() {
        let tombstone: [String: FirestoreValue] = [
            "updatedAt": Self.t, "platform": .string("android"), "deleted": .boolean(true), "deletedAt": Self.t,
            "comments": .string("stale"),
        ]
        #expect(
            violations(tombstone) == [
                "/comments: schema.tombstone: a tombstone keeps only the common fields and deletedAt (schema §5.4); remove comments"
            ])
        var noDate = tombstone
        noDate.removeValue(forKey: "comments")
        noDate["deletedAt"] = .null
        #expect(
            violations(noDate) == [
                "/deletedAt: schema.tombstone: a tombstone carries deletedAt, the device's time of the delete (schema §5.4)"
            ])
    }

    @Test func settingsValuesAreTypedByTheirKey() {
        let settings: [String: FirestoreValue] = [
            "updatedAt": Self.t, "platform": .string("ios"), "deleted": .boolean(false), "deletedAt": .null,
            "values": .map([
                "speedUnit": .map(["v": .string("knots"), "t": .integer(0)]),
                "opacity": .map(["v": .double(1.5), "t": .integer(1)]),
                "speedUnits": .map(["v": .string("kph"), "t": .integer(0)]),
            ]),
        ]
        #expect(
            violations(settings, "SettingsDocument") == [
                "/values/opacity/v: schema.range: settings opacity is 1.5; at most 1",
                "/values/speedUnit/v: schema.unit: settings speedUnit \"knots\" is not a unit of speedUnit: kph, mph, kt",
                "/values/speedUnits: schema.unknown-settings-key: warning: the schema has no settings key \"speedUnits\"; did you mean speedUnit?",
            ])
    }

    @Test func documentTypeIsInferredFromPathOrShape() {
        let v = SchemaValidator(schema: Self.mini)
        #expect(v.inferDocumentType(fields: [:], path: "users/u1/flights/abc") == "FlightDocument")
        #expect(
            v.inferDocumentType(fields: [:], path: "projects/p/databases/(default)/documents/users/u/settings/synced")
                == "SettingsDocument")
        #expect(v.inferDocumentType(fields: ["values": .map([:])], path: nil) == "SettingsDocument")
        #expect(v.inferDocumentType(fields: ["deleted": .boolean(true)], path: nil) == nil)
    }

    @Test(arguments: [
        ("2024-02-29", true), ("2023-02-29", false), ("0000-01-01", false), ("2026-1-01", false), ("2026-12-31", true),
    ])
    func calendarDays(_ s: String, _ ok: Bool) {
        #expect(SchemaValidator.isCalendarDay(s) == ok)
    }

    @Test func mergeWriteNeverDeletesARequiredFieldAndIsNoTombstone() {
        var merge: [String: FirestoreValue] = [
            "updatedAt": .serverTimestamp, "platform": .string("ios"), "deleted": .boolean(false), "deletedAt": .null,
            "comments": .delete,
        ]
        let options = ValidationOptions(form: .write, mergeWrite: true)
        #expect(
            violations(merge, "FlightDocument", options) == [
                "/comments: schema.sentinel: FlightDocument.comments is required: a merge write clears it with null (Goldens/FORMAT.md), never removes it"
            ])
        merge["comments"] = nil
        merge["deleted"] = .boolean(true)
        merge["deletedAt"] = Self.t
        #expect(
            violations(merge, "FlightDocument", options).first?.hasPrefix(
                "/deleted: schema.tombstone: a tombstone is written as a full replace") == true)
    }

    @Test func documentPathsAndDeterministicIds() {
        let v = SchemaValidator(schema: .vulture)
        let sha = String(repeating: "ab", count: 32)
        let flight: [String: FirestoreValue] = ["igc": .map(["sha256": .string(sha)])]
        #expect(v.pathViolations(path: "users/u/flights/\(sha)", fields: flight).violations.isEmpty)
        #expect(v.pathViolations(path: "users/u/flights/\(sha)", fields: flight).documentType == "FlightDocument")
        #expect(
            v.pathViolations(path: "users/u/flights/" + String(repeating: "0", count: 64), fields: flight).violations
                .map(\.rule) == ["schema.document-id"])
        #expect(
            v.pathViolations(path: "users/u/homebases/x", fields: ["name": .string(" Bierset ")]).violations.first?
                .message
                == "the document id is x, but SHA-256 of name.trim().lowercase() gives \(DocumentIds.homebaseId(name: "bierset")) (schema §4)"
        )
        for bad in ["users/u/foo/x", "flights/x", "users/u/flights/x/sub/y", "users//flights/x"] {
            #expect(v.pathViolations(path: bad, fields: [:]).violations.map(\.rule) == ["schema.collection"], "\(bad)")
        }
        #expect(
            v.pathViolations(path: "users/u/settings/other", fields: [:]).violations.first?.message
                == "the only document of settings is synced, not other")
        for id in ["__x__", "..", String(repeating: "x", count: 1600)] {
            #expect(
                v.pathViolations(path: "users/u/recentCompetitions/\(id)", fields: [:]).violations.map(\.rule) == [
                    "schema.document-id"
                ])
        }
        #expect(
            v.pathViolations(path: "projects/p/databases/(default)/documents/users/u", fields: [:]).documentType
                == "ProfileDocument")
    }
}

/// A violation is at a top-level field by its escaped pointer, and under it only below a `/`.
@Test func aViolationIsAtAFieldByItsEscapedPointer() {
    func at(_ pointer: String) -> SchemaViolation {
        SchemaViolation(pointer: pointer, rule: "schema.type", message: "")
    }
    #expect(at("/a~1b").isAt(field: "a/b"))
    #expect(at("/a~0b/c").isAt(field: "a~b"))
    #expect(!at("/a~0b/c").isAt(field: "a~b", orUnder: false))
    #expect(!at("/ab").isAt(field: "a"))
    #expect(!at("/a/b").isAt(field: "a/b"))
}
