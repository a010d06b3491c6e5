// The engine operations of the testee protocol (Goldens/protocol/README.md, Engine operations): a
// scenario golden (Goldens/FORMAT.md, Scenarios) replayed by another sync engine. The runner keeps the
// server (an in-memory Firestore and Cloud Storage on the scenario's clock) and sends the device steps;
// the testee's engines reach the server through server requests answered while a case is open.
import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// Where an engine under test sends its Firestore and Cloud Storage requests during an engine
/// operation: the runner's server. In process, ``EngineServer`` itself; over the testee protocol, a
/// `{"seq", "server": request}` line answered by `{"type": "server", "seq", "result" | "error"}`.
public protocol EngineServerChannel: AnyObject {
    /// Sends one server request (`{"op": "commit" | "get" | "runQuery" | "upload" | "download" | "delete",
    /// "device", …}`) and returns its answer: `{"result": value}` or `{"error": {"code", "message"}}`.
    func request(_ request: FirestoreValue) -> FirestoreValue
}

/// A server request the server refuses: a Firestore status (`FAILED_PRECONDITION`), a Storage failure
/// (`storage.preconditionFailed`), or `input.shape` for a request of the wrong shape.
struct ServerRequestError: Error {
    var code: String
    var message: String
}

/// The wire forms of server requests and answers, in canonical typed JSON (Goldens/protocol/README.md,
/// Server requests).
enum EngineWire {
    static func shape(_ message: String) -> ServerRequestError {
        ServerRequestError(code: ErrorCode.inputShape.rawValue, message: message)
    }

    static func map(_ v: FirestoreValue?, _ what: String) throws(ServerRequestError) -> [String: FirestoreValue] {
        guard case .map(let m)? = v else { throw shape("\(what) must be a map") }
        return m
    }

    static func string(_ v: FirestoreValue?, _ what: String) throws(ServerRequestError) -> String {
        guard case .string(let s)? = v else { throw shape("\(what) must be a string") }
        return s
    }

    static func timestamp(_ v: FirestoreValue?, _ what: String) throws(ServerRequestError) -> FirestoreTimestamp {
        guard case .timestamp(let t)? = v else { throw shape("\(what) must be a timestamp") }
        return t
    }

    static func optionalTimestamp(_ t: FirestoreTimestamp?) -> FirestoreValue { t.map { .timestamp($0) } ?? .null }

    static func fieldPath(_ v: FirestoreValue?, _ what: String) throws(ServerRequestError) -> FieldPath {
        let text = try string(v, what)
        do { return try FieldPath(parsing: text) } catch { throw shape("\(what): \(error)") }
    }

    /// `{path, fields, createTime, updateTime}`.
    static func document(_ d: FirestoreDocument) -> FirestoreValue {
        .map([
            "path": .string(d.path), "fields": .map(d.fields), "createTime": .timestamp(d.createTime),
            "updateTime": .timestamp(d.updateTime),
        ])
    }

    static func document(from v: FirestoreValue?) throws(ServerRequestError) -> FirestoreDocument {
        let m = try map(v, "a document")
        return FirestoreDocument(
            path: try string(m["path"], "document.path"), fields: try map(m["fields"], "document.fields"),
            createTime: try timestamp(m["createTime"], "document.createTime"),
            updateTime: try timestamp(m["updateTime"], "document.updateTime"))
    }

    /// `{parent, collectionId, filters: [{field, op, value}], orderBy: [{field, direction}],
    /// startAt: {values, before} | null, limit: integer | null}`.
    static func query(_ q: FirestoreQuery) -> FirestoreValue {
        .map([
            "parent": .string(q.parent), "collectionId": .string(q.collectionId),
            "filters": .array(
                q.filters.map {
                    .map(["field": .string($0.field.description), "op": .string($0.op.rawValue), "value": $0.value])
                }),
            "orderBy": .array(
                q.orderBy.map {
                    .map(["field": .string($0.field.description), "direction": .string($0.direction.rawValue)])
                }),
            "startAt": q.startAt.map { .map(["values": .array($0.values), "before": .boolean($0.before)]) } ?? .null,
            "limit": q.limit.map { .integer(Int64($0)) } ?? .null,
        ])
    }

    static func query(from v: FirestoreValue?) throws(ServerRequestError) -> FirestoreQuery {
        let m = try map(v, "query")
        var q = FirestoreQuery(
            parent: try string(m["parent"], "query.parent"),
            collectionId: try string(m["collectionId"], "query.collectionId"))
        guard case .array(let filters)? = m["filters"], case .array(let orders)? = m["orderBy"] else {
            throw shape("query.filters and query.orderBy must be arrays")
        }
        for f in filters {
            let fm = try map(f, "a filter")
            guard let op = FirestoreQuery.Operator(rawValue: try string(fm["op"], "filter.op")), let value = fm["value"]
            else { throw shape("a filter is {field, op: EQUAL|LESS_THAN|…, value}") }
            q.filters.append(FirestoreQuery.Filter(try fieldPath(fm["field"], "filter.field"), op, value))
        }
        for o in orders {
            let om = try map(o, "an order")
            guard let direction = FirestoreQuery.Direction(rawValue: try string(om["direction"], "order.direction"))
            else {
                throw shape("order.direction is ASCENDING or DESCENDING")
            }
            q.orderBy.append(FirestoreQuery.Order(try fieldPath(om["field"], "order.field"), direction))
        }
        switch m["startAt"] {
        case nil, .null?: break
        case .map(let c)?:
            guard case .array(let values)? = c["values"], case .boolean(let before)? = c["before"] else {
                throw shape("query.startAt is {values: [...], before: boolean}")
            }
            q.startAt = FirestoreQuery.Cursor(values: values, before: before)
        default: throw shape("query.startAt is a map or null")
        }
        switch m["limit"] {
        case nil, .null?: break
        case .integer(let n)? where n > 0 && n <= Int64(Int32.max): q.limit = Int(n)
        default: throw shape("query.limit is a positive integer or null")
        }
        return q
    }

    /// `{commitTime, writeResults: [{updateTime, transformResults}]}`.
    static func commitResult(_ r: FirestoreCommitResult) -> FirestoreValue {
        .map([
            "commitTime": optionalTimestamp(r.commitTime),
            "writeResults": .array(
                r.writeResults.map {
                    .map([
                        "updateTime": optionalTimestamp($0.updateTime), "transformResults": .array($0.transformResults),
                    ])
                }),
        ])
    }

    static func commitResult(from v: FirestoreValue?) throws(ServerRequestError) -> FirestoreCommitResult {
        let m = try map(v, "a commit result")
        guard case .array(let results)? = m["writeResults"] else { throw shape("writeResults must be an array") }
        var out: [FirestoreWriteResult] = []
        for r in results {
            let rm = try map(r, "a write result")
            let update: FirestoreTimestamp? =
                rm["updateTime"] == .null ? nil : try timestamp(rm["updateTime"], "updateTime")
            guard case .array(let transforms)? = rm["transformResults"] else {
                throw shape("transformResults must be an array")
            }
            out.append(FirestoreWriteResult(updateTime: update, transformResults: transforms))
        }
        let commitTime: FirestoreTimestamp? =
            m["commitTime"] == .null ? nil : try timestamp(m["commitTime"], "commitTime")
        return FirestoreCommitResult(commitTime: commitTime, writeResults: out)
    }

    /// `{path, bytes, contentType, contentEncoding, customMetadata}`.
    static func object(_ o: StorageObject) -> FirestoreValue {
        .map([
            "path": .string(o.path), "bytes": .bytes(o.bytes), "contentType": .string(o.contentType),
            "contentEncoding": o.contentEncoding.map { .string($0) } ?? .null,
            "customMetadata": .map(o.customMetadata.mapValues { .string($0) }),
        ])
    }

    static func object(from v: FirestoreValue?) throws(ServerRequestError) -> StorageObject {
        let m = try map(v, "an object")
        guard case .bytes(let bytes)? = m["bytes"] else { throw shape("object.bytes must be bytes") }
        var metadata: [String: String] = [:]
        for (k, value) in try map(m["customMetadata"], "object.customMetadata") {
            metadata[k] = try string(value, "object.customMetadata.\(k)")
        }
        let encoding: String? =
            m["contentEncoding"] == .null ? nil : try string(m["contentEncoding"], "contentEncoding")
        return StorageObject(
            path: try string(m["path"], "object.path"), bytes: bytes,
            contentType: try string(m["contentType"], "object.contentType"), contentEncoding: encoding,
            customMetadata: metadata)
    }
}

/// The runner's server for one scenario replayed by a testee: the scenario's backend, reached by each
/// device through its own ledger and fault recorders (so faults queue per device, requests are
/// counted against each step's budget and every commit is judged by `ScenarioCommitRules`),
/// answering the testee's server requests.
public final class EngineServer: EngineServerChannel {
    /// The database and bucket, on the scenario's clock.
    public let backend: ScenarioBackend
    private var firestores: [String: ScenarioDeviceFirestore] = [:]
    private var buckets: [String: ScenarioDeviceStorage] = [:]

    /// A server for the named devices of user `uid` over `backend`.
    public init(backend: ScenarioBackend, devices: [String], uid: String) {
        self.backend = backend
        let server = backend.storage
        for d in devices {
            let ledger = ScenarioDeviceLedger(
                device: d, uid: uid, objectExists: { (try? server.download($0)) ?? nil != nil })
            firestores[d] = ScenarioDeviceFirestore(RecordingFirestore(backend.firestore), ledger: ledger)
            buckets[d] = ScenarioDeviceStorage(RecordingCloudStorage(backend.storage), ledger: ledger)
        }
    }

    /// The Firestore the device reaches (faults are injected into its recorder).
    func firestore(_ device: String) -> RecordingFirestore? { firestores[device]?.recorder }
    /// The bucket the device reaches.
    func bucket(_ device: String) -> RecordingCloudStorage? { buckets[device]?.recorder }

    /// A step begins at `pointer`: every device's budget and push order start afresh.
    func begin(step pointer: String) {
        for ledger in firestores.values.map(\.ledger) { ledger.begin(step: pointer) }
    }

    /// What broke the commit rules or the budget since the last call, device by device.
    func takeViolations() -> [String] {
        firestores.keys.sorted().flatMap { firestores[$0]?.ledger.takeViolations() ?? [] }
    }

    /// The number of requests the device sent since the previous call.
    func takeRequestCount(device: String) -> Int { firestores[device]?.ledger.takeRequestCount() ?? 0 }

    public func request(_ request: FirestoreValue) -> FirestoreValue {
        do {
            return .map(["result": try handle(request)])
        } catch {
            return .map(["error": .map(["code": .string(error.code), "message": .string(error.message)])])
        }
    }

    func handle(_ request: FirestoreValue) throws(ServerRequestError) -> FirestoreValue {
        let m = try EngineWire.map(request, "a server request")
        let op = try EngineWire.string(m["op"], "op")
        let device = try EngineWire.string(m["device"], "device")
        guard let firestore = firestores[device], let bucket = buckets[device] else {
            throw EngineWire.shape("no device \(device) in this scenario")
        }
        do {
            switch op {
            case "commit":
                guard case .array(let items)? = m["writes"] else { throw EngineWire.shape("writes must be an array") }
                var writes: [FirestoreWrite] = []
                for (i, w) in items.enumerated() {
                    do {
                        writes.append(try CanonicalJSON.decodeWrite(CanonicalJSON.encode(w)))
                    } catch {
                        throw EngineWire.shape("writes/\(i): \(error)")
                    }
                }
                return EngineWire.commitResult(try firestore.commit(writes))
            case "get":
                let doc = try firestore.get(try EngineWire.string(m["path"], "path"))
                return .map(["document": doc.map(EngineWire.document) ?? .null])
            case "runQuery":
                let docs = try firestore.runQuery(try EngineWire.query(from: m["query"]))
                return .map(["documents": .array(docs.map(EngineWire.document))])
            case "upload":
                guard case .boolean(let onlyIfAbsent)? = m["onlyIfAbsent"] else {
                    throw EngineWire.shape("onlyIfAbsent must be a boolean")
                }
                try bucket.upload(try EngineWire.object(from: m["object"]), onlyIfAbsent: onlyIfAbsent)
                return .map([:])
            case "download":
                let object = try bucket.download(try EngineWire.string(m["path"], "path"))
                return .map(["object": object.map(EngineWire.object) ?? .null])
            case "delete":
                try bucket.delete(try EngineWire.string(m["path"], "path"))
                return .map([:])
            default:
                throw EngineWire.shape("op is commit, get, runQuery, upload, download or delete")
            }
        } catch let e as FirestoreError {
            throw ServerRequestError(code: e.status.rawValue, message: e.message)
        } catch let e as CloudStorageError {
            throw ServerRequestError(code: "storage.\(e.kind.rawValue)", message: e.message)
        } catch let e as ServerRequestError {
            throw e
        } catch {
            throw EngineWire.shape("\(error)")
        }
    }
}

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

/// Judges another sync engine against a scenario golden through the engine operations
/// (Goldens/protocol/README.md, Engine operations): the runner keeps the server, sends every device
/// step, does the server's steps itself, and checks each `expect` step against its server and the
/// testee's `engine.rows`.
public enum ScenarioConformance {
    /// The op of a scenario case in a ``GoldenSuite`` (never sent to a testee: the runner drives it).
    public static let caseOp = "engine.scenario"
    /// What `--only` selects the scenario cases by.
    public static let area = "scenarios"
    /// The database name the engines are told (`projects/{p}/databases/{d}`), whose document names the
    /// pull's cursors carry.
    public static let database = "projects/demo-vulture/databases/(default)"

    /// Replays the scenario of `testCase` (its input is the scenario file's value) on `implementation`.
    /// - Returns: passed; failed with every expectation that did not hold, each at its JSON pointer;
    ///   skipped when the implementation skips `engine.reset`.
    public static func judge<I: ConformanceImplementation>(_ testCase: ConformanceCase, on implementation: inout I)
        -> CaseOutcome
    {
        let scenario: Scenario
        do {
            scenario = try Scenario(testCase.input, file: testCase.id)
        } catch {
            return .failed(message: "the scenario cannot be read: \(error)", differences: [])
        }
        let backend = InMemoryScenarioBackend(start: scenario.start)
        let server = EngineServer(backend: backend, devices: scenario.devices.map(\.name), uid: scenario.uid)
        var failures: [String] = []
        var broken: String?
        func call(_ op: String, _ input: FirestoreValue, at pointer: String) -> FirestoreValue? {
            let c = ConformanceCase(
                id: testCase.id, section: testCase.section, op: op, input: input, expected: .output(.null))
            switch implementation.answer(c, server: server) {
            case .output(let v): return v
            case .error(let code, let message):
                failures.append("\(pointer): \(op) was rejected: \(code): \(message)")
            case .skipped(let reason): broken = broken ?? "skipped: \(reason)"
            case .broken(let message): broken = broken ?? "\(pointer): \(op): \(message)"
            }
            return nil
        }
        let reset: FirestoreValue = .map([
            "uid": .string(scenario.uid), "database": .string(database), "start": .timestamp(scenario.start),
            "pageSize": .integer(Int64(scenario.pageSize)),
            "devices": .array(
                scenario.devices.map { d in
                    .map([
                        "name": .string(d.name), "platform": .string(d.platform.rawValue),
                        "deviceId": .string("device-\(d.name)"),
                        "entitlements": .array(d.entitlements.map { .string($0) }),
                        "clockOffsetSeconds": .integer(d.clockOffsetSeconds),
                    ])
                }),
        ])
        _ = call("engine.reset", reset, at: "/config")
        if let b = broken, b.hasPrefix("skipped: ") { return .skipped(reason: String(b.dropFirst(9))) }
        failures += server.takeViolations()
        let names = scenario.devices.map(\.name).sorted()
        for (index, step) in scenario.steps.enumerated() where broken == nil {
            let p = "/steps/\(index)"
            server.begin(step: p)
            do {
                switch step {
                case .serverCommit(let writes, let late):
                    try ScenarioReplay.commitOnServer(writes, lateBySeconds: late, backend: backend)
                case .serverUpload(let path, let bytes):
                    try ScenarioReplay.uploadOnServer(path: path, bytes: bytes, backend: backend)
                case .fault(let d, let request, let fault): server.firestore(d)?.inject(fault, next: request)
                case .storageFault(let d, let request, let failure): server.bucket(d)?.inject(failure, next: request)
                case .clearFaults(let d):
                    server.firestore(d)?.clearFaults()
                    server.bucket(d)?.clearFaults()
                case .expect(let e):
                    // The rows this step reads, one engine.rows per device and collection.
                    var wanted: [String: Set<SyncCollection>] = [:]
                    for device in e.rows.keys.sorted() {
                        for key in (e.rows[device] ?? [:]).keys.sorted() {
                            guard let name = FirestoreLimits.slashSegments(key).first,
                                let collection = SyncCollection(rawValue: String(name))
                            else { continue }
                            wanted[device, default: []].insert(collection)
                        }
                    }
                    for device in e.converged { wanted[device, default: []].formUnion(SyncCollection.pushOrder) }
                    var rows: [String: [SyncCollection: FirestoreValue]] = [:]
                    for device in wanted.keys.sorted() {
                        for collection in (wanted[device] ?? []).sorted(by: { $0.rawValue < $1.rawValue }) {
                            guard
                                let answer = call(
                                    "engine.rows",
                                    .map(["device": .string(device), "collection": .string(collection.rawValue)]),
                                    at: p)
                            else { continue }
                            rows[device, default: [:]][collection] = answer
                        }
                    }
                    guard broken == nil else { continue }
                    let view = TesteeDevices(names: names, server: server, rows: rows)
                    failures += try ScenarioReplay.check(e, at: p, devices: view, backend: backend, uid: scenario.uid)
                default:
                    if case .advance(let seconds, let micros, nil) = step {
                        backend.advance(seconds: seconds, microseconds: micros)
                    }
                    guard let out = call("engine.step", .map(["step": step.value]), at: p) else { continue }
                    let error: String? = out.mapValue?["error"].flatMap {
                        if case .string(let s) = $0 { s } else { nil }
                    }
                    switch step {
                    case .run(_, _, let outcomes), .open(_, _, let outcomes):
                        if let failure = ScenarioReplay.judge(error, outcomes, at: p) { failures.append(failure) }
                    default:
                        if let error { failures.append("\(p): the step failed: \(error)") }
                    }
                }
            } catch {
                failures.append("\(p): \(error)")
            }
            failures += server.takeViolations()
        }
        if let broken { failures.append(broken) }
        guard !failures.isEmpty else { return .passed }
        return .failed(
            message: "\(failures.count) expectation(s) of the scenario did not hold:\n    "
                + failures.joined(separator: "\n    "),
            differences: [])
    }

    /// The testee's devices as an `expect` step reads them: the `engine.rows` answers fetched for the
    /// step, commits as the runner's server counted them.
    struct TesteeDevices: ScenarioDeviceView {
        let deviceNames: [String]
        let server: EngineServer
        let rows: [String: [SyncCollection: FirestoreValue]]

        init(names: [String], server: EngineServer, rows: [String: [SyncCollection: FirestoreValue]]) {
            deviceNames = names
            self.server = server
            self.rows = rows
        }

        struct NoAnswer: Error, CustomStringConvertible {
            var description: String
        }

        func rows(device: String, collection: SyncCollection) throws -> [String: ScenarioRowState] {
            guard case .map(let answer)? = rows[device]?[collection], case .map(let byId)? = answer["rows"] else {
                throw NoAnswer(description: "engine.rows of \(device) \(collection.rawValue) gave no {rows: {…}}")
            }
            var out: [String: ScenarioRowState] = [:]
            for (id, row) in byId {
                guard case .map(let r) = row, case .map(let fields)? = r["fields"],
                    case .boolean(let dirty)? = r["dirty"]
                else {
                    throw NoAnswer(description: "engine.rows of \(device): row \(id) is not {fields, dirty, file?}")
                }
                var file: Bool?
                if case .boolean(let f)? = r["file"] { file = f }
                out[id] = ScenarioRowState(fields: fields, dirty: dirty, file: file)
            }
            return out
        }

        func takeRequestCount(device: String) -> Int { server.takeRequestCount(device: device) }
    }
}
