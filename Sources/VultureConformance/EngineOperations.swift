// The engine operations of the testee protocol (Goldens/protocol/README.md, Engine operations): a
// scenario golden (Goldens/FORMAT.md, Scenarios) replayed by another sync engine. The runner keeps the
// server (an in-memory Firestore and Cloud Storage on the scenario's clock) and sends the device steps;
// the testee's engines reach the server through server requests answered while a case is open.
import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncSchema

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
package struct ServerRequestError: Error {
    package var code: String
    package var message: String

    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// The wire forms of server requests and answers, in canonical typed JSON (Goldens/protocol/README.md,
/// Server requests).
package enum EngineWire {
    package static func shape(_ message: String) -> ServerRequestError {
        ServerRequestError(code: ErrorCode.inputShape.rawValue, message: message)
    }

    package static func map(_ v: FirestoreValue?, _ what: String) throws(ServerRequestError) -> [String: FirestoreValue]
    {
        guard case .map(let m)? = v else { throw shape("\(what) must be a map") }
        return m
    }

    package static func string(_ v: FirestoreValue?, _ what: String) throws(ServerRequestError) -> String {
        guard case .string(let s)? = v else { throw shape("\(what) must be a string") }
        return s
    }

    package static func timestamp(_ v: FirestoreValue?, _ what: String) throws(ServerRequestError) -> FirestoreTimestamp
    {
        guard case .timestamp(let t)? = v else { throw shape("\(what) must be a timestamp") }
        return t
    }

    package static func optionalTimestamp(_ t: FirestoreTimestamp?) -> FirestoreValue {
        t.map { .timestamp($0) } ?? .null
    }

    package static func fieldPath(_ v: FirestoreValue?, _ what: String) throws(ServerRequestError) -> FieldPath {
        let text = try string(v, what)
        do { return try FieldPath(parsing: text) } catch { throw shape("\(what): \(error)") }
    }

    /// `{path, fields, createTime, updateTime}`.
    package static func document(_ d: FirestoreDocument) -> FirestoreValue {
        .map([
            "path": .string(d.path), "fields": .map(d.fields), "createTime": .timestamp(d.createTime),
            "updateTime": .timestamp(d.updateTime),
        ])
    }

    package static func document(from v: FirestoreValue?) throws(ServerRequestError) -> FirestoreDocument {
        let m = try map(v, "a document")
        return FirestoreDocument(
            path: try string(m["path"], "document.path"), fields: try map(m["fields"], "document.fields"),
            createTime: try timestamp(m["createTime"], "document.createTime"),
            updateTime: try timestamp(m["updateTime"], "document.updateTime"))
    }

    /// `{parent, collectionId, filters: [{field, op, value}], orderBy: [{field, direction}],
    /// startAt: {values, before} | null, limit: integer | null}`.
    package static func query(_ q: FirestoreQuery) -> FirestoreValue {
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

    package static func query(from v: FirestoreValue?) throws(ServerRequestError) -> FirestoreQuery {
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
    package static func commitResult(_ r: FirestoreCommitResult) -> FirestoreValue {
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

    package static func commitResult(from v: FirestoreValue?) throws(ServerRequestError) -> FirestoreCommitResult {
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
    package static func object(_ o: StorageObject) -> FirestoreValue {
        .map([
            "path": .string(o.path), "bytes": .bytes(o.bytes), "contentType": .string(o.contentType),
            "contentEncoding": o.contentEncoding.map { .string($0) } ?? .null,
            "customMetadata": .map(o.customMetadata.mapValues { .string($0) }),
        ])
    }

    package static func object(from v: FirestoreValue?) throws(ServerRequestError) -> StorageObject {
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
