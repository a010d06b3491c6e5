import Dispatch
import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// The reference engine behind an actor: an app calls it from any task, reads its events as an
/// `AsyncSequence`, and cancels a sync by cancelling the task that awaits it (CKSyncEngine's shape:
/// state, pending changes as local rows, fetch and send, events).
///
/// The engine runs on the actor's own serial queue, not on Swift's cooperative threads: its
/// backends (`FirestoreDatabase`, `CloudStorage`, `LocalStore`) block while a request is in flight,
/// which must not hold a thread of the pool the app's other tasks share.
///
/// Cancellation: the engine asks before every Firestore and Cloud Storage request; a cancelled task
/// gets ``SyncError/cancelled``, with everything done before it committed to the store (the next
/// sync goes on from there). Local changes (``save(_:id:changes:)``, …) are not interrupted.
///
/// Determinism: the actor adds no clock and no randomness; the simulation drives ``SyncEngine``
/// itself, where nothing is ever cancelled.
public actor SyncEngineActor {
    private let engine: SyncEngine
    private let queue: SerialQueueExecutor
    private let delivery: EventDelivery
    private let continuation: AsyncStream<SyncEvent>.Continuation

    /// Every event of the engine, in order: per record (`fetched`, `merged`, `sent`) and per page,
    /// commit and phase (README "The sync engine"). Delivered in bursts of up to
    /// ``eventBurst`` events and whenever a call returns, so a reader is woken once per burst, not
    /// once per event. One consumer; buffered without bound, so read it while syncing. Ends when
    /// the actor is released.
    public nonisolated let events: AsyncStream<SyncEvent>

    /// The executor of the actor: its serial queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { queue.asUnownedSerialExecutor() }

    /// An engine over its backends and store, with the device `clock`. The store moves into the
    /// actor (`sending`): nothing else may touch it afterwards.
    public init(
        configuration: SyncConfiguration, database: any FirestoreDatabase, storage: any CloudStorage,
        store: sending any LocalStore, clock: @escaping @Sendable () -> FirestoreTimestamp
    ) {
        self.init(
            configuration: configuration, backend: .database(database), storage: storage, store: store, clock: clock)
    }

    /// An engine over the Firebase SDKs' async surface, as an app adapts it (`client`, `storage`),
    /// with the device `clock`. The engine waits for each call on the actor's queue
    /// (`BlockingFirestoreClient`, `BlockingCloudStorage`), never on a cooperative thread. The store
    /// moves into the actor (`sending`).
    public init(
        configuration: SyncConfiguration, client: any AsyncFirestoreClient, storage: any AsyncCloudStorage,
        store: sending any LocalStore, clock: @escaping @Sendable () -> FirestoreTimestamp
    ) {
        self.init(
            configuration: configuration, backend: .client(BlockingFirestoreClient(client)),
            storage: BlockingCloudStorage(storage), store: store, clock: clock)
    }

    /// An engine over `backend` (a database, or a client with only the Firebase SDKs' surface),
    /// with the device `clock`. The store moves into the actor (`sending`).
    public init(
        configuration: SyncConfiguration, backend: SyncFirestore, storage: any CloudStorage,
        store: sending any LocalStore, clock: @escaping @Sendable () -> FirestoreTimestamp
    ) {
        let engine = SyncEngine(
            configuration: configuration, backend: backend, storage: storage, store: store, clock: clock)
        let (stream, continuation) = AsyncStream<SyncEvent>.makeStream()
        let delivery = EventDelivery(continuation)
        engine.keepsEvents = false
        engine.eventHandler = { delivery.add($0) }
        engine.isCancelled = { Task.isCancelled }
        self.engine = engine
        self.events = stream
        self.delivery = delivery
        self.continuation = continuation
        self.queue = SerialQueueExecutor(label: "SyncEngineActor \(configuration.deviceId)")
    }

    // Every call delivers what it noted before it returns: nothing is pending here.
    deinit { continuation.finish() }

    /// The most events ``events`` holds back before it delivers them.
    public static let eventBurst = EventDelivery.burst

    /// Pull, push, then purge old tombstones (``SyncEngine/sync()``).
    /// - Throws: ``SyncError``, ``SyncError/cancelled`` when the awaiting task is cancelled.
    public func sync() throws(SyncError) {
        defer { delivery.flush() }
        try engine.sync()
    }

    /// Pulls every collection (``SyncEngine/pull()``).
    /// - Throws: ``SyncError``.
    public func pull() throws(SyncError) {
        defer { delivery.flush() }
        try engine.pull()
    }

    /// Pushes every dirty row (``SyncEngine/push()``).
    /// - Throws: ``SyncError``.
    public func push() throws(SyncError) {
        defer { delivery.flush() }
        try engine.push()
    }

    /// Saves a new or changed record (``SyncEngine/save(_:id:changes:)``).
    /// - Returns: the document id.
    /// - Throws: ``LocalChangeError``.
    @discardableResult
    public func save(_ collection: SyncCollection, id: String? = nil, changes: [String: FirestoreValue])
        throws(LocalChangeError) -> String
    {
        defer { delivery.flush() }
        return try engine.save(collection, id: id, changes: changes)
    }

    /// Imports an IGC file as a flight (``SyncEngine/importFlight(igc:fields:)``); give `fields`
    /// `inLogbook: true` or a `lastOpenedAt`, or another device's recents trim tombstones it.
    /// - Returns: the flight id (the SHA-256 of the bytes).
    /// - Throws: ``LocalChangeError``.
    public func importFlight(igc: Data, fields: [String: FirestoreValue] = [:]) throws(LocalChangeError) -> String {
        defer { delivery.flush() }
        return try engine.importFlight(igc: igc, fields: fields)
    }

    /// Imports a waypoint or airspace file (``SyncEngine/importMapFile(content:fields:)``).
    /// - Returns: the mapFiles document id.
    /// - Throws: ``LocalChangeError``.
    public func importMapFile(content: Data, fields: [String: FirestoreValue]) throws(LocalChangeError) -> String {
        defer { delivery.flush() }
        return try engine.importMapFile(content: content, fields: fields)
    }

    /// Deletes a record: a tombstone (``SyncEngine/delete(_:id:)``).
    /// - Throws: ``LocalChangeError``.
    public func delete(_ collection: SyncCollection, id: String) throws(LocalChangeError) {
        defer { delivery.flush() }
        try engine.delete(collection, id: id)
    }

    /// The row of `collection` with `id`, or nil.
    public func row(_ collection: SyncCollection, id: String) -> LocalRow? { engine.store.row(collection, id: id) }

    /// Every row of `collection`, sorted by id.
    public func rows(_ collection: SyncCollection) -> [LocalRow] { engine.store.rows(collection) }

    /// The engine's state (cursors, pending deletes, the pause, the profile): `Codable`.
    public var state: EngineState { engine.store.state }

    /// The ID token now carries `entitlements` (``SyncEngine/refreshToken(entitlements:)``).
    public func refreshToken(entitlements: [String]) { engine.refreshToken(entitlements: entitlements) }

    /// Runs `body` with the engine, isolated to the actor, for what the methods above do not cover.
    /// - Throws: what `body` throws.
    public func withEngine<T: Sendable, E: Error>(_ body: @Sendable (SyncEngine) throws(E) -> T) throws(E) -> T {
        defer { delivery.flush() }
        return try body(engine)
    }
}

/// The events an actor's engine noted and has not delivered yet: yielded together, so the reader
/// of the stream wakes once per burst.
final class EventDelivery {
    static let burst = 64
    private let continuation: AsyncStream<SyncEvent>.Continuation
    private var pending: [SyncEvent] = []

    init(_ continuation: AsyncStream<SyncEvent>.Continuation) { self.continuation = continuation }

    func add(_ event: SyncEvent) {
        pending.append(event)
        if pending.count >= Self.burst { flush() }
    }

    func flush() {
        for event in pending { continuation.yield(event) }
        pending.removeAll(keepingCapacity: true)
    }
}

/// A serial executor over a dispatch queue: the jobs of one actor, one at a time, on a thread of
/// their own (`DispatchSerialQueue` is not an executor on every platform).
final class SerialQueueExecutor: SerialExecutor {
    let queue: DispatchQueue
    /// The queue's label, readable from a job it runs (`DispatchQueue.getSpecific(key:)`).
    static let label = DispatchSpecificKey<String>()

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.label, value: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // `self` is held until the job has run: the actor's last job may release the actor and
        // with it this executor.
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}
