import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The rules the runner holds every commit of a scenario to (Goldens/FORMAT.md, Scenarios): each
/// broken one is named, and a reserve, a counted tombstone and an ordinary batch as the reference
/// sends them break none.
@Suite struct ScenarioCommitRulesTests {
    static let uid = "u1"
    static let flightId = String(repeating: "a", count: 64)
    static let flightPath = "users/u1/flights/\(flightId)"
    static let objectPath = "users/u1/igc/\(flightId).igc.gz"

    static func common(deleted: Bool = false) -> [String: FirestoreValue] {
        [
            "schema": .integer(1), "updatedAt": .serverTimestamp,
            "clientUpdatedAt": .timestamp(FirestoreTimestamp(unchecked: 1_792_504_987, 0)),
            "updatedBy": .string("device-a"), "platform": .string("android"), "deleted": .boolean(deleted),
            "deletedAt": deleted ? .timestamp(FirestoreTimestamp(unchecked: 1_792_504_987, 0)) : .null,
        ]
    }

    static func record(_ path: String, _ fields: [String: FirestoreValue]) throws -> FirestoreWrite {
        try FirestoreWrite(path: path, fields: common().merging(fields) { _, new in new })
    }

    static func profile(_ storageBytes: FirestoreValue, ref: String? = flightId) throws -> FirestoreWrite {
        var fields: [String: FirestoreValue] = ["storageBytes": storageBytes]
        if let ref { fields["storageRef"] = .map(["collection": .string("flights"), "id": .string(ref)]) }
        return try FirestoreWrite(
            path: "users/u1", fields: fields, mask: fields.keys.sorted().map { try FieldPath([$0]) })
    }

    static func igc(uploaded: Bool) -> FirestoreValue {
        .map([
            "path": .string(objectPath), "sizeBytes": .integer(900), "gzBytes": .integer(300),
            "sha256": .string(flightId), "uploaded": .boolean(uploaded),
        ])
    }

    static func violations(_ writes: [FirestoreWrite], objects: Set<String> = []) -> [String] {
        ScenarioCommitRules.violations(writes, uid: uid, objectExists: { objects.contains($0) })
    }

    @Test func aReserveACountedTombstoneAndAMarkBreakNothing() throws {
        #expect(
            Self.violations([
                try Self.record(Self.flightPath, ["igc": Self.igc(uploaded: false)]),
                try Self.profile(.increment(.integer(300))),
            ]) == [])
        #expect(
            Self.violations([
                try FirestoreWrite(path: Self.flightPath, fields: Self.common(deleted: true)),
                try Self.profile(.increment(.integer(-300))),
            ]) == [])
        #expect(
            Self.violations(
                [try Self.record(Self.flightPath, ["igc": Self.igc(uploaded: true)])], objects: [Self.objectPath])
                == [])
    }

    @Test func eachBrokenRuleIsNamed() throws {
        let byValue = Self.violations([
            try Self.record(Self.flightPath, ["igc": Self.igc(uploaded: false)]), try Self.profile(.integer(300)),
        ])
        #expect(byValue.count == 1 && byValue[0].hasPrefix("the profile's storageBytes is set to 300 by value"))
        let byDouble = Self.violations([
            try Self.record(Self.flightPath, ["igc": Self.igc(uploaded: false)]),
            try Self.profile(.increment(.double(300))),
        ])
        #expect(
            byDouble == [
                "the profile's storageBytes moves by a double $increment of 300.0: a count of bytes moves by an "
                    + "integer $increment (schema §2 profile)"
            ])
        let noRef = Self.violations([
            try Self.record(Self.flightPath, ["igc": Self.igc(uploaded: false)]),
            try Self.profile(.increment(.integer(300)), ref: nil),
        ])
        #expect(noRef.count == 1 && noRef[0].contains("without storageRef"))
        let notAlone = Self.violations([
            try FirestoreWrite(path: Self.flightPath, fields: Self.common(deleted: true)),
            try Self.profile(.increment(.integer(-300))),
            try Self.record("users/u1/homebases/h1", ["name": .string("Aachen")]),
        ])
        #expect(notAlone.count == 1 && notAlone[0].contains("a tombstone lowers storageBytes in its own batch"))
        let markedEarly = Self.violations([try Self.record(Self.flightPath, ["igc": Self.igc(uploaded: true)])])
        #expect(markedEarly.count == 1 && markedEarly[0].contains("the bucket has no such object"))
        let clientTime = Self.violations([
            try FirestoreWrite(
                path: "users/u1/homebases/h1",
                fields: Self.common().merging(["updatedAt": .timestamp(FirestoreTimestamp(unchecked: 5, 0))]) { _, n in
                    n
                })
        ])
        #expect(clientTime.count == 1 && clientTime[0].contains("without updatedAt as the server timestamp"))
        let tooMany = Self.violations((0..<401).map { FirestoreWrite.delete(path: "users/u1/homebases/h\($0)") })
        #expect(tooMany == ["401 writes in one batch: at most 400 (schema §3)"])
    }

    @Test func aPushThatGoesBackInCollectionOrderIsNamedUnlessARequestFailedBetween() throws {
        let ledger = ScenarioDeviceLedger(device: "a", uid: Self.uid, objectExists: { _ in false })
        let database = ScenarioDeviceFirestore(
            RecordingFirestore(InMemoryFirestore(clock: { FirestoreTimestamp(unchecked: 1_792_504_987, 0) })),
            ledger: ledger)
        ledger.begin(step: "/steps/3")
        _ = try database.commit([try Self.record(Self.flightPath, ["filename": .string("a.igc")])])
        _ = try database.commit([try Self.record("users/u1/tasks/t1", ["name": .string("Task")])])
        let broken = ledger.takeViolations()
        #expect(broken.count == 1)
        #expect(
            broken.first?.hasPrefix("/steps/3: device a, commit 2 of the step: a tasks record after a flights one")
                == true)
        // After a failed request the push may start again from its first collection.
        ledger.begin(step: "/steps/5")
        _ = try database.commit([try Self.record(Self.flightPath, ["filename": .string("b.igc")])])
        database.recorder.inject(.refuse(.unavailable), next: .get)
        _ = try? database.get("users/u1")
        _ = try database.commit([try Self.record("users/u1/tasks/t1", ["name": .string("Task 2")])])
        #expect(ledger.takeViolations() == [])
        #expect(ledger.takeRequestCount() == 5)
    }
}
