import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncSchema

/// The rules every commit a device sends during a scenario must keep, whatever the scenario's
/// `expect` steps say (Goldens/FORMAT.md, Scenarios; schema §3, §5.1): the seed's limits judged on
/// the request, never one grouping of the writes.
///
/// - at most `SchemaLimits.engineBatchMaxWrites` (400) writes, deletes included;
/// - at most ``payloadAllowance`` bytes (4 MB with room for other estimates), each write estimated
///   by Firestore's storage size of its document name and fields (sentinels as their values' size);
/// - the profile's `storageBytes` moves only by an integer `$increment` (its creation under `exists: false`
///   may set 0), at most one change per batch, naming in `storageRef` a record the batch writes;
///   a decrease is that record's tombstone and the profile alone; an increase writes the record's
///   blob map with `uploaded: false` (a reserve);
/// - every record write sets `updatedAt` to the server's request time (`$serverTimestamp`);
/// - no write says a blob map's object is uploaded while the object is not in the bucket.
///
/// The collection order of a push is judged across the commits of a step by ``ScenarioDeviceLedger``.
public enum ScenarioCommitRules {
    /// What breaks the rules in one commit of `writes` by a device of `uid`, one sentence each.
    /// `objectExists` tells whether the bucket holds an object (the server's view, not the device's).
    public static func violations(_ writes: [FirestoreWrite], uid: String, objectExists: (String) -> Bool)
        -> [String]
    {
        var out: [String] = []
        if writes.count > Int(SchemaLimits.engineBatchMaxWrites) {
            out.append(
                "\(writes.count) writes in one batch: at most \(SchemaLimits.engineBatchMaxWrites) (schema §3)")
        }
        let bytes = writes.reduce(0) { $0 + StorageSize.document(path: $1.path ?? "", fields: $1.fields ?? [:]) }
        if bytes > payloadAllowance {
            out.append(
                "\(bytes) bytes estimated in one batch (Firestore's storage size of each write's name and fields): "
                    + "at most 4 MB of payload per batch (schema §3; the runner allows \(payloadAllowance))")
        }
        let profilePath = SyncCollection.profilePath(uid: uid)
        var changes: [(delta: Int64, write: FirestoreWrite)] = []
        for w in writes where w.path == profilePath && !w.isDelete && touches(w, ProfileDocument.Field.storageBytes) {
            switch w.fields?[ProfileDocument.Field.storageBytes] {
            case .increment(.integer(let n))?:
                if n != 0 { changes.append((n, w)) }
            case .integer(0)? where w.precondition == .exists(false):
                break
            case .increment(.double(let x))?:
                out.append(
                    "the profile's storageBytes moves by a double $increment of \(x): a count of bytes moves by an "
                        + "integer $increment (schema §2 profile)")
            case let other:
                out.append(
                    "the profile's storageBytes is set to \(other.map { "\($0)" } ?? "nothing") by value: it moves "
                        + "only by $increment, in the batch of the blob it counts (schema §2 profile, §5.1)")
            }
        }
        if changes.count > 1 {
            out.append(
                "\(changes.count) storageBytes changes in one batch: one blob-size change per batch (schema §5.1)")
        }
        for (delta, w) in changes {
            guard case .map(let ref)? = w.fields?[ProfileDocument.Field.storageRef],
                touches(w, ProfileDocument.Field.storageRef),
                case .string(let collection)? = ref[StorageRef.Field.collection],
                case .string(let id)? = ref[StorageRef.Field.id]
            else {
                out.append(
                    "storageBytes moves by \(delta) without storageRef {collection, id} naming the record (schema §5.1)"
                )
                continue
            }
            let named = SyncCollection(rawValue: collection).flatMap { $0 == .users ? nil : $0 }
            guard let recordPath = named?.documentPath(uid: uid, id: id),
                let record = writes.first(where: { $0.path == recordPath && !$0.isDelete })
            else {
                out.append(
                    "storageRef names \(collection)/\(id), which the batch moving storageBytes does not write (schema §5.1)"
                )
                continue
            }
            if delta < 0 {
                if record.fields?[CommonFields.Field.deleted] != .boolean(true) || writes.count != 2 {
                    out.append(
                        "storageBytes falls by \(-delta) in a batch of \(writes.count) writes: a tombstone lowers "
                            + "storageBytes in its own batch, the tombstone and the profile alone (schema §5.1)")
                }
            } else {
                let field = named.flatMap { c in
                    StorageObjectKind.allCases.first { $0.recordType == c.documentType }?.mapField
                }
                let map = field.flatMap { record.fields?[$0]?.mapValue }
                if map == nil || map?[StorageObjectKind.MapField.uploaded] != .boolean(false) {
                    out.append(
                        "storageBytes rises by \(delta) but \(collection)/\(id) is not written with its blob map and "
                            + "uploaded false: a reserve writes the record with uploaded = false (schema §5.1)")
                }
            }
        }
        for w in writes where !w.isDelete {
            guard let (collection, id) = record(w.path, uid: uid) else { continue }
            if collection.hasCommonFields,
                w.fields?[CommonFields.Field.updatedAt] != .serverTimestamp || !touches(w, CommonFields.Field.updatedAt)
            {
                out.append(
                    "\(collection.rawValue)/\(id) is written without updatedAt as the server timestamp: updatedAt is "
                        + "always the server's time (schema §2 common fields)")
            }
            guard let kind = StorageObjectKind.allCases.first(where: { $0.recordType == collection.documentType }),
                touches(w, kind.mapField), case .map(let map)? = w.fields?[kind.mapField],
                map[StorageObjectKind.MapField.uploaded] == .boolean(true),
                case .string(let objectPath)? = map[StorageObjectKind.MapField.path]
            else { continue }
            if !objectExists(objectPath) {
                out.append(
                    "\(collection.rawValue)/\(id) says \(objectPath) is uploaded, but the bucket has no such object: "
                        + "reserve, upload, then mark uploaded (schema §5.1)")
            }
        }
        return out
    }

    /// The most payload the runner lets one commit carry by its estimate: the seed's 4 MB read as 4 MiB
    /// (Spec/pins.tsv `decimalSizes`, which reads it as 4,000,000, is a choice) plus 10% for an
    /// engine whose own estimate differs from Firestore's storage-size formula.
    public static let payloadAllowance = 4 * 1024 * 1024 * 11 / 10

    /// Whether a write sets or transforms the top-level field `name` (a write without a mask sets
    /// every field it holds).
    static func touches(_ w: FirestoreWrite, _ name: String) -> Bool {
        guard let mask = w.mask else { return w.fields?[name] != nil }
        return mask.contains { $0.segments.first == name }
    }

    /// The record collection and id of a document path under `users/{uid}/`, or nil (the profile,
    /// another user, another tree).
    static func record(_ path: String?, uid: String) -> (SyncCollection, String)? {
        let parts = FirestoreLimits.slashSegments(path ?? "").map(String.init)
        guard parts.count == 4, parts[0] == "users", parts[1] == uid, let c = SyncCollection(rawValue: parts[2]),
            c != .users
        else { return nil }
        return (c, parts[3])
    }
}

/// One device's requests during a scenario, as the runner keeps count of them: the step it is in,
/// how many requests the step sent (a step may send at most ``stepBudget``: an engine that never
/// stops fails its case instead of hanging the run), how many since the previous `expect` step, the
/// push order across the step's commits, and every commit judged by ``ScenarioCommitRules``.
/// Thread-safe.
public final class ScenarioDeviceLedger: @unchecked Sendable {
    /// The most requests (Firestore and Cloud Storage) one step of one device may send: about five
    /// times what the largest scenario step needs when every write goes in a commit of its own
    /// (about 550: 520 home bases pushed, or 450 tombstones purged, one by one).
    /// Beyond it every request is answered `RESOURCE_EXHAUSTED` (the daily quota a looping engine
    /// would exhaust) and the case fails.
    public static let stepBudget = 3_000

    /// The device's name.
    public let device: String
    let uid: String
    let objectExists: @Sendable (String) -> Bool
    private let lock = NSLock()
    private var step = "/config"
    private var inStep = 0
    private var commitsInStep = 0
    private var sinceExpect = 0
    private var lastRank = -1
    private var lastCollection: SyncCollection?
    private var found: [String] = []

    /// A ledger for `device` of user `uid`; `objectExists` reads the bucket as the server sees it.
    public init(device: String, uid: String, objectExists: @escaping @Sendable (String) -> Bool) {
        self.device = device
        self.uid = uid
        self.objectExists = objectExists
    }

    /// A new step begins at `pointer` (`/steps/4`): its budget and its push order start afresh.
    public func begin(step pointer: String) {
        lock.lock()
        defer { lock.unlock() }
        step = pointer
        inStep = 0
        commitsInStep = 0
        lastRank = -1
        lastCollection = nil
    }

    /// Counts one request; false when the step's budget is spent (the request is refused).
    func admit() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        inStep += 1
        sinceExpect += 1
        if inStep == Self.stepBudget + 1 {
            found.append(
                "\(step): device \(device) sent more than \(Self.stepBudget) requests in one step: an engine that "
                    + "does not stop (a pull that never ends on a short page?) is answered RESOURCE_EXHAUSTED")
        }
        return inStep <= Self.stepBudget
    }

    /// A request failed: a push may start again from its first collection.
    func failed() {
        lock.lock()
        defer { lock.unlock() }
        lastRank = -1
        lastCollection = nil
    }

    /// Judges one commit the device sends (before it reaches the server).
    func judge(commit writes: [FirestoreWrite]) {
        let broken = ScenarioCommitRules.violations(writes, uid: uid, objectExists: objectExists)
        lock.lock()
        defer { lock.unlock() }
        commitsInStep += 1
        let what = "\(step): device \(device), commit \(commitsInStep) of the step"
        found += broken.map { "\(what): \($0)" }
        let order = SyncCollection.pushOrder
        for w in writes where !w.isDelete {
            guard let (collection, _) = ScenarioCommitRules.record(w.path, uid: uid),
                let rank = order.firstIndex(of: collection)
            else { continue }
            if rank < lastRank, let after = lastCollection {
                found.append(
                    "\(what): a \(collection.rawValue) record after a \(after.rawValue) one in one push: collections "
                        + "go \(order.map(\.rawValue).joined(separator: " → ")) (schema §5.1)")
            }
            if rank > lastRank {
                lastRank = rank
                lastCollection = collection
            }
        }
    }

    /// What broke the rules since the last call, one line each, with the step's pointer.
    public func takeViolations() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        defer { found = [] }
        return found
    }

    /// The requests sent since the last call (the previous `expect` step).
    public func takeRequestCount() -> Int {
        lock.lock()
        defer { lock.unlock() }
        defer { sinceExpect = 0 }
        return sinceExpect
    }

    var budgetMessage: String {
        "the scenario's budget of \(Self.stepBudget) requests per step is spent (Goldens/FORMAT.md, Scenarios)"
    }
}

/// The Firestore a device reaches in a scenario: its requests counted and judged by its ledger,
/// then sent through its fault recorder to the server.
public final class ScenarioDeviceFirestore: FirestoreDatabase, @unchecked Sendable {
    /// Faults queued for the device, and every request it sent.
    public let recorder: RecordingFirestore
    /// The device's ledger.
    public let ledger: ScenarioDeviceLedger

    /// The device's Firestore in front of `recorder`.
    public init(_ recorder: RecordingFirestore, ledger: ScenarioDeviceLedger) {
        self.recorder = recorder
        self.ledger = ledger
    }

    public var database: String { recorder.database }

    func admit() throws(FirestoreError) {
        guard ledger.admit() else { throw FirestoreError(.resourceExhausted, ledger.budgetMessage) }
    }

    public func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        try admit()
        ledger.judge(commit: writes)
        do { return try recorder.commit(writes) } catch {
            ledger.failed()
            throw error
        }
    }

    public func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? {
        try admit()
        do { return try recorder.get(path) } catch {
            ledger.failed()
            throw error
        }
    }

    public func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        try admit()
        do { return try recorder.runQuery(query) } catch {
            ledger.failed()
            throw error
        }
    }
}

/// The Cloud Storage a device reaches in a scenario: its requests counted by its ledger, then sent
/// through its fault recorder to the bucket.
public final class ScenarioDeviceStorage: CloudStorage, @unchecked Sendable {
    /// Faults queued for the device, and every request it sent.
    public let recorder: RecordingCloudStorage
    /// The device's ledger.
    public let ledger: ScenarioDeviceLedger

    /// The device's bucket in front of `recorder`.
    public init(_ recorder: RecordingCloudStorage, ledger: ScenarioDeviceLedger) {
        self.recorder = recorder
        self.ledger = ledger
    }

    func admit() throws(CloudStorageError) {
        guard ledger.admit() else { throw CloudStorageError(.resourceExhausted, ledger.budgetMessage) }
    }

    public func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError) {
        try admit()
        do { try recorder.upload(object, onlyIfAbsent: onlyIfAbsent) } catch {
            ledger.failed()
            throw error
        }
    }

    public func download(_ path: String) throws(CloudStorageError) -> StorageObject? {
        try admit()
        do { return try recorder.download(path) } catch {
            ledger.failed()
            throw error
        }
    }

    public func delete(_ path: String) throws(CloudStorageError) {
        try admit()
        do { try recorder.delete(path) } catch {
            ledger.failed()
            throw error
        }
    }
}
