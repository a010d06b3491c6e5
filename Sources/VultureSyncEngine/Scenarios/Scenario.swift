import Foundation
import VultureFirestore
import VultureSyncSchema

/// A sync scenario: a versioned step script every engine replays (Goldens/FORMAT.md, Scenarios), in
/// the manner of Firestore's cross-SDK spec tests. Read from canonical typed JSON:
///
///     {"formatVersion": 1, "id": "scenario.…", "section": "schema §5.2", "note": "…",
///      "config": {"uid": "u1", "start": {"$timestamp": …}, "devices": [{"name": "a", "platform": "android"}]},
///      "steps": [{"op": "save", "device": "a", …}, {"op": "sync", "device": "a"}, {"op": "expect", …}]}
public struct Scenario: Sendable {
    /// The format version this package reads.
    public static let formatVersion: Int64 = 1

    /// A device of the scenario.
    public struct Device: Sendable, Hashable {
        /// The name steps refer to (`a`).
        public var name: String
        /// Its platform.
        public var platform: Platform
        /// Its token's entitlements at the start (`["all"]`: Pro).
        public var entitlements: [String]
        /// Its clock's offset from the server's, in seconds (skew).
        public var clockOffsetSeconds: Int64

        /// A device as given.
        public init(name: String, platform: Platform, entitlements: [String] = [], clockOffsetSeconds: Int64 = 0) {
            self.name = name
            self.platform = platform
            self.entitlements = entitlements
            self.clockOffsetSeconds = clockOffsetSeconds
        }
    }

    /// The stable case id (`scenario.pull.page-edge`).
    public var id: String
    /// The schema section it tests.
    public var section: String
    /// What it shows, for a person.
    public var note: String
    /// The signed-in user.
    public var uid: String
    /// The server's clock at the start.
    public var start: FirestoreTimestamp
    /// The devices.
    public var devices: [Device]
    /// Documents per pull page (`config.pageSize`; the schema's 500 when absent): small pages put
    /// page edges where a scenario needs them.
    public var pageSize: Int
    /// The steps, in order.
    public var steps: [ScenarioStep]

    /// A scenario as given (for writers: the goldens definitions, a shrunk simulation run).
    public init(
        id: String, section: String, note: String, uid: String, start: FirestoreTimestamp, devices: [Device],
        pageSize: Int = Int(SchemaConstants.pullPageSize), steps: [ScenarioStep]
    ) {
        self.pageSize = pageSize
        self.id = id
        self.section = section
        self.note = note
        self.uid = uid
        self.start = start
        self.devices = devices
        self.steps = steps
    }
}

/// One step of a scenario. Every device step names its device.
public enum ScenarioStep: Sendable {
    /// An IGC file imported on the device (`fields` in cloud form).
    case importFlight(device: String, igc: Data, fields: [String: FirestoreValue])
    /// A map file's content imported.
    case importMapFile(device: String, content: Data, fields: [String: FirestoreValue])
    /// A record saved (new or changed; `.null` clears a field).
    case save(device: String, collection: SyncCollection, id: String?, changes: [String: FirestoreValue])
    /// A record deleted (a tombstone).
    case delete(device: String, collection: SyncCollection, id: String)
    /// A flight opened (lastOpenedAt now, its file downloaded when uploaded).
    case open(device: String, id: String)
    /// `sync`, `pull` or `push`; `error` is the expected failure (`paused`, a Firestore status), nil for success.
    case run(device: String, action: SyncAction, error: String?)
    /// The device restarts after a crash: what it had not committed is lost.
    case restart(device: String)
    /// Another client commits these writes directly; `lateBySeconds` makes them visible with an
    /// `updatedAt` that many seconds before the server's time (a commit that becomes visible late).
    case serverCommit(writes: [FirestoreWrite], lateBySeconds: Int64?)
    /// Time passes: the server's clock and every device's (or only `device`'s).
    case advance(seconds: Int64, device: String?)
    /// The device's next request of `request` meets `fault`.
    case fault(device: String, request: FirestoreRequestKind, fault: FirestoreFault)
    /// The device's next Storage request of `request` fails with `failure`.
    case storageFault(device: String, request: StorageRequestKind, failure: CloudStorageError.Kind)
    /// The device's token changes (a RevenueCat entitlement arrives).
    case entitlements(device: String, [String])
    /// The faults still queued for the device are dropped (the network is well again).
    case clearFaults(device: String)
    /// What must hold now.
    case expect(ScenarioExpectation)
}

/// `sync` (pull, push, purge), `pull` or `push`.
public enum SyncAction: String, Sendable, Hashable, CaseIterable {
    case sync, pull, push
}

/// What a scenario checks at an `expect` step, each by typed value.
public struct ScenarioExpectation: Sendable {
    /// Server documents by path: the listed fields must hold these values (null also matches an
    /// absent field); nil: the document must not exist.
    public var server: [String: [String: FirestoreValue]?] = [:]
    /// Device rows by device and `collection/id`: the listed fields, and `dirty` when given; nil: no row.
    public var rows: [String: [String: RowExpectation?]] = [:]
    /// Storage objects by path: whether each exists.
    public var objects: [String: Bool] = [:]
    /// The profile's `storageBytes`.
    public var storageBytes: Int64?
    /// The number of live (not deleted) server documents per collection.
    public var serverCounts: [SyncCollection: Int] = [:]
    /// Per device, the number of writes of each commit it made since the previous `expect` step.
    public var commits: [String: [Int]] = [:]

    /// An expectation of the parts given (the others are not checked).
    public init(
        server: [String: [String: FirestoreValue]?] = [:], rows: [String: [String: RowExpectation?]] = [:],
        objects: [String: Bool] = [:], storageBytes: Int64? = nil, serverCounts: [SyncCollection: Int] = [:],
        commits: [String: [Int]] = [:]
    ) {
        self.server = server
        self.rows = rows
        self.objects = objects
        self.storageBytes = storageBytes
        self.serverCounts = serverCounts
        self.commits = commits
    }
}

/// What a device row must hold.
public struct RowExpectation: Sendable {
    /// Fields that must hold these values (null also matches absent).
    public var fields: [String: FirestoreValue]
    /// Whether the row must be dirty (nil: either).
    public var dirty: Bool?

    /// A row holding `fields`, dirty or not as `dirty` says (nil: either).
    public init(fields: [String: FirestoreValue], dirty: Bool? = nil) {
        self.fields = fields
        self.dirty = dirty
    }
}

/// A scenario file that cannot be read: where and why.
public struct ScenarioError: Error, Sendable, CustomStringConvertible {
    /// The file, when known.
    public var file: String?
    /// JSON pointer into the file.
    public var pointer: String
    /// What is wrong.
    public var message: String

    /// An error at `pointer` of `file`.
    public init(file: String?, pointer: String, message: String) {
        self.file = file
        self.pointer = pointer
        self.message = message
    }

    /// `FILE: /pointer: message`.
    public var description: String { (file.map { "\($0): " } ?? "") + "\(pointer.isEmpty ? "/" : pointer): \(message)" }
}

extension Scenario {
    /// Reads a scenario from its canonical typed JSON value.
    /// - Throws: ``ScenarioError`` naming the pointer of the first problem.
    public init(_ value: FirestoreValue, file: String? = nil) throws(ScenarioError) {
        let r = ScenarioReader(file: file)
        let root = try r.map(value, "")
        guard case .integer(let version)? = root["formatVersion"], version == Scenario.formatVersion else {
            throw r.fail("/formatVersion", "formatVersion must be \(Scenario.formatVersion)")
        }
        id = try r.string(root["id"], "/id")
        section = try r.string(root["section"], "/section")
        note = try r.string(root["note"], "/note")
        let config = try r.map(root["config"], "/config")
        uid = try r.string(config["uid"], "/config/uid")
        guard case .timestamp(let t)? = config["start"] else { throw r.fail("/config/start", "a timestamp") }
        start = t
        var devices: [Device] = []
        for (i, d) in try r.array(config["devices"], "/config/devices").enumerated() {
            let p = "/config/devices/\(i)"
            let m = try r.map(d, p)
            guard let platform = Platform(rawValue: try r.string(m["platform"], p + "/platform")) else {
                throw r.fail(p + "/platform", "android or ios")
            }
            let entitlements = try r.array(m["entitlements"] ?? .array([]), p + "/entitlements").enumerated().map {
                (j, e) throws(ScenarioError) in try r.string(e, p + "/entitlements/\(j)")
            }
            var offset: Int64 = 0
            if let o = m["clockOffsetSeconds"] { offset = try r.integer(o, p + "/clockOffsetSeconds") }
            devices.append(
                Device(
                    name: try r.string(m["name"], p + "/name"), platform: platform, entitlements: entitlements,
                    clockOffsetSeconds: offset))
        }
        self.devices = devices
        pageSize = Int(SchemaConstants.pullPageSize)
        if let size = config["pageSize"] {
            let n = try r.integer(size, "/config/pageSize")
            guard n >= 1 && n <= SchemaConstants.pullPageSize else {
                throw r.fail("/config/pageSize", "a page size from 1 to \(SchemaConstants.pullPageSize)")
            }
            pageSize = Int(n)
        }
        var steps: [ScenarioStep] = []
        for (i, s) in try r.array(root["steps"], "/steps").enumerated() {
            steps.append(try r.step(s, "/steps/\(i)", devices: Set(devices.map(\.name))))
        }
        self.steps = steps
    }

    /// Reads a scenario file.
    /// - Throws: ``ScenarioError`` (the reader's errors with line:column in the message).
    public init(contentsOf url: URL) throws(ScenarioError) {
        let value: FirestoreValue
        do {
            value = try CanonicalJSON.decode(try Data(contentsOf: url), file: url.lastPathComponent)
        } catch {
            throw ScenarioError(file: url.lastPathComponent, pointer: "", message: "\(error)")
        }
        try self.init(value, file: url.lastPathComponent)
    }
}

extension ScenarioStep {
    /// Reads one step as a scenario file holds it (an `engine.step` input); its device must be one of
    /// `devices`.
    /// - Throws: ``ScenarioError`` naming the pointer (below `pointer`) of the first problem.
    public init(_ value: FirestoreValue, pointer: String = "", devices: Set<String>) throws(ScenarioError) {
        self = try ScenarioReader(file: nil).step(value, pointer, devices: devices)
    }
}

/// Typed accessors with pointers for the scenario reader.
struct ScenarioReader {
    let file: String?

    func fail(_ pointer: String, _ message: String) -> ScenarioError {
        ScenarioError(file: file, pointer: pointer, message: message)
    }

    func map(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> [String: FirestoreValue] {
        guard case .map(let m)? = v else { throw fail(p, "an object") }
        return m
    }

    func array(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> [FirestoreValue] {
        guard case .array(let a)? = v else { throw fail(p, "an array") }
        return a
    }

    func string(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> String {
        guard case .string(let s)? = v else { throw fail(p, "a string") }
        return s
    }

    func integer(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> Int64 {
        guard case .integer(let n)? = v else { throw fail(p, "an integer") }
        return n
    }

    func bytes(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> Data {
        guard case .bytes(let b)? = v else { throw fail(p, "bytes ({\"$bytes\": …})") }
        return b
    }

    func collection(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> SyncCollection {
        let name = try string(v, p)
        guard let c = SyncCollection(rawValue: name) else { throw fail(p, "no collection \(name)") }
        return c
    }

    func step(_ v: FirestoreValue, _ p: String, devices: Set<String>) throws(ScenarioError) -> ScenarioStep {
        let m = try map(v, p)
        let op = try string(m["op"], p + "/op")
        func device() throws(ScenarioError) -> String {
            let d = try string(m["device"], p + "/device")
            guard devices.contains(d) else { throw fail(p + "/device", "no device \(d) in config.devices") }
            return d
        }
        func fields(_ key: String) throws(ScenarioError) -> [String: FirestoreValue] {
            m[key] == nil ? [:] : try map(m[key], p + "/" + key)
        }
        switch op {
        case "importFlight":
            return .importFlight(
                device: try device(), igc: try bytes(m["igc"], p + "/igc"), fields: try fields("fields"))
        case "importMapFile":
            return .importMapFile(
                device: try device(), content: try bytes(m["content"], p + "/content"), fields: try fields("fields"))
        case "save":
            let id: String? = m["id"] == nil ? nil : try string(m["id"], p + "/id")
            return .save(
                device: try device(), collection: try collection(m["collection"], p + "/collection"), id: id,
                changes: try fields("changes"))
        case "delete":
            return .delete(
                device: try device(), collection: try collection(m["collection"], p + "/collection"),
                id: try string(m["id"], p + "/id"))
        case "open":
            return .open(device: try device(), id: try string(m["id"], p + "/id"))
        case "sync", "pull", "push":
            let error: String? = m["error"] == nil ? nil : try string(m["error"], p + "/error")
            return .run(device: try device(), action: SyncAction(rawValue: op) ?? .sync, error: error)
        case "restart":
            return .restart(device: try device())
        case "serverCommit":
            var writes: [FirestoreWrite] = []
            for (i, w) in try array(m["writes"], p + "/writes").enumerated() {
                do {
                    writes.append(try CanonicalJSON.decodeWrite(CanonicalJSON.encode(w)))
                } catch {
                    throw fail(p + "/writes/\(i)", "not a write: \(error)")
                }
            }
            let late: Int64? = m["lateBySeconds"] == nil ? nil : try integer(m["lateBySeconds"], p + "/lateBySeconds")
            return .serverCommit(writes: writes, lateBySeconds: late)
        case "advance":
            let d: String? = m["device"] == nil ? nil : try device()
            return .advance(seconds: try integer(m["seconds"], p + "/seconds"), device: d)
        case "fault":
            let request = try string(m["request"], p + "/request")
            if let storage = StorageRequestKind(rawValue: request) {
                guard let failure = CloudStorageError.Kind(rawValue: try string(m["fault"], p + "/fault")) else {
                    throw fail(p + "/fault", "a Storage failure: unavailable, permissionDenied, resourceExhausted, …")
                }
                return .storageFault(device: try device(), request: storage, failure: failure)
            }
            guard let kind = FirestoreRequestKind(rawValue: request) else {
                throw fail(p + "/request", "commit, query, get, upload, download or delete")
            }
            let text = try string(m["fault"], p + "/fault")
            let fault: FirestoreFault
            if text == "loseAcknowledgement" {
                fault = .loseAcknowledgement
            } else if let status = FirestoreStatus(rawValue: text) {
                fault = .refuse(status)
            } else {
                throw fail(p + "/fault", "loseAcknowledgement or a Firestore status (UNAVAILABLE, …)")
            }
            return .fault(device: try device(), request: kind, fault: fault)
        case "clearFaults":
            return .clearFaults(device: try device())
        case "entitlements":
            let list = try array(m["entitlements"], p + "/entitlements").enumerated().map {
                (j, e) throws(ScenarioError) in try string(e, p + "/entitlements/\(j)")
            }
            return .entitlements(device: try device(), list)
        case "expect":
            return .expect(try expectation(m, p, devices: devices))
        default:
            throw fail(
                p + "/op",
                "unknown op \(op): importFlight, importMapFile, save, delete, open, sync, pull, push, restart, "
                    + "serverCommit, advance, fault, clearFaults, entitlements, expect")
        }
    }

    func expectation(_ m: [String: FirestoreValue], _ p: String, devices: Set<String>) throws(ScenarioError)
        -> ScenarioExpectation
    {
        var e = ScenarioExpectation()
        if let server = m["server"] {
            for (path, doc) in try map(server, p + "/server") {
                e.server[path] = doc == .null ? .some(nil) : try map(doc, JSONPointer.appending(p + "/server", path))
            }
        }
        if let rows = m["rows"] {
            for (device, byKey) in try map(rows, p + "/rows") {
                guard devices.contains(device) else { throw fail(p + "/rows/" + device, "no device \(device)") }
                var out: [String: RowExpectation?] = [:]
                for (key, row) in try map(byKey, p + "/rows/" + device) {
                    let rp = JSONPointer.appending(p + "/rows/" + device, key)
                    if row == .null {
                        out[key] = .some(nil)
                        continue
                    }
                    let r = try map(row, rp)
                    var dirty: Bool?
                    if let d = r["dirty"] {
                        guard case .boolean(let b) = d else { throw fail(rp + "/dirty", "a boolean") }
                        dirty = b
                    }
                    out[key] = RowExpectation(
                        fields: r["fields"] == nil ? [:] : try map(r["fields"], rp + "/fields"), dirty: dirty)
                }
                e.rows[device] = out
            }
        }
        if let objects = m["objects"] {
            for (path, exists) in try map(objects, p + "/objects") {
                guard case .boolean(let b) = exists else {
                    throw fail(JSONPointer.appending(p + "/objects", path), "a boolean")
                }
                e.objects[path] = b
            }
        }
        if let bytes = m["storageBytes"] { e.storageBytes = try integer(bytes, p + "/storageBytes") }
        if let counts = m["serverCounts"] {
            for (name, n) in try map(counts, p + "/serverCounts") {
                let cp = JSONPointer.appending(p + "/serverCounts", name)
                e.serverCounts[try collection(.string(name), cp)] = Int(try integer(n, cp))
            }
        }
        if let commits = m["commits"] {
            for (device, sizes) in try map(commits, p + "/commits") {
                let cp = JSONPointer.appending(p + "/commits", device)
                guard devices.contains(device) else { throw fail(cp, "no device \(device)") }
                e.commits[device] = try array(sizes, cp).enumerated().map { (i, n) throws(ScenarioError) in
                    Int(try integer(n, cp + "/\(i)"))
                }
            }
        }
        return e
    }
}

extension ScenarioStep {
    /// The step in the scenario format (what `Scenario.init(_:file:)` reads back). An `expect` step is
    /// written with its server documents, rows, objects and counts.
    public var value: FirestoreValue {
        func op(_ name: String, _ device: String?, _ members: [String: FirestoreValue] = [:]) -> FirestoreValue {
            var m = members
            m["op"] = .string(name)
            if let device { m["device"] = .string(device) }
            return .map(m)
        }
        switch self {
        case .importFlight(let d, let igc, let fields):
            return op("importFlight", d, ["igc": .bytes(igc), "fields": .map(fields)])
        case .importMapFile(let d, let content, let fields):
            return op("importMapFile", d, ["content": .bytes(content), "fields": .map(fields)])
        case .save(let d, let c, let id, let changes):
            var m: [String: FirestoreValue] = ["collection": .string(c.rawValue), "changes": .map(changes)]
            if let id { m["id"] = .string(id) }
            return op("save", d, m)
        case .delete(let d, let c, let id):
            return op("delete", d, ["collection": .string(c.rawValue), "id": .string(id)])
        case .open(let d, let id): return op("open", d, ["id": .string(id)])
        case .run(let d, let action, let error):
            return op(action.rawValue, d, error.map { ["error": .string($0)] } ?? [:])
        case .restart(let d): return op("restart", d)
        case .serverCommit(let writes, let late):
            var m: [String: FirestoreValue] = [
                "writes": .array(writes.compactMap { try? CanonicalJSON.decode(CanonicalJSON.encode($0)) })
            ]
            if let late { m["lateBySeconds"] = .integer(late) }
            return op("serverCommit", nil, m)
        case .advance(let seconds, let d): return op("advance", d, ["seconds": .integer(seconds)])
        case .fault(let d, let request, let fault):
            let text: String =
                switch fault {
                case .refuse(let status): status.rawValue
                case .loseAcknowledgement: "loseAcknowledgement"
                }
            return op("fault", d, ["request": .string(request.rawValue), "fault": .string(text)])
        case .storageFault(let d, let request, let failure):
            return op("fault", d, ["request": .string(request.rawValue), "fault": .string(failure.rawValue)])
        case .entitlements(let d, let list):
            return op("entitlements", d, ["entitlements": .array(list.map { .string($0) })])
        case .clearFaults(let d): return op("clearFaults", d)
        case .expect(let e):
            var m: [String: FirestoreValue] = [:]
            if !e.server.isEmpty { m["server"] = .map(e.server.mapValues { $0.map { .map($0) } ?? .null }) }
            if !e.rows.isEmpty {
                m["rows"] = .map(
                    e.rows.mapValues { rows in
                        .map(
                            rows.mapValues { row in
                                guard let row else { return .null }
                                var r: [String: FirestoreValue] = ["fields": .map(row.fields)]
                                if let dirty = row.dirty { r["dirty"] = .boolean(dirty) }
                                return .map(r)
                            })
                    })
            }
            if !e.objects.isEmpty { m["objects"] = .map(e.objects.mapValues { .boolean($0) }) }
            if let bytes = e.storageBytes { m["storageBytes"] = .integer(bytes) }
            if !e.serverCounts.isEmpty {
                m["serverCounts"] = .map(
                    Dictionary(
                        uniqueKeysWithValues: e.serverCounts.map { ($0.key.rawValue, .integer(Int64($0.value))) }))
            }
            if !e.commits.isEmpty {
                m["commits"] = .map(e.commits.mapValues { .array($0.map { .integer(Int64($0)) }) })
            }
            return op("expect", nil, m)
        }
    }
}

extension Scenario {
    /// The scenario in the format it is read from.
    public var value: FirestoreValue {
        var config: [String: FirestoreValue] = [
            "uid": .string(uid), "start": .timestamp(start),
            "devices": .array(
                devices.map { d in
                    .map([
                        "name": .string(d.name), "platform": .string(d.platform.rawValue),
                        "entitlements": .array(d.entitlements.map { .string($0) }),
                        "clockOffsetSeconds": .integer(d.clockOffsetSeconds),
                    ])
                }),
        ]
        if pageSize != Int(SchemaConstants.pullPageSize) { config["pageSize"] = .integer(Int64(pageSize)) }
        return .map([
            "formatVersion": .integer(Scenario.formatVersion), "id": .string(id), "section": .string(section),
            "note": .string(note), "config": .map(config), "steps": .array(steps.map(\.value)),
        ])
    }
}
