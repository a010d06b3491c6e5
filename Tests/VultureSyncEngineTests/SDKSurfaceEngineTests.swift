import Foundation
import Testing
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncSchema

@testable import VultureSyncEngine

/// The engine over `SyncFirestore.client`: only the Firebase SDKs' surface, every version check in
/// a transaction that compares the document with the row's base (README "The sync engine").
@Suite struct SDKSurfaceEngineTests {
    /// A client that counts what the engine asks of the SDK surface, over `SDKSurfaceFirestore`.
    final class CountingClient: FirestoreClient, @unchecked Sendable {
        let inner: SDKSurfaceFirestore
        var batches: [WriteBatch] = []
        var transactions = 0
        init(_ backend: any FirestoreDatabase) { inner = SDKSurfaceFirestore(backend) }
        var database: String { inner.database }
        func getDocument(_ path: String) throws(FirestoreError) -> DocumentSnapshot { try inner.getDocument(path) }
        func getDocuments(_ query: FirestoreQuery) throws(FirestoreError) -> [DocumentSnapshot] {
            try inner.getDocuments(query)
        }
        func commit(_ batch: WriteBatch) throws(FirestoreError) {
            batches.append(batch)
            try inner.commit(batch)
        }
        func runTransaction<T>(maxAttempts: Int, _ body: (Transaction) throws(FirestoreError) -> T)
            throws(FirestoreError) -> T
        {
            transactions += 1
            return try inner.runTransaction(maxAttempts: maxAttempts, body)
        }
    }

    static func device(_ world: World, _ name: String, client: any FirestoreClient) -> (SyncEngine, InMemoryLocalStore)
    {
        let store = InMemoryLocalStore()
        let engine = SyncEngine(
            configuration: SyncConfiguration(uid: "u1", deviceId: "device-\(name)", platform: .ios, entitlements: []),
            backend: .client(client), storage: world.storage, store: store, clock: world.serverClock.source)
        return (engine, store)
    }

    static let base: [String: FirestoreValue] = [
        "name": .string("Aachen"),
        "clientUpdatedAt": .timestamp(FirestoreTimestamp(seconds: 10, microseconds: 0, orEpoch: ())),
        "updatedAt": .timestamp(FirestoreTimestamp(seconds: 11, microseconds: 0, orEpoch: ())),
    ]

    @Test func theVersionCheckComparesEveryFieldButUpdatedAt() throws {
        func status(
            _ precondition: FirestorePrecondition, _ data: [String: FirestoreValue]?, base: [String: FirestoreValue]?
        )
            -> FirestoreStatus?
        {
            do {
                try SyncEngine.check(precondition, of: DocumentSnapshot(path: "c/d", data: data), base: base)
                return nil
            } catch { return error.status }
        }
        var later = Self.base
        later["updatedAt"] = .timestamp(try FirestoreTimestamp(seconds: 99))
        var edited = Self.base
        edited["clientUpdatedAt"] = .timestamp(try FirestoreTimestamp(seconds: 12))
        var grown = Self.base
        grown["rating"] = .integer(3)
        var shrunk = Self.base
        shrunk["name"] = nil
        let time = try FirestoreTimestamp(seconds: 11)

        #expect(status(.exists(false), nil, base: nil) == nil)
        #expect(status(.exists(false), Self.base, base: nil) == .alreadyExists)
        #expect(status(.exists(true), nil, base: Self.base) == .notFound)
        #expect(status(.updateTime(time), nil, base: Self.base) == .notFound)
        #expect(status(.exists(true), later, base: Self.base) == nil)
        #expect(status(.updateTime(time), later, base: Self.base) == nil)
        for changed in [edited, grown, shrunk] {
            #expect(status(.exists(true), changed, base: Self.base) == .failedPrecondition)
            #expect(status(.updateTime(time), changed, base: Self.base) == .failedPrecondition)
        }
        #expect(status(.updateTime(time), Self.base, base: nil) == .internal)
    }

    @Test func versionChecksGoInTransactionsAndBatchesCarryNone() throws {
        let world = World()
        let client = CountingClient(world.firestore)
        let (engine, store) = Self.device(world, "a", client: client)
        let id = try engine.importFlight(igc: EngineTests.igc, fields: ["filename": .string("a.igc")])
        try engine.sync()
        // The profile's creation, the reservation and the mark each check a version.
        #expect(client.transactions == 3)
        #expect(
            client.batches.flatMap(\.writes).allSatisfy {
                $0.precondition == nil || ($0.precondition == .exists(true) && $0.mask != nil)
            })
        #expect(store.row(.flights, id: id)?.isDirty == false)
        let reads = world.firestore.requests.filter { $0.kind == .get }.map(\.target)
        #expect(reads.filter { $0 == "users/u1/flights/\(id)" }.count == 2)
        let doc = try #require(try world.memory.get("users/u1/flights/\(id)"))
        #expect(doc.fields["igc"]?.mapValue?["uploaded"] == .boolean(true))
        #expect(try world.memory.get("users/u1")?.fields["storageBytes"] == doc.fields["igc"]?.mapValue?["gzBytes"])
    }

    @Test func aReservationWhoseAnswerWasLostCountsOnce() throws {
        let world = World()
        let client = SDKSurfaceFirestore(world.firestore)
        let (engine, store) = Self.device(world, "a", client: client)
        try engine.sync()
        let id = try engine.importFlight(igc: EngineTests.igc, fields: ["filename": .string("a.igc")])
        // The reservation lands, its answer does not: the retried transaction reads the record this
        // device wrote, unlike its base, and the engine reconciles instead of counting it again.
        world.firestore.inject(.loseAcknowledgement, next: .commit)
        try engine.push()
        #expect(engine.takeEvents().contains(.reconciled(.flights, id: id)))
        let doc = try #require(try world.memory.get("users/u1/flights/\(id)"))
        #expect(doc.fields["igc"]?.mapValue?["uploaded"] == .boolean(true))
        #expect(try world.memory.get("users/u1")?.fields["storageBytes"] == doc.fields["igc"]?.mapValue?["gzBytes"])
        #expect(store.row(.flights, id: id)?.isDirty == false)
    }

    @Test func theActorRunsOverAClient() async throws {
        let world = World()
        let actor = SyncEngineActor(
            configuration: SyncConfiguration(uid: "u1", deviceId: "device-a", platform: .ios, entitlements: []),
            backend: .client(SDKSurfaceFirestore(world.firestore)), storage: world.storage,
            store: InMemoryLocalStore(), clock: world.serverClock.source)
        let id = try await actor.save(.homebases, changes: SyncEngineActorTests.homebase("Aachen"))
        try await actor.sync()
        #expect(await actor.row(.homebases, id: id)?.isDirty == false)
        #expect(try world.memory.get("users/u1/homebases/\(id)")?.fields["name"] == .string("Aachen"))
    }

    /// Four actors over the SDKs' async surface (as an app adapts it) sync at once: each waits for
    /// its calls on its own queue, so the cooperative pool stays free to run them, and every home
    /// base reaches every device.
    @Test(.timeLimit(.minutes(10))) func actorsOverTheAsyncSurfaceSyncAtOnce() async throws {
        let world = World()
        let actors = (0..<4).map { index in
            SyncEngineActor(
                configuration: SyncConfiguration(
                    uid: "u1", deviceId: "device-\(index)", platform: .ios, entitlements: []),
                client: AwaitedFirestore(SDKSurfaceFirestore(world.firestore)),
                storage: AwaitedCloudStorage(world.storage), store: InMemoryLocalStore(),
                clock: world.serverClock.source)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, actor) in actors.enumerated() {
                group.addTask {
                    _ = try await actor.save(.homebases, changes: SyncEngineActorTests.homebase("Field \(index)"))
                    try await actor.sync()
                }
            }
            try await group.waitForAll()
        }
        for actor in actors {
            try await actor.sync()
            let names = await actor.rows(.homebases).map { $0.fields["name"] }
            #expect(Set(names) == Set((0..<4).map { FirestoreValue.string("Field \($0)") }))
            #expect(names.count == 4)
        }
        #expect(try world.memory.get("users/u1")?.fields["platforms"] == .array([.string("ios")]))
    }
}
