import Foundation
import LogbookApp
import Testing
import VultureConformance
import VultureFirestore
import VultureFirestoreTesting
import VultureReference
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// What an app's own tests do with the package: the in-process suite against the codec, and the
/// engine over the app's store with in-memory backends from the testing products, reached through
/// `SDKSurfaceFirestore`: no more than the Firebase SDK gives the app.
@Suite struct LogbookAppTests {
    static let igc = Data(
        ("AXSM001\r\nHFDTE010526\r\nHFPLTPILOTINCHARGE:Ann Example\r\nHFGTYGLIDERTYPE:LS8\r\n"
            + "B1000005206000N00006000WA0050000510\r\nB1130005206100N00006100WA0060000610\r\n").utf8)

    /// The whole suite in process, against the reference codec the app ships: every case passes.
    @Test func theConformanceSuitePassesInProcess() throws {
        let suite = try GoldenSuite.load()
        var implementation = ReferenceImplementation(schema: .vulture)
        let run = ConformanceRunner.run(suite.cases, on: &implementation)
        #expect(suite.cases.count > 300)
        #expect(run.summary.failed == 0, "\(ConformanceRunner.report(run, failureList: nil).joined(separator: "\n"))")
        #expect(run.summary.passed == suite.cases.count)
        #expect(run.exitStatus == 0)
    }

    /// A flight imported on one device arrives on another, field for field, with its file.
    @Test func aFlightImportedOnOneDeviceArrivesOnTheOther() throws {
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let server = InMemoryFirestore(clock: clock.source)
        let storage = InMemoryCloudStorage()
        let phone = Logbook(
            uid: "pilot", deviceId: "phone", database: LogbookDatabase(),
            firestore: .client(SDKSurfaceFirestore(server)), storage: storage, clock: clock.source)
        let tablet = Logbook(
            uid: "pilot", deviceId: "tablet", database: LogbookDatabase(),
            firestore: .client(SDKSurfaceFirestore(server)), storage: storage, clock: clock.source)

        let id = try phone.importFlight(igc: Self.igc, filename: "2026-05-01.igc")
        #expect(id == DocumentIds.flightId(igcBytes: Self.igc))
        try phone.sync()
        clock.advance(seconds: 60)
        try tablet.sync()
        // The SDK answers a commit with no server time: the phone learns the flight's `updatedAt`
        // when its next pull brings the document back.
        try phone.sync()

        let sent = try #require(phone.flights.first)
        let received = try #require(tablet.flights.first)
        #expect(tablet.flights.map(\.id) == [id])
        #expect(received.fields == sent.fields)
        #expect(received.fields["pilotName"] == .string("Ann Example"))
        #expect(received.fields["gliderType"] == .string("LS8"))
        #expect(!sent.isDirty && !received.isDirty)
        // The IGC object is in the bucket, once, at the path the record names, uploaded.
        guard case .map(let igc)? = received.fields["igc"] else {
            Issue.record("no igc map in \(received.fields)")
            return
        }
        #expect(igc["uploaded"] == .boolean(true))
        #expect(storage.allObjects.map { FirestoreValue.string($0.path) } == [igc["path"]])
        #expect(storage.allObjects.first?.path.hasPrefix("users/pilot/") == true)
    }

    /// Two devices edit one flight while both are offline: through the SDK's surface the second
    /// push finds the document changed (its transaction compares it with what it agreed), merges,
    /// and both edits end on the server and on both devices.
    @Test func editsMadeOnTwoDevicesAtOnceBothArrive() throws {
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let server = InMemoryFirestore(clock: clock.source)
        let storage = InMemoryCloudStorage()
        let devices = ["phone", "tablet"].map { name in
            Logbook(
                uid: "pilot", deviceId: name, database: LogbookDatabase(),
                firestore: .client(SDKSurfaceFirestore(server)), storage: storage, clock: clock.source)
        }
        let (phone, tablet) = (devices[0], devices[1])
        let id = try phone.importFlight(igc: Self.igc, filename: "2026-05-01.igc")
        try phone.sync()
        try tablet.sync()
        clock.advance(seconds: 60)
        try phone.setFavorite(id, true)
        clock.advance(seconds: 1)
        try tablet.setComments(id, "Wave over the ridge")
        try phone.sync()
        clock.advance(seconds: 60)
        // A push without the pull before it: the tablet's agreed version is out of date.
        try tablet.engine.push()
        #expect(tablet.engine.takeEvents().contains(.reconciled(.flights, id: id)))
        try tablet.sync()
        try phone.sync()

        let stored = try #require(try server.get("users/pilot/flights/\(id)")?.fields)
        #expect(stored["isFavorite"] == .boolean(true))
        #expect(stored["comments"] == .string("Wave over the ridge"))
        for device in devices {
            let row = try #require(device.flights.first)
            #expect(row.fields["isFavorite"] == .boolean(true))
            #expect(row.fields["comments"] == .string("Wave over the ridge"))
            #expect(!row.isDirty)
        }
    }

    /// What the app did not save is gone after a kill; what it saved stays.
    @Test func anUnsavedChangeIsLostByAKill() throws {
        let database = LogbookDatabase()
        let store = LogbookStore(database: database)
        var state = store.state
        state.duplicatePassDone = true
        store.state = state
        try store.commit()
        state.duplicatePassDone = false
        store.state = state
        database.discardUnsaved()
        #expect(store.state.duplicatePassDone)
    }
}
