import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// How one run is set up.
public struct SimulationOptions: Sendable, Hashable {
    /// The seed every decision comes from.
    public var seed: UInt64
    /// How many random steps before the quiescent phase.
    public var steps: Int
    /// A bug the engines behave as if they had (nil: the reference engine as it is).
    public var injectedBug: InjectedBug?
    /// How many devices (2–4; nil: the seed picks 2–4).
    public var devices: Int?
    /// The engines reach Firestore through the Firebase SDKs' surface alone
    /// (`SDKSurfaceFirestore`, ``SyncFirestore/client(_:)``): version checks in transactions.
    public var sdkSurface: Bool

    /// Options; 80 steps by default.
    public init(
        seed: UInt64, steps: Int = 80, injectedBug: InjectedBug? = nil, devices: Int? = nil, sdkSurface: Bool = false
    ) {
        self.seed = seed
        self.steps = steps
        self.injectedBug = injectedBug
        self.devices = devices.map { min(max($0, 2), 4) }
        self.sdkSurface = sdkSurface
    }
}

/// What one run did and whether an invariant broke.
public struct SimulationOutcome: Sendable {
    /// The options.
    public var options: SimulationOptions
    /// Every decision, in order: replaying them gives the same run.
    public var choices: [Int]
    /// What happened, one line per step (the actions, their outcomes and the engines' events).
    public var trace: [String]
    /// The steps as scenario steps (for a failing run's scenario golden).
    public var steps: [ScenarioStep]
    /// The devices of the run.
    public var devices: [Scenario.Device]
    /// Documents per pull page in the run.
    public var pageSize: Int
    /// The server clock at the start.
    public var start: FirestoreTimestamp
    /// The first invariant that broke, and at which step (nil: every invariant held).
    public var failure: (step: Int, violation: InvariantViolation)?

    /// SHA-256 of the trace: the same seed gives the same hash.
    public var traceHash: String { SHA256Stream.hexDigest(of: Array(trace.joined(separator: "\n").utf8)) }
}

/// One simulated run: 2–4 devices of either platform with skewed clocks, a virtual server clock,
/// random user actions, syncs and faults drawn from one ``ChoiceTape``, the invariants checked
/// after every step and at quiescence.
public enum Simulation {
    static let uid = "u1"
    static let start = (try? FirestoreTimestamp(seconds: 1_792_504_987)) ?? .minimum

    /// Runs the options' seed, or replays `tape` (a recorded or shrunk list of decisions), against
    /// `backend` (nil: a fresh in-memory server, the deterministic default; an
    /// ``EmulatorScenarioBackend`` of its own: the emulators, where the same seed makes the same
    /// decisions but the server's timestamps are real, so the trace hash differs from run to run).
    public static func run(_ options: SimulationOptions, tape: [Int]? = nil, backend: SimulationBackend? = nil)
        -> SimulationOutcome
    {
        var world = World(
            options: options, tape: tape.map(ChoiceTape.init(replaying:)) ?? ChoiceTape(seed: options.seed),
            backend: backend)
        return world.run()
    }

    /// Replays a scenario written by a run (``SimulationOutcome/scenarioBytes()``: user `u1`, the
    /// simulation's start) with every invariant checked after each step and at the quiet end: the
    /// first one broken and at which step, or nil. A shrunk run's scenario breaks the invariant the
    /// run broke.
    /// - Throws: ``ScenarioError`` when the scenario is for another user or starts at another time.
    public static func check(_ scenario: Scenario, injectedBug: InjectedBug? = nil) throws(ScenarioError)
        -> (step: Int, violation: InvariantViolation)?
    {
        guard scenario.uid == uid else {
            throw ScenarioError(file: nil, pointer: "/config/uid", message: "a simulation scenario is for user \(uid)")
        }
        guard scenario.start == start else {
            throw ScenarioError(
                file: nil, pointer: "/config/start", message: "a simulation scenario starts at \(start)")
        }
        var world = World(
            options: SimulationOptions(seed: 0, steps: scenario.steps.count, injectedBug: injectedBug),
            tape: ChoiceTape(replaying: []))
        return world.replay(scenario)
    }

    /// A synthetic IGC file: header and fixes that differ by `index` (the pool of flights a run imports).
    /// The analysis summary of flight `index` (every flight document carries one, schema §2): a
    /// pulled flight without it breaks the schema, and the engine holds it (pin malformedDocumentHeld).
    static func summary(_ index: Int) -> FirestoreValue {
        .map([
            FlightSummary.Field.analysisVersion: .integer(1), FlightSummary.Field.takeoffAt: .null,
            FlightSummary.Field.landingAt: .null, FlightSummary.Field.sportKind: .string("glider"),
            FlightSummary.Field.optimizedDistance: .double(Double(50_000 + 1_000 * index)),
            FlightSummary.Field.duration: .integer(Int64(3_600 + index)),
        ])
    }

    static func igcFile(_ index: Int) -> Data {
        var lines = ["AXSM\(String(format: "%03d", index))", "HFDTE\(String(format: "%02d", 1 + index % 28))1026"]
        lines.append("HFPLTPILOTINCHARGE:Pilot \(index % 5)")
        lines.append("HFGTYGLIDERTYPE:LS\(index % 9)")
        for k in 0..<6 {
            lines.append(
                String(
                    format: "B1%05d5206%03dN00006%03dWA%05d%05d", 10_000 + 37 * k + index, k, index % 1000, 500 + k,
                    510 + k))
        }
        return Data((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// A synthetic map file's content.
    static func mapContent(_ index: Int) -> Data {
        Data("name,code,country,lat,lon,elev,style\n\"Field \(index)\",F\(index),DE,5000.000N,00600.000E,200m,2\n".utf8)
    }
}

/// The simulated world of one run.
struct World {
    final class Device {
        let config: Scenario.Device
        let recorder: RecordingFirestore
        let bucket: RecordingCloudStorage
        let store = InMemoryLocalStore()
        let clock: ManualClock
        /// The entitlements its ID token carries now.
        let claims: EntitlementClaims
        /// The Firestore its engine talks to: the recorder, or the SDKs' surface over it.
        let firestore: SyncFirestore
        var engine: SyncEngine
        var seenRequests = 0

        init(
            _ config: Scenario.Device, backend: SimulationBackend, now: FirestoreTimestamp, pageSize: Int,
            bug: InjectedBug?, sdkSurface: Bool
        ) {
            self.config = config
            let claims = EntitlementClaims(config.entitlements)
            self.claims = claims
            recorder = RecordingFirestore(
                backend.database(signedInAs: Simulation.uid, entitlements: { claims.current }))
            bucket = RecordingCloudStorage(backend.storage)
            clock = ManualClock(now.adding(seconds: config.clockOffsetSeconds))
            let firestore: SyncFirestore = sdkSurface ? .client(SDKSurfaceFirestore(recorder)) : .database(recorder)
            self.firestore = firestore
            engine = SyncEngine(
                configuration: SyncConfiguration(
                    uid: Simulation.uid, deviceId: "device-\(config.name)", platform: config.platform,
                    entitlements: config.entitlements, pageSize: pageSize
                ).injecting(bug.map { [$0] } ?? []),
                backend: firestore, storage: bucket, store: store, clock: clock.source)
        }

        func restart() {
            store.crash()
            engine = SyncEngine(
                configuration: engine.configuration, backend: firestore, storage: bucket, store: store,
                clock: clock.source)
        }
    }

    let options: SimulationOptions
    var tape: ChoiceTape
    /// The server: in memory by default, or the emulators.
    let backend: SimulationBackend
    /// The world's time: the in-memory server's clock, or (against the emulators, whose clock is
    /// real) the simulation's start moved to the server's day, moved by every `advance`.
    let clock: ManualClock
    /// When the run starts.
    let start: FirestoreTimestamp
    /// The first failure of the server to answer (the emulators only): the run cannot be judged.
    var serverFailure: String?
    var devices: [Device] = []
    var checker = InvariantChecker(uid: Simulation.uid)
    var trace: [String] = []
    var steps: [ScenarioStep] = []
    var pro = false
    /// Documents per pull page, the same on every device.
    var pageSize = Int(SchemaConstants.pullPageSize)
    /// Acknowledged record writes: path → field → (value, clientUpdatedAt), the latest by clock.
    var lastEdits: [String: [String: (value: FirestoreValue, step: Int, device: String)]] = [:]
    /// Who edited each field (devices by name, `server` for another client's direct write).
    var editors: [String: [String: Set<String>]] = [:]
    /// Paths that were ever tombstoned (the acknowledged-edit check leaves them out).
    var everDeleted: Set<String> = []
    /// The first step invariant broken during the quiet end.
    var quiescenceFailure: InvariantViolation?
    /// A download of an object its record did not say was uploaded.
    var downloadViolation: InvariantViolation?
    /// The instant the bulk of recents carries, and how many of its two commits were made.
    var bulkInstant: FirestoreTimestamp?
    var bulkCommits = 0

    init(options: SimulationOptions, tape: ChoiceTape, backend given: SimulationBackend? = nil) {
        self.options = options
        self.tape = tape
        if let given {
            backend = given
            let begin =
                (try? given.start(
                    for: Scenario(
                        id: "", section: "", note: "", uid: Simulation.uid, start: Simulation.start, devices: [],
                        steps: []))) ?? Simulation.start
            start = begin
            clock = ManualClock(begin)
        } else {
            let memory = InMemoryScenarioBackend(start: Simulation.start)
            backend = memory
            start = Simulation.start
            clock = memory.clock
        }
    }

    /// Every document of the simulated user on the server (an unreachable server is noted and
    /// reads as empty; the run then fails with ``Invariant/serverAnswered``).
    mutating func documents() -> [FirestoreDocument] {
        do {
            return try backend.documents(uid: Simulation.uid)
        } catch {
            serverFailure = serverFailure ?? "listing the documents: \(error)"
            return []
        }
    }

    /// The server's time now: the in-memory clock, or the emulator's (a probe commit).
    mutating func serverNow() -> FirestoreTimestamp {
        do {
            return try backend.serverNow()
        } catch {
            serverFailure = serverFailure ?? "reading the server's time: \(error)"
            return clock.now
        }
    }

    /// Time passes: the server's clock where it can be moved, and the world's.
    func advanceServer(seconds: Int64, microseconds: Int64 = 0) {
        backend.advance(seconds: seconds, microseconds: microseconds)
        if !(backend is InMemoryScenarioBackend) { clock.advance(seconds: seconds, microseconds: microseconds) }
    }

    mutating func run() -> SimulationOutcome {
        let drawn = 2 + tape.below(3)
        let count = options.devices ?? drawn
        let pageSize = 2 + tape.below(5)
        var configs: [Scenario.Device] = []
        for i in 0..<count {
            let name = String(UnicodeScalar(UInt8(97 + i)))
            configs.append(
                Scenario.Device(
                    name: name, platform: tape.chance(50) ? .android : .ios, entitlements: [],
                    clockOffsetSeconds: Int64(tape.below(301)) - 150))
        }
        setUp(configs, pageSize: pageSize)
        if tape.chance(30) { placeBallast() }
        // A failure's step is numbered as the trace numbers steps (as `replay` does): an iteration
        // that makes no step is not counted, and the quiet end is the number of its first step.
        var failure: (Int, InvariantViolation)?
        for _ in 0..<options.steps {
            if tape.isExhausted { break }
            step()
            if let v = checkStep() {
                failure = (max(steps.count - 1, 0), v)
                break
            }
        }
        if failure == nil {
            let quietEnd = steps.count
            quiesce()
            if let v = quiescenceFailure ?? checkQuiescence() { failure = (quietEnd, v) }
        }
        return SimulationOutcome(
            options: options, choices: tape.recorded, trace: trace, steps: steps, devices: configs,
            pageSize: pageSize, start: start, failure: failure)
    }

    /// The devices of the run, each with its own engine, store, clock and recorders.
    mutating func setUp(_ configs: [Scenario.Device], pageSize: Int) {
        self.pageSize = pageSize
        devices = configs.map {
            Device(
                $0, backend: backend, now: clock.now, pageSize: pageSize, bug: options.injectedBug,
                sdkSurface: options.sdkSurface)
        }
        pro = devices.contains { $0.engine.configuration.isPro }
        trace.append(
            "devices \(configs.map { "\($0.name):\($0.platform.rawValue)\($0.clockOffsetSeconds)" }) page \(pageSize)")
    }

    /// Replays a scenario's steps with every invariant checked after each, then the quiet end.
    mutating func replay(_ scenario: Scenario) -> (step: Int, violation: InvariantViolation)? {
        setUp(scenario.devices, pageSize: scenario.pageSize)
        for (index, step) in scenario.steps.enumerated() {
            perform(step)
            if let v = checkStep() { return (index, v) }
        }
        quiesce()
        return (quiescenceFailure ?? checkQuiescence()).map { (scenario.steps.count, $0) }
    }

    /// A reserved object made by another, earlier device: storageBytes near the cap, so the cap is
    /// reached within a run (its record is reserved but not uploaded, a legal state).
    mutating func placeBallast() {
        let bytes = SchemaLimits.storageCapBytes - 2_000 - Int64(tape.below(2_000))
        let id = String(repeating: "f", count: 64)
        let path = (try? BlobPaths.igcObjectPath(uid: Simulation.uid, flightId: id)) ?? ""
        let common: [String: FirestoreValue] = [
            CommonFields.Field.schema: .integer(SchemaConstants.schemaVersion),
            CommonFields.Field.updatedAt: .serverTimestamp,
            CommonFields.Field.clientUpdatedAt: .timestamp(start), CommonFields.Field.updatedBy: .string("ballast"),
            CommonFields.Field.platform: .string("android"), CommonFields.Field.deleted: .boolean(false),
            CommonFields.Field.deletedAt: .null,
        ]
        var flight = common
        flight[FlightDocument.Field.igc] = .map([
            StorageObjectKind.MapField.path: .string(path), StorageObjectKind.MapField.sizeBytes: .integer(bytes * 5),
            StorageObjectKind.MapField.gzBytes: .integer(bytes),
            IGCBlob.Field.sha256: .string(id), StorageObjectKind.MapField.uploaded: .boolean(false),
        ])
        flight[FlightDocument.Field.inLogbook] = .boolean(true)
        flight[FlightDocument.Field.summary] = Simulation.summary(0)
        let profile: [String: FirestoreValue] = [
            CommonFields.Field.schema: .integer(SchemaConstants.schemaVersion),
            FlightDocument.Field.createdAt: .timestamp(start),
            ProfileDocument.Field.lastSeenAt: .timestamp(start),
            ProfileDocument.Field.platforms: .array([.string("android")]),
            ProfileDocument.Field.storageBytes: .integer(bytes),
            ProfileDocument.Field.storageRef: .map([
                StorageRef.Field.collection: .string("flights"), StorageRef.Field.id: .string(id),
            ]),
        ]
        guard
            let w1 = try? FirestoreWrite(
                path: SyncCollection.flights.documentPath(uid: Simulation.uid, id: id), fields: flight),
            let w2 = try? FirestoreWrite(path: SyncCollection.profilePath(uid: Simulation.uid), fields: profile)
        else { return }
        perform(.serverCommit(writes: [w1, w2], lateBySeconds: nil))
    }

    func device(_ name: String) -> Device { devices.first { $0.config.name == name } ?? devices[0] }

    /// Flights a device has, live or tombstoned, that its pilot may touch (not the ballast or the bulk).
    func flights(_ d: Device, live: Bool = true) -> [LocalRow] {
        d.store.rows(.flights).filter {
            $0.isTombstone != live && $0.id != String(repeating: "f", count: 64) && !Self.bulkIds.contains($0.id)
        }
    }

    /// The ids of the bulk of recents, ascending.
    static let bulkIds: [String] = (0..<(Int(SchemaLimits.recentsMax) + 2)).map {
        DocumentIds.flightId(igcBytes: Data("bulk recent \($0)".utf8))
    }.sorted()

    /// Another client's logbook flights, all opened at one instant, more than Recents holds: the
    /// smaller half of the ids first, the larger half in a later commit. A device that pulled between
    /// them received the larger ids later, so a trim that broke the tie by arrival, not by id, clears
    /// the wrong ones. Untouched by the devices' pilots, so only trims clear their dates.
    mutating func bulkRecents() -> ScenarioStep? {
        guard bulkCommits < 2 else { return nil }
        let instant = bulkInstant ?? clock.now
        let half = Self.bulkIds.count / 2
        let ids = bulkCommits == 0 ? Self.bulkIds[..<half] : Self.bulkIds[half...]
        bulkCommits += 1
        let writes = ids.compactMap { id -> FirestoreWrite? in
            try? FirestoreWrite(
                path: SyncCollection.flights.documentPath(uid: Simulation.uid, id: id),
                fields: [
                    CommonFields.Field.schema: .integer(SchemaConstants.schemaVersion),
                    CommonFields.Field.updatedAt: .serverTimestamp,
                    CommonFields.Field.clientUpdatedAt: .timestamp(instant),
                    CommonFields.Field.updatedBy: .string("device-web"),
                    CommonFields.Field.platform: .string("android"), CommonFields.Field.deleted: .boolean(false),
                    CommonFields.Field.deletedAt: .null,
                    FlightDocument.Field.inLogbook: .boolean(true),
                    FlightDocument.Field.lastOpenedAt: .timestamp(instant), FlightDocument.Field.igc: .null,
                    FlightDocument.Field.filename: .string("bulk-\(id.prefix(8)).igc"),
                    FlightDocument.Field.summary: Simulation.summary(0),
                ])
        }
        return .serverCommit(writes: writes, lateBySeconds: nil)
    }

    /// One random step.
    mutating func step() {
        let d = tape.pick(devices)
        let action = tape.weighted([10, 22, 4, 12, 12, 7, 4, 3, 4, 3, 3, 3, 5, 2, 2, 1, 2, 1])
        let step: ScenarioStep?
        switch action {
        case 0: step = .advance(seconds: Int64(1 + tape.below(200)), microseconds: 0, device: nil)
        case 1: step = .run(device: d.config.name, action: .sync, outcomes: .success)
        case 2: step = .run(device: d.config.name, action: tape.chance(50) ? .pull : .push, outcomes: .success)
        case 3:
            let index = tape.below(12)
            // A flight goes to the logbook, or to Recents when opened (recents-only flights carry a date).
            let logbook = tape.chance(60)
            var fields: [String: FirestoreValue] = [
                FlightDocument.Field.filename: .string("flight-\(index).igc"),
                FlightDocument.Field.inLogbook: .boolean(logbook),
                FlightDocument.Field.summary: Simulation.summary(index),
            ]
            if !logbook { fields[FlightDocument.Field.lastOpenedAt] = .timestamp(d.clock.now) }
            step = .importFlight(device: d.config.name, igc: Simulation.igcFile(index), fields: fields)
        case 4: step = editFlight(d)
        case 5:
            let live = flights(d)
            step = live.isEmpty ? nil : .open(device: d.config.name, id: tape.pick(live).id, outcomes: .success)
        case 6:
            let live = flights(d)
            step = live.isEmpty ? nil : .delete(device: d.config.name, collection: .flights, id: tape.pick(live).id)
        case 7:
            // A re-import of a flight this device deleted.
            let gone = flights(d, live: false)
            guard let row = gone.isEmpty ? nil : tape.pick(gone),
                let index = (0..<12).first(where: { DocumentIds.flightId(igcBytes: Simulation.igcFile($0)) == row.id })
            else {
                step = nil
                break
            }
            step = .importFlight(
                device: d.config.name, igc: Simulation.igcFile(index),
                fields: [
                    FlightDocument.Field.inLogbook: .boolean(true),
                    FlightDocument.Field.summary: Simulation.summary(index),
                ])
        case 8: step = settingsChange(d)
        case 9: step = taskChange(d)
        case 10:
            let index = tape.below(4)
            step = .importMapFile(
                device: d.config.name, content: Simulation.mapContent(index),
                fields: [
                    MapFileDocument.Field.type: .string("WAYPOINTS"), MapFileDocument.Field.source: .string("USER"),
                    MapFileDocument.Field.filename: .string("map-\(index).cup"),
                    MapFileDocument.Field.itemCount: .integer(1), MapFileDocument.Field.isVisible: .boolean(true),
                ])
        case 11:
            let name = tape.pick(["Aachen", "Klippeneck", "Saint-Hubert", "Bitterwasser"])
            step = .save(
                device: d.config.name, collection: .homebases, id: nil,
                changes: [
                    HomebaseDocument.Field.name: .string(name),
                    HomebaseDocument.Field.latitude: .double(50.0 + Double(tape.below(100)) / 10),
                    HomebaseDocument.Field.longitude: .double(6.0),
                    HomebaseDocument.Field.usedAt: .timestamp(d.clock.now),
                ])
        case 12: step = fault(d)
        case 13: step = .restart(device: d.config.name)
        case 14: step = lateServerEdit()
        case 15:
            pro.toggle()
            step = nil
            for dev in devices {
                perform(.entitlements(device: dev.config.name, pro ? [SchemaConstants.proEntitlement] : []))
            }
        case 16: step = bulkRecents()
        default:
            // A long time offline: the clocks move past the tombstone retention. Not against a server
            // whose clock is real (the emulator): its clock would stay behind while the devices' moved,
            // and the purge, which asks a tombstone to have been on the server for the retention by
            // its updatedAt, would purge one a device pushed after the season as if it were old.
            step =
                backend.serverClockIsReal
                ? nil
                : .advance(
                    seconds: SchemaConstants.tombstoneRetentionDays * 86_400 + 3_600, microseconds: 0, device: nil)
        }
        if let step { perform(step) }
    }

    mutating func editFlight(_ d: Device) -> ScenarioStep? {
        let live = flights(d)
        guard !live.isEmpty else { return nil }
        let row = tape.pick(live)
        var changes: [String: FirestoreValue] = [:]
        switch tape.below(7) {
        case 0: changes[FlightDocument.Field.comments] = .string("comment \(tape.below(1000))")
        case 1: changes[FlightDocument.Field.rating] = .integer(Int64(tape.below(6)))
        case 2: changes[FlightDocument.Field.isFavorite] = .boolean(tape.chance(50))
        case 3: changes[FlightDocument.Field.inLogbook] = .boolean(true)
        case 4: changes[FlightDocument.Field.pilotName] = tape.chance(20) ? .null : .string("Pilot \(tape.below(9))")
        case 5:
            var summary = row.fields[FlightDocument.Field.summary]?.mapValue ?? [:]
            var version: Int64 = 0
            if case .integer(let v)? = summary[FlightSummary.Field.analysisVersion] { version = v }
            summary[FlightSummary.Field.analysisVersion] = .integer(version + Int64(tape.below(2)))
            summary[FlightSummary.Field.duration] = .integer(Int64(600 + tape.below(10_000)))
            changes[FlightDocument.Field.summary] = .map(summary)
        default:
            changes[FlightDocument.Field.lastOpenedAt] = tape.chance(30) ? .null : .timestamp(d.clock.now)
        }
        return .save(device: d.config.name, collection: .flights, id: row.id, changes: changes)
    }

    mutating func settingsChange(_ d: Device) -> ScenarioStep? {
        let codec = SettingsCodec(schema: .vulture)
        let keys = SyncSchema.vulture.settingsKeys.filter { $0.iosMapping == .direct && $0.type == .boolean }
        guard !keys.isEmpty else { return nil }
        let key = tape.pick(keys)
        guard let iosKey = key.iosKeys.first else { return nil }
        let ms: Int64 = d.clock.now.seconds * 1000 + Int64(d.clock.now.microseconds / 1000)
        let entries = codec.entries(
            fromIOS: [iosKey: .boolean(tape.chance(50))], changedAt: [iosKey: ms], deviceId: "device-\(d.config.name)")
        var values =
            d.store.row(.settings, id: SchemaConstants.settingsDocumentId)?.fields[SettingsDocument.Field.values]?
            .mapValue ?? entries
        values[key.key] = entries[key.key]
        return .save(
            device: d.config.name, collection: .settings, id: SchemaConstants.settingsDocumentId,
            changes: [SettingsDocument.Field.values: .map(values)])
    }

    mutating func taskChange(_ d: Device) -> ScenarioStep? {
        let index = tape.below(3)
        let url = "/soaringspot/en_gb/contest-\(index)/tasks/day-1"
        let taskId = DocumentIds.taskId(externalUrl: url)
        if tape.chance(50), let flight = flights(d).isEmpty ? nil : tape.pick(flights(d)) {
            return .save(
                device: d.config.name, collection: .flights, id: flight.id,
                changes: [FlightDocument.Field.taskId: .string(taskId)])
        }
        return .save(
            device: d.config.name, collection: .tasks,
            id: d.store.row(.tasks, id: taskId)?.isTombstone == false ? taskId : nil,
            changes: [
                TaskDocument.Field.name: .string("Task \(index).\(tape.below(5))"),
                TaskDocument.Field.externalUrl: .string(url),
            ])
    }

    mutating func fault(_ d: Device) -> ScenarioStep {
        switch tape.below(7) {
        case 0: return .fault(device: d.config.name, request: .commit, fault: .refuse(.unavailable))
        case 1: return .fault(device: d.config.name, request: .commit, fault: .loseAcknowledgement)
        case 2: return .fault(device: d.config.name, request: .query, fault: .refuse(.unavailable))
        case 3: return .fault(device: d.config.name, request: .commit, fault: .refuse(.resourceExhausted))
        case 4: return .storageFault(device: d.config.name, request: .upload, failure: .unavailable)
        case 5: return .storageFault(device: d.config.name, request: .delete, failure: .unavailable)
        default: return .fault(device: d.config.name, request: .commit, fault: .refuse(.aborted))
        }
    }

    /// Another client edits a live flight on the server, visible late (inside the overlap).
    mutating func lateServerEdit() -> ScenarioStep? {
        let all = documents()
        let live = all.filter {
            InvariantChecker.inCollection($0.path, "/flights/")
                && $0.fields[CommonFields.Field.deleted] != .boolean(true)
                && $0.id != String(repeating: "f", count: 64)
        }
        guard !live.isEmpty else { return nil }
        let doc = tape.pick(live)
        // The other client's clock is ahead of every device's: its blind edit is the latest by clock too.
        let clock = devices.map(\.clock.now).max() ?? self.clock.now
        let fields: [String: FirestoreValue] = [
            FlightDocument.Field.comments: .string("server \(tape.below(100))"),
            CommonFields.Field.updatedAt: .serverTimestamp,
            CommonFields.Field.clientUpdatedAt: .timestamp(clock.adding(seconds: 1)),
            CommonFields.Field.updatedBy: .string("device-server"),
            CommonFields.Field.platform: .string("android"),
        ]
        guard
            let write = try? FirestoreWrite(
                path: doc.path, fields: fields, mask: fields.keys.sorted().compactMap { try? FieldPath([$0]) })
        else { return nil }
        // Visible late by up to the whole overlap: the newest updatedAt a cursor can stand on (a
        // tombstone's, or one purged since: the devices' flight cursors count too) minus 0…120 s,
        // the edge included.
        let flights = all.filter { InvariantChecker.inCollection($0.path, "/flights/") }
        let now = serverNow()
        let visible = flights.compactMap { doc -> FirestoreTimestamp? in
            if case .timestamp(let t)? = doc.fields[CommonFields.Field.updatedAt] { return t }
            return nil
        }
        let cursors = devices.compactMap { $0.store.state.cursors[.flights] }
        let newest = (visible + cursors).max() ?? now
        let back = tape.pick([0, 30, 60, 119, SchemaConstants.pullOverlapSeconds, SchemaConstants.pullOverlapSeconds])
        // A commit's time is after the document's last one (Firestore's update times only grow).
        var late = now.seconds - newest.seconds + back
        if case .timestamp(let last)? = doc.fields[CommonFields.Field.updatedAt] {
            late = min(late, now.seconds - last.seconds - 1)
        }
        return .serverCommit(writes: [write], lateBySeconds: late > 0 ? late : nil)
    }

    /// Performs a step, with the bookkeeping the invariants need.
    mutating func perform(_ step: ScenarioStep) {
        steps.append(step)
        // A record made again on a device that has it missing or deleted may come back (a re-import).
        var made: (SyncCollection, String)?
        switch step {
        case .importFlight(_, let igc, _): made = (.flights, DocumentIds.flightId(igcBytes: igc))
        case .importMapFile(_, let content, let fields):
            var idFields = fields
            idFields[MapFileDocument.Field.contentHash] = .string(DocumentIds.contentHash(contentBytes: content))
            if let id = try? DocumentIds.documentId(collection: .mapFiles, fields: idFields).id {
                made = (.mapFiles, id)
            }
        case .save(_, let c, let id, let changes, _):
            if let id {
                made = (c, id)
            } else if let id = try? DocumentIds.documentId(collection: c, fields: changes).id {
                made = (c, id)
            }
        default: break
        }
        if let (c, id) = made, let d = Self.deviceName(step) {
            // Made again: the device had it deleted, or never had it while the server holds its tombstone.
            let path = c.documentPath(uid: Simulation.uid, id: id)
            let row = device(d).store.row(c, id: id)
            let serverTombstone =
                (try? backend.firestore.get(path))??.fields[CommonFields.Field.deleted] == .boolean(true)
            if row?.isTombstone == true || (row == nil && serverTombstone) { checker.revivalsAllowed.insert(path) }
            if row == nil || row?.isTombstone == true {
                checker.creations[path, default: []].append(device(d).clock.now)
                // A creation sets every field of the record, defaults included: where another device
                // made the same record, each field the two made differently goes to the later clock.
                for field in SyncSchema.vulture.fields(of: c.documentType) where Self.tracked(c, field.name) {
                    editors[path, default: [:]][field.name, default: []].insert(d)
                }
            }
        }
        var line = "\(steps.count - 1) \(Self.describe(step))"
        do {
            switch step {
            case .importFlight(let d, let igc, let fields):
                // An import's fields are a creation: when two devices create the same flight, the record is
                // new on both sides and each differing field goes to the later clientUpdatedAt.
                let id = try device(d).engine.importFlight(igc: igc, fields: fields)
                line += " → " + id
                // It still sets the field: the edits of another device to it may lose (to the latest).
                for name in fields.keys where Self.tracked(.flights, name) {
                    editors[SyncCollection.flights.documentPath(uid: Simulation.uid, id: id), default: [:]][
                        name, default: []
                    ].insert(d)
                }
            case .importMapFile(let d, let content, let fields):
                line += " → " + (try device(d).engine.importMapFile(content: content, fields: fields))
            case .save(let d, let c, let id, let changes, let fill):
                let saved = try device(d).engine.save(c, id: id, changes: ScenarioStep.filled(changes, fill))
                recordUserEdit(device: d, collection: c, id: saved, changes: changes)
            case .delete(let d, let c, let id): try device(d).engine.delete(c, id: id)
            case .open(let d, let id, _):
                let dev = device(d)
                recordUserEdit(
                    device: d, collection: .flights, id: id,
                    changes: [FlightDocument.Field.lastOpenedAt: .timestamp(dev.clock.now)])
                let uploaded =
                    dev.store.row(.flights, id: id)?.fields[FlightDocument.Field.igc]?.mapValue?[
                        StorageObjectKind.MapField.uploaded] == .boolean(true)
                let before = dev.bucket.requests.count
                _ = try dev.engine.openFlight(id)
                if !uploaded, dev.bucket.requests[before...].contains(where: { $0.kind == .download }) {
                    downloadViolation =
                        downloadViolation
                        ?? InvariantViolation(
                            invariant: .downloadOnlyWhenUploaded,
                            message: "device \(d) downloaded flight \(id.prefix(8)) while its record said not uploaded")
                }
            case .run(let d, let action, _):
                let dev = device(d)
                // A trim's clear is the engine's edit, made even when the sync fails later.
                defer { noteTrims(dev.engine.takeEvents(), device: dev.config.name) }
                try dev.engine.perform(action)
                // The trace names pages and commits; the per-record events they sum are left out.
                line += " " + dev.engine.events.filter { !$0.isPerRecord }.map { "\($0)" }.joined(separator: " ")
            case .restart(let d):
                device(d).restart()
            case .serverCommit(let writes, let late):
                let visible = late == nil ? clock.now : serverNow().adding(seconds: -(late ?? 0))
                let sent = try writes.map { w in
                    var f = w.fields ?? [:]
                    if f[CommonFields.Field.updatedAt] == .serverTimestamp, late != nil {
                        f[CommonFields.Field.updatedAt] = .timestamp(visible)
                    }
                    return try FirestoreWrite(path: w.path, fields: f, mask: w.mask, precondition: w.precondition)
                }
                _ = try backend.firestore.commit(sent)
                recordServerEdits(sent)
                for w in sent
                where Self.bulkIds.contains(String(FirestoreLimits.slashSegments(w.path ?? "").last ?? "")) {
                    if case .timestamp(let t)? = w.fields?[FlightDocument.Field.lastOpenedAt] {
                        bulkInstant = bulkInstant ?? t
                    }
                }
            case .advance(let seconds, let micros, let d):
                if let d {
                    device(d).clock.advance(seconds: seconds, microseconds: micros)
                } else {
                    advanceServer(seconds: seconds, microseconds: micros)
                    for dev in devices { dev.clock.advance(seconds: seconds, microseconds: micros) }
                }
                if seconds > SchemaConstants.tombstoneRetentionDays * 86_400 {
                    // Past the retention a purged tombstone's flight may come back (schema §5.4).
                    for dev in devices {
                        for row in dev.store.rows(.flights) {
                            checker.revivalsAllowed.insert(
                                SyncCollection.flights.documentPath(uid: Simulation.uid, id: row.id))
                        }
                    }
                }
            case .fault(let d, let request, let fault): device(d).recorder.inject(fault, next: request)
            case .storageFault(let d, let request, let failure): device(d).bucket.inject(failure, next: request)
            case .entitlements(let d, let list):
                device(d).claims.current = list
                device(d).engine.refreshToken(entitlements: list)
                // The cap applies while no device's token says Pro (a replayed scenario's steps too).
                pro = devices.contains { $0.engine.configuration.isPro }
            case .clearFaults(let d):
                device(d).recorder.clearFaults()
                device(d).bucket.clearFaults()
            case .serverUpload(let path, let bytes):
                try ScenarioReplay.uploadOnServer(path: path, bytes: bytes, backend: backend)
                checker.foreignObjects.insert(path)
            case .expect: break
            }
        } catch {
            line += " ✗ \(error)"
        }
        trace.append(line)
        // Every step moves the server clock a little: commits never share an instant by accident.
        advanceServer(seconds: 1)
        for dev in devices { dev.clock.advance(seconds: 1) }
    }

    /// The device a local-change step names.
    static func deviceName(_ step: ScenarioStep) -> String? {
        switch step {
        case .importFlight(let d, _, _), .importMapFile(let d, _, _), .save(let d, _, _, _, _): d
        default: nil
        }
    }

    static func describe(_ step: ScenarioStep) -> String {
        switch step {
        case .importFlight(let d, let igc, _): "\(d) import \(DocumentIds.flightId(igcBytes: igc).prefix(8))"
        case .importMapFile(let d, _, let f): "\(d) importMapFile \(f[MapFileDocument.Field.filename] ?? .null)"
        case .save(let d, let c, let id, let changes, _):
            "\(d) save \(c.rawValue)/\(id?.prefix(8) ?? "new") \(changes.keys.sorted())"
        case .delete(let d, let c, let id): "\(d) delete \(c.rawValue)/\(id.prefix(8))"
        case .open(let d, let id, _): "\(d) open \(id.prefix(8))"
        case .run(let d, let a, _): "\(d) \(a.rawValue)"
        case .restart(let d): "\(d) restart"
        case .serverCommit(let w, let late): "server commit \(w.count) late \(late ?? 0)"
        case .advance(let s, let u, let d): "advance \(s)s\(u == 0 ? "" : " \(u)µs") \(d ?? "all")"
        case .serverUpload(let path, let bytes): "server upload \(path) \(bytes.count) B"
        case .fault(let d, let r, let f): "\(d) fault \(r.rawValue) \(f)"
        case .storageFault(let d, let r, let f): "\(d) storage fault \(r.rawValue) \(f.rawValue)"
        case .entitlements(let d, let e): "\(d) entitlements \(e)"
        case .clearFaults(let d): "\(d) faults cleared"
        case .expect: "expect"
        }
    }

    /// The invariants of the server state and of the requests since the last check.
    mutating func checkStep() -> InvariantViolation? {
        var commits: [[FirestoreWrite]] = []
        var pushes: [[[FirestoreWrite]]] = []
        for dev in devices {
            let requests = dev.recorder.requests
            var mine: [[FirestoreWrite]] = []
            let retention = SchemaConstants.tombstoneRetentionDays * 86_400
            for r in requests[min(dev.seenRequests, requests.count)...] where r.kind == .commit {
                // A delete pushed after its own retention is purged at once (schema §5.4's query):
                // the devices that kept the record keep it, as §5.4 accepts of a device away that long.
                for w in r.writes where w.fields?[CommonFields.Field.deleted] == .boolean(true) {
                    if case .timestamp(let t)? = w.fields?[CommonFields.Field.deletedAt],
                        t < dev.clock.now.adding(seconds: -retention),
                        let path = w.path
                    {
                        checker.lateDeletes.insert(path)
                    }
                }
                commits.append(r.writes)
                mine.append(r.writes)
                trace.append(
                    "  \(dev.config.name) commit\(r.acknowledged ? "" : " (no answer)"): "
                        + r.writes.map { w in
                            let target = FirestoreLimits.slashSegments(w.path ?? "").suffix(2).map {
                                String($0.prefix(8))
                            }
                            .joined(separator: "/")
                            if w.isDelete { return "delete \(target)" }
                            let mask =
                                w.mask.map { "[" + $0.map(\.description).joined(separator: ",") + "]" } ?? "(all)"
                            let igc = w.fields?[FlightDocument.Field.igc].map { " igc=\($0)" } ?? ""
                            let pre = w.precondition.map { " if \($0)" } ?? ""
                            return "\(target) \(mask)\(igc)\(pre)"
                        }.joined(separator: "; "))
            }
            pushes.append(mine)
            dev.seenRequests = requests.count
        }
        if let v = downloadViolation { return v }
        let all = documents()
        if let serverFailure { return InvariantViolation(invariant: .serverAnswered, message: serverFailure) }
        let violations = checker.afterStep(
            documents: all, storage: backend.storage, pro: pro, newCommits: commits,
            pushes: pushes)
        for doc in all where doc.fields[CommonFields.Field.deleted] == .boolean(true) {
            everDeleted.insert(doc.path)
        }
        return violations.first
    }

    /// The top-level fields a lost edit can be told by: default-rule scalars (maps, keyed maps and
    /// arrays have rules of their own; the common fields are bookkeeping).
    static func tracked(_ collection: SyncCollection, _ name: String) -> Bool {
        let kind = MergeRule.rule(for: collection, fieldPath: name).kind
        guard !InvariantChecker.commonFields.contains(name),
            kind == .threeWayLatestClientUpdatedAt || kind == .latestClearTravels,
            let field = SyncSchema.vulture.fields(of: collection.documentType).first(where: { $0.name == name })
        else { return false }
        switch field.type {
        case .map, .dictionary, .array: return false
        default: return true
        }
    }

    /// Notes another client's direct writes as edits by `server`.
    mutating func recordServerEdits(_ writes: [FirestoreWrite]) {
        for write in writes {
            guard let path = write.path, let c = InvariantChecker.collection(of: path), let fields = write.fields
            else { continue }
            for name in fields.keys where Self.tracked(c, name) {
                editors[path, default: [:]][name, default: []].insert("server")
            }
        }
    }

    /// Notes a pilot's edit on a device (the value and the step).
    mutating func recordUserEdit(
        device d: String, collection c: SyncCollection, id: String, changes: [String: FirestoreValue]
    ) {
        let path = c.documentPath(uid: Simulation.uid, id: id)
        for (name, value) in changes where Self.tracked(c, name) {
            lastEdits[path, default: [:]][name] = (value, steps.count - 1, d)
            editors[path, default: [:]][name, default: []].insert(d)
        }
    }

    /// The recents trim clears dates and tombstones flights on a device's own account: a cleared
    /// date has another editor, a tombstoned flight was deleted.
    mutating func noteTrims(_ events: [SyncEvent], device d: String) {
        for case .trimmed(let cleared, let tombstoned) in events {
            for id in cleared {
                editors[SyncCollection.flights.documentPath(uid: Simulation.uid, id: id), default: [:]][
                    FlightDocument.Field.lastOpenedAt, default: []
                ].insert(
                    "trim on \(d)")
            }
            for id in tombstoned {
                everDeleted.insert(SyncCollection.flights.documentPath(uid: Simulation.uid, id: id))
            }
        }
    }

    /// The quiet end: no faults, a day passes (a quota pause ends), every device syncs until nothing moves.
    mutating func quiesce() {
        for dev in devices { perform(.clearFaults(device: dev.config.name)) }
        perform(.advance(seconds: 86_400, microseconds: 0, device: nil))
        // At least three rounds; then more while the last one still changed the server (a chain such
        // as purge, re-creation, another device's merge needs a round per link), within a bound.
        var round = 0
        var changed = true
        while round < 3 || changed {
            guard round < Self.quietRoundsLimit else {
                quiescenceFailure =
                    quiescenceFailure
                    ?? InvariantViolation(
                        invariant: .convergence,
                        message: "the server still changed in sync round \(round) of the quiet end")
                return
            }
            let before = documents().map { "\($0.path) \($0.updateTime.rfc3339)" }
            for dev in devices {
                perform(.run(device: dev.config.name, action: .sync, outcomes: .success))
                if let v = checkStep() {
                    quiescenceFailure = quiescenceFailure ?? v
                }
            }
            changed = documents().map { "\($0.path) \($0.updateTime.rfc3339)" } != before
            round += 1
        }
    }

    /// Sync rounds the quiet end allows before it calls the world unquiet.
    static let quietRoundsLimit = 8

    mutating func checkQuiescence() -> InvariantViolation? {
        let docs = documents()
        if let serverFailure { return InvariantViolation(invariant: .serverAnswered, message: serverFailure) }
        if let v = checker.atQuiescence(
            documents: docs, devices: devices.map { ($0.config.name, $0.store as LocalStore) }
        ).first {
            return v
        }
        let byPath = Dictionary(docs.map { ($0.path, $0.fields) }, uniquingKeysWith: { a, _ in a })
        if let v = checkBulkTieOrder(byPath) { return v }
        if let v = checkNoOrphanedObject(docs) { return v }
        // A field only one device ever edited has no conflict: its last edit must be on the server at
        // the end (a record deleted or made again starts over).
        for (path, fields) in lastEdits.sorted(by: { $0.key < $1.key })
        where !everDeleted.contains(path) && !checker.revivalsAllowed.contains(path) {
            guard let doc = byPath[path], doc[CommonFields.Field.deleted] != .boolean(true) else { continue }
            for (name, edit) in fields.sorted(by: { $0.key < $1.key })
            where (doc[name] ?? .null) != edit.value && editors[path]?[name] == [edit.device] {
                return InvariantViolation(
                    invariant: .acknowledgedEditKept,
                    message: "\(path) \(name): only device \(edit.device) edited it, last to \(edit.value) at step "
                        + "\(edit.step); the server holds \(doc[name] ?? .null)")
            }
        }
        return nil
    }
}

extension World {
    /// Every object a device uploaded that is still in the bucket is named by a live document's blob
    /// map: a tombstone's objects were deleted, even after a failed delete.
    func checkNoOrphanedObject(_ documents: [FirestoreDocument]) -> InvariantViolation? {
        var named: Set<String> = []
        for doc in documents where InvariantChecker.isLive(doc) {
            for (_, map) in InvariantChecker.blobMaps(doc) {
                if case .string(let path)? = map[StorageObjectKind.MapField.path] { named.insert(path) }
            }
        }
        let uploaded = Set(devices.flatMap { $0.bucket.requests.filter { $0.kind == .upload }.map(\.path) })
        for path in uploaded.sorted() where !named.contains(path) {
            guard (try? backend.storage.download(path)) ?? nil != nil else { continue }
            return InvariantViolation(
                invariant: .noOrphanedObject, message: "\(path) is in the bucket, no live document names it")
        }
        return nil
    }

    /// The bulk of recents shares one instant: a trim clears the larger ids first (Spec/pins.tsv
    /// recentsTieOrder), so the flights still carrying it are the smallest ids.
    func checkBulkTieOrder(_ byPath: [String: [String: FirestoreValue]]) -> InvariantViolation? {
        guard let instant = bulkInstant else { return nil }
        var cleared: String?
        for id in Self.bulkIds {
            guard let doc = byPath[SyncCollection.flights.documentPath(uid: Simulation.uid, id: id)],
                doc[CommonFields.Field.deleted] != .boolean(true)
            else {
                continue
            }
            if doc[FlightDocument.Field.lastOpenedAt] == .timestamp(instant) {
                if let cleared {
                    return InvariantViolation(
                        invariant: .recentsTieOrder,
                        message: "flight \(id.prefix(8)) keeps lastOpenedAt \(instant) while \(cleared.prefix(8)), "
                            + "a smaller id opened at the same instant, lost it")
                }
            } else if cleared == nil {
                cleared = id
            }
        }
        return nil
    }
}

extension InvariantChecker {
    static let commonFields: Set<String> = Set(SyncSchema.vulture.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
}

extension SimulationOutcome {
    /// The run as a scenario golden: its devices and steps, and a note naming the broken invariant
    /// (replayed with the invariants checked, it breaks the same one).
    public func scenarioBytes() -> [UInt8] {
        let note =
            failure.map {
                "Simulation seed \(options.seed)\(options.injectedBug.map { " with \($0.rawValue)" } ?? ""): step \($0.step) broke \($0.violation)"
            }
            ?? "Simulation seed \(options.seed): every invariant held"
        let scenario = Scenario(
            id: "scenario.simulation.seed-\(options.seed)", section: "schema §5", note: note, uid: Simulation.uid,
            start: start, devices: devices, pageSize: pageSize, steps: steps)
        return CanonicalJSON.encode(scenario.value)
    }
}
