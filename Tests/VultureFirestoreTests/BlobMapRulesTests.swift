import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncSchema

/// The blob-map rules of `Goldens/firestore.rules` on the Firestore emulator, as a table of allowed
/// and denied requests (schema §5.1 reserve → upload → mark, §6 the cap; pins
/// deletedAtOnlyTombstones, tombstoneStorageBytes): every row runs in a project of its own, the
/// owner writing what the row starts from, then the user's request judged by the rules.
@Suite(.enabled(if: EmulatorSupport.enabled, EmulatorSupport.skipReason))
struct BlobMapRulesTests {
    static let uid = "u1"
    static let f1 = String(repeating: "1", count: 64)
    static let f2 = String(repeating: "2", count: 64)
    static let hashA = String(repeating: "a", count: 64)
    static let hashB = String(repeating: "b", count: 64)
    static let cap = SchemaLimits.storageCapBytes

    /// One row: what the owner writes first, the user's request, and whether the rules allow it.
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let allowed: Bool
        var pro = false
        var storageBytes: Int64 = 0
        var setup: @Sendable () throws -> [[FirestoreWrite]] = { [] }
        let request: @Sendable () throws -> [FirestoreWrite]
        var testDescription: String { "\(allowed ? "allowed" : "denied"): \(name)" }
    }

    // MARK: Documents

    static let time = FirestoreValue.timestamp((try? FirestoreTimestamp(seconds: 1_792_504_987)) ?? .minimum)

    static func common(deleted: Bool = false) -> [String: FirestoreValue] {
        [
            "schema": .integer(SchemaConstants.schemaVersion), "updatedAt": .serverTimestamp,
            "clientUpdatedAt": time, "updatedBy": .string("device-a"), "platform": .string("android"),
            "deleted": .boolean(deleted), "deletedAt": deleted ? time : .null,
        ]
    }

    static func profile(storageBytes: Int64) -> FirestoreWrite {
        (try? FirestoreWrite.set(
            [
                "schema": .integer(SchemaConstants.schemaVersion), "createdAt": time, "lastSeenAt": time,
                "platforms": .array([.string("android")]), "storageBytes": .integer(storageBytes), "storageRef": .null,
            ], path: "users/\(uid)")) ?? .delete()
    }

    static func igc(_ id: String, gzBytes: Int64, uploaded: Bool) -> FirestoreValue {
        .map([
            "path": .string((try? BlobPaths.igcObjectPath(uid: uid, flightId: id)) ?? ""),
            "sizeBytes": .integer(gzBytes * 5), "gzBytes": .integer(gzBytes), "sha256": .string(id),
            "uploaded": .boolean(uploaded),
        ])
    }

    static func content(_ hash: String, gzBytes: Int64, uploaded: Bool) -> FirestoreValue {
        .map([
            "path": .string((try? BlobPaths.contentObjectPath(uid: uid, contentHash: hash)) ?? ""),
            "sizeBytes": .integer(gzBytes * 3), "gzBytes": .integer(gzBytes), "uploaded": .boolean(uploaded),
        ])
    }

    /// A full write of a live flight holding `igc` (null: no blob yet).
    static func flight(_ id: String, igc: FirestoreValue, comments: String = "") throws -> FirestoreWrite {
        try .set(
            common().merging(["igc": igc, "inLogbook": .boolean(true), "comments": .string(comments)]) { _, n in n },
            path: "users/\(uid)/flights/\(id)")
    }

    /// A full write of a live map file with `contentHash` and `content` (null: no blob yet).
    static func mapFile(_ id: String, hash: String, content: FirestoreValue) throws -> FirestoreWrite {
        try .set(
            common().merging([
                "type": .string("WAYPOINTS"), "source": .string("USER"), "filename": .string("\(id).cup"),
                "contentHash": .string(hash), "content": content,
            ]) { _, n in n }, path: "users/\(uid)/mapFiles/\(id)")
    }

    static func tombstone(_ collection: String, _ id: String) throws -> FirestoreWrite {
        try .set(common(deleted: true), path: "users/\(uid)/\(collection)/\(id)")
    }

    /// The profile's share of a blob batch: storageBytes moved by `delta` (none when nil), naming a record.
    static func counted(_ delta: Int64?, _ collection: String, _ id: String) throws -> FirestoreWrite {
        var fields: [String: FirestoreValue] = [
            "storageRef": .map(["collection": .string(collection), "id": .string(id)])
        ]
        var mask = [try FieldPath(["storageRef"])]
        if let delta {
            fields["storageBytes"] = .increment(.integer(delta))
            mask.append(try FieldPath(["storageBytes"]))
        }
        return try FirestoreWrite(path: "users/\(uid)", fields: fields, mask: mask)
    }

    /// f1 reserved (1,000 gzipped bytes counted, not uploaded yet).
    static let f1Reserved: @Sendable () throws -> [[FirestoreWrite]] = {
        [[try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: false)), try counted(1_000, "flights", f1)]]
    }

    /// Map file m1 holds content A, counted (2,000 bytes), uploaded.
    static let m1HoldsA: @Sendable () throws -> [[FirestoreWrite]] = {
        [
            [
                try mapFile("m1", hash: hashA, content: content(hashA, gzBytes: 2_000, uploaded: true)),
                try counted(2_000, "mapFiles", "m1"),
            ]
        ]
    }

    static let rows: [Row] = [
        // Reserve, upload, mark (schema §5.1).
        Row(
            name: "a reservation: the map not uploaded, storageBytes moved by its gzBytes, naming the record",
            allowed: true,
            request: {
                [try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: false)), try counted(1_000, "flights", f1)]
            }),
        Row(
            name: "a blob map written without moving storageBytes", allowed: false,
            request: { [try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: false))] }),
        Row(
            name: "a free user at the cap writes a 10,000,000-byte blob map without moving storageBytes",
            allowed: false, storageBytes: cap,
            request: { [try flight(f1, igc: igc(f1, gzBytes: 10_000_000, uploaded: false))] }),
        Row(
            name: "a free user at the cap reserves 10,000,000 bytes", allowed: false, storageBytes: cap,
            request: {
                [
                    try flight(f1, igc: igc(f1, gzBytes: 10_000_000, uploaded: false)),
                    try counted(10_000_000, "flights", f1),
                ]
            }),
        Row(
            name: "a Pro user at the cap reserves 10,000,000 bytes", allowed: true, pro: true, storageBytes: cap,
            request: {
                [
                    try flight(f1, igc: igc(f1, gzBytes: 10_000_000, uploaded: false)),
                    try counted(10_000_000, "flights", f1),
                ]
            }),
        Row(
            name: "a reservation that already says uploaded: true", allowed: false,
            request: {
                [try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: true)), try counted(1_000, "flights", f1)]
            }),
        Row(
            name: "two blob maps reserved in one batch while storageBytes counts one", allowed: false,
            request: {
                [
                    try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: false)),
                    try flight(f2, igc: igc(f2, gzBytes: 1_000, uploaded: false)), try counted(1_000, "flights", f1),
                ]
            }),
        Row(
            name: "two blob maps reserved in one batch, storageBytes moved by both, naming one", allowed: false,
            request: {
                [
                    try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: false)),
                    try flight(f2, igc: igc(f2, gzBytes: 1_000, uploaded: false)), try counted(2_000, "flights", f1),
                ]
            }),
        Row(
            name: "the mark: a later write that changes only uploaded", allowed: true, setup: f1Reserved,
            request: { [try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: true))] }),
        Row(
            name: "a mark that also changes gzBytes (storageBytes moved with it)", allowed: false, setup: f1Reserved,
            request: {
                [try flight(f1, igc: igc(f1, gzBytes: 1_500, uploaded: true)), try counted(500, "flights", f1)]
            }),
        Row(
            name: "reserve and mark in one batch", allowed: false,
            request: {
                [
                    try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: false)), try counted(1_000, "flights", f1),
                    try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: true)),
                ]
            }),
        Row(
            name: "an edit that leaves the blob map as it is", allowed: true, setup: f1Reserved,
            request: { [try flight(f1, igc: igc(f1, gzBytes: 1_000, uploaded: false), comments: "520 km")] }),
        Row(
            name: "a blob map dropped without lowering storageBytes", allowed: false, setup: f1Reserved,
            request: { [try flight(f1, igc: .null)] }),
        Row(
            name: "a tombstone that lowers storageBytes by its gzBytes, naming the record", allowed: true,
            setup: f1Reserved, request: { [try tombstone("flights", f1), try counted(-1_000, "flights", f1)] }),
        Row(
            name: "a tombstone of a counted blob that lowers nothing", allowed: false, setup: f1Reserved,
            request: { [try tombstone("flights", f1)] }),
        Row(
            name: "a tombstone that lowers storageBytes by another amount", allowed: false, setup: f1Reserved,
            request: { [try tombstone("flights", f1), try counted(-999, "flights", f1)] }),
        // Shared map-file content, counted once (schema §2, §5.4).
        Row(
            name: "a map file sharing counted content: nothing moves, storageRef names the live record holding it",
            allowed: true, setup: m1HoldsA,
            request: {
                [
                    try mapFile("m2", hash: hashA, content: content(hashA, gzBytes: 2_000, uploaded: false)),
                    try counted(nil, "mapFiles", "m1"),
                ]
            }),
        Row(
            name: "a map file's content counted by nobody: nothing moves and nothing is named", allowed: false,
            request: { [try mapFile("m2", hash: hashA, content: content(hashA, gzBytes: 2_000, uploaded: false))] }),
        Row(
            name: "a map file claiming shared content while the named record holds other content", allowed: false,
            setup: m1HoldsA,
            request: {
                [
                    try mapFile("m2", hash: hashB, content: content(hashB, gzBytes: 2_000, uploaded: false)),
                    try counted(nil, "mapFiles", "m1"),
                ]
            }),
        Row(
            name: "a map file claiming shared content held by a tombstone", allowed: false,
            setup: { try m1HoldsA() + [[try tombstone("mapFiles", "m1"), try counted(-2_000, "mapFiles", "m1")]] },
            request: {
                [
                    try mapFile("m2", hash: hashA, content: content(hashA, gzBytes: 2_000, uploaded: false)),
                    try counted(nil, "mapFiles", "m1"),
                ]
            }),
        Row(
            name: "a map file's tombstone whose content a live record still holds: nothing moves, naming it",
            allowed: true,
            setup: {
                try m1HoldsA() + [
                    [
                        try mapFile("m2", hash: hashA, content: content(hashA, gzBytes: 2_000, uploaded: true)),
                        try counted(nil, "mapFiles", "m1"),
                    ]
                ]
            },
            request: { [try tombstone("mapFiles", "m1"), try counted(nil, "mapFiles", "m2")] }),
        Row(
            name: "a map file's tombstone that lowers nothing while no live record holds its content",
            allowed: false, setup: m1HoldsA,
            request: { [try tombstone("mapFiles", "m1"), try counted(nil, "mapFiles", "m1")] }),
        Row(
            name: "a map file whose content is unknown (content null)", allowed: true,
            request: { [try mapFile("m3", hash: hashB, content: .null)] }),
        // deletedAt only on tombstones (pin deletedAtOnlyTombstones).
        Row(
            name: "a live record with deletedAt null", allowed: true,
            request: { [try flight(f1, igc: .null)] }),
        Row(
            name: "a live record without deletedAt", allowed: true,
            request: {
                var fields = common()
                fields["deletedAt"] = nil
                return [try .set(fields, path: "users/\(uid)/homebases/h1")]
            }),
        Row(
            name: "a live record with a deletedAt", allowed: false,
            request: {
                var fields = common()
                fields["deletedAt"] = time
                return [try .set(fields, path: "users/\(uid)/homebases/h1")]
            }),
    ]

    @Test(arguments: rows)
    func rule(_ row: Row) throws {
        let emulator = try FirestoreEmulator.shared()
        let project = "demo-blob-\(EmulatorSupport.uniqueCollection("p"))"
        let rules = try String(
            contentsOf: SecurityRulesTests.packageRoot.appendingPathComponent("Goldens/firestore.rules"),
            encoding: .utf8)
        let warnings = try emulator.loadRules(rules, projectId: project)
        #expect(warnings == [], "the generated rules load without a warning")
        let owner = FirestoreRESTClient(baseURL: emulator.baseURL, projectId: project, bearerToken: "owner")
        _ = try owner.commit([Self.profile(storageBytes: row.storageBytes)])
        for batch in try row.setup() { _ = try owner.commit(batch) }
        let token = EmulatorIdToken.unsigned(
            uid: Self.uid, entitlements: row.pro ? [SchemaConstants.proEntitlement] : [], projectId: project)
        let user = FirestoreRESTClient(baseURL: emulator.baseURL, projectId: project, bearerToken: token)
        let writes = try row.request()
        var status: FirestoreStatus? = nil
        do { _ = try user.commit(writes) } catch { status = error.status }
        if row.allowed {
            #expect(status == nil, "\(row.name): refused with \(String(describing: status))")
        } else {
            #expect(status == .permissionDenied, "\(row.name): \(status.map { "\($0)" } ?? "allowed")")
        }
    }
}
