import Foundation
import Testing
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// The in-memory database answers the pages of one query from one sorted list of its matches
/// (kept until a commit changes the collection): every page must be what the query gives over the
/// documents as they are at that moment — commits between pages included.
@Suite struct QueryPagingTests {
    static func t(_ s: Int64) -> FirestoreValue {
        .timestamp((try? FirestoreTimestamp(seconds: 1_792_504_000 + s)) ?? .minimum)
    }

    /// The page `query` gives over every document now, computed afresh (no sorted list kept).
    static func reference(_ db: InMemoryFirestore, _ query: FirestoreQuery) -> [String] {
        query.evaluate(db.allDocuments, database: db.database).map(\.path)
    }

    @Test func pagesFollowCommitsMadeBetweenThem() throws {
        let clock = SteppingClock()
        let db = InMemoryFirestore(clock: { clock.now() })
        // 1,234 flights over 97 distinct updatedAt values (many ties across page edges), and
        // documents of another user and another collection that no page may return.
        var writes: [FirestoreWrite] = []
        for i in 0..<1_234 {
            writes.append(
                try .set(["updatedAt": Self.t(Int64(i % 97)), "n": .integer(Int64(i))], path: "users/u/flights/f\(i)"))
            if writes.count == 400 {
                _ = try db.commit(writes)
                writes = []
            }
        }
        writes.append(try .set(["updatedAt": Self.t(5)], path: "users/u/tasks/t1"))
        writes.append(try .set(["updatedAt": Self.t(5)], path: "users/v/flights/f1"))
        _ = try db.commit(writes)

        let updatedAt = try FieldPath(["updatedAt"])
        var query = FirestoreQuery(
            parent: "users/u", collectionId: "flights", filters: [.init(updatedAt, .greaterThanOrEqual, Self.t(3))],
            orderBy: [.init(updatedAt), .init(.documentName)], limit: 100)
        var seen: [String] = []
        var pageNumber = 0
        while true {
            let page = try db.runQuery(query)
            #expect(page.map(\.path) == Self.reference(db, query), "page \(pageNumber)")
            seen += page.map(\.path)
            guard page.count == query.limit, let last = page.last, let lastUpdatedAt = last.fields["updatedAt"] else {
                break
            }
            query.startAt = .init(
                values: [
                    lastUpdatedAt, .reference(FirestoreRESTJSON.documentName(database: db.database, path: last.path)),
                ],
                before: false)
            pageNumber += 1
            switch pageNumber {
            case 2:
                // A new flight after the cursor, one before it, and a delete of one not seen yet.
                _ = try db.commit([
                    try .set(["updatedAt": Self.t(96)], path: "users/u/flights/late"),
                    try .set(["updatedAt": Self.t(3)], path: "users/u/flights/early"),
                    .delete(path: "users/u/flights/f96"),
                ])
            case 4:
                // A change elsewhere (another collection) and an edit that moves a seen flight later.
                _ = try db.commit([
                    try .set(["updatedAt": Self.t(1)], path: "users/u/tasks/t2"),
                    try .set(["updatedAt": Self.t(95), "n": .integer(-1)], path: "users/u/flights/f3"),
                ])
            default: break
            }
        }
        #expect(pageNumber == 11)  // 11 full pages of 100, then one of 97
        #expect(seen.contains("users/u/flights/late"))
        #expect(!seen.contains("users/u/flights/early"))
        #expect(!seen.contains("users/u/flights/f96"))
        // f3 (updatedAt t(3)) was seen on the first page, and again after its edit moved it past the cursor.
        #expect(seen.filter { $0 == "users/u/flights/f3" }.count == 2)
        #expect(!seen.contains { !$0.hasPrefix("users/u/flights/") })
        // 1,234 − 3·13 flights under t(3), − f96, + late, + f3 again.
        #expect(seen.count == 1_234 - 39 - 1 + 1 + 1)
    }
}
