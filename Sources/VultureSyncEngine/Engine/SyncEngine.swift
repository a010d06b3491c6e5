import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// Who syncs: the signed-in user, this install, and what the ID token says (schema §2, §6).
public struct SyncConfiguration: Sendable {
    /// The Firebase Auth uid: documents live under `users/{uid}`.
    public var uid: String
    /// This install's random device id, written as `updatedBy` and in settings entries.
    public var deviceId: String
    /// This app's platform (`android`, `ios`), written as `platform`.
    public var platform: Platform
    /// The ID token's `revenueCatEntitlements` claim: with `all` the storage cap does not apply.
    public var entitlements: [String]
    /// How many times a retryable failure (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED, INTERNAL) is tried
    /// again before the sync gives up for now; writes are idempotent, so a retry is safe.
    public var retries: Int
    /// Documents per pull page: `SchemaConstants.pullPageSize` (500); the simulation uses small pages
    /// so that page edges happen with few documents.
    public var pageSize: Int
    /// How the engine carries out each step: ``SyncMechanisms/reference`` unless a test gives it
    /// another choice or a fault.
    public var mechanisms: SyncMechanisms

    /// A configuration; `retries` defaults to 3 and `pageSize` to the schema's page size.
    public init(
        uid: String, deviceId: String, platform: Platform, entitlements: [String] = [], retries: Int = 3,
        pageSize: Int = Int(SchemaConstants.pullPageSize), mechanisms: SyncMechanisms = .reference
    ) {
        self.uid = uid
        self.deviceId = deviceId
        self.platform = platform
        self.entitlements = entitlements
        self.retries = retries
        self.pageSize = max(1, pageSize)
        self.mechanisms = mechanisms
    }

    /// Whether the user is Pro (the claim holds `all`, schema §6): no storage cap.
    public var isPro: Bool { entitlements.contains(SchemaConstants.proEntitlement) }
}

/// Why a sync stopped. Nothing local is lost: dirty rows stay dirty and are pushed by a later sync.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A daily quota error (`RESOURCE_EXHAUSTED`): sync is paused until this device time (schema §3).
    case paused(until: FirestoreTimestamp)
    /// Firestore refused a request, after the retries a retryable status gets.
    case firestore(FirestoreError)
    /// Cloud Storage refused a request, after retries.
    case storage(CloudStorageError)
    /// The local store could not commit.
    case store(String)
    /// The task running the engine was cancelled. The engine stops before its next Firestore or
    /// Cloud Storage request, as after a refused one: what it committed before stays committed, and
    /// the next sync goes on from there.
    case cancelled

    /// One line for a person.
    public var description: String {
        switch self {
        case .paused(let until): "sync paused by a daily quota until \(until.rfc3339)"
        case .firestore(let e): "Firestore: \(e)"
        case .storage(let e): "Cloud Storage: \(e)"
        case .store(let e): "local store: \(e)"
        case .cancelled: "cancelled"
        }
    }
}

/// What the engine did, in order: the trace a scenario or the simulation checks.
public enum SyncEvent: Sendable, Hashable {
    /// A pull page: its collection and how many documents it held.
    case pulledPage(SyncCollection, documents: Int)
    /// A commit: the collection pushed, the number of writes and the estimated payload in bytes.
    case committed(SyncCollection, writes: Int, estimatedBytes: Int)
    /// A blob reserved: the record and the change in `storageBytes`.
    case reserved(SyncCollection, id: String, storageBytesDelta: Int64)
    /// A reservation refused because the storage cap is full: the file stays local (schema §6).
    case capReached(SyncCollection, id: String)
    /// An object uploaded (or found already there).
    case uploaded(path: String)
    /// A retryable failure retried.
    case retried(String)
    /// A precondition failed and the record was read again and reconciled.
    case reconciled(SyncCollection, id: String)
    /// A daily quota error paused sync until the given device time.
    case paused(until: FirestoreTimestamp)
    /// Tombstones older than the retention purged: locally and on the server.
    case purged(SyncCollection, ids: [String])
    /// Recents trimmed after a pull (schema §5.5).
    case trimmed(cleared: [String], tombstoned: [String])
    /// A pulled document that breaks the schema, not merged: its record and the errors
    /// (`/pointer: rule-id`); the record is held until a valid version arrives.
    case malformed(SyncCollection, id: String, errors: [String])
    /// A pulled (or re-read) document applied to its record: new, unchanged or merged. Per record.
    case fetched(SyncCollection, id: String)
    /// A fetched document met local changes the server did not have: the merge rules kept both
    /// sides' edits (schema §5.3), and the merged record is pushed. Per record.
    case merged(SyncCollection, id: String)
    /// A record's write landed in a commit: the server holds the row's fields. Per record.
    case sent(SyncCollection, id: String)

    /// Whether the event is about one record (`fetched`, `merged`, `sent`) rather than a page,
    /// commit or phase: an app updates that record's UI; a trace of the sync may leave them out.
    public var isPerRecord: Bool {
        switch self {
        case .fetched, .merged, .sent: true
        default: false
        }
    }
}

extension SyncEvent: CustomStringConvertible {
    /// One short line in the schema's words, e.g. `pulled flights 2`, `committed flights 3 writes 1088 B`.
    public var description: String {
        switch self {
        case .pulledPage(let c, let n): "pulled \(c.rawValue) \(n)"
        case .committed(let c, let writes, let bytes): "committed \(c.rawValue) \(writes) writes \(bytes) B"
        case .reserved(let c, let id, let delta): "reserved \(c.rawValue)/\(id.prefix(8)) \(delta) B"
        case .capReached(let c, let id): "cap reached \(c.rawValue)/\(id.prefix(8))"
        case .uploaded(let path): "uploaded \(path)"
        case .retried(let what): "retried \(what)"
        case .reconciled(let c, let id): "reconciled \(c.rawValue)/\(id.prefix(8))"
        case .paused(let until): "paused until \(until)"
        case .purged(let c, let ids): "purged \(c.rawValue) \(ids.count)"
        case .trimmed(let cleared, let tombstoned): "trimmed \(cleared.count) cleared \(tombstoned.count) tombstoned"
        case .malformed(let c, let id, let errors):
            "malformed \(c.rawValue)/\(id.prefix(8)) held: \(errors.joined(separator: ", "))"
        case .fetched(let c, let id): "fetched \(c.rawValue)/\(id.prefix(8))"
        case .merged(let c, let id): "merged \(c.rawValue)/\(id.prefix(8))"
        case .sent(let c, let id): "sent \(c.rawValue)/\(id.prefix(8))"
        }
    }
}

/// The reference sync engine of one device (schema §5; the pull and push contracts of
/// Goldens/FORMAT.md and README "The sync engine"): the local database is the truth, Firestore a
/// replica. ``sync()`` pulls every collection, then pushes the dirty rows in collection order.
///
/// Deterministic: the device clock and every backend are injected; rows are walked by id.
public final class SyncEngine {
    /// Who syncs.
    public internal(set) var configuration: SyncConfiguration
    /// The Firestore the engine talks to.
    public let backend: SyncFirestore
    /// The database the engine talks to; nil when it talks to a ``SyncFirestore/client(_:)``.
    public var database: (any FirestoreDatabase)? {
        if case .database(let database) = backend { return database }
        return nil
    }
    /// The Cloud Storage bucket.
    public let storage: CloudStorage
    /// The device's database.
    public let store: LocalStore
    /// The device clock.
    public let clock: @Sendable () -> FirestoreTimestamp
    /// What happened since the last ``takeEvents()``, in order (none kept when ``keepsEvents`` is
    /// false).
    public internal(set) var events: [SyncEvent] = []
    /// Whether ``events`` keeps what happened; an app that takes events from ``eventHandler`` (or
    /// `SyncEngineActor/events`) turns it off, so nothing piles up.
    public var keepsEvents = true
    /// Called with every event as it happens, on the thread running the engine.
    public var eventHandler: ((SyncEvent) -> Void)?
    /// Asked before every Firestore and Cloud Storage request: true stops the engine with
    /// ``SyncError/cancelled``. `SyncEngineActor` answers with `Task.isCancelled`; by default never,
    /// so a run depends only on its backends and clock.
    public var isCancelled: () -> Bool = { false }
    /// During the full pull after a long absence: the ids of every document it brought, by collection.
    var pulledIds: [SyncCollection: Set<String>]?

    /// An engine over a Firestore database, Cloud Storage and the device's store.
    public convenience init(
        configuration: SyncConfiguration, database: FirestoreDatabase, storage: CloudStorage, store: LocalStore,
        clock: @escaping @Sendable () -> FirestoreTimestamp
    ) {
        self.init(
            configuration: configuration, backend: .database(database), storage: storage, store: store, clock: clock)
    }

    /// An engine over `backend` (a database, or a client with only the SDKs' surface), Cloud
    /// Storage and the device's store.
    public init(
        configuration: SyncConfiguration, backend: SyncFirestore, storage: CloudStorage, store: LocalStore,
        clock: @escaping @Sendable () -> FirestoreTimestamp
    ) {
        self.configuration = configuration
        self.backend = backend
        self.storage = storage
        self.store = store
        self.clock = clock
    }

    var uid: String { configuration.uid }

    /// The ID token was refreshed: its `revenueCatEntitlements` claim now lists `entitlements`
    /// (RevenueCat's webhook changed it; schema §6). The next push checks the cap with it.
    public func refreshToken(entitlements: [String]) {
        configuration.entitlements = entitlements
    }

    // MARK: - Sync

    /// Pull, then push (schema §5.1: "pull first, then push, so the local copy of what the server has
    /// is current"), then purge old tombstones.
    /// - Throws: ``SyncError``; what was done before the error is committed.
    public func sync() throws(SyncError) {
        try checkPause()
        try pull()
        try push()
        try purgeTombstones()
    }

    /// The events since the last call, in order; ``events`` is empty after it.
    public func takeEvents() -> [SyncEvent] {
        defer { events = [] }
        return events
    }

    /// Records `event`: kept in ``events`` (when ``keepsEvents``) and passed to ``eventHandler``.
    func note(_ event: SyncEvent) {
        if keepsEvents { events.append(event) }
        eventHandler?(event)
    }

    /// Throws ``SyncError/cancelled`` when ``isCancelled`` says so: called before every request, so
    /// a cancelled sync stops where a refused request would have stopped it.
    func checkCancellation() throws(SyncError) {
        if isCancelled() { throw .cancelled }
    }

    /// Throws ``SyncError/paused(until:)`` while a quota pause lasts.
    func checkPause() throws(SyncError) {
        if let until = store.state.pausedUntil {
            if clock() < until { throw .paused(until: until) }
            store.state.pausedUntil = nil
        }
    }

    /// The start of the next UTC day after `t`.
    static func nextDay(after t: FirestoreTimestamp) -> FirestoreTimestamp {
        let day: Int64 = 86_400
        let start = (t.seconds >= 0 ? t.seconds / day : (t.seconds - day + 1) / day) * day
        return (try? FirestoreTimestamp(seconds: start + day)) ?? FirestoreTimestamp.maximum
    }

    /// Runs `body`, retrying a retryable status; a quota error pauses sync.
    func firestore<T>(_ what: String, _ body: () throws(FirestoreError) -> T) throws(SyncError) -> T {
        var attempt = 0
        while true {
            try checkCancellation()
            do {
                return try body()
            } catch {
                let pause = configuration.mechanisms.quotaPause
                if error.status == .resourceExhausted, pause != .none {
                    let until =
                        pause == .forADay
                        ? clock().adding(seconds: 86_400) : Self.nextDay(after: clock())
                    store.state.pausedUntil = until
                    note(.paused(until: until))
                    try commitStore()
                    throw .paused(until: until)
                }
                let retryable = Self.retryable.contains(error.status) || error.status == .resourceExhausted
                guard retryable, attempt < configuration.retries else { throw .firestore(error) }
                attempt += 1
                note(.retried("\(what): \(error.status.rawValue)"))
            }
        }
    }

    /// The statuses a request is tried again on.
    static let retryable: Set<FirestoreStatus> = [.unavailable, .deadlineExceeded, .aborted, .internal, .unknown]

    func commitStore() throws(SyncError) {
        do { try store.commit() } catch { throw .store("\(error)") }
    }
}
