import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// The engine's queries (schema §5) on both sides: the pull's pages ordered by `updatedAt` then
/// the document name, continued after the last `(updatedAt, name)` seen; equality on
/// `contentHash`; `deletedAt <` for old tombstones.
@Suite struct QueryTests {
    static func t(_ s: Int64) -> FirestoreValue {
        .timestamp((try? FirestoreTimestamp(seconds: 1_792_504_000 + s, microseconds: 0)) ?? .minimum)
    }

    /// Seven flights: three share one `updatedAt` (one commit's request time), two are tombstones.
    static let flights: [(String, [String: FirestoreValue])] = [
        ("f1", ["updatedAt": t(10), "contentHash": .string("aa"), "deletedAt": .null]),
        ("f2", ["updatedAt": t(20), "contentHash": .string("bb"), "deletedAt": .null]),
        ("f3", ["updatedAt": t(20), "contentHash": .string("aa"), "deletedAt": t(5)]),
        ("f0", ["updatedAt": t(20), "contentHash": .string("cc"), "deletedAt": .null]),
        ("f4", ["updatedAt": t(30), "contentHash": .string("aa"), "deletedAt": t(25)]),
        ("f5", ["updatedAt": .integer(40), "contentHash": .string("dd")]),
        ("f6", ["contentHash": .string("ee")]),
    ]

    static func sides() throws -> [(String, any FirestoreDatabase, String)] {
        let clock = SteppingClock()
        var out: [(String, any FirestoreDatabase, String)] = [
            ("in memory", InMemoryFirestore(clock: { clock.now() }), "")
        ]
        if EmulatorSupport.enabled {
            out.append(("emulator", try EmulatorSupport.client(), ""))
        }
        return out.map { side in
            (side.0, side.1, "users/" + EmulatorSupport.uniqueCollection("u"))
        }
    }

    static func seed(_ db: any FirestoreDatabase, _ parent: String) throws {
        _ = try db.commit(try flights.map { try FirestoreWrite.set($0.1, path: "\(parent)/flights/\($0.0)") })
        _ = try db.commit([try .set(["updatedAt": t(20)], path: "\(parent)/tasks/x")])
    }

    @Test func pullPagesByUpdatedAtThenNameWithAStartAfterCursor() throws {
        for (side, db, parent) in try Self.sides() {
            try Self.seed(db, parent)
            let updatedAt = try FieldPath(["updatedAt"])
            var query = FirestoreQuery(
                parent: parent, collectionId: "flights", filters: [.init(updatedAt, .greaterThanOrEqual, Self.t(15))],
                orderBy: [.init(updatedAt), .init(.documentName)], limit: 2)
            var pages: [[String]] = []
            while true {
                let page = try db.runQuery(query)
                pages.append(page.map(\.id))
                guard page.count == query.limit, let last = page.last, let lastUpdatedAt = last.fields["updatedAt"]
                else {
                    break
                }
                query.startAt = .init(
                    values: [
                        lastUpdatedAt,
                        .reference(FirestoreRESTJSON.documentName(database: db.database, path: last.path)),
                    ],
                    before: false)
            }
            // Ties at t(20) come in name order and none is lost or repeated across pages; the
            // integer updatedAt and the flight without one are not timestamps ≥ t(15).
            #expect(pages == [["f0", "f2"], ["f3", "f4"], []], "\(side)")
        }
    }

    @Test func equalityOnContentHash() throws {
        for (side, db, parent) in try Self.sides() {
            try Self.seed(db, parent)
            let q = FirestoreQuery(
                parent: parent, collectionId: "flights",
                filters: [.init(try FieldPath(["contentHash"]), .equal, .string("aa"))])
            #expect(try db.runQuery(q).map(\.id) == ["f1", "f3", "f4"], "\(side)")
        }
    }

    @Test func oldTombstonesByDeletedAtLessThan() throws {
        for (side, db, parent) in try Self.sides() {
            try Self.seed(db, parent)
            let q = FirestoreQuery(
                parent: parent, collectionId: "flights",
                filters: [.init(try FieldPath(["deletedAt"]), .lessThan, Self.t(26))], limit: 10)
            // null is not a timestamp: live flights are not matched.
            #expect(try db.runQuery(q).map(\.id) == ["f3", "f4"], "\(side)")
        }
    }

    @Test func descendingOrderWithAStartAtCursor() throws {
        for (side, db, parent) in try Self.sides() {
            try Self.seed(db, parent)
            let q = FirestoreQuery(
                parent: parent, collectionId: "flights", orderBy: [.init(try FieldPath(["updatedAt"]), .descending)],
                startAt: .init(values: [Self.t(20)], before: true))
            // Descending: name order is descending too; numbers sort before timestamps.
            #expect(try db.runQuery(q).map(\.id) == ["f3", "f2", "f0", "f1", "f5"], "\(side)")
        }
    }

    @Test func valueOrderAcrossTypes() {
        let ordered: [FirestoreValue] = [
            .null, .boolean(false), .boolean(true), .double(.nan), .double(-.infinity), .integer(-1), .double(0.5),
            .integer(1), .double(1.5), .timestamp(.minimum), .string(""), .string("a"), .string("é"), .bytes(Data([0])),
            .reference("projects/p/databases/d/documents/a/b"), .geoPoint(GeoPoint(latitude: 0, longitude: 0)),
            .array([]), .array([.integer(1)]), .map([:]), .map(["a": .integer(1)]),
        ]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                let c = FirestoreValueOrder.compare(a, b)
                #expect(c == (i < j ? -1 : i > j ? 1 : 0), "\(a) vs \(b)")
            }
        }
        #expect(FirestoreValueOrder.compare(.integer(1), .double(1.0)) == 0)
        #expect(FirestoreValueOrder.compare(.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992)) == 1)
    }

    /// References and strings compare without splitting or copying; the result is the definition's:
    /// segments split at `/` compared by UTF-8 bytes, then the number of segments; strings by bytes.
    @Test func referencesAndStringsOrderAsTheirDefinition() {
        func bytes(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Int {
            let (x, y) = (Array(a), Array(b))
            for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        }
        func bySegments(_ a: String, _ b: String) -> Int {
            let (xs, ys) = (FirestoreLimits.slashSegments(a), FirestoreLimits.slashSegments(b))
            for (p, q) in zip(xs, ys) {
                let c = bytes(p.utf8, q.utf8)
                if c != 0 { return c }
            }
            return xs.count == ys.count ? 0 : (xs.count < ys.count ? -1 : 1)
        }
        let names = [
            "", "a", "a/", "a/b", "a/b/", "a//b", "a.b", "a.b/c", "a!/b", "a/b/c", "ab", "ab/c", "a/bc", "a/b!",
            "a/\u{301}", "é/a", "e\u{301}/a", "a/\u{10FFFF}", "a/\u{7F}", "/a", "//", "a/b/c/d",
        ]
        for a in names {
            for b in names {
                #expect(FirestoreValueOrder.compare(.reference(a), .reference(b)) == bySegments(a, b), "\(a) vs \(b)")
                #expect(FirestoreValueOrder.compare(.string(a), .string(b)) == bytes(a.utf8, b.utf8), "\(a) vs \(b)")
            }
        }
    }
}
