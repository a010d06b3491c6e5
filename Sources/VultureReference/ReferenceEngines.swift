import Foundation
import VultureConformance
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// The server's answer read back on the engine's side: the result, or the error as a Firestore or
/// Storage failure.
final class ServerRequestSender: @unchecked Sendable {
    // Used by one engine operation at a time, on the thread that answers it (the protocol is sequential).
    var channel: EngineServerChannel?

    func send(_ members: [String: FirestoreValue]) -> Result<FirestoreValue, ServerRequestError> {
        guard let channel else {
            return .failure(
                ServerRequestError(code: FirestoreStatus.unavailable.rawValue, message: "no server channel"))
        }
        guard case .map(let answer) = channel.request(.map(members)) else {
            return .failure(
                ServerRequestError(
                    code: FirestoreStatus.unavailable.rawValue, message: "the server answer is not a map"))
        }
        if let result = answer["result"] { return .success(result) }
        let error = answer["error"]?.mapValue
        return .failure(
            ServerRequestError(
                code: error?["code"]?.stringValue ?? "UNKNOWN", message: error?["message"]?.stringValue ?? ""))
    }
}

extension FirestoreValue {
    fileprivate var stringValue: String? { if case .string(let s) = self { s } else { nil } }
}

/// Firestore as an engine under test sees it: each call one server request (unchecked Sendable: the
/// protocol is sequential, one engine operation at a time on the thread that answers it).
final class ServerRequestFirestore: FirestoreDatabase, @unchecked Sendable {
    let device: String
    let sender: ServerRequestSender
    let database: String

    init(device: String, database: String, sender: ServerRequestSender) {
        self.device = device
        self.database = database
        self.sender = sender
    }

    private func call(_ op: String, _ members: [String: FirestoreValue]) throws(FirestoreError) -> FirestoreValue {
        var m = members
        m["op"] = .string(op)
        m["device"] = .string(device)
        switch sender.send(m) {
        case .success(let v): return v
        case .failure(let e):
            throw FirestoreError(FirestoreStatus(rawValue: e.code) ?? .unknown, "\(e.code): \(e.message)")
        }
    }

    private func read<T>(_ body: () throws(ServerRequestError) -> T) throws(FirestoreError) -> T {
        do { return try body() } catch { throw FirestoreError(.internal, "the server's answer: \(error.message)") }
    }

    func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        var items: [FirestoreValue] = []
        for w in writes {
            guard let v = try? CanonicalJSON.decode(CanonicalJSON.encode(w)) else {
                throw FirestoreError(.invalidArgument, "a write that has no canonical form")
            }
            items.append(v)
        }
        let answer = try call("commit", ["writes": .array(items)])
        return try read { () throws(ServerRequestError) in try EngineWire.commitResult(from: answer) }
    }

    func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? {
        let answer = try call("get", ["path": .string(path)])
        return try read { () throws(ServerRequestError) -> FirestoreDocument? in
            let m = try EngineWire.map(answer, "the get answer")
            return m["document"] == .null ? nil : try EngineWire.document(from: m["document"])
        }
    }

    func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        let answer = try call("runQuery", ["query": EngineWire.query(query)])
        return try read { () throws(ServerRequestError) -> [FirestoreDocument] in
            guard case .array(let docs)? = try EngineWire.map(answer, "the runQuery answer")["documents"] else {
                throw EngineWire.shape("documents must be an array")
            }
            var out: [FirestoreDocument] = []
            for d in docs { out.append(try EngineWire.document(from: d)) }
            return out
        }
    }
}

/// Cloud Storage as an engine under test sees it: each call one server request (unchecked Sendable as
/// ``ServerRequestFirestore``).
final class ServerRequestStorage: CloudStorage, @unchecked Sendable {
    let device: String
    let sender: ServerRequestSender

    init(device: String, sender: ServerRequestSender) {
        self.device = device
        self.sender = sender
    }

    private func call(_ op: String, _ members: [String: FirestoreValue]) throws(CloudStorageError) -> FirestoreValue {
        var m = members
        m["op"] = .string(op)
        m["device"] = .string(device)
        switch sender.send(m) {
        case .success(let v): return v
        case .failure(let e):
            let kind =
                e.code.hasPrefix("storage.") ? CloudStorageError.Kind(rawValue: String(e.code.dropFirst(8))) : nil
            throw CloudStorageError(kind ?? .invalid, "\(e.code): \(e.message)")
        }
    }

    func upload(_ object: StorageObject, onlyIfAbsent: Bool) throws(CloudStorageError) {
        _ = try call("upload", ["object": EngineWire.object(object), "onlyIfAbsent": .boolean(onlyIfAbsent)])
    }

    func download(_ path: String) throws(CloudStorageError) -> StorageObject? {
        let answer = try call("download", ["path": .string(path)])
        do {
            let m = try EngineWire.map(answer, "the download answer")
            return m["object"] == .null ? nil : try EngineWire.object(from: m["object"])
        } catch {
            throw CloudStorageError(.invalid, "the server's answer: \(error.message)")
        }
    }

    func delete(_ path: String) throws(CloudStorageError) {
        _ = try call("delete", ["path": .string(path)])
    }
}

/// The reference answers to the engine operations: one ``SyncEngine`` per scenario device, over
/// server requests. Shared by the copies of a ``ReferenceImplementation``.
final class ReferenceEngines {
    final class Device {
        let store = InMemoryLocalStore()
        let clock: ManualClock
        var engine: SyncEngine
        let firestore: ServerRequestFirestore
        let storage: ServerRequestStorage

        init(
            configuration: SyncConfiguration, clock: ManualClock, firestore: ServerRequestFirestore,
            storage: ServerRequestStorage
        ) {
            self.clock = clock
            self.firestore = firestore
            self.storage = storage
            engine = SyncEngine(
                configuration: configuration, database: firestore, storage: storage, store: store, clock: clock.source)
        }
    }

    let injectedBugs: Set<InjectedBug>
    let variants: Set<EngineVariant>
    let sender = ServerRequestSender()
    var devices: [String: Device] = [:]

    init(injectedBugs: Set<InjectedBug>, variants: Set<EngineVariant>) {
        self.injectedBugs = injectedBugs
        self.variants = variants
    }

    func answer(op: String, input: FirestoreValue, server: EngineServerChannel) throws(OperationError) -> FirestoreValue
    {
        sender.channel = server
        defer { sender.channel = nil }
        let i = try OperationInput(input)
        switch op {
        case "engine.reset": return try reset(i)
        case "engine.step":
            let step: ScenarioStep
            do { step = try ScenarioStep(.map(try i.map("step")), pointer: "/step", devices: Set(devices.keys)) } catch
            {
                throw OperationError(.inputShape, message: "\(error)")
            }
            return .map(["error": perform(step).map { .string($0) } ?? .null])
        case "engine.rows":
            let name = try i.string("device")
            guard let device = devices[name], let collection = SyncCollection(rawValue: try i.string("collection"))
            else {
                throw OperationError(.inputShape, message: "a device of engine.reset and a collection")
            }
            var rows: [String: FirestoreValue] = [:]
            for row in device.store.rows(collection) {
                var answer: [String: FirestoreValue] = ["fields": .map(row.fields), "dirty": .boolean(row.isDirty)]
                if let file = device.engine.holdsFile(row) { answer["file"] = .boolean(file) }
                rows[row.id] = .map(answer)
            }
            return .map(["rows": .map(rows)])
        default:
            throw OperationError(.inputShape, message: "no engine operation \(op)")
        }
    }

    func reset(_ i: OperationInput) throws(OperationError) -> FirestoreValue {
        let uid = try i.string("uid")
        let database = try i.string("database")
        guard case .timestamp(let start)? = i.fields["start"] else {
            throw OperationError(.inputShape, message: "input.start must be a timestamp")
        }
        let pageSize = try i.integer("pageSize")
        guard case .array(let list)? = i.fields["devices"] else {
            throw OperationError(.inputShape, message: "input.devices must be an array")
        }
        devices = [:]
        for d in list {
            let m = try OperationInput(d)
            let name = try m.string("name")
            guard let platform = Platform(rawValue: try m.string("platform")),
                case .array(let ents)? = m.fields["entitlements"]
            else {
                throw OperationError(
                    .inputShape, message: "a device is {name, platform, deviceId, entitlements, clockOffsetSeconds}")
            }
            let configuration = SyncConfiguration(
                uid: uid, deviceId: try m.string("deviceId"), platform: platform,
                entitlements: ents.compactMap { if case .string(let s) = $0 { s } else { nil } },
                pageSize: Int(pageSize)
            ).injecting(injectedBugs, variants: variants)
            devices[name] = Device(
                configuration: configuration,
                clock: ManualClock(start.adding(seconds: try m.integer("clockOffsetSeconds"))),
                firestore: ServerRequestFirestore(device: name, database: database, sender: sender),
                storage: ServerRequestStorage(device: name, sender: sender))
        }
        return .map([:])
    }

    /// Does a device step; nil when it succeeded, else why it failed (as a scenario's `error` names it).
    func perform(_ step: ScenarioStep) -> String? {
        func device(_ name: String) -> Device? { devices[name] }
        do {
            switch step {
            case .importFlight(let d, let igc, let fields):
                try device(d)?.engine.importFlight(igc: igc, fields: fields)
            case .importMapFile(let d, let content, let fields):
                try device(d)?.engine.importMapFile(content: content, fields: fields)
            case .save(let d, let collection, let id, let changes, let fill):
                try device(d)?.engine.save(collection, id: id, changes: ScenarioStep.filled(changes, fill))
            case .delete(let d, let collection, let id):
                try device(d)?.engine.delete(collection, id: id)
            case .open(let d, let id, _):
                try device(d)?.engine.openFlight(id)
            case .run(let d, let action, _):
                guard let engine = device(d)?.engine else { return "no device \(d)" }
                do {
                    try engine.perform(action)
                } catch {
                    return ScenarioReplay.outcome(of: error)
                }
            case .restart(let d):
                guard let dev = device(d) else { return "no device \(d)" }
                dev.store.crash()
                dev.engine = SyncEngine(
                    configuration: dev.engine.configuration, database: dev.firestore, storage: dev.storage,
                    store: dev.store, clock: dev.clock.source)
            case .advance(let seconds, let micros, let d):
                for (name, dev) in devices where d == nil || d == name {
                    dev.clock.advance(seconds: seconds, microseconds: micros)
                }
            case .entitlements(let d, let list):
                device(d)?.engine.refreshToken(entitlements: list)
            case .serverCommit, .serverUpload, .fault, .storageFault, .clearFaults, .expect:
                return "not a device step: the runner does it"
            }
        } catch {
            return "local: \(error)"
        }
        return nil
    }
}
