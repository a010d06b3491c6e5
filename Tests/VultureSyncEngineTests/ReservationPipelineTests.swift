import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// A database that overlaps commits (``FirestoreDatabase/commitsInFlight`` 4) over the in-memory
/// one, with the first try of chosen batches failing: `lost` batches land and then answer
/// UNAVAILABLE (the answer was lost), `refused` batches answer UNAVAILABLE without landing.
final class OverlappingFirestore: FirestoreDatabase, @unchecked Sendable {
    let base: InMemoryFirestore
    let lock = NSLock()
    var lost: Set<Int> = []
    var refused: Set<Int> = []
    /// Sizes of the `commitEach` calls, in order.
    var groups: [Int] = []
    private var batches = 0

    init(_ base: InMemoryFirestore) { self.base = base }

    var database: String { base.database }
    var commitsInFlight: Int { 4 }

    func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        lock.lock()
        defer { lock.unlock() }
        batches += 1
        if refused.remove(batches) != nil { throw FirestoreError(.unavailable, "refused before landing") }
        let result = try base.commit(writes)
        if lost.remove(batches) != nil { throw FirestoreError(.unavailable, "answer lost") }
        return result
    }

    func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? { try base.get(path) }
    func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] { try base.runQuery(query) }

    func commitEach(_ batches: [[FirestoreWrite]]) -> [Result<FirestoreCommitResult, FirestoreError>] {
        lock.lock()
        groups.append(batches.count)
        lock.unlock()
        return commitConcurrently(batches, threads: commitsInFlight)
    }
}

/// The in-memory database where, just before the first commit that marks a flight uploaded,
/// another device edits that flight's `gliderRegistration`: the mark's precondition then fails.
final class EditingFirestore: FirestoreDatabase, @unchecked Sendable {
    let base: InMemoryFirestore
    /// The id of the flight edited, once edited.
    var edited: String?

    init(_ base: InMemoryFirestore) { self.base = base }

    var database: String { base.database }

    func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        if edited == nil, let mark = writes.first, let path = mark.path, path.hasPrefix("users/u1/flights/"),
            case .map(let igc)? = mark.fields?["igc"], igc["uploaded"] == .boolean(true)
        {
            if let edit = try? FirestoreWrite(
                path: path, fields: ["gliderRegistration": .string("D-EDIT")],
                mask: [FieldPath(unchecked: ["gliderRegistration"])])
            {
                _ = try base.commit([edit])
            }
            edited = String(path.dropFirst("users/u1/flights/".count))
        }
        return try base.commit(writes)
    }

    func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? { try base.get(path) }
    func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] { try base.runQuery(query) }
}

/// Reservations of different flights in flight together (README "The sync engine"): every flight
/// counted once in `storageBytes` whatever lands, answers lost or refused inside a group.
@Suite struct ReservationPipelineTests {
    static func igc(_ k: Int) -> Data {
        Data(
            ("AXCS\(k)\r\nHFDTE081116\r\nHFPLTPILOTINCHARGE:Pilot \(k)\r\n"
                + "B1101355206343N00006198WA0058700558\r\nB1201355206343N00006198WA0058700558\r\n").utf8)
    }

    func push(_ count: Int, lost: Set<Int>, refused: Set<Int>) throws
        -> (OverlappingFirestore, InMemoryLocalStore, [String])
    {
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let database = OverlappingFirestore(InMemoryFirestore(clock: clock.source))
        database.lost = lost
        database.refused = refused
        let store = InMemoryLocalStore()
        let engine = SyncEngine(
            configuration: SyncConfiguration(uid: "u1", deviceId: "a", platform: .android), database: database,
            storage: InMemoryCloudStorage(), store: store, clock: clock.source)
        var ids: [String] = []
        for k in 0..<count {
            ids.append(try engine.importFlight(igc: Self.igc(k), fields: ["inLogbook": .boolean(true)]))
        }
        try engine.sync()
        return (database, store, ids.sorted())
    }

    /// What the server holds after the push: every flight uploaded, counted once.
    func checkServer(_ database: OverlappingFirestore, _ store: InMemoryLocalStore, _ ids: [String]) throws {
        var total: Int64 = 0
        for id in ids {
            let doc = try #require(try database.base.get("users/u1/flights/\(id)"))
            guard case .map(let igc)? = doc.fields["igc"], case .integer(let gz)? = igc["gzBytes"] else {
                Issue.record("no igc map on \(id)")
                continue
            }
            #expect(igc["uploaded"] == .boolean(true))
            total += gz
            #expect(store.row(.flights, id: id)?.isDirty == false)
        }
        #expect(total > 0)
        #expect(try database.base.get("users/u1")?.fields["storageBytes"] == .integer(total))
    }

    /// A group holds eight rounds of the four commits in flight: 40 reservations go as 32 and 8.
    @Test func fortyReservationsGoInGroupsOfThirtyTwo() throws {
        let (database, store, ids) = try push(40, lost: [], refused: [])
        #expect(database.groups == [32, 8])
        try checkServer(database, store, ids)
    }

    /// A device whose batches hold at most two writes: `count` flights imported, then its first sync.
    func syncInBatchesOfTwo(_ count: Int, over database: any FirestoreDatabase, clock: ManualClock) throws
        -> SyncEngine
    {
        var mechanisms = SyncMechanisms.reference
        mechanisms.batchMaxWrites = 2
        let engine = SyncEngine(
            configuration: SyncConfiguration(uid: "u1", deviceId: "a", platform: .android, mechanisms: mechanisms),
            database: database, storage: InMemoryCloudStorage(), store: InMemoryLocalStore(), clock: clock.source)
        for k in 0..<count { _ = try engine.importFlight(igc: Self.igc(k), fields: ["inLogbook": .boolean(true)]) }
        try engine.sync()
        return engine
    }

    /// With batches of two, five flights go reserve, reserve, upload, upload, mark both; again; then
    /// the fifth: no chunk's mark waits for a later chunk's uploads, and no mark for its own upload.
    @Test func reservationsAreUploadedAndMarkedInChunksOfABatch() throws {
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let database = InMemoryFirestore(clock: clock.source)
        let engine = try syncInBatchesOfTwo(5, over: database, clock: clock)
        let steps = engine.events.compactMap { event -> String? in
            switch event {
            case .reserved: "reserve"
            case .uploaded: "upload"
            case .committed(.flights, let writes, _) where writes > 0: "commit \(writes)"
            default: nil
            }
        }
        // Each reservation is a commit of its own (the record and the profile's storageBytes).
        let chunk = ["commit 2", "reserve", "commit 2", "reserve", "upload", "upload", "commit 2"]
        #expect(steps == chunk + chunk + ["commit 2", "reserve", "upload", "commit 1"])
        for doc in try database.runQuery(FirestoreQuery(parent: "users/u1", collectionId: "flights")) {
            guard case .map(let igc)? = doc.fields["igc"] else {
                Issue.record("no igc map on \(doc.id)")
                continue
            }
            #expect(igc["uploaded"] == .boolean(true))
        }
    }

    /// A chunk's mark refused because another device edited one of its records meanwhile: only that
    /// chunk's records are read again (not the records still to reserve), and the mark lands on the
    /// merged record, keeping the other device's edit.
    @Test func aChunksRefusedMarkReadsAgainOnlyThatChunk() throws {
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let database = EditingFirestore(InMemoryFirestore(clock: clock.source))
        let engine = try syncInBatchesOfTwo(3, over: database, clock: clock)
        let edited = try #require(database.edited)
        let reconciled = engine.events.compactMap { event -> String? in
            if case .reconciled(.flights, let id) = event { return id }
            return nil
        }
        let reserved = engine.events.compactMap { event -> String? in
            if case .reserved(.flights, let id, _) = event { return id }
            return nil
        }
        #expect(reserved.count == 3)
        #expect(Set(reconciled) == Set(reserved.prefix(2)), "the first chunk alone, read again")
        #expect(reconciled.contains(edited))
        let doc = try #require(try database.base.get("users/u1/flights/\(edited)"))
        #expect(doc.fields["gliderRegistration"] == .string("D-EDIT"))
        guard case .map(let igc)? = doc.fields["igc"] else {
            Issue.record("no igc map")
            return
        }
        #expect(igc["uploaded"] == .boolean(true))
    }

    /// Batch 1 is the profile's creation; 2…11 the group. A lost answer is tried again alone, its
    /// precondition fails, the record is read again: counted once. A refusal is tried again alone.
    @Test func aLostAnswerAndARefusalInAGroupCountEachFlightOnce() throws {
        let (database, store, ids) = try push(10, lost: [3], refused: [5])
        #expect(database.lost.isEmpty && database.refused.isEmpty, "both faults were injected")
        #expect(database.groups == [10])
        try checkServer(database, store, ids)
    }
}
