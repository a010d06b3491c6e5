import Testing
import VultureSchemaCore
import VultureSyncSchema

@testable import VultureSyncEngine

/// A whole-document write's mask is made from the schema's field order (a bit per known name), not by
/// sorting each document's names; it must be the order the sort gives.
@Suite("Write mask: the schema's field order equals the sorted names")
struct WriteMaskOrderTests {
    @Test func everySchemaFieldNameInTheSortedOrder() throws {
        let names = Array(Set(SyncSchema.vulture.fields.map(\.name)))
        let fields = Dictionary(uniqueKeysWithValues: names.map { ($0, FirestoreValue.null) })
        let mask = try #require(SyncEngine.schemaOrderedMask(fields.keys))
        #expect(mask.map(\.segments) == FieldPath.sortedByScalars(names).map { [$0] })
        #expect(mask.count > 64, "the names span more than one word of bits")
    }

    @Test func aFlightsNamesInTheSortedOrder() throws {
        let names = SyncSchema.vulture.fields(of: "FlightDocument").map(\.name)
        let fields = Dictionary(uniqueKeysWithValues: names.map { ($0, FirestoreValue.null) })
        let mask = try #require(SyncEngine.schemaOrderedMask(fields.keys))
        #expect(mask.map(\.segments) == FieldPath.sortedByScalars(names).map { [$0] })
    }

    @Test func aNameTheSchemaDoesNotKnowLeavesItToTheSort() {
        let fields: [String: FirestoreValue] = ["takeoffCode": .null, "zzUnknown": .null]
        #expect(SyncEngine.schemaOrderedMask(fields.keys) == nil)
        let empty: [String: FirestoreValue] = ["": .null]
        #expect(SyncEngine.schemaOrderedMask(empty.keys) == nil)
    }
}
