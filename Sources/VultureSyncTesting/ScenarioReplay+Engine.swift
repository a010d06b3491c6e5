import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

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

extension SyncEngine {
    /// Runs `action`: ``sync()``, ``pull()`` or ``push()`` (a scenario's `sync`, `pull` and `push` steps).
    /// - Throws: ``SyncError``, as the action does.
    public func perform(_ action: SyncAction) throws(SyncError) {
        switch action {
        case .sync: try sync()
        case .pull: try pull()
        case .push: try push()
        }
    }
}

/// Replays a scenario with the reference engine against a backend.
extension ScenarioReplay {
    /// One device of a replay: its engine, store, clock and request recorder.
    final class Device {
        let config: Scenario.Device
        /// The entitlements its ID token carries now.
        let claims: EntitlementClaims
        let recorder: RecordingFirestore
        let bucket: RecordingCloudStorage
        let ledger: ScenarioDeviceLedger
        let database: ScenarioDeviceFirestore
        /// What its engine talks to: ``database``, or the SDKs' surface over it.
        let firestore: SyncFirestore
        let storage: ScenarioDeviceStorage
        let store = InMemoryLocalStore()
        let clock: ManualClock
        var engine: SyncEngine

        init(
            _ config: Scenario.Device, uid: String, backend: ScenarioBackend, start: FirestoreTimestamp, pageSize: Int,
            sdkSurface: Bool, configure: (inout SyncConfiguration) -> Void
        ) {
            self.config = config
            let claims = EntitlementClaims(config.entitlements)
            self.claims = claims
            recorder = RecordingFirestore(backend.database(signedInAs: uid, entitlements: { claims.current }))
            bucket = RecordingCloudStorage(backend.storage)
            let server = backend.storage
            ledger = ScenarioDeviceLedger(
                device: config.name, uid: uid, objectExists: { (try? server.download($0)) ?? nil != nil })
            let database = ScenarioDeviceFirestore(recorder, ledger: ledger)
            self.database = database
            firestore = sdkSurface ? .client(SDKSurfaceFirestore(database)) : .database(database)
            storage = ScenarioDeviceStorage(bucket, ledger: ledger)
            clock = ManualClock(start.adding(seconds: config.clockOffsetSeconds))
            var configuration = SyncConfiguration(
                uid: uid, deviceId: "device-\(config.name)", platform: config.platform,
                entitlements: config.entitlements, pageSize: pageSize)
            configure(&configuration)
            engine = SyncEngine(
                configuration: configuration, backend: firestore, storage: storage, store: store, clock: clock.source)
        }

        func reconfigure(entitlements: [String], backend: ScenarioBackend) {
            claims.current = entitlements
            engine.refreshToken(entitlements: entitlements)
        }
    }

    /// Runs every step; an unexpected error or an expectation that does not hold is a failure (the
    /// replay goes on to report them all). `configure` adjusts each device's engine configuration
    /// (tests give the engines a bug or another choice); `sdkSurface` has the engines reach
    /// Firestore through the Firebase SDKs' surface alone (``SDKSurfaceFirestore``).
    public static func run(
        _ given: Scenario, backend: ScenarioBackend, sdkSurface: Bool = false,
        configure: (inout SyncConfiguration) -> Void = { _ in }
    ) -> ScenarioResult {
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
                d, uid: scenario.uid, backend: backend, start: scenario.start, pageSize: scenario.pageSize,
                sdkSurface: sdkSurface, configure: configure)
        }
        var failures: [String] = []
        for (index, step) in scenario.steps.enumerated() {
            let p = "/steps/\(index)"
            for d in devices.values { d.ledger.begin(step: p) }
            do {
                try perform(step, p, devices: devices, backend: backend, uid: scenario.uid, failures: &failures)
            } catch {
                failures.append("\(p): \(error)")
            }
            for name in devices.keys.sorted() { failures += devices[name]?.ledger.takeViolations() ?? [] }
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
        case .save(let d, let collection, let id, let changes, let fill):
            try device(d).engine.save(collection, id: id, changes: ScenarioStep.filled(changes, fill))
        case .delete(let d, let collection, let id):
            try device(d).engine.delete(collection, id: id)
        case .open(let d, let id, let outcomes):
            var outcome: String?
            do { try device(d).engine.openFlight(id) } catch { outcome = "\(error)" }
            if let failure = judge(outcome, outcomes, at: p) { failures.append(failure) }
        case .run(let d, let action, let outcomes):
            let engine = try device(d).engine
            var outcome: String?
            do {
                try engine.perform(action)
            } catch {
                outcome = Self.outcome(of: error)
            }
            if let failure = judge(outcome, outcomes, at: p) { failures.append(failure) }
        case .restart(let d):
            // The process restarts: the store keeps what it committed, the engine starts afresh.
            let dev = try device(d)
            dev.store.crash()
            dev.engine = SyncEngine(
                configuration: dev.engine.configuration, backend: dev.firestore, storage: dev.storage,
                store: dev.store, clock: dev.clock.source)
        case .serverCommit(let writes, let late):
            try commitOnServer(writes, lateBySeconds: late, backend: backend)
        case .serverUpload(let path, let bytes):
            try uploadOnServer(path: path, bytes: bytes, backend: backend)
        case .advance(let seconds, let micros, let d):
            if let d {
                try device(d).clock.advance(seconds: seconds, microseconds: micros)
            } else {
                backend.advance(seconds: seconds, microseconds: micros)
                for dev in devices.values { dev.clock.advance(seconds: seconds, microseconds: micros) }
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

    /// The devices of a replay with the reference engine, as an `expect` step reads them.
    struct ReplayDevices: ScenarioDeviceView {
        let devices: [String: Device]
        var deviceNames: [String] { devices.keys.sorted() }

        func rows(device: String, collection: SyncCollection) -> [String: ScenarioRowState] {
            guard let d = devices[device] else { return [:] }
            var out: [String: ScenarioRowState] = [:]
            for row in d.store.rows(collection) {
                out[row.id] = ScenarioRowState(fields: row.fields, dirty: row.isDirty, file: d.engine.holdsFile(row))
            }
            return out
        }

        func takeRequestCount(device: String) -> Int { devices[device]?.ledger.takeRequestCount() ?? 0 }
    }

    /// How a scenario's `error` names a failed sync: `paused`, a Firestore status (`UNAVAILABLE`),
    /// `storage.KIND` (`storage.unavailable`), `store` or `cancelled` (no scenario cancels a sync).
    public static func outcome(of error: SyncError) -> String {
        switch error {
        case .paused: "paused"
        case .firestore(let e): e.status.rawValue
        case .storage(let e): "storage.\(e.kind.rawValue)"
        case .store: "store"
        case .cancelled: "cancelled"
        }
    }
}
