import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncSchema

/// The generated security rules (`Goldens/firestore.rules`) loaded in the Firestore emulator, held
/// to a table of allowed and denied requests made with users' unsigned ID tokens (schema §2, §3,
/// §5.1, §6). Every number comes from the schema facts, so the table follows Spec/.
@Suite(.enabled(if: EmulatorSupport.enabled, EmulatorSupport.skipReason))
struct SecurityRulesTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A project of its own with the rules loaded, and a client per token.
    struct Project {
        let emulator: FirestoreEmulator
        let id: String

        init() throws {
            emulator = try FirestoreEmulator.shared()
            id = "demo-rules-\(EmulatorSupport.uniqueCollection("p"))"
            let rules = try String(
                contentsOf: SecurityRulesTests.packageRoot.appendingPathComponent("Goldens/firestore.rules"),
                encoding: .utf8)
            issues = try emulator.loadRules(rules, projectId: id)
        }

        /// The emulator's warnings when it loaded the rules.
        let issues: [String]

        func client(_ uid: String?, pro: Bool = false) -> FirestoreRESTClient {
            let token =
                uid.map {
                    EmulatorIdToken.unsigned(
                        uid: $0, entitlements: pro ? [SchemaConstants.proEntitlement] : [], projectId: id)
                } ?? "owner"
            return FirestoreRESTClient(baseURL: emulator.baseURL, projectId: id, bearerToken: token)
        }

        var owner: FirestoreRESTClient { client(nil) }

        /// nil when the commit is allowed, else its status.
        func commit(_ client: FirestoreRESTClient, _ writes: [FirestoreWrite]) -> FirestoreStatus? {
            do {
                _ = try client.commit(writes)
                return nil
            } catch {
                return error.status
            }
        }
    }

    static let time = FirestoreValue.timestamp((try? FirestoreTimestamp(seconds: 1_792_504_987)) ?? .minimum)

    /// A live record's common fields, written as the engine writes them.
    static func common(deleted: Bool = false) -> [String: FirestoreValue] {
        [
            "schema": .integer(SchemaConstants.schemaVersion), "updatedAt": .serverTimestamp,
            "clientUpdatedAt": time, "updatedBy": .string("device-a"), "platform": .string("android"),
            "deleted": .boolean(deleted), "deletedAt": deleted ? time : .null,
        ]
    }

    static func record(_ path: String, _ fields: [String: FirestoreValue]) throws -> FirestoreWrite {
        var all = common()
        for (k, v) in fields { all[k] = v }
        return try FirestoreWrite.set(all, merge: true, path: path)
    }

    static func profile(storageBytes: Int64) -> [String: FirestoreValue] {
        [
            "schema": .integer(SchemaConstants.schemaVersion), "createdAt": time, "lastSeenAt": time,
            "platforms": .array([.string("android")]), "storageBytes": .integer(storageBytes), "storageRef": .null,
        ]
    }

    /// The reservation batch of a blob (schema §5.1): the record with its map, not uploaded, and the
    /// profile's storageBytes moved by `increment`, naming the record.
    static func reserve(_ uid: String, flight id: String, gzBytes: Int64, increment: Int64? = nil, names: String? = nil)
        throws -> [FirestoreWrite]
    {
        let path = try BlobPaths.igcObjectPath(uid: uid, flightId: id)
        let map: FirestoreValue = .map([
            "path": .string(path), "sizeBytes": .integer(gzBytes * 5), "gzBytes": .integer(gzBytes),
            "sha256": .string(id), "uploaded": .boolean(false),
        ])
        return [
            try FirestoreWrite.set(
                common().merging(["igc": map, "inLogbook": .boolean(true)]) { _, new in new }, merge: false,
                path: "users/\(uid)/flights/\(id)"),
            try FirestoreWrite(
                path: "users/\(uid)",
                fields: [
                    "storageBytes": .increment(.integer(increment ?? gzBytes)),
                    "storageRef": .map(["collection": .string("flights"), "id": .string(names ?? id)]),
                ],
                mask: [try FieldPath(["storageBytes"]), try FieldPath(["storageRef"])]),
        ]
    }

    @Test func onlyTheSignedInUsersTreeWithServerTimeAndSchema() throws {
        let p = try Project()
        #expect(p.issues == [], "the generated rules load without a warning")
        let warned = try p.emulator.loadRules(
            """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                function known(r) { return r == null || r.data.k == 1; }
                match /a/{id} {
                  allow read: if known(exists(/databases/$(database)/documents/a/b) ? get(/databases/$(database)/documents/a/b) : null);
                }
              }
            }
            """, projectId: p.id + "-warned")
        #expect(warned.first?.hasPrefix("firestore.rules:6:") == true, "a warning is reported: \(warned)")
        let u1 = p.client("u1")
        let homebase = { (id: String, fields: [String: FirestoreValue]) in
            try Self.record("users/u1/homebases/\(id)", ["name": .string("Aachen")].merging(fields) { _, n in n })
        }
        #expect(p.commit(u1, [try homebase("h1", [:])]) == nil, "the user's own record")
        #expect(try u1.get("users/u1/homebases/h1")?.fields["name"] == .string("Aachen"))
        #expect(p.commit(p.client("u2"), [try homebase("h2", [:])]) == .permissionDenied, "another uid")
        #expect(p.commit(p.client("u2"), [try homebase("h1", ["name": .string("x")])]) == .permissionDenied)
        #expect(throws: FirestoreError.self, "another user's documents cannot be read") {
            try p.client("u2").get("users/u1/homebases/h1")
        }
        #expect(throws: FirestoreError.self, "nor queried") {
            try p.client("u2").runQuery(FirestoreQuery(parent: "users/u1", collectionId: "homebases"))
        }
        #expect(try u1.runQuery(FirestoreQuery(parent: "users/u1", collectionId: "homebases")).count == 1)
        #expect(p.commit(p.client(nil), [try homebase("h3", [:])]) == nil, "owner")
        let signedOut = FirestoreRESTClient(baseURL: p.emulator.baseURL, projectId: p.id, bearerToken: nil)
        #expect(p.commit(signedOut, [try homebase("h4", [:])]) == .permissionDenied, "no token")
        #expect(
            p.commit(u1, [try FirestoreWrite.set(["x": .integer(1)], path: "elsewhere/x")]) == .permissionDenied,
            "outside users/{uid}")
        #expect(p.commit(u1, [try Self.record("users/u1/unknown/x", [:])]) == .permissionDenied, "unknown collection")
        #expect(
            p.commit(u1, [try homebase("h5", ["updatedAt": Self.time])]) == .permissionDenied,
            "a client-supplied updatedAt")
        #expect(p.commit(u1, [try homebase("h6", ["schema": .integer(2)])]) == .permissionDenied, "schema 2")
        #expect(
            p.commit(u1, [try Self.record("users/u1/settings/other", ["values": .map([:])])]) == .permissionDenied,
            "settings has one document id")
        #expect(
            p.commit(
                u1, [try Self.record("users/u1/settings/\(SchemaConstants.settingsDocumentId)", ["values": .map([:])])])
                == nil)
    }

    @Test func fieldCapsFromTheLimitsTable() throws {
        let p = try Project()
        let u1 = p.client("u1")
        let flight = { (fields: [String: FirestoreValue]) in
            try Self.record("users/u1/flights/\(String(repeating: "a", count: 64))", fields)
        }
        let maxChars = Int(SchemaLimits.commentsMaxChars)
        // Characters are Unicode scalars (pins.tsv charCount): an accented letter and an emoji each count one.
        let full = String(repeating: "é", count: maxChars - 1) + "🪂"
        #expect(p.commit(u1, [try flight(["comments": .string(full)])]) == nil, "comments of \(maxChars) characters")
        #expect(p.commit(u1, [try flight(["comments": .string(full + "x")])]) == .permissionDenied, "one more")
        let maxBytes = Int(SchemaLimits.trackPreviewMaxBytes)
        #expect(p.commit(u1, [try flight(["trackPreview": .bytes(Data(count: maxBytes))])]) == nil)
        #expect(
            p.commit(u1, [try flight(["trackPreview": .bytes(Data(count: maxBytes + 1))])]) == .permissionDenied,
            "trackPreview over \(maxBytes) bytes")
        #expect(p.commit(u1, [try flight(["comments": .null, "trackPreview": .null])]) == nil, "cleared")

        let turnpoint: FirestoreValue = .map(["name": .string("TP")])
        let maxItems = Int(SchemaLimits.turnpointsMaxItems)
        let task = { (n: Int) in
            try Self.record("users/u1/tasks/t1", ["turnpoints": .array(Array(repeating: turnpoint, count: n))])
        }
        #expect(p.commit(u1, [try task(maxItems)]) == nil)
        #expect(p.commit(u1, [try task(maxItems + 1)]) == .permissionDenied, "more than \(maxItems) turnpoints")
    }

    @Test func tombstoneShape() throws {
        let p = try Project()
        let u1 = p.client("u1")
        let path = "users/u1/recentCompetitions/c1"
        #expect(p.commit(u1, [try Self.record(path, ["name": .string("Club")])]) == nil)
        #expect(
            p.commit(
                u1, [try FirestoreWrite.set(Self.common().merging(["deletedAt": Self.time]) { _, n in n }, path: path)])
                == .permissionDenied, "a live document with a deletedAt")
        #expect(
            p.commit(
                u1,
                [
                    try FirestoreWrite.set(
                        Self.common(deleted: true).merging(["name": .string("Club")]) { _, n in n }, path: path)
                ])
                == .permissionDenied, "a tombstone keeping another field")
        #expect(
            p.commit(
                u1,
                [
                    try FirestoreWrite.set(
                        Self.common(deleted: true).merging(["deletedAt": .null]) { _, n in n }, path: path)
                ])
                == .permissionDenied, "a tombstone without deletedAt")
        #expect(p.commit(u1, [.delete(path: path)]) == .permissionDenied, "a live document is never deleted")
        #expect(p.commit(u1, [try FirestoreWrite.set(Self.common(deleted: true), path: path)]) == nil, "the tombstone")
        #expect(p.commit(u1, [.delete(path: path)]) == nil, "the purge deletes a tombstone")
        #expect(p.commit(u1, [.delete(path: path)]) == nil, "a retried purge finds nothing to delete")
    }

    @Test func storageBytesMovesOnlyWithTheBlobItNamesAndStaysUnderTheCap() throws {
        let p = try Project()
        let cap = SchemaLimits.storageCapBytes
        for uid in ["free", "pro"] {
            _ = try p.owner.commit([
                try FirestoreWrite.set(Self.profile(storageBytes: cap - 1_000), path: "users/\(uid)")
            ])
        }
        let free = p.client("free")
        let pro = p.client("pro", pro: true)
        let f1 = String(repeating: "1", count: 64)
        let f2 = String(repeating: "2", count: 64)
        #expect(p.commit(free, try Self.reserve("free", flight: f1, gzBytes: 1_000)) == nil, "up to the cap")
        #expect(try p.owner.get("users/free")?.fields["storageBytes"] == .integer(cap))
        #expect(
            p.commit(free, try Self.reserve("free", flight: f2, gzBytes: 1)) == .permissionDenied,
            "a byte over the cap without Pro")
        #expect(p.commit(pro, try Self.reserve("pro", flight: f2, gzBytes: 5_000)) == nil, "Pro has no cap")
        #expect(try p.owner.get("users/pro")?.fields["storageBytes"] == .integer(cap + 4_000))

        // Moved by another amount than the named blob's change, or naming a record the batch leaves alone.
        let f3 = String(repeating: "3", count: 64)
        #expect(
            p.commit(pro, try Self.reserve("pro", flight: f3, gzBytes: 100, increment: 101)) == .permissionDenied)
        #expect(p.commit(pro, try Self.reserve("pro", flight: f3, gzBytes: 100, names: f2)) == .permissionDenied)
        #expect(
            p.commit(
                pro,
                [
                    try FirestoreWrite(
                        path: "users/pro", fields: ["storageBytes": .increment(.integer(-10))],
                        mask: [try FieldPath(["storageBytes"])])
                ]) == .permissionDenied, "storageBytes moved on its own")

        // A tombstone lowers storageBytes by its object's gzBytes in its own batch; over the cap, a
        // lowering is allowed even without Pro.
        _ = try p.owner.commit([
            try FirestoreWrite(
                path: "users/free", fields: ["storageBytes": .integer(cap + 10_000)],
                mask: [try FieldPath(["storageBytes"])])
        ])
        let tombstone: [FirestoreWrite] = [
            try FirestoreWrite.set(Self.common(deleted: true), path: "users/free/flights/\(f1)"),
            try FirestoreWrite(
                path: "users/free",
                fields: [
                    "storageBytes": .increment(.integer(-1_000)),
                    "storageRef": .map(["collection": .string("flights"), "id": .string(f1)]),
                ], mask: [try FieldPath(["storageBytes"]), try FieldPath(["storageRef"])]),
        ]
        #expect(p.commit(free, tombstone) == nil)
        #expect(try p.owner.get("users/free")?.fields["storageBytes"] == .integer(cap + 9_000))
        #expect(
            p.commit(
                free,
                [
                    try FirestoreWrite.set(
                        Self.profile(storageBytes: 0).merging(["schema": .integer(2)]) { _, n in n }, path: "users/free"
                    )
                ])
                == .permissionDenied, "the profile's schema")
    }
}
