import Testing
import VultureSchemaCore
import VultureSyncSchema

@testable import VultureFirestore

/// A `/` followed by a combining mark is one Character (`"/\u{301}"`), so a path split at `/` by
/// Character misses that slash; every document path, name and pointer is split by Unicode scalars
/// (`FirestoreLimits.slashSegments`). One case per place that split by Character before.
@Suite struct SlashBeforeCombiningMarkTests {
    /// A flight whose id starts with a combining acute accent.
    static let path = "users/u/flights/\u{301}x"

    @Test func aCharacterSplitMissesTheSlashButTheScalarSplitDoesNot() {
        #expect(Self.path.split(separator: "/").map(String.init) == ["users", "u", "flights/\u{301}x"])
        #expect(FirestoreLimits.slashSegments(Self.path).map(String.init) == ["users", "u", "flights", "\u{301}x"])
    }

    @Test func aDocumentsIdIsItsLastSegment() throws {
        let t = try FirestoreTimestamp(seconds: 1_792_000_000)
        #expect(FirestoreDocument(path: Self.path, fields: [:], createTime: t, updateTime: t).id == "\u{301}x")
    }

    @Test func theValidatorSeesAFlightWithAWrongId() {
        let v = SchemaValidator(schema: .vulture)
        let sha = String(repeating: "ab", count: 32)
        let result = v.pathViolations(path: Self.path, fields: ["igc": .map(["sha256": .string(sha)])])
        #expect(result.violations.map(\.rule) == ["schema.document-id"])
    }

    @Test func referencesCompareSegmentBySegment() {
        let root = "projects/p/databases/(default)/documents/"
        // "c" sorts before "c!" as a segment; the Character split compared "c/\u{301}" with "c!".
        let a = FirestoreValue.reference(root + "c/\u{301}")
        let b = FirestoreValue.reference(root + "c!/a")
        #expect(FirestoreValueOrder.compare(a, b) == -1)
        #expect(FirestoreValueOrder.compare(b, a) == 1)
    }

    @Test func theInMemoryDatabaseListsTheDocumentInItsCollection() throws {
        #expect(InMemoryFirestore.collectionPath(Self.path) == "users/u/flights")
        let db = InMemoryFirestore(clock: { FirestoreTimestamp.minimum })
        _ = try db.commit([FirestoreWrite(path: Self.path, fields: ["a": .integer(1)])])
        let listed = try db.runQuery(FirestoreQuery(parent: "users/u", collectionId: "flights"))
        #expect(listed.map(\.path) == [Self.path])
        #expect(DocumentSnapshot(path: Self.path, data: [:]).documentID == "\u{301}x")
    }

    @Test func theRESTPathEscapesEachSegmentAndKeepsTheSlash() {
        #expect(FirestoreRESTClient.escaped(Self.path) == "users/u/flights/%CC%81x")
    }
}
