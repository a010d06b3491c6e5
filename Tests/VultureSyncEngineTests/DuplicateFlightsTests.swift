import Testing
import VultureSchemaCore
import VultureSyncEngine

/// The R4 duplicate pass (schema §4 risk R4), by the criteria and keep order of Spec/sync-rules.tsv.
@Suite struct DuplicateFlightsTests {
    static func flight(
        _ id: String, filename: String? = "2016-11-08.igc", takeoff: Int64? = 100, pilot: String? = "Jérôme",
        importedAt: Int64?, fields: [String: FirestoreValue] = [:]
    ) -> StoredDocument {
        var f = live(
            10,
            [
                "filename": filename.map { .string($0) } ?? .null, "pilotName": pilot.map { .string($0) } ?? .null,
                "importedAt": importedAt.map { ts($0) } ?? .null,
                "summary": .map(["analysisVersion": .integer(1), "takeoffAt": takeoff.map { ts($0) } ?? .null]),
                "igc": .map(["path": .string("users/u/igc/\(id).igc.gz"), "uploaded": .boolean(true)]),
            ])
        f.merge(fields) { _, new in new }
        return StoredDocument(id: id, fields: f)
    }

    @Test func theEarliestImportIsKeptAndTheOtherTombstoned() {
        let android = Self.flight("android", importedAt: 5, fields: ["isFavorite": .boolean(false)])
        let ios = Self.flight(
            "ios", importedAt: 9, fields: ["isFavorite": .boolean(true), "comments": .string("nice")])
        let groups = DuplicateFlights.groups([ios, android])
        #expect(groups.count == 1)
        #expect(groups.first?.keep == "android")
        #expect(groups.first?.tombstone == ["ios"])
        #expect(groups.first?.document["comments"] == .string("nice"))
        #expect(groups.first?.document["igc"] == android.fields["igc"], "the kept flight keeps its own IGC object")
        #expect(groups.first?.document["importedAt"] == ts(5))
    }

    @Test func equalImportsKeepTheSmallerIdAndAMissingImportRanksLast() {
        #expect(
            DuplicateFlights.groups([Self.flight("b", importedAt: 5), Self.flight("a", importedAt: 5)]).first?.keep
                == "a")
        #expect(
            DuplicateFlights.groups([Self.flight("a", importedAt: nil), Self.flight("b", importedAt: 7)]).first?.keep
                == "b")
    }

    @Test func criteriaMustAllHold() {
        let base = Self.flight("a", importedAt: 1)
        #expect(DuplicateFlights.groups([base, Self.flight("b", filename: "other.igc", importedAt: 2)]).isEmpty)
        #expect(DuplicateFlights.groups([base, Self.flight("b", takeoff: 101, importedAt: 2)]).isEmpty)
        #expect(DuplicateFlights.groups([base, Self.flight("b", pilot: "Jerome", importedAt: 2)]).isEmpty)
        let noName = [Self.flight("a", filename: nil, importedAt: 1), Self.flight("b", filename: nil, importedAt: 2)]
        #expect(DuplicateFlights.groups(noName).isEmpty)
        let noPilot = [Self.flight("a", pilot: nil, importedAt: 1), Self.flight("b", pilot: nil, importedAt: 2)]
        #expect(DuplicateFlights.groups(noPilot).first?.tombstone == ["b"])
    }

    @Test func aGroupOfThreeTombstonesTwoAndTombstonesAreSkipped() {
        let dead = StoredDocument(id: "0", fields: tombstone(3))
        let groups = DuplicateFlights.groups([
            Self.flight("c", importedAt: 3), Self.flight("a", importedAt: 9), Self.flight("b", importedAt: 1), dead,
        ])
        #expect(
            groups == [
                DuplicateGroup(keep: "b", tombstone: ["c", "a"], document: groups[0].document, deferredTaskId: nil)
            ])
    }

    @Test func aMergedTaskIdIsDeferredOnlyAgainstTheDevice() {
        let a = Self.flight("a", importedAt: 1)
        let b = Self.flight("b", importedAt: 2, fields: ["taskId": .string("t1"), "clientUpdatedAt": ts(99)])
        let waiting = DuplicateFlights.groups([a, b])
        #expect(waiting.first?.document["taskId"] == .null)
        #expect(waiting.first?.deferredTaskId == "t1")
        let present = DuplicateFlights.groups([a, b], context: MergeContext(tasksOnDevice: ["t1"]))
        #expect(present.first?.document["taskId"] == .string("t1"))
    }
}
