import Foundation
import Testing
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// `validate --format rest` on writes as an SDK sends them (REST `Write`, `CommitRequest`,
/// `BatchWriteRequest`), and ``SchemaValidator/validate(write:documentType:strict:)`` beneath it.
/// A merge.payload golden without a write.
struct WriteCaseError: Error { var id: String }

@Suite struct ValidateWriteTests {
    static let database = "projects/demo-vulture/databases/(default)"
    static let suite = Result { try GoldenSuite.load() }

    /// The golden merge writes, with their paths.
    static func goldenMergeWrites() throws -> [(id: String, write: FirestoreWrite)] {
        try suite.get().cases.filter { $0.op == "merge.payload" }.map { c in
            guard case .output(.map(let out)) = c.expected, case .string(let path)? = out["path"],
                let value = out["write"]
            else { throw WriteCaseError(id: c.id) }
            return (c.id, try WriteEffect.write(from: value, path: path))
        }
    }

    @Test func everyGoldenMergeWriteIsValid() throws {
        let writes = try Self.goldenMergeWrites()
        #expect(writes.count == 24)  // 12 edits, each written by Android and iOS
        let validator = SchemaValidator(schema: .vulture)
        for (id, write) in writes {
            let found = validator.validate(write: write, strict: true)
            #expect(found.isEmpty, "\(id): \(found.map(\.violation.description))")
        }
    }

    /// The golden settings merge write as a leaf merge of `values: {}`.
    static func settingsWipe() throws -> FirestoreWrite {
        let golden = try #require(try goldenMergeWrites().first { $0.id.hasSuffix("settings.no-change.ios") })
        var fields = try #require(golden.write.fields)
        fields["values"] = .map([:])
        return try FirestoreWrite.set(fields, merge: true, path: golden.write.path)
    }

    @Test func emptyValuesMapIsAnEmptyMapLeaf() throws {
        let found = SchemaValidator(schema: .vulture).validate(write: try Self.settingsWipe())
        #expect(found.map(\.violation.rule) == ["schema.empty-map-leaf"])
        #expect(found.first?.violation.pointer == "/fields/values")
        #expect(found.first?.place == .field("/values"))
    }

    /// A merge write that keeps a flight live while setting a deletedAt (pin deletedAtOnlyTombstones),
    /// as the security rules refuse it too; a deletedAt null is fine.
    @Test func aMergeWriteSettingDeletedAtOnALiveFlight() throws {
        let flight = try #require(try Self.goldenMergeWrites().first { $0.id.hasSuffix("flight.comments.android") })
        var fields = try #require(flight.write.fields)
        fields["deletedAt"] = .timestamp(try FirestoreTimestamp(seconds: 1_793_620_800))
        let write = try FirestoreWrite(path: flight.write.path, fields: fields, mask: flight.write.mask)
        let found = SchemaValidator(schema: .vulture).validate(write: write)
        #expect(found.map(\.violation.rule) == ["schema.null-unless"])
        #expect(found.first?.place == .field("/deletedAt"))
        fields["deletedAt"] = .null
        #expect(
            SchemaValidator(schema: .vulture).validate(
                write: try FirestoreWrite(path: flight.write.path, fields: fields, mask: flight.write.mask)
            ).isEmpty)
    }

    static func igc(_ id: String, uploaded: Bool) -> FirestoreValue {
        .map([
            "path": .string("users/u1/igc/\(id).igc.gz"), "sizeBytes": .integer(5_000), "gzBytes": .integer(1_000),
            "sha256": .string(id), "uploaded": .boolean(uploaded),
        ])
    }

    static func storageMove(_ delta: Int64, naming id: String?) throws -> FirestoreWrite {
        var fields: [String: FirestoreValue] = ["storageBytes": .increment(.integer(delta))]
        var mask = [try FieldPath(["storageBytes"])]
        if let id {
            fields["storageRef"] = .map(["collection": .string("flights"), "id": .string(id)])
            mask.append(try FieldPath(["storageRef"]))
        }
        return try FirestoreWrite(path: "users/u1", fields: fields, mask: mask)
    }

    static func flightBlob(_ id: String, uploaded: Bool = false) throws -> FirestoreWrite {
        try FirestoreWrite(
            path: "users/u1/flights/\(id)", fields: ["igc": igc(id, uploaded: uploaded)], mask: [FieldPath(["igc"])])
    }

    static func flightTombstone(_ id: String) throws -> FirestoreWrite {
        try FirestoreWrite.set(
            [
                "schema": .integer(1), "updatedAt": .serverTimestamp,
                "clientUpdatedAt": .timestamp(try FirestoreTimestamp(seconds: 1_792_504_987)),
                "updatedBy": .string("d"), "platform": .string("ios"), "deleted": .boolean(true),
                "deletedAt": .timestamp(try FirestoreTimestamp(seconds: 1_792_504_987)),
            ], path: "users/u1/flights/\(id)")
    }

    static let f1 = String(repeating: "1", count: 64)
    static let f2 = String(repeating: "2", count: 64)

    /// A commit that moves storageBytes carries the one blob change it counts (schema §5.1, §5.4),
    /// which the security rules cannot check: they judge each write and cannot list the others.
    @Test(arguments: [
        ("a reservation", [0, 1], [String]()),
        ("two blob maps, one counted", [0, 2, 1], ["1: schema.blob-batch"]),
        ("two tombstones, one counted", [3, 4, 5], ["1: schema.blob-batch"]),
        ("storageBytes moved for a record the commit does not write", [6], ["0: schema.blob-batch"]),
        ("storageBytes moved naming no record", [0, 7], ["1: schema.blob-batch"]),
        ("a reservation already uploaded", [8, 1], ["0: schema.blob-batch"]),
        ("a tombstone lowering storageBytes in its own batch", [3, 5], []),
    ])
    func blobBatch(_ name: String, _ picks: [Int], _ expected: [String]) throws {
        let writes = [
            try Self.flightBlob(Self.f1), try Self.storageMove(1_000, naming: Self.f1), try Self.flightBlob(Self.f2),
            try Self.flightTombstone(Self.f1), try Self.flightTombstone(Self.f2),
            try Self.storageMove(-1_000, naming: Self.f1), try Self.storageMove(1_000, naming: Self.f2),
            try Self.storageMove(1_000, naming: nil), try Self.flightBlob(Self.f1, uploaded: true),
        ]
        let found = SchemaValidator(schema: .vulture).validate(commit: picks.map { writes[$0] })
        #expect(found.map { "\($0.index): \($0.violation.violation.rule)" } == expected, "\(name)")
    }

    @Test func mergeRulesOnAProfileAndAFlight() throws {
        let validator = SchemaValidator(schema: .vulture)
        let profile = try FirestoreWrite(
            path: "users/u1", fields: ["schema": .integer(1), "storageBytes": .integer(12_491_316)],
            mask: [FieldPath(["schema"]), FieldPath(["storageBytes"]), FieldPath(["createdAt"])])
        #expect(
            validator.validate(write: profile).map(\.violation.rule) == [
                "schema.merge-removes-field", "schema.increment-only",
            ])
        let flight = try #require(try Self.goldenMergeWrites().first { $0.id.hasSuffix("flight.comments.android") })
        var fields = try #require(flight.write.fields)
        fields["updatedAt"] = .timestamp(try FirestoreTimestamp(seconds: 1_793_527_200, microseconds: 0))
        fields["deleted"] = .boolean(true)
        fields["updatedBy"] = nil
        var mask = try #require(flight.write.mask)
        mask += [try FieldPath(["glideRatio"]), try FieldPath(["summary", "maximumAltitude"])]
        let updatedBy = try FieldPath(["updatedBy"])
        mask.removeAll { $0 == updatedBy }
        let bad = try FirestoreWrite(path: flight.write.path, fields: fields, mask: mask)
        let found = validator.validate(write: bad).map { "\($0.violation.pointer) \($0.violation.rule)" }
        #expect(
            found == [
                "/fields/deleted schema.tombstone",
                "/fields/glideRatio schema.merge-removes-field",
                "/fields/summary/maximumAltitude schema.merge-removes-field",
                "/fields/updatedAt schema.server-timestamp",
                "/mask schema.missing-field",
            ])
    }
}

@Suite(.enabled(if: ConformanceCLI.executable != nil, "vulture-conformance is not built"))
struct ValidateWriteCommandLineTests {
    func file(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = try ConformanceCLI.temporaryDirectory().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test func commitRequestWithEmptyValuesFails() throws {
        let request = FirestoreCommitRequest(
            database: ValidateWriteTests.database, writes: [try ValidateWriteTests.settingsWipe()])
        let path = try file(try FirestoreRESTJSON.encodeCommitRequest(request), "commit.json")
        let r = try ConformanceCLI.run(["validate", "--format", "rest", path])
        #expect(r.status == 1)
        #expect(
            r.stdout.split(separator: "\n").map(String.init) == [
                "\(path): /writes/0/update/fields/values: schema.empty-map-leaf: the mask sets values to an empty "
                    + "map, which replaces the stored map whole (every key gone); mask only the changed keys "
                    + "(values.KEY) or leave values out",
                "0 passed, 1 failed",
            ])
    }

    @Test func goldenMergeWritesPassAsRESTMessages() throws {
        // Every golden merge write but the profile's storage reservation, which goes in a batch of its
        // own with the record it counts (schema.blob-batch).
        let writes = try ValidateWriteTests.goldenMergeWrites().map(\.write).filter {
            $0.path?.split(separator: "/").count == 4
        }
        var paths: [String] = []
        for (k, w) in writes.prefix(4).enumerated() {
            paths.append(
                try file(try FirestoreRESTJSON.encodeWrite(w, database: ValidateWriteTests.database), "w\(k).json"))
        }
        let commit = FirestoreCommitRequest(database: ValidateWriteTests.database, writes: writes)
        paths.append(try file(try FirestoreRESTJSON.encodeCommitRequest(commit), "commit.json"))
        let batch = FirestoreBatchWriteRequest(
            database: ValidateWriteTests.database, writes: writes, labels: ["app": "vulture"])
        paths.append(try file(try FirestoreRESTJSON.encodeBatchWriteRequest(batch), "batch.json"))
        let r = try ConformanceCLI.run(["validate", "--format", "rest", "--strict"] + paths)
        #expect(r.stdout == "6 passed, 0 failed\n", "\(r.stdout)")
        #expect(r.status == 0)
    }

    /// Two tombstones and one storageBytes decrement in one CommitRequest: the rules allow the one
    /// they can tie to the decrement and cannot see the batch as a whole; validate refuses it.
    @Test func aCommitRequestWithTwoBlobChangesFails() throws {
        let writes = [
            try ValidateWriteTests.flightTombstone(ValidateWriteTests.f1),
            try ValidateWriteTests.flightTombstone(ValidateWriteTests.f2),
            try ValidateWriteTests.storageMove(-1_000, naming: ValidateWriteTests.f1),
        ]
        let request = FirestoreCommitRequest(database: ValidateWriteTests.database, writes: writes)
        let path = try file(try FirestoreRESTJSON.encodeCommitRequest(request), "commit.json")
        let r = try ConformanceCLI.run(["validate", "--form", "write", "--format", "rest", path])
        #expect(r.status == 1)
        #expect(
            r.stdout.contains(
                "\(path): /writes/1/update/name: schema.blob-batch: users/u1/flights/\(ValidateWriteTests.f2)"),
            "\(r.stdout)")
        let alone = FirestoreCommitRequest(database: ValidateWriteTests.database, writes: [writes[0], writes[2]])
        let ok = try file(try FirestoreRESTJSON.encodeCommitRequest(alone), "alone.json")
        #expect(try ConformanceCLI.run(["validate", "--format", "rest", ok]).status == 0)
        // --form write takes writes only: a REST Document is stored form.
        let document = try file(
            try FirestoreRESTJSON.encodeDocument(FirestoreRESTDocument(fields: ["a": .integer(1)])), "document.json")
        let refused = try ConformanceCLI.run(["validate", "--form", "write", "--format", "rest", document])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("\(document): /: rest.shape: a Firestore REST Document is a stored document"))
    }

    @Test func unknownFieldInAMaskIsAWarningUnlessStrict() throws {
        let w = try FirestoreWrite(
            path: "users/u1/homebases/x", fields: ["elevation": .double(512.0)], mask: [FieldPath(["elevation"])])
        let path = try file(try FirestoreRESTJSON.encodeWrite(w, database: ValidateWriteTests.database), "w.json")
        let lenient = try ConformanceCLI.run(["validate", "--format", "rest", path])
        #expect(lenient.stdout.contains("\(path): /update/fields/elevation: schema.unknown-field: warning: "))
        #expect(lenient.stdout.contains("/updateMask/fieldPaths: schema.missing-field:"))
        let strict = try ConformanceCLI.run(["validate", "--format", "rest", "--strict", path])
        #expect(strict.stdout.contains("/update/fields/elevation: schema.unknown-field: the schema has no field"))
        #expect(strict.status == 1)
    }
}
