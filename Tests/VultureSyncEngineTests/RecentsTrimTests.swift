import Testing
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The recents trim, iOS's trimRecents (schema §5.3, §5.5; Spec/sync-rules.tsv area trim).
@Suite struct RecentsTrimTests {
    static let cap = Int(SchemaLimits.recentsMax)

    /// `count` server rows opened one second apart (the newest is `id-000`).
    static func rows(_ count: Int, inLogbook: (Int) -> Bool = { $0 % 2 == 0 }) -> [RecentsRow] {
        (0..<count).map { i in
            RecentsRow(
                id: "id-" + String(1000 + i).dropFirst(), lastOpenedAt: time(Int64(10_000 - i)),
                inLogbook: inLogbook(i), origin: .server)
        }
    }

    @Test func atTheCapNothingChanges() {
        #expect(RecentsTrim.changes(Self.rows(Self.cap)) == [])
    }

    @Test func oneBeyondTheCapTrimsTheOldest() {
        let logbook = RecentsTrim.changes(Self.rows(Self.cap + 1, inLogbook: { _ in true }))
        #expect(logbook == [RecentsTrimChange(id: "id-050", action: .clearLastOpenedAt, reason: .cap)])
        let recentsOnly = RecentsTrim.changes(Self.rows(Self.cap + 1, inLogbook: { _ in false }))
        #expect(recentsOnly == [RecentsTrimChange(id: "id-050", action: .tombstone, reason: .cap)])
    }

    @Test func equalInstantsAreTrimmedByIdSoEveryDeviceTrimsTheSameOnes() {
        var rows = Self.rows(Self.cap - 1)
        let same = time(1)
        rows.append(RecentsRow(id: "b", lastOpenedAt: same, inLogbook: true, origin: .server))
        rows.append(RecentsRow(id: "a", lastOpenedAt: same, inLogbook: false, origin: .local))
        rows.append(RecentsRow(id: "c", lastOpenedAt: same, inLogbook: false, origin: .server))
        let expected = [
            RecentsTrimChange(id: "b", action: .clearLastOpenedAt, reason: .cap),
            RecentsTrimChange(id: "c", action: .tombstone, reason: .cap),
        ]
        #expect(RecentsTrim.changes(rows) == expected)
        #expect(RecentsTrim.changes(rows.reversed()) == expected)
    }

    @Test func strandedServerRowsAreTombstonedLocalOnesLeftAlone() {
        let rows = [
            RecentsRow(id: "stranded", lastOpenedAt: nil, inLogbook: false, origin: .server),
            RecentsRow(id: "download", lastOpenedAt: nil, inLogbook: false, origin: .local),
            RecentsRow(id: "logbook", lastOpenedAt: nil, inLogbook: true, origin: .server),
        ]
        #expect(RecentsTrim.changes(rows) == [RecentsTrimChange(id: "stranded", action: .tombstone, reason: .stranded)])
    }

    @Test func theCapCountsLocalRowsToo() {
        var rows = Self.rows(Self.cap)
        rows.append(RecentsRow(id: "new-local", lastOpenedAt: time(20_000), inLogbook: false, origin: .local))
        #expect(
            RecentsTrim.changes(rows) == [RecentsTrimChange(id: "id-049", action: .tombstone, reason: .cap)])
    }

    @Test func rowsAreReadFromDocuments() {
        let doc = StoredDocument(id: "f", fields: ["lastOpenedAt": ts(3), "inLogbook": .boolean(true)])
        #expect(
            RecentsRow(document: doc, origin: .server)
                == RecentsRow(id: "f", lastOpenedAt: time(3), inLogbook: true, origin: .server))
        let odd = StoredDocument(id: "g", fields: ["lastOpenedAt": .string("yesterday"), "inLogbook": .integer(1)])
        #expect(
            RecentsRow(document: odd, origin: .local)
                == RecentsRow(id: "g", lastOpenedAt: nil, inLogbook: false, origin: .local))
    }
}
