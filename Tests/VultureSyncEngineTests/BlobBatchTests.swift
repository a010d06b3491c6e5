import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The engine's commits hold the one blob change they count (schema §5.1, §5.4), as
/// `validate --format rest` checks a commit request (``SchemaValidator/validate(commit:)``): flights
/// and two map files sharing one content object reserved, the shared one and then the last holder
/// tombstoned.
@Suite struct BlobBatchTests {
    static let content = Data(
        "name,code,country,lat,lon,elev,style\n\"Aachen\",EDKA,DE,5049.383N,00611.183E,189.0m,5\n".utf8)

    @Test func everyCommitOfTheEngineCarriesTheOneBlobChangeItCounts() throws {
        let world = World()
        let (a, _, clockA) = world.device("a")
        let (b, _, clockB) = world.device("b", platform: .ios)
        let clocks = [clockA, clockB]
        let flight = try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true)])
        let user = try a.importMapFile(
            content: Self.content,
            fields: ["type": .string("WAYPOINTS"), "source": .string("USER"), "filename": .string("aachen.cup")])
        try a.sync()
        world.tick(clocks: clocks)
        let downloaded = try b.importMapFile(
            content: Self.content,
            fields: ["type": .string("WAYPOINTS"), "source": .string("XCSOAR"), "filename": .string("DE.cup")])
        try b.sync()
        world.tick(clocks: clocks)
        let counted = try #require(try world.firestore.get("users/u1")?.fields["storageBytes"])
        try a.sync()
        try a.delete(.mapFiles, id: user)  // b's record still holds the content: nothing released
        try a.delete(.flights, id: flight)
        try a.sync()
        world.tick(clocks: clocks)
        try b.sync()
        try b.delete(.mapFiles, id: downloaded)  // the last holder: the content released
        try b.sync()

        let commits = world.firestore.requests.filter { $0.kind == .commit }.map(\.writes)
        let validator = SchemaValidator(schema: .vulture)
        for writes in commits {
            let found = validator.validate(commit: writes).map(\.violation.violation.description)
            #expect(found == [], "\(writes.compactMap(\.path))")
        }
        // The shared content was counted once, by the record that reserved it first, and named by the
        // one that shares it instead of moving storageBytes.
        let naming = commits.filter { writes in
            writes.contains {
                $0.path == "users/u1" && $0.fields?["storageRef"] != nil && $0.fields?["storageBytes"] == nil
            }
        }
        #expect(naming.count == 2, "the shared reservation and the shared tombstone name the holder")
        #expect(counted != .integer(0))
        #expect(try world.firestore.get("users/u1")?.fields["storageBytes"] == .integer(0))
    }
}
