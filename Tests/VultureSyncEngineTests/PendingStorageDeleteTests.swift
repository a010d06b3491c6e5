import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// A Storage delete that fails after its tombstone committed is not lost (README "The sync engine"):
/// the object is pending in the engine state, committed with the tombstone, and a later push deletes
/// it — unless a re-import of the same file named it again.
@Suite struct PendingStorageDeleteTests {
    static let igc = Data(
        "AXCSPND\r\nHFDTE081116\r\nHFPLTPILOTINCHARGE:Jane Doe\r\nB1101355206343N00006198WA0058700558\r\n".utf8)

    struct Device {
        let engine: SyncEngine
        let store: InMemoryLocalStore
        let bucket: RecordingCloudStorage
        let memory: InMemoryCloudStorage
        let clock: ManualClock
        let id: String
        var path: String { "users/u1/igc/\(id).igc.gz" }
    }

    /// A device that imported and synced the flight, then deleted it; its next delete fails.
    func deletedWithAFailingDelete(pending: Bool = true) throws -> Device {
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let memory = InMemoryCloudStorage()
        let bucket = RecordingCloudStorage(memory)
        let store = InMemoryLocalStore()
        var mechanisms = SyncMechanisms.reference
        mechanisms.storageDeletesPending = pending
        let engine = SyncEngine(
            configuration: SyncConfiguration(uid: "u1", deviceId: "a", platform: .android, mechanisms: mechanisms),
            database: InMemoryFirestore(clock: clock.source), storage: bucket, store: store, clock: clock.source)
        let id = try engine.importFlight(igc: Self.igc, fields: ["inLogbook": .boolean(true)])
        try engine.sync()
        clock.advance(seconds: 10)
        let device = Device(engine: engine, store: store, bucket: bucket, memory: memory, clock: clock, id: id)
        #expect(memory.allObjects.map(\.path) == [device.path])
        try engine.delete(.flights, id: id)
        bucket.inject(.unavailable, next: .delete)
        #expect(throws: SyncError.self) { try engine.sync() }
        #expect(store.row(.flights, id: id)?.isTombstone == true)
        #expect(store.row(.flights, id: id)?.isDirty == false, "the tombstone is agreed")
        #expect(memory.allObjects.map(\.path) == [device.path], "the failed delete left the object")
        return device
    }

    @Test func theNextPushDeletesTheObjectAFailedDeleteLeft() throws {
        let d = try deletedWithAFailingDelete()
        #expect(d.store.state.pendingStorageDeletes == [d.path])
        // Committed with the tombstone: a restart keeps it.
        let reread = try EngineState(canonicalValue: d.store.state.canonicalValue)
        #expect(reread.pendingStorageDeletes == [d.path])
        try d.engine.sync()
        #expect(d.memory.allObjects.isEmpty)
        #expect(d.store.state.pendingStorageDeletes.isEmpty)
        #expect(d.store.blob(d.path) == nil)
    }

    /// The wrong engine that deletes once: the object stays for good (the simulation's
    /// noOrphanedObject invariant catches it).
    @Test func anEngineWithoutThePendingListLeavesTheObject() throws {
        let d = try deletedWithAFailingDelete(pending: false)
        try d.engine.sync()
        #expect(d.memory.allObjects.map(\.path) == [d.path])
    }

    /// A re-import of the same file before the retry names the object again: it is kept, uploaded,
    /// and the device keeps its copy.
    @Test func aReimportBeforeTheRetryKeepsTheObject() throws {
        let d = try deletedWithAFailingDelete()
        d.clock.advance(seconds: 10)
        #expect(try d.engine.importFlight(igc: Self.igc, fields: ["inLogbook": .boolean(true)]) == d.id)
        try d.engine.sync()
        #expect(d.store.state.pendingStorageDeletes.isEmpty)
        #expect(d.memory.allObjects.map(\.path) == [d.path])
        #expect(d.store.blob(d.path) != nil)
        #expect(try d.engine.openFlight(d.id) == Self.igc)
        #expect(d.store.row(.flights, id: d.id)?.isTombstone == false)
    }

    /// A state written before the list existed reads as an empty list.
    @Test func anOlderStateReadsAsNoPendingDeletes() throws {
        guard case .map(var m) = EngineState().canonicalValue else {
            Issue.record("the state is a map")
            return
        }
        m["pendingStorageDeletes"] = nil
        #expect(try EngineState(canonicalValue: .map(m)).pendingStorageDeletes == [])
        m["pendingStorageDeletes"] = .string("users/u1/igc/x.igc.gz")
        #expect(throws: StoredValueError.self) { try EngineState(canonicalValue: .map(m)) }
    }

    /// Two devices over one database and bucket, each with its own recorders (simulation seeds
    /// 1477 and 8267 found the two cases below).
    struct Pair {
        let memory = InMemoryCloudStorage()
        let clock = ManualClock(FirestoreTimestamp(seconds: 1_792_504_987, microseconds: 0, orEpoch: ()))
        let database: RecordingFirestore
        let a: SyncEngine, b: SyncEngine
        let bucketA: RecordingCloudStorage, storeA = InMemoryLocalStore(), storeB = InMemoryLocalStore()

        init() {
            database = RecordingFirestore(InMemoryFirestore(clock: clock.source))
            bucketA = RecordingCloudStorage(memory)
            a = SyncEngine(
                configuration: SyncConfiguration(uid: "u1", deviceId: "a", platform: .android),
                database: database, storage: bucketA, store: storeA, clock: clock.source)
            b = SyncEngine(
                configuration: SyncConfiguration(uid: "u1", deviceId: "b", platform: .ios),
                database: database, storage: RecordingCloudStorage(memory), store: storeB, clock: clock.source)
        }
    }

    /// A device uploads a reserved object after another device tombstoned the record (and deleted
    /// what was not there yet): when it learns of the tombstone, the object it uploaded goes too.
    @Test func anObjectUploadedAfterAnotherDevicesTombstoneIsDeleted() throws {
        let w = Pair()
        let id = try w.a.importFlight(igc: Self.igc, fields: ["inLogbook": .boolean(true)])
        w.bucketA.inject(.unavailable, next: .upload)
        #expect(throws: SyncError.self) { try w.a.sync() }
        #expect(w.memory.allObjects.isEmpty, "reserved, not uploaded")
        w.clock.advance(seconds: 10)
        try w.b.sync()
        try w.b.delete(.flights, id: id)
        try w.b.sync()
        #expect(try w.database.get("users/u1/flights/\(id)")?.fields["deleted"] == .boolean(true))
        w.clock.advance(seconds: 10)
        // A push alone: the upload lands, marking it uploaded is refused, the record read back is
        // the tombstone.
        try w.a.push()
        #expect(w.storeA.row(.flights, id: id)?.isTombstone == true)
        #expect(w.memory.allObjects.isEmpty, "the object a's upload put there is deleted")
        #expect(w.storeA.state.pendingStorageDeletes.isEmpty)
    }

    /// A device's tombstone lands but its answer is lost and every retry fails; the next sync pulls
    /// the tombstone (agreed, nothing left to push) and still deletes the object.
    @Test func aTombstoneWhoseAnswerWasLostStillDeletesItsObject() throws {
        let w = Pair()
        let id = try w.a.importFlight(igc: Self.igc, fields: ["inLogbook": .boolean(true)])
        let path = "users/u1/igc/\(id).igc.gz"
        try w.a.sync()
        #expect(w.memory.allObjects.map(\.path) == [path])
        w.clock.advance(seconds: 10)
        try w.a.delete(.flights, id: id)
        w.database.inject(.loseAcknowledgement, next: .commit)
        for _ in 0..<8 { w.database.inject(.refuse(.unavailable), next: .commit) }
        #expect(throws: SyncError.self) { try w.a.push() }
        #expect(try w.database.get("users/u1/flights/\(id)")?.fields["deleted"] == .boolean(true))
        #expect(w.memory.allObjects.map(\.path) == [path], "the delete after the commit was never made")
        w.database.clearFaults()
        try w.a.sync()
        #expect(w.storeA.row(.flights, id: id)?.isDirty == false)
        #expect(w.memory.allObjects.isEmpty)
        #expect(w.storeA.state.pendingStorageDeletes.isEmpty)
    }
}
