import Foundation
import VultureFirestore
import VultureSyncSchema

/// The server side of a scenario: Firestore and Cloud Storage, and the server's time.
public protocol ScenarioBackend: AnyObject {
    /// The database the devices talk to.
    var firestore: FirestoreDatabase { get }
    /// The bucket the devices talk to.
    var storage: CloudStorage { get }
    /// The server's time now (the in-memory clock; for a real server, the time of a probe commit).
    /// - Throws: `FirestoreError` when the probe fails.
    func serverNow() throws(FirestoreError) -> FirestoreTimestamp
    /// Time passes on the server (a real server's clock runs on its own).
    func advance(seconds: Int64)
    /// The database as a device signed in as `uid` reaches it: on the emulator its requests carry
    /// the user's ID token, whose `revenueCatEntitlements` claim `entitlements` gives on every
    /// request (a refreshed token takes effect at once), so security rules judge them. By default
    /// ``firestore``.
    func database(signedInAs uid: String, entitlements: @escaping @Sendable () -> [String]) -> FirestoreDatabase
    /// Where the scenario's clocks start on this backend. By default `scenario.start`; a server
    /// whose clock is real moves it by whole days to its own time (``EmulatorScenarioBackend``), and
    /// the replay moves every timestamp of the scenario with it.
    /// - Throws: `FirestoreError` when the server's time cannot be read.
    func start(for scenario: Scenario) throws(FirestoreError) -> FirestoreTimestamp
    /// Whether the server's clock is real (the emulator): its timestamps are its request times, so
    /// an expected server timestamp (`updatedAt`, on the server or in a row) is checked to be a
    /// timestamp, not its value. By default false.
    var serverClockIsReal: Bool { get }
    /// The `updatedAt` of a `serverCommit` made visible `late` seconds late. By default the server's
    /// now minus `late`; a real clock that `advance` cannot move (``EmulatorScenarioBackend``)
    /// takes back the seconds the scenario advanced, so the commit stands where it stands in memory
    /// relative to the documents before those advances.
    /// - Throws: `FirestoreError` when the server's time cannot be read.
    func lateCommitTime(lateBySeconds late: Int64) throws(FirestoreError) -> FirestoreTimestamp
}

extension ScenarioBackend {
    public func lateCommitTime(lateBySeconds late: Int64) throws(FirestoreError) -> FirestoreTimestamp {
        try serverNow().adding(seconds: -late)
    }

    public func database(signedInAs uid: String, entitlements: @escaping @Sendable () -> [String])
        -> FirestoreDatabase
    { firestore }

    public func start(for scenario: Scenario) throws(FirestoreError) -> FirestoreTimestamp { scenario.start }

    public var serverClockIsReal: Bool { false }
}

/// The in-memory backend: `InMemoryFirestore` and `InMemoryCloudStorage` on a manual clock.
public final class InMemoryScenarioBackend: ScenarioBackend {
    /// The server's clock.
    public let clock: ManualClock
    /// The database.
    public let memory: InMemoryFirestore
    /// The bucket.
    public let bucket = InMemoryCloudStorage()

    /// An empty server whose clock shows `start`.
    public init(start: FirestoreTimestamp) {
        clock = ManualClock(start)
        memory = InMemoryFirestore(clock: clock.source)
    }

    public var firestore: FirestoreDatabase { memory }
    public var storage: CloudStorage { bucket }
    public func serverNow() throws(FirestoreError) -> FirestoreTimestamp { clock.now }
    public func advance(seconds: Int64) { clock.advance(seconds: seconds) }
}

/// The entitlements a device's ID token carries (its `revenueCatEntitlements` claim, schema §6),
/// read on every request and changed by an `entitlements` step. Thread-safe.
public final class EntitlementClaims: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [String]
    /// A token carrying `value`.
    public init(_ value: [String]) { self.value = value }
    /// The entitlements now.
    public var current: [String] {
        get {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
        set {
            lock.lock()
            value = newValue
            lock.unlock()
        }
    }
}

/// The outcome of one scenario: every expectation that did not hold, with its JSON pointer.
public struct ScenarioResult: Sendable {
    /// The scenario's id.
    public var id: String
    /// `"/steps/7/server/users~1u1~1flights~1f1/inLogbook: expected true, actual false"`, …
    public var failures: [String]
    /// Every device's events, for a person reading a failure.
    public var events: [String: [SyncEvent]]

    /// Whether every expectation held.
    public var passed: Bool { failures.isEmpty }
}

/// A device row as an `expect` step sees it.
public struct ScenarioRowState: Sendable, Hashable {
    /// The fields as the device holds them (stored form).
    public var fields: [String: FirestoreValue]
    /// Whether the row holds changes the server does not have.
    public var dirty: Bool

    /// A row state as given.
    public init(fields: [String: FirestoreValue], dirty: Bool) {
        self.fields = fields
        self.dirty = dirty
    }
}

/// What an `expect` step reads from the devices of a replay: the reference engine's stores here, a
/// testee's answers to `engine.rows` in the conformance runner.
public protocol ScenarioDeviceView {
    /// The devices' names, sorted.
    var deviceNames: [String] { get }
    /// The device's row of `collection` with `id`, or nil when it has none.
    /// - Throws: when the device cannot be asked (a testee that broke the protocol).
    func row(device: String, collection: SyncCollection, id: String) throws -> ScenarioRowState?
    /// The number of writes of each commit the device sent since the previous call (refused ones included).
    func takeCommitSizes(device: String) -> [Int]
}

/// Replays a scenario with the reference engine against a backend.
public enum ScenarioReplay {
    /// One device of a replay: its engine, store, clock and request recorder.
    final class Device {
        let config: Scenario.Device
        /// The entitlements its ID token carries now.
        let claims: EntitlementClaims
        let recorder: RecordingFirestore
        let bucket: RecordingCloudStorage
        let store = InMemoryLocalStore()
        /// How many of the recorder's requests the previous `expect` step saw.
        var seenRequests = 0
        let clock: ManualClock
        var engine: SyncEngine

        init(
            _ config: Scenario.Device, uid: String, backend: ScenarioBackend, start: FirestoreTimestamp, pageSize: Int
        ) {
            self.config = config
            let claims = EntitlementClaims(config.entitlements)
            self.claims = claims
            recorder = RecordingFirestore(backend.database(signedInAs: uid, entitlements: { claims.current }))
            bucket = RecordingCloudStorage(backend.storage)
            clock = ManualClock(start.adding(seconds: config.clockOffsetSeconds))
            engine = SyncEngine(
                configuration: SyncConfiguration(
                    uid: uid, deviceId: "device-\(config.name)", platform: config.platform,
                    entitlements: config.entitlements, pageSize: pageSize),
                database: recorder, storage: bucket, store: store, clock: clock.source)
        }

        func reconfigure(entitlements: [String], backend: ScenarioBackend) {
            claims.current = entitlements
            engine.refreshToken(entitlements: entitlements)
        }
    }

    /// Runs every step; an unexpected error or an expectation that does not hold is a failure (the
    /// replay goes on to report them all).
    public static func run(_ given: Scenario, backend: ScenarioBackend) -> ScenarioResult {
        var scenario = given
        do {
            let start = try backend.start(for: given)
            if start != given.start { scenario = given.shifted(bySeconds: start.seconds - given.start.seconds) }
        } catch {
            return ScenarioResult(id: given.id, failures: ["/config/start: \(error)"], events: [:])
        }
        var devices: [String: Device] = [:]
        for d in scenario.devices {
            devices[d.name] = Device(
                d, uid: scenario.uid, backend: backend, start: scenario.start, pageSize: scenario.pageSize)
        }
        var failures: [String] = []
        for (index, step) in scenario.steps.enumerated() {
            let p = "/steps/\(index)"
            do {
                try perform(step, p, devices: devices, backend: backend, uid: scenario.uid, failures: &failures)
            } catch {
                failures.append("\(p): \(error)")
            }
        }
        return ScenarioResult(
            id: scenario.id, failures: failures, events: devices.mapValues { $0.engine.events })
    }

    static func perform(
        _ step: ScenarioStep, _ p: String, devices: [String: Device], backend: ScenarioBackend, uid: String,
        failures: inout [String]
    ) throws {
        func device(_ name: String) throws(ScenarioError) -> Device {
            guard let found = devices[name] else {
                throw ScenarioError(file: nil, pointer: p + "/device", message: "no device \(name) in config.devices")
            }
            return found
        }
        switch step {
        case .importFlight(let d, let igc, let fields):
            try device(d).engine.importFlight(igc: igc, fields: fields)
        case .importMapFile(let d, let content, let fields):
            try device(d).engine.importMapFile(content: content, fields: fields)
        case .save(let d, let collection, let id, let changes):
            try device(d).engine.save(collection, id: id, changes: changes)
        case .delete(let d, let collection, let id):
            try device(d).engine.delete(collection, id: id)
        case .open(let d, let id):
            try device(d).engine.openFlight(id)
        case .run(let d, let action, let expected):
            let engine = try device(d).engine
            var outcome: String?
            do {
                try engine.perform(action)
            } catch {
                outcome = Self.outcome(of: error)
                if expected == nil { failures.append("\(p): \(action.rawValue) failed: \(error)") }
            }
            if let expected, outcome != expected {
                failures.append("\(p)/error: expected \(expected), actual \(outcome ?? "success")")
            }
        case .restart(let d):
            // The process restarts: the store keeps what it committed, the engine starts afresh.
            let dev = try device(d)
            dev.store.crash()
            dev.engine = SyncEngine(
                configuration: dev.engine.configuration, database: dev.recorder, storage: dev.bucket, store: dev.store,
                clock: dev.clock.source)
        case .serverCommit(let writes, let late):
            try commitOnServer(writes, lateBySeconds: late, backend: backend)
        case .advance(let seconds, let d):
            if let d {
                try device(d).clock.advance(seconds: seconds)
            } else {
                backend.advance(seconds: seconds)
                for dev in devices.values { dev.clock.advance(seconds: seconds) }
            }
        case .fault(let d, let request, let fault):
            try device(d).recorder.inject(fault, next: request)
        case .storageFault(let d, let request, let failure):
            try device(d).bucket.inject(failure, next: request)
        case .clearFaults(let d):
            try device(d).recorder.clearFaults()
            try device(d).bucket.clearFaults()
        case .entitlements(let d, let list):
            try device(d).reconfigure(entitlements: list, backend: backend)
        case .expect(let e):
            failures += try check(e, at: p, devices: ReplayDevices(devices: devices), backend: backend, uid: uid)
        }
    }

    /// A `serverCommit` step: another client commits `writes` directly; with `lateBySeconds` each
    /// `updatedAt` server timestamp becomes the server's now minus that many seconds.
    /// - Throws: `FirestoreError` when the commit is refused; `SchemaInputError` for a write that cannot be rebuilt.
    public static func commitOnServer(_ writes: [FirestoreWrite], lateBySeconds late: Int64?, backend: ScenarioBackend)
        throws
    {
        var sent = writes
        if let late {
            let visible = try backend.lateCommitTime(lateBySeconds: late)
            sent = try writes.map { w in
                guard var fields = w.fields, fields["updatedAt"] == .serverTimestamp else { return w }
                fields["updatedAt"] = .timestamp(visible)
                return try FirestoreWrite(path: w.path, fields: fields, mask: w.mask, precondition: w.precondition)
            }
        }
        _ = try backend.firestore.commit(sent)
    }

    /// The devices of a replay with the reference engine, as an `expect` step reads them.
    struct ReplayDevices: ScenarioDeviceView {
        let devices: [String: Device]
        var deviceNames: [String] { devices.keys.sorted() }

        func row(device: String, collection: SyncCollection, id: String) -> ScenarioRowState? {
            devices[device]?.store.row(collection, id: id).map {
                ScenarioRowState(fields: $0.fields, dirty: $0.isDirty)
            }
        }

        func takeCommitSizes(device: String) -> [Int] {
            guard let d = devices[device] else { return [] }
            let requests = d.recorder.requests
            let sizes = requests[min(d.seenRequests, requests.count)...].filter { $0.kind == .commit }.map(
                \.writes.count)
            d.seenRequests = requests.count
            return sizes
        }
    }

    /// How a scenario's `error` names a failed sync: `paused`, a Firestore status (`UNAVAILABLE`),
    /// `storage.KIND` (`storage.unavailable`) or `store`.
    public static func outcome(of error: SyncError) -> String {
        switch error {
        case .paused: "paused"
        case .firestore(let e): e.status.rawValue
        case .storage(let e): "storage.\(e.kind.rawValue)"
        case .store: "store"
        }
    }

    /// Whether `actual` holds every field of `expected` (a null also matches an absent field). With
    /// `realClock`, a server timestamp field only has to hold a timestamp.
    static func compare(
        _ expected: [String: FirestoreValue], _ actual: [String: FirestoreValue], _ p: String, realClock: Bool = false
    ) -> [String] {
        expected.keys.sorted().compactMap { key in
            let want = expected[key] ?? .null
            let have = actual[key] ?? .null
            if realClock, serverTimestampFields.contains(key), case .timestamp = want, case .timestamp = have {
                return nil
            }
            return want == have ? nil : "\(JSONPointer.appending(p, key)): expected \(want), actual \(have)"
        }
    }

    /// The fields the server sets to its request time (`writeAs` serverTimestamp in Spec/fields.tsv).
    static let serverTimestampFields = Set(
        SyncSchema.vulture.fields(of: SyncSchema.commonFieldsOwner).filter { $0.writeAs == .serverTimestamp }.map(
            \.name))

    /// The expectations of an `expect` step at pointer `p` that do not hold, each
    /// `POINTER: expected …, actual …`: server documents, objects, counts and `storageBytes` read from
    /// `backend`, rows and commit sizes from `devices` (whose commits since the previous step are taken).
    /// - Throws: what reading the backend or the devices throws.
    public static func check(
        _ e: ScenarioExpectation, at p: String, devices: ScenarioDeviceView, backend: ScenarioBackend, uid: String
    ) throws -> [String] {
        var out: [String] = []
        for path in e.server.keys.sorted() {
            let sp = JSONPointer.appending(p + "/server", path)
            let doc = try backend.firestore.get(path)
            switch (e.server[path] ?? nil, doc) {
            case (nil, nil): break
            case (nil, .some): out.append("\(sp): expected no document, found one")
            case (.some, nil): out.append("\(sp): expected a document, found none")
            case (.some(let want), .some(let have)):
                out += compare(want, have.fields, sp, realClock: backend.serverClockIsReal)
            }
        }
        for name in e.rows.keys.sorted() {
            guard devices.deviceNames.contains(name), let rows = e.rows[name] else { continue }
            for key in rows.keys.sorted() {
                let rp = JSONPointer.appending(p + "/rows/" + name, key)
                let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
                guard parts.count == 2, let collection = SyncCollection(rawValue: parts[0]) else {
                    out.append("\(rp): a row key is COLLECTION/ID")
                    continue
                }
                let row = try devices.row(device: name, collection: collection, id: parts[1])
                switch (rows[key] ?? nil, row) {
                case (nil, nil): break
                case (nil, .some): out.append("\(rp): expected no row, found one")
                case (.some, nil): out.append("\(rp): expected a row, found none")
                case (.some(let want), .some(let have)):
                    out += compare(want.fields, have.fields, rp + "/fields", realClock: backend.serverClockIsReal)
                    if let dirty = want.dirty, dirty != have.dirty {
                        out.append("\(rp)/dirty: expected \(dirty), actual \(have.dirty)")
                    }
                }
            }
        }
        for path in e.objects.keys.sorted() {
            let exists = try backend.storage.download(path) != nil
            if exists != e.objects[path] {
                out.append(
                    "\(JSONPointer.appending(p + "/objects", path)): expected \(e.objects[path] == true ? "an object" : "none"), actual \(exists ? "an object" : "none")"
                )
            }
        }
        for collection in e.serverCounts.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            let query = FirestoreQuery(parent: "users/\(uid)", collectionId: collection.rawValue)
            let live = try backend.firestore.runQuery(query).filter { $0.fields["deleted"] != .boolean(true) }.count
            if live != e.serverCounts[collection] {
                out.append(
                    "\(p)/serverCounts/\(collection.rawValue): expected \(e.serverCounts[collection] ?? 0), actual \(live)"
                )
            }
        }
        for name in devices.deviceNames {
            let sizes = devices.takeCommitSizes(device: name)
            if let want = e.commits[name], want != sizes {
                out.append("\(p)/commits/\(name): expected \(want), actual \(sizes)")
            }
        }
        if let bytes = e.storageBytes {
            let profile = try backend.firestore.get("users/\(uid)")
            let have = profile?.fields["storageBytes"] ?? .null
            if have != .integer(bytes) { out.append("\(p)/storageBytes: expected \(bytes), actual \(have)") }
        }
        return out
    }
}
