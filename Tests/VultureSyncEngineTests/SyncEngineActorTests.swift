import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncSchema

@testable import VultureSyncEngine

/// `SyncEngineActor`: the engine called from tasks, its events as an `AsyncSequence`, and a sync
/// stopped by cancelling its task (README "The sync engine").
@Suite(.timeLimit(.minutes(10))) struct SyncEngineActorTests {
    static func homebase(_ name: String) -> [String: FirestoreValue] {
        ["name": .string(name), "latitude": .double(50), "longitude": .double(6)]
    }

    /// A device of `world` behind the actor, with its own clock.
    static func actor(_ world: World, _ name: String, database: (any FirestoreDatabase)? = nil) -> (
        SyncEngineActor, ManualClock
    ) {
        let clock = ManualClock(world.serverClock.now)
        let actor = SyncEngineActor(
            configuration: SyncConfiguration(uid: "u1", deviceId: "device-\(name)", platform: .ios, entitlements: []),
            database: database ?? world.firestore, storage: world.storage, store: InMemoryLocalStore(),
            clock: clock.source)
        return (actor, clock)
    }

    /// Every event the actor sent until it was released.
    static func drain(_ events: AsyncStream<SyncEvent>) async -> [SyncEvent] {
        var out: [SyncEvent] = []
        for await e in events { out.append(e) }
        return out
    }

    /// A sync in a task of its own (cancelled before it starts, when `cancelledFirst`): its error,
    /// nil when it succeeded.
    static func syncInATask(_ device: SyncEngineActor, cancelledFirst: Bool) async -> SyncError? {
        await Task { () -> SyncError? in
            if cancelledFirst { withUnsafeCurrentTask { $0?.cancel() } }
            do throws(SyncError) {
                try await device.sync()
                return nil
            } catch {
                return error
            }
        }.value
    }

    @Test func aRecordSavedThroughTheActorIsSentAndFetchedElsewhere() async throws {
        let world = World()
        var (device, clock): (SyncEngineActor?, ManualClock) = Self.actor(world, "a")
        let events = device!.events
        let id = try await device!.save(.homebases, changes: Self.homebase("Aachen"))
        clock.advance(seconds: 1)
        try await device!.sync()
        #expect(await device!.row(.homebases, id: id)?.isDirty == false)
        device = nil
        let seen = await Self.drain(events)
        #expect(seen.contains(.sent(.homebases, id: id)))
        #expect(seen.contains { if case .committed(.homebases, 1, _) = $0 { true } else { false } })
        #expect(seen.filter(\.isPerRecord) == [.sent(.homebases, id: id)])

        let (b, storeB, _) = world.device("b")
        try b.sync()
        #expect(storeB.row(.homebases, id: id)?.fields["name"] == .string("Aachen"))
        #expect(b.events.contains(.fetched(.homebases, id: id)))
        #expect(!b.events.contains(.merged(.homebases, id: id)))
    }

    @Test func aFetchedDocumentMeetingLocalChangesIsMerged() async throws {
        let world = World()
        let (a, storeA, clockA) = world.device("a")
        var (device, clockB): (SyncEngineActor?, ManualClock) = Self.actor(world, "b")
        let events = device!.events
        let id = try a.save(.homebases, changes: Self.homebase("Aachen"))
        world.tick(clocks: [clockA, clockB])
        try a.sync()
        try await device!.sync()
        world.tick(clocks: [clockA, clockB])
        try a.save(.homebases, id: id, changes: ["latitude": .double(50.5)])
        try await device!.save(.homebases, id: id, changes: ["longitude": .double(6.5)])
        world.tick(clocks: [clockA, clockB])
        try a.sync()
        try await device!.sync()
        device = nil
        let perRecord = await Self.drain(events).filter(\.isPerRecord)
        #expect(
            perRecord == [
                .fetched(.homebases, id: id), .fetched(.homebases, id: id), .merged(.homebases, id: id),
                .sent(.homebases, id: id),
            ])
        try a.sync()
        #expect(storeA.row(.homebases, id: id)?.fields["latitude"] == .double(50.5))
        #expect(storeA.row(.homebases, id: id)?.fields["longitude"] == .double(6.5))
    }

    @Test func aSyncWhoseTaskIsCancelledSendsNothingAndTheNextSyncSendsAll() async throws {
        let world = World()
        let (device, clock) = Self.actor(world, "a")
        let id = try await device.save(.homebases, changes: Self.homebase("Aachen"))
        clock.advance(seconds: 1)
        let outcome = await Self.syncInATask(device, cancelledFirst: true)
        #expect(outcome == .cancelled)
        #expect(world.firestore.requests.isEmpty)
        #expect(await device.row(.homebases, id: id)?.isDirty == true)
        try await device.sync()
        #expect(try world.memory.get("users/u1/homebases/\(id)")?.fields["name"] == .string("Aachen"))
        #expect(await device.row(.homebases, id: id)?.isDirty == false)
    }

    @Test func aSyncCancelledBetweenCommitsKeepsWhatLandedAndGoesOnFromThere() async throws {
        let world = World()
        let cancelling = CancellingFirestore(world.firestore) { $0.count == 400 }
        let (device, clock) = Self.actor(world, "a", database: cancelling)
        // One hop to the actor, not 520: under a full test run every await waits for a free thread.
        try await device.withEngine { engine throws(LocalChangeError) in
            for i in 0..<520 { try engine.save(.homebases, changes: Self.homebase("Field \(i)")) }
        }
        clock.advance(seconds: 1)
        let outcome = await Self.syncInATask(device, cancelledFirst: false)
        #expect(outcome == .cancelled)
        let onServer = Set(world.memory.allDocuments.filter { $0.path.contains("/homebases/") }.map(\.id))
        #expect(onServer.count == 400)
        let rows = await device.rows(.homebases)
        #expect(Set(rows.filter { !$0.isDirty }.map(\.id)) == onServer)
        #expect(rows.filter(\.isDirty).count == 120)
        let commitsBefore = world.firestore.requests.filter { $0.kind == .commit }.count
        try await device.sync()
        #expect(world.memory.allDocuments.filter { $0.path.contains("/homebases/") }.count == 520)
        #expect(await device.rows(.homebases).allSatisfy { !$0.isDirty })
        let resent = world.firestore.requests.filter { $0.kind == .commit }.dropFirst(commitsBefore)
        #expect(resent.map(\.writes.count).filter { $0 > 1 } == [120])
    }

    @Test func theEngineRunsOnTheActorsQueueNotTheCallersThread() async throws {
        let world = World()
        let (device, _) = Self.actor(world, "a")
        let label = await device.withEngine { _ in DispatchQueue.getSpecific(key: SerialQueueExecutor.label) }
        #expect(label == "SyncEngineActor device-a")
        #expect(DispatchQueue.getSpecific(key: SerialQueueExecutor.label) == nil)
    }
}

/// Forwards to a database and cancels the task running the engine right after a commit whose
/// writes `after` picks.
final class CancellingFirestore: FirestoreDatabase, @unchecked Sendable {
    let backend: any FirestoreDatabase
    let after: @Sendable ([FirestoreWrite]) -> Bool

    init(_ backend: any FirestoreDatabase, after: @escaping @Sendable ([FirestoreWrite]) -> Bool) {
        self.backend = backend
        self.after = after
    }

    var database: String { backend.database }

    func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        let result = try backend.commit(writes)
        if after(writes) { withUnsafeCurrentTask { $0?.cancel() } }
        return result
    }

    func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? { try backend.get(path) }

    func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        try backend.runQuery(query)
    }
}
