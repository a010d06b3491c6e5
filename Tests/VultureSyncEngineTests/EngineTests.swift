import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// One backend shared by devices, each with its own clock and store.
final class World {
    let serverClock: ManualClock
    let memory: InMemoryFirestore
    let firestore: RecordingFirestore
    let storage = InMemoryCloudStorage()

    init(start: Int64 = 1_792_504_987) {
        serverClock = ManualClock(FirestoreTimestamp(seconds: start, microseconds: 0, orEpoch: ()))
        memory = InMemoryFirestore(clock: serverClock.source)
        firestore = RecordingFirestore(memory)
    }

    func device(_ name: String, platform: Platform = .android, pro: Bool = false) -> (
        SyncEngine, InMemoryLocalStore, ManualClock
    ) {
        let store = InMemoryLocalStore()
        let (engine, clock) = device(name, store: store, platform: platform, pro: pro)
        return (engine, store, clock)
    }

    /// A device of user `u1` over a store of the test's choosing, with its own clock.
    func device(_ name: String, store: LocalStore, platform: Platform = .android, pro: Bool = false) -> (
        SyncEngine, ManualClock
    ) {
        let clock = ManualClock(serverClock.now)
        let engine = SyncEngine(
            configuration: SyncConfiguration(
                uid: "u1", deviceId: "device-\(name)", platform: platform, entitlements: pro ? ["all"] : []),
            database: firestore, storage: storage, store: store, clock: clock.source)
        return (engine, clock)
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

extension FirestoreTimestamp {
    /// A test timestamp; the epoch when out of range.
    init(seconds: Int64, microseconds: Int32, orEpoch: Void) {
        self = (try? FirestoreTimestamp(seconds: seconds, microseconds: microseconds)) ?? FirestoreTimestamp.minimum
    }
}

/// The pull and push contracts (schema §5.1, §5.2), one at a time, against the in-memory Firestore.
@Suite struct PullPushContractTests {
    /// `n` homebases written by the server in one commit at one instant (one `updatedAt`).
    static func homebaseWrites(_ range: Range<Int>) throws -> [FirestoreWrite] {
        try range.map { i in
            let name = String(format: "Field %04d", i)
            let id = DocumentIds.homebaseId(name: name)
            return try FirestoreWrite(
                path: "users/u1/homebases/\(id)",
                fields: [
                    "schema": .integer(1), "updatedAt": .serverTimestamp,
                    "clientUpdatedAt": .timestamp(FirestoreTimestamp.minimum), "updatedBy": .string("server"),
                    "platform": .string("android"), "deleted": .boolean(false), "deletedAt": .null,
                    "name": .string(name), "latitude": .double(50), "longitude": .double(6), "usedAt": .null,
                ])
        }
    }

    @Test func moreThanAPageSharingOneUpdatedAtArrivesWhole() throws {
        let world = World()
        let t = world.serverClock.now
        _ = try world.memory.commit(try Self.homebaseWrites(0..<400), commitTime: t)
        _ = try world.memory.commit(try Self.homebaseWrites(400..<620), commitTime: t)
        let (b, store, _) = world.device("b")
        try b.pull()
        #expect(store.rows(.homebases).count == 620)
        let pages = b.events.compactMap { e -> Int? in
            if case .pulledPage(.homebases, let n) = e { return n }
            return nil
        }
        #expect(pages == [500, 120])
        // A second pull asks from cursor − 2 min: the same 620 again, applied without change.
        try b.pull()
        #expect(store.rows(.homebases).count == 620)
        #expect(store.rows(.homebases).allSatisfy { !$0.isDirty })
    }

    @Test func aCommitVisibleLateInsideTheOverlapIsPulled() throws {
        let world = World()
        let (b, store, _) = world.device("b")
        let t0 = world.serverClock.now
        _ = try world.memory.commit(try Self.homebaseWrites(0..<1), commitTime: t0.adding(seconds: 100))
        try b.pull()
        #expect(store.rows(.homebases).count == 1)
        // A commit with an earlier time becomes visible only now (inside the 2-minute window).
        _ = try world.memory.commit(try Self.homebaseWrites(1..<2), commitTime: t0.adding(seconds: 10))
        try b.pull()
        #expect(store.rows(.homebases).count == 2)
        // Outside the window it would be missed: that is what the overlap is for.
        _ = try world.memory.commit(try Self.homebaseWrites(2..<3), commitTime: t0.adding(seconds: -30))
        try b.pull()
        #expect(store.rows(.homebases).count == 2)
    }

    @Test func aFirstSyncOf520RecordsIsPushedInBatchesOf400() throws {
        let world = World()
        let (a, _, clock) = world.device("a")
        for i in 0..<520 {
            try a.save(
                .homebases, changes: ["name": .string("Field \(i)"), "latitude": .double(50), "longitude": .double(6)])
        }
        clock.advance(seconds: 1)
        try a.sync()
        let batches = world.firestore.requests.filter { $0.kind == .commit }.map(\.writes.count).filter { $0 > 1 }
        #expect(batches == [400, 120])
        #expect(world.memory.allDocuments.filter { $0.path.contains("/homebases/") }.count == 520)
    }

    @Test func aLostAcknowledgementOfAReservationDoesNotCountTwice() throws {
        let world = World()
        let (a, store, _) = world.device("a")
        try a.sync()  // creates the profile
        let id = try a.importFlight(igc: EngineTests.igc)
        world.firestore.inject(.loseAcknowledgement, next: .commit)  // the reservation lands, its answer is lost
        try a.sync()
        let profile = try #require(try world.memory.get("users/u1"))
        let doc = try #require(try world.memory.get("users/u1/flights/\(id)"))
        guard case .map(let igc)? = doc.fields["igc"] else {
            Issue.record("no igc map")
            return
        }
        #expect(profile.fields["storageBytes"] == igc["gzBytes"])
        #expect(igc["uploaded"] == .boolean(true))
        #expect(store.row(.flights, id: id)?.isDirty == false)
        #expect(a.events.contains(.reconciled(.flights, id: id)))
    }

    /// A counted tombstone whose commit landed but whose answer was lost is read again (the retry's
    /// precondition fails), and the object it released is still deleted: the tombstone on the
    /// server already lowered storageBytes, and no other device would delete the object.
    @Test func aLostAcknowledgementOfACountedTombstoneStillDeletesItsObject() throws {
        let world = World()
        let (a, store, clock) = world.device("a")
        try a.sync()
        let id = try a.importFlight(igc: EngineTests.igc)
        try a.sync()
        #expect(world.storage.allObjects.map(\.path) == ["users/u1/igc/\(id).igc.gz"])
        world.tick(clocks: [clock])
        try a.delete(.flights, id: id)
        world.firestore.inject(.loseAcknowledgement, next: .commit)  // the tombstone lands, its answer is lost
        try a.sync()
        #expect(try world.memory.get("users/u1/flights/\(id)")?.fields["deleted"] == .boolean(true))
        #expect(try world.memory.get("users/u1")?.fields["storageBytes"] == .integer(0))
        #expect(world.storage.allObjects.map(\.path) == [])
        #expect(store.row(.flights, id: id)?.isDirty == false)
        #expect(a.events.contains(.reconciled(.flights, id: id)))
    }

    /// With security rules, Firestore judges the rules before the preconditions: the retried
    /// reservation is refused with PERMISSION_DENIED (its increment no longer matches the record's
    /// blob change), not ALREADY_EXISTS — seen on the Firestore emulator with Goldens/firestore.rules.
    /// The engine reads the record again as for a failed precondition, and counts the file once.
    @Test func aRetriedReservationRefusedByTheRulesIsReconciled() throws {
        let world = World()
        let (a, store, _) = world.device("a")
        try a.sync()
        let id = try a.importFlight(igc: EngineTests.igc)
        world.firestore.inject(.loseAcknowledgement, next: .commit)
        world.firestore.inject(.refuse(.permissionDenied), next: .commit)
        try a.sync()
        let profile = try #require(try world.memory.get("users/u1"))
        let doc = try #require(try world.memory.get("users/u1/flights/\(id)"))
        #expect(profile.fields["storageBytes"] == doc.fields["igc"]?.mapValue?["gzBytes"])
        #expect(doc.fields["igc"]?.mapValue?["uploaded"] == .boolean(true))
        #expect(store.row(.flights, id: id)?.isDirty == false)
        #expect(a.events.contains(.reconciled(.flights, id: id)))
    }

    @Test func aDailyQuotaErrorPausesUntilTheNextDayAndLosesNothing() throws {
        let world = World()
        let (a, store, clock) = world.device("a")
        let id = try a.save(
            .homebases, changes: ["name": .string("Aachen"), "latitude": .double(50), "longitude": .double(6)])
        world.firestore.inject(.refuse(.resourceExhausted), next: .query)
        #expect(throws: SyncError.self) { try a.sync() }
        guard case .paused(let until)? = a.events.last else {
            Issue.record("not paused")
            return
        }
        #expect(until.seconds % 86_400 == 0 && until > clock.now)
        #expect(throws: SyncError.paused(until: until)) { try a.sync() }
        #expect(store.row(.homebases, id: id)?.isDirty == true)
        clock.set(until)
        try a.sync()
        #expect(try world.memory.get("users/u1/homebases/\(id)") != nil)
        #expect(store.row(.homebases, id: id)?.isDirty == false)
    }

    @Test func overTheCapTheFileStaysLocalAndTheMetadataSyncsUntilPro() throws {
        let world = World()
        let (a, store, _) = world.device("a")
        _ = try world.memory.commit([
            try FirestoreWrite(
                path: "users/u1",
                fields: [
                    "schema": .integer(1), "createdAt": .timestamp(.minimum), "lastSeenAt": .timestamp(.minimum),
                    "platforms": .array([.string("android")]),
                    "storageBytes": .integer(SchemaLimits.storageCapBytes - 10),
                    "storageRef": .null,
                ])
        ])
        let id = try a.importFlight(igc: EngineTests.igc)
        try a.sync()
        #expect(a.events.contains(.capReached(.flights, id: id)))
        let doc = try #require(try world.memory.get("users/u1/flights/\(id)"))
        #expect(doc.fields["igc"] == .null)
        #expect(world.storage.allObjects.isEmpty)
        #expect(store.row(.flights, id: id)?.pendingBlobMap != nil)

        let (pro, _, _) = (
            SyncEngine(
                configuration: SyncConfiguration(
                    uid: "u1", deviceId: "device-a", platform: .android, entitlements: ["all"]),
                database: world.firestore, storage: world.storage, store: store, clock: world.serverClock.source), 0, 0
        )
        try pro.sync()
        let after = try #require(try world.memory.get("users/u1/flights/\(id)"))
        guard case .map(let igc)? = after.fields["igc"] else {
            Issue.record("no igc map")
            return
        }
        #expect(igc["uploaded"] == .boolean(true))
        #expect(world.storage.allObjects.count == 1)
    }
}

/// A device away longer than the tombstone retention (90 days, Spec/constants.tsv).
@Suite struct LongAbsenceTests {
    static let away: Int64 = (SchemaConstants.tombstoneRetentionDays + 10) * 86_400

    /// Seed 397 of the simulation, shrunk: a flight made and pushed after the absence, then cleared
    /// from Recents, keeps the clear — its agreement is fresh, only the pull is old.
    @Test func anAgreementMadeAfterTheAbsenceIsKept() throws {
        let world = World()
        let (a, store, clock) = world.device("a")
        try a.sync()
        world.tick(Self.away, clocks: [clock])
        let id = try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true)])
        _ = try a.openFlight(id)
        try a.push()
        world.tick(clocks: [clock])
        _ = try a.save(.flights, id: id, changes: ["lastOpenedAt": .null])
        try a.sync()
        #expect(try world.memory.get("users/u1/flights/\(id)")?.fields["lastOpenedAt"] == .null)
        #expect(store.row(.flights, id: id)?.fields["lastOpenedAt"] == .null)
        #expect(store.row(.flights, id: id)?.isDirty == false)
    }

    /// A record agreed on before the absence and deleted elsewhere, its tombstone purged meanwhile,
    /// is pushed back: the server lost the record, the device still has it (schema §5.4).
    @Test func aRecordWhoseTombstoneWasPurgedComesBack() throws {
        let world = World()
        let (a, storeA, clockA) = world.device("a")
        let (b, _, clockB) = world.device("b")
        let id = try a.save(
            .homebases, changes: ["name": .string("Aachen"), "latitude": .double(50), "longitude": .double(6)])
        try a.sync()
        try b.sync()
        world.tick(clocks: [clockA, clockB])
        try b.delete(.homebases, id: id)
        try b.sync()
        world.tick(Self.away, clocks: [clockA, clockB])
        try b.purgeTombstones()
        #expect(try world.memory.get("users/u1/homebases/\(id)") == nil)
        try a.sync()
        let doc = try #require(try world.memory.get("users/u1/homebases/\(id)"))
        #expect(doc.fields["deleted"] == .boolean(false))
        #expect(doc.fields["name"] == .string("Aachen"))
        #expect(storeA.row(.homebases, id: id)?.isDirty == false)
    }

    /// A delete made on the device but not pushed before the absence is pushed after it, and, its
    /// deletedAt being older than the retention, purged at once (schema §5.4's query): the record is
    /// gone from the server and the device, not brought back live.
    @Test func aDeleteNotYetPushedSurvivesTheAbsence() throws {
        let world = World()
        let (a, storeA, clockA) = world.device("a")
        let id = try a.save(
            .homebases, changes: ["name": .string("Aachen"), "latitude": .double(50), "longitude": .double(6)])
        try a.sync()
        world.tick(clocks: [clockA])
        try a.delete(.homebases, id: id)
        world.tick(Self.away, clocks: [clockA])
        try a.sync()
        #expect(try world.memory.get("users/u1/homebases/\(id)") == nil)
        #expect(storeA.row(.homebases, id: id) == nil)
        #expect(a.events.contains(.purged(.homebases, ids: [id])))
    }
}

@Suite struct FileLocalStoreTests {
    @Test func aCommittedStateReopensAndAnUncommittedChangeIsLost() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let world = World()
        let store = try FileLocalStore(directory: dir)
        let (engine, clock) = world.device("f", store: store)
        let id = try engine.importFlight(igc: EngineTests.igc, fields: ["filename": .string("a.igc")])
        try engine.sync()
        // A change the store never committed (a crash in the middle of a pull) is lost; the pilot's own
        // changes are committed at once.
        store.put(
            LocalRow(
                collection: .homebases, id: "never-committed", fields: ["name": .string("Never committed")],
                origin: .server, createdAt: clock.now))

        let reopened = try FileLocalStore(directory: dir)
        let row = try #require(reopened.row(.flights, id: id))
        #expect(row == store.row(.flights, id: id))
        #expect(reopened.rows(.homebases).isEmpty)
        #expect(reopened.state == store.state)
        guard case .map(let igc)? = row.fields["igc"], case .string(let path)? = igc["path"] else {
            Issue.record("no igc map")
            return
        }
        #expect(try IGCDownload.verify(gzipped: try #require(reopened.blob(path)), flightId: id) == EngineTests.igc)
    }

    @Test func aStateFileOfAnotherFormatIsRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("{\"formatVersion\": 2}\n".utf8).write(to: dir.appendingPathComponent("state.json"))
        #expect(throws: FileLocalStore.ReadError.self) { try FileLocalStore(directory: dir) }
    }
}

@Suite struct LocalChangeTests {
    @Test func savingAHomebaseAgainByItsNameChangesIt() throws {
        let world = World()
        let (a, _, clock) = world.device("a")
        let id = try a.save(
            .homebases, changes: ["name": .string("Klippeneck"), "latitude": .double(53.8), "longitude": .double(6)])
        try a.sync()
        clock.advance(seconds: 10)
        world.tick()
        let again = try a.save(
            .homebases, changes: ["name": .string("Klippeneck"), "latitude": .double(53.9), "longitude": .double(6)])
        #expect(again == id)
        try a.sync()
        #expect(try world.memory.get("users/u1/homebases/\(id)")?.fields["latitude"] == .double(53.9))
    }
}

/// Engine fixes found by the scenario goldens (Goldens/scenarios/).
@Suite struct ScenarioFoundEngineTests {
    /// schema §5.5: a flight pulled before its task is stored without it, but its push sends the
    /// task id the server holds, never null (scenario task-pulled-after-flight).
    @Test func aDeferredTaskIdIsNeverPushedAsNull() throws {
        let world = World()
        let (b, storeB, clockB) = world.device("b")
        let taskId = DocumentIds.taskId(externalUrl: "https://www.soaringspot.com/en_gb/x/tasks/club/task-1")
        let flightId = DocumentIds.flightId(igcBytes: EngineTests.igc)
        let path = "users/u1/flights/\(flightId)"
        _ = try world.memory.commit([
            try FirestoreWrite(
                path: path,
                fields: [
                    "taskId": .string(taskId), "inLogbook": .boolean(true), "comments": .string("x"),
                    "summary": .map(["analysisVersion": .integer(1)]), "schema": .integer(1),
                    "updatedAt": .serverTimestamp, "clientUpdatedAt": .timestamp(clockB.now),
                    "updatedBy": .string("web"), "platform": .string("android"), "deleted": .boolean(false),
                    "deletedAt": .null,
                ])
        ])
        world.tick(clocks: [clockB])
        try b.sync()
        let row = try #require(storeB.row(.flights, id: flightId))
        #expect(row.fields["taskId"] == .null)
        #expect(row.deferredTaskId == taskId)
        #expect(row.isDirty == false)
        #expect(row.pushedFields["taskId"] == .string(taskId))
        #expect(try world.memory.get(path)?.fields["taskId"] == .string(taskId))
        // An edit of another field sends that field only; the server keeps the assignment.
        world.tick(clocks: [clockB])
        try b.save(.flights, id: flightId, changes: ["lastOpenedAt": .timestamp(clockB.now)])
        try b.sync()
        #expect(try world.memory.get(path)?.fields["taskId"] == .string(taskId))
        #expect(storeB.row(.flights, id: flightId)?.fields["taskId"] == .null)
        #expect(storeB.row(.flights, id: flightId)?.deferredTaskId == taskId)
    }

    /// schema §5.1, §5.4: two map files with the same content share one object, counted once in
    /// `storageBytes` (scenario map-file-shared-content).
    @Test func aSharedContentObjectIsCountedOnce() throws {
        let world = World()
        let (a, _, clockA) = world.device("a")
        let content = Data(
            "name,code,country,lat,lon,elev,style\n\"Aachen\",EDKA,DE,5049.383N,00611.183E,189.0m,5\n".utf8)
        let gz = try ContentBlob.build(uid: "u1", contentBytes: content).map.gzBytes
        let first = try a.importMapFile(
            content: content,
            fields: ["type": .string("WAYPOINTS"), "source": .string("USER"), "filename": .string("a.cup")])
        let second = try a.importMapFile(
            content: content,
            fields: ["type": .string("WAYPOINTS"), "source": .string("XCSOAR"), "filename": .string("b.cup")])
        #expect(first != second)
        try a.sync()
        #expect(try world.memory.get("users/u1")?.fields["storageBytes"] == .integer(gz))
        world.tick(clocks: [clockA])
        try a.delete(.mapFiles, id: first)
        try a.sync()
        #expect(try world.memory.get("users/u1")?.fields["storageBytes"] == .integer(gz))
        #expect(world.storage.allObjects.count == 1)
        world.tick(clocks: [clockA])
        try a.delete(.mapFiles, id: second)
        try a.sync()
        #expect(try world.memory.get("users/u1")?.fields["storageBytes"] == .integer(0))
        #expect(world.storage.allObjects.isEmpty)
    }
}

/// A flight deleted here and imported again before any sync is the same IGC: the re-import keeps
/// the better analysis and track preview (merge-rules.tsv summary, trackPreview; simulation seed
/// 1448 found a re-import that pushed analysisVersion 2 → 1 over the server's record).
@Suite struct ReimportTests {
    /// A summary the schema accepts (every field a reader needs), of `analysisVersion` and `duration` (s).
    static func summary(analysisVersion: Int64, duration: Int64) -> FirestoreValue {
        var summary = FlightSummary(takeoffAt: nil, landingAt: nil)
        summary.analysisVersion = analysisVersion
        summary.duration = duration
        return summary.firestoreValue(form: .stored)
    }

    @Test func aReimportAfterADeleteKeepsTheHigherAnalysis() throws {
        let world = World()
        let (a, store, clock) = world.device("a")
        let id = try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true)])
        let analysed = Self.summary(analysisVersion: 2, duration: 3_600)
        let preview: FirestoreValue = .bytes(Data([1, 2, 3]))
        try a.save(
            .flights, id: id,
            changes: ["summary": analysed, "trackPreview": preview, "trackPreviewVersion": .integer(3)])
        try a.sync()
        world.tick(clocks: [clock])
        try a.delete(.flights, id: id)
        #expect(try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true)]) == id)
        let row = try #require(store.row(.flights, id: id))
        #expect(row.fields["summary"] == analysed)
        #expect(row.fields["trackPreviewVersion"] == .integer(3))
        #expect(row.fields["trackPreview"] == preview)
        try a.sync()
        let doc = try #require(try world.firestore.get("users/u1/flights/\(id)"))
        #expect(doc.fields["deleted"] == .boolean(false))
        #expect(doc.fields["summary"] == analysed)
    }

    /// A re-import whose own summary is newer than the deleted record's keeps its own.
    @Test func aNewerAnalysisOnTheReimportWins() throws {
        let world = World()
        let (a, store, clock) = world.device("a")
        let id = try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true)])
        try a.sync()
        world.tick(clocks: [clock])
        try a.delete(.flights, id: id)
        let newer = Self.summary(analysisVersion: 5, duration: 60)
        _ = try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true), "summary": newer])
        #expect(store.row(.flights, id: id)?.fields["summary"] == newer)
    }
}

/// A save or an import whose values break the schema is refused before anything is saved: pushed,
/// such a document would be held by every other device (Spec/pins.tsv malformedDocumentHeld).
@Suite struct LocalChangeSchemaTests {
    @Test func aValueOfTheWrongTypeIsRefusedAndTheRowIsUnchanged() throws {
        let world = World()
        let (a, store, _) = world.device("a")
        let id = try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true)])
        try a.sync()
        let before = try #require(store.row(.flights, id: id))
        #expect(throws: LocalChangeError.self) { try a.save(.flights, id: id, changes: ["rating": .string("five")]) }
        do {
            try a.save(.flights, id: id, changes: ["rating": .string("five"), "comments": .string("ok")])
            Issue.record("a rating of the wrong type was saved")
        } catch .schema(let v) {
            #expect(v.pointer == "/rating")
            #expect(v.rule == SchemaRule.type.rawValue)
        } catch {
            Issue.record("\(error)")
        }
        #expect(store.row(.flights, id: id) == before)
        #expect(store.row(.flights, id: id)?.isDirty == false)
    }

    @Test func anUnknownFieldANullAndABrokenLimitAreRefusedByTheirRules() throws {
        let world = World()
        let (a, _, _) = world.device("a")
        let id = try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true)])
        let cases: [(String, FirestoreValue, SchemaRule)] = [
            ("ratingg", .integer(3), .unknownField),
            ("inLogbook", .null, .null),
            ("comments", .string(String(repeating: "x", count: 10_001)), .maxChars),
        ]
        for (name, value, rule) in cases {
            do {
                try a.save(.flights, id: id, changes: [name: value])
                Issue.record("\(name) was saved")
            } catch .schema(let v) {
                #expect(v.pointer == "/\(name)")
                #expect(v.rule == rule.rawValue, "\(v)")
            } catch {
                Issue.record("\(error)")
            }
        }
        // A valid change still saves.
        try a.save(.flights, id: id, changes: ["rating": .integer(4)])
    }

    @Test func aNewRecordAndAnImportAreCheckedWhole() throws {
        let world = World()
        let (a, store, _) = world.device("a")
        do {
            try a.save(
                .homebases,
                changes: ["name": .string("Aachen"), "latitude": .string("50.8"), "longitude": .double(6.2)])
            Issue.record("a homebase with a string latitude was saved")
        } catch .schema(let v) {
            #expect(v.pointer == "/latitude")
            #expect(v.rule == SchemaRule.type.rawValue)
        } catch {
            Issue.record("\(error)")
        }
        #expect(store.rows(.homebases).isEmpty)
        do {
            try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .string("yes")])
            Issue.record("an import with a string inLogbook was saved")
        } catch .schema(let v) {
            #expect(v.pointer == "/inLogbook")
        } catch {
            Issue.record("\(error)")
        }
        // Neither the row nor its IGC object is kept.
        #expect(store.rows(.flights).isEmpty)
        #expect(store.blob("users/u1/igc/\(DocumentIds.flightId(igcBytes: EngineTests.igc)).igc.gz") == nil)
    }

    /// Bytes that are no IGC file are refused by their rule, before any row or object is kept.
    @Test func bytesThatAreNoIGCFileAreRefusedByTheirRule() throws {
        let world = World()
        let (a, store, _) = world.device("a")
        let cases: [(Data, InputRule, Int)] = [
            (Data(), .igcEmpty, 0),
            (Data("hello\r\n".utf8), .igcARecord, 1),
            (Data("\r\nAXCSAAA\r\nHFDTE081116\r\n".utf8), .igcNoFix, 0),
        ]
        for (bytes, rule, line) in cases {
            do {
                try a.importFlight(igc: bytes, fields: ["inLogbook": .boolean(true)])
                Issue.record("\(rule) was imported")
            } catch .igc(let v) {
                #expect(v.rule == rule)
                #expect(v.line == line)
            } catch {
                Issue.record("\(error)")
            }
        }
        #expect(store.rows(.flights).isEmpty)
        #expect(
            LocalChangeError.igc(try #require(IGCImportViolation.first(in: Data("hello".utf8)))).description
                == "igc: line 1: igc.a-record: an IGC file starts with its A record (the logger's manufacturer and id)")
    }

    /// Readers keep a newer version's fields: a change may carry them on (a pulled summary with a
    /// sub-field this version does not know, saved back with another change), and a change beside
    /// them is not refused; only a field the change itself adds is taken for a misspelt name.
    @Test func aNewerVersionsFieldsAreCarriedOnAndOnlyAnAddedUnknownFieldIsRefused() throws {
        let world = World()
        let (a, store, clock) = world.device("a")
        let id = try a.importFlight(igc: EngineTests.igc, fields: ["inLogbook": .boolean(true)])
        try a.sync()
        world.tick(clocks: [clock])
        let path = "users/u1/flights/\(id)"
        guard case .map(var summary)? = try world.memory.get(path)?.fields["summary"] else {
            Issue.record("no summary")
            return
        }
        summary["newMetric"] = .integer(7)
        _ = try world.memory.commit([
            try .set(
                ["newerField": .integer(1), "summary": .map(summary), "updatedAt": .serverTimestamp],
                mergeFields: [try FieldPath(["newerField"]), try FieldPath(["summary"]), try FieldPath(["updatedAt"])],
                path: path)
        ])
        world.tick(clocks: [clock])
        try a.sync()
        #expect(store.row(.flights, id: id)?.fields["newerField"] == .integer(1))
        try a.save(.flights, id: id, changes: ["rating": .integer(4)])
        summary["duration"] = .integer(42)
        try a.save(.flights, id: id, changes: ["summary": .map(summary)])
        #expect(store.row(.flights, id: id)?.fields["summary"] == .map(summary))
        do {
            try a.save(.flights, id: id, changes: ["newerFeild": .integer(2)])
            Issue.record("a misspelt field was saved")
        } catch .schema(let v) {
            #expect(v.pointer == "/newerFeild")
            #expect(v.rule == SchemaRule.unknownField.rawValue)
        } catch {
            Issue.record("\(error)")
        }
    }
}
