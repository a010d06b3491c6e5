import Foundation
import Testing
import VultureFirestore
import VultureSyncEngine
import VultureSyncSchema

/// One backend shared by devices, each with its own clock and store.
final class World {
    let serverClock: ManualClock
    let firestore: InMemoryFirestore
    let storage = InMemoryCloudStorage()

    init(start: Int64 = 1_792_504_987) {
        serverClock = ManualClock(try! FirestoreTimestamp(seconds: start))
        firestore = InMemoryFirestore(clock: serverClock.source)
    }

    func device(_ name: String, platform: Platform = .android, pro: Bool = false) -> (
        SyncEngine, InMemoryLocalStore, ManualClock
    ) {
        let clock = ManualClock(serverClock.now)
        let store = InMemoryLocalStore()
        let engine = SyncEngine(
            configuration: SyncConfiguration(
                uid: "u1", deviceId: "device-\(name)", platform: platform, entitlements: pro ? ["all"] : []),
            database: firestore, storage: storage, store: store, clock: clock.source)
        return (engine, store, clock)
    }

    func tick(_ seconds: Int64 = 1, clocks: [ManualClock] = []) {
        serverClock.advance(seconds: seconds)
        for c in clocks { c.advance(seconds: seconds) }
    }
}

@Suite struct EngineTests {
    static let igc = Data(
        "AXCSAAA\r\nHFDTE081116\r\nHFPLTPILOTINCHARGE:Jane Doe\r\nB1101355206343N00006198WA0058700558\r\n".utf8)

    @Test func aFlightImportedOnOneDeviceArrivesOnTheOther() throws {
        let world = World()
        let (a, storeA, clockA) = world.device("a")
        let (b, storeB, clockB) = world.device("b", platform: .ios)
        let id = try a.importFlight(
            igc: Self.igc, fields: ["filename": .string("2016-11-08-xcs-aaa-02.igc"), "inLogbook": .boolean(true)])
        #expect(id == DocumentIds.flightId(igcBytes: Self.igc))
        try a.sync()
        world.tick(clocks: [clockA, clockB])
        // Reserved, uploaded, then marked: the server's record says uploaded and storageBytes counts it.
        let doc = try #require(try world.firestore.get("users/u1/flights/\(id)"))
        guard case .map(let igcMap)? = doc.fields["igc"] else {
            Issue.record("no igc map")
            return
        }
        #expect(igcMap["uploaded"] == .boolean(true))
        let profile = try #require(try world.firestore.get("users/u1"))
        #expect(profile.fields["storageBytes"] == igcMap["gzBytes"])
        #expect(world.storage.allObjects.map(\.path) == ["users/u1/igc/\(id).igc.gz"])
        #expect(storeA.row(.flights, id: id)?.isDirty == false)

        try b.sync()
        let row = try #require(storeB.row(.flights, id: id))
        #expect(row.fields["inLogbook"] == .boolean(true))
        #expect(row.fields["filename"] == .string("2016-11-08-xcs-aaa-02.igc"))
        #expect(row.isDirty == false)
        #expect(try b.openFlight(id) == Self.igc)
        _ = storeA
    }
}
