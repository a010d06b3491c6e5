import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncSchema

/// A sync scenario: a versioned step script every engine replays (Goldens/FORMAT.md, Scenarios), in
/// the manner of Firestore's cross-SDK spec tests. Read from canonical typed JSON:
///
///     {"formatVersion": 2, "id": "scenario.…", "section": "schema §5.2", "note": "…", "pins": [],
///      "config": {"uid": "u1", "start": {"$timestamp": …}, "devices": [{"name": "a", "platform": "android"}]},
///      "steps": [{"op": "save", "device": "a", …}, {"op": "sync", "device": "a"}, {"op": "expect", …}]}
public struct Scenario: Sendable {
    /// The format version this package reads (2: `pins`, outcome lists, the runner's commit rules).
    public static let formatVersion: Int64 = 2

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
    /// The pins of `Spec/pins.tsv` its expectations rest on (`SchemaPin` names); one resting on a
    /// `choice` or `open` pin is the case `recommended.scenario.NAME`, every other `required.scenario.NAME`.
    public var pins: [String]
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
        id: String, section: String, note: String, pins: [String] = [], uid: String, start: FirestoreTimestamp,
        devices: [Device], pageSize: Int = Int(SchemaConstants.pullPageSize), steps: [ScenarioStep]
    ) {
        self.pageSize = pageSize
        self.id = id
        self.section = section
        self.note = note
        self.pins = pins
        self.uid = uid
        self.start = start
        self.devices = devices
        self.steps = steps
    }
}

/// The outcomes a device step accepts (a step's `error` member): success (`nil`), a named failure
/// (`paused`, a Firestore status such as `UNAVAILABLE`, `storage.KIND`), or `*` for any failure.
/// Without `error` a step must succeed; a list accepts any of its members, so
/// `[null, "UNAVAILABLE"]` is "succeeds, or fails with UNAVAILABLE (a later sync converges)".
public struct StepOutcomes: Sendable, Hashable, CustomStringConvertible {
    /// The accepted outcomes, in the file's order: nil is success.
    public var accepted: [String?]

    /// The outcomes as given.
    public init(_ accepted: [String?]) { self.accepted = accepted }

    /// Success only (no `error` member).
    public static let success = StepOutcomes([nil])

    /// One named failure only.
    public static func failure(_ name: String) -> StepOutcomes { StepOutcomes([name]) }

    /// Whether `outcome` (nil: success) is accepted.
    public func accepts(_ outcome: String?) -> Bool {
        accepted.contains { $0 == outcome || ($0 == "*" && outcome != nil) }
    }

    /// The `error` member as a file holds it: none for success only, a string for one failure, else a list.
    public var value: FirestoreValue? {
        if accepted == [nil] { return nil }
        if accepted.count == 1, let one = accepted[0] { return .string(one) }
        return .array(accepted.map { $0.map { .string($0) } ?? .null })
    }

    /// `success`, `UNAVAILABLE`, `success or UNAVAILABLE`.
    public var description: String {
        accepted.map { $0 ?? "success" }.joined(separator: " or ")
    }
}

/// One step of a scenario. Every device step names its device.
public enum ScenarioStep: Sendable {
    /// An IGC file imported on the device (`fields` in cloud form).
    case importFlight(device: String, igc: Data, fields: [String: FirestoreValue])
    /// A map file's content imported.
    case importMapFile(device: String, content: Data, fields: [String: FirestoreValue])
    /// A record saved (new or changed; `.null` clears a field). `fill` names fields set first to a
    /// string of that many `x` (U+0078): large values a scenario file does not spell out.
    case save(
        device: String, collection: SyncCollection, id: String?, changes: [String: FirestoreValue],
        fill: [String: Int] = [:])
    /// A record deleted (a tombstone).
    case delete(device: String, collection: SyncCollection, id: String)
    /// A flight opened (lastOpenedAt now, its file downloaded when uploaded); `outcomes` as for `run`.
    case open(device: String, id: String, outcomes: StepOutcomes)
    /// `sync`, `pull` or `push`, ending in one of `outcomes`.
    case run(device: String, action: SyncAction, outcomes: StepOutcomes)
    /// The device restarts after a crash: what it had not committed is lost.
    case restart(device: String)
    /// Another client commits these writes directly; `lateBySeconds` makes them visible with an
    /// `updatedAt` that many seconds before the server's time (a commit that becomes visible late).
    case serverCommit(writes: [FirestoreWrite], lateBySeconds: Int64?)
    /// Another client uploads these bytes as the object at `path` (`application/gzip`), replacing any.
    case serverUpload(path: String, bytes: Data)
    /// Time passes: the server's clock and every device's, or only `device`'s (skew), by `seconds`
    /// plus `microseconds` (0–999,999).
    case advance(seconds: Int64, microseconds: Int64, device: String?)
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

    /// The device an engine does this step on, or nil for a step of the runner (another client,
    /// a fault, time on every clock, an expectation).
    public var engineDevice: String? {
        switch self {
        case .importFlight(let d, _, _), .importMapFile(let d, _, _), .save(let d, _, _, _, _), .delete(let d, _, _),
            .open(let d, _, _), .run(let d, _, _), .restart(let d), .entitlements(let d, _):
            d
        case .advance(_, _, let d): d
        case .serverCommit, .serverUpload, .fault, .storageFault, .clearFaults, .expect: nil
        }
    }
}

extension ScenarioStep {
    /// The changes a `save` step makes: each `fill` field a string of that many `x`, then `changes`.
    public static func filled(_ changes: [String: FirestoreValue], _ fill: [String: Int]) -> [String: FirestoreValue] {
        var out: [String: FirestoreValue] = [:]
        for (field, count) in fill { out[field] = .string(String(repeating: "x", count: max(0, count))) }
        for (field, value) in changes { out[field] = value }
        return out
    }
}

/// `sync` (pull, push, purge), `pull` or `push`.
public enum SyncAction: String, Sendable, Hashable, CaseIterable {
    case sync, pull, push
}

/// What a scenario checks at an `expect` step, each by typed value.
public struct ScenarioExpectation: Sendable {
    /// Server documents by path: the listed field paths (Firestore's notation: `igc.uploaded`) must
    /// hold these values (null also matches an absent field); nil: the document must not exist.
    public var server: [String: [String: FirestoreValue]?] = [:]
    /// Device rows by device and `collection/id`: the listed field paths, `dirty` and `file` when
    /// given; nil: no row.
    public var rows: [String: [String: RowExpectation?]] = [:]
    /// Storage objects by path: whether each exists.
    public var objects: [String: Bool] = [:]
    /// The profile's `storageBytes`.
    public var storageBytes: StorageBytesExpectation?
    /// The number of live (not deleted) server documents per collection.
    public var serverCounts: [SyncCollection: Int] = [:]
    /// Per device, the number of requests (Firestore and Cloud Storage) it sent since the previous
    /// `expect` step (refused ones included).
    public var requests: [String: Int] = [:]
    /// Devices whose records agree with the server: per collection, the ids of its live rows are the
    /// server's live documents, and no row holds a change the server does not have.
    public var converged: [String] = []

    /// An expectation of the parts given (the others are not checked).
    public init(
        server: [String: [String: FirestoreValue]?] = [:], rows: [String: [String: RowExpectation?]] = [:],
        objects: [String: Bool] = [:], storageBytes: StorageBytesExpectation? = nil,
        serverCounts: [SyncCollection: Int] = [:], requests: [String: Int] = [:], converged: [String] = []
    ) {
        self.server = server
        self.rows = rows
        self.objects = objects
        self.storageBytes = storageBytes
        self.serverCounts = serverCounts
        self.requests = requests
        self.converged = converged
    }
}

/// What the profile's `storageBytes` must be at an `expect` step.
public enum StorageBytesExpectation: Sendable, Hashable {
    /// This many bytes.
    case value(Int64)
    /// `"counted"`: the sum of `gzBytes` over the distinct Storage objects the live documents' blob
    /// maps name (an object named by two map files counted once), what schema §2 and §6 define it to
    /// be — whatever gzip level wrote the objects.
    case counted
}

/// What a device row must hold.
public struct RowExpectation: Sendable {
    /// Field paths that must hold these values (null also matches absent).
    public var fields: [String: FirestoreValue]
    /// Whether the row must be dirty (nil: either).
    public var dirty: Bool?
    /// Whether the device must hold the record's file (a flight's IGC, a map file's content), checked
    /// against its hash (nil: either).
    public var file: Bool?

    /// A row holding `fields`, dirty or not as `dirty` says and with or without its file as `file`
    /// says (nil: either).
    public init(fields: [String: FirestoreValue], dirty: Bool? = nil, file: Bool? = nil) {
        self.fields = fields
        self.dirty = dirty
        self.file = file
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
            throw r.fail(
                "/formatVersion",
                "formatVersion must be \(Scenario.formatVersion) (version 1 had exact commit groupings and no pins; "
                    + "Goldens/FORMAT.md, Scenarios)")
        }
        let known: Set<String> = ["formatVersion", "id", "section", "note", "pins", "config", "steps"]
        if let extra = root.keys.sorted().first(where: { !known.contains($0) }) {
            throw r.fail(JSONPointer.appending("", extra), "unknown member \(extra)")
        }
        id = try r.string(root["id"], "/id")
        section = try r.string(root["section"], "/section")
        note = try r.string(root["note"], "/note")
        pins = try r.array(root["pins"], "/pins").enumerated().map { (i, p) throws(ScenarioError) in
            let name = try r.string(p, "/pins/\(i)")
            guard SchemaPin(rawValue: name) != nil else {
                throw r.fail("/pins/\(i)", "no pin \(name) in Spec/pins.tsv")
            }
            return name
        }
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
            let name = try r.string(m["name"], p + "/name")
            guard !devices.contains(where: { $0.name == name }) else {
                throw r.fail(p + "/name", "device \(name) twice")
            }
            devices.append(
                Device(name: name, platform: platform, entitlements: entitlements, clockOffsetSeconds: offset))
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
        guard case .map(let m)? = v else { throw fail(p, "expected an object") }
        return m
    }

    func array(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> [FirestoreValue] {
        guard case .array(let a)? = v else { throw fail(p, "expected an array") }
        return a
    }

    func string(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> String {
        guard case .string(let s)? = v else { throw fail(p, "expected a string") }
        return s
    }

    func integer(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> Int64 {
        guard case .integer(let n)? = v else { throw fail(p, "expected an integer") }
        return n
    }

    func boolean(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> Bool {
        guard case .boolean(let b)? = v else { throw fail(p, "expected a boolean") }
        return b
    }

    func bytes(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> Data {
        guard case .bytes(let b)? = v else { throw fail(p, "expected bytes ({\"$bytes\": …})") }
        return b
    }

    func collection(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> SyncCollection {
        let name = try string(v, p)
        guard let c = SyncCollection(rawValue: name) else { throw fail(p, "no collection \(name)") }
        return c
    }

    /// A step's `error`: absent (success only), a string, or a non-empty list of strings and null.
    func outcomes(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> StepOutcomes {
        switch v {
        case nil: return .success
        case .string(let s)?: return .failure(s)
        case .array(let items)? where !items.isEmpty:
            var accepted: [String?] = []
            for (i, item) in items.enumerated() {
                switch item {
                case .null: accepted.append(nil)
                case .string(let s): accepted.append(s)
                default: throw fail(p + "/\(i)", "an outcome: null (success), a failure's name or \"*\"")
                }
            }
            return StepOutcomes(accepted)
        default:
            throw fail(p, "a failure's name, or a list of outcomes (null: success; \"*\": any failure)")
        }
    }

    /// A map whose keys are Firestore field paths (`igc.uploaded`, backticks around other names).
    func fieldPaths(_ v: FirestoreValue?, _ p: String) throws(ScenarioError) -> [String: FirestoreValue] {
        let m = try map(v, p)
        for key in m.keys.sorted() {
            do { _ = try FieldPath(parsing: key) } catch {
                throw fail(JSONPointer.appending(p, key), "not a field path: \(error)")
            }
        }
        return m
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
            var fill: [String: Int] = [:]
            if let f = m["fill"] {
                for (field, n) in try map(f, p + "/fill") {
                    let count = try integer(n, JSONPointer.appending(p + "/fill", field))
                    guard (0...1_048_576).contains(count) else {
                        throw fail(JSONPointer.appending(p + "/fill", field), "a length from 0 to 1048576")
                    }
                    fill[field] = Int(count)
                }
            }
            return .save(
                device: try device(), collection: try collection(m["collection"], p + "/collection"), id: id,
                changes: try fields("changes"), fill: fill)
        case "delete":
            return .delete(
                device: try device(), collection: try collection(m["collection"], p + "/collection"),
                id: try string(m["id"], p + "/id"))
        case "open":
            return .open(
                device: try device(), id: try string(m["id"], p + "/id"),
                outcomes: try outcomes(m["error"], p + "/error"))
        case "sync", "pull", "push":
            return .run(
                device: try device(), action: SyncAction(rawValue: op) ?? .sync,
                outcomes: try outcomes(m["error"], p + "/error"))
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
        case "serverUpload":
            return .serverUpload(path: try string(m["path"], p + "/path"), bytes: try bytes(m["bytes"], p + "/bytes"))
        case "advance":
            let d: String? = m["device"] == nil ? nil : try device()
            var micros: Int64 = 0
            if let u = m["microseconds"] {
                micros = try integer(u, p + "/microseconds")
                guard (0..<1_000_000).contains(micros) else {
                    throw fail(p + "/microseconds", "microseconds from 0 to 999999 (seconds carry the rest)")
                }
            }
            return .advance(seconds: try integer(m["seconds"], p + "/seconds"), microseconds: micros, device: d)
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
                    + "serverCommit, serverUpload, advance, fault, clearFaults, entitlements, expect")
        }
    }

    func expectation(_ m: [String: FirestoreValue], _ p: String, devices: Set<String>) throws(ScenarioError)
        -> ScenarioExpectation
    {
        let known: Set<String> = [
            "op", "server", "rows", "objects", "storageBytes", "serverCounts", "requests", "converged",
        ]
        if let extra = m.keys.sorted().first(where: { !known.contains($0) }) {
            throw fail(
                JSONPointer.appending(p, extra),
                extra == "commits"
                    ? "commits is no member of formatVersion 2: the runner checks every commit against the seed's limits"
                    : "unknown member \(extra) of an expect step")
        }
        func knownDevice(_ name: String, _ pointer: String) throws(ScenarioError) {
            guard devices.contains(name) else { throw fail(pointer, "no device \(name) in config.devices") }
        }
        var e = ScenarioExpectation()
        if let server = m["server"] {
            for (path, doc) in try map(server, p + "/server") {
                let dp = JSONPointer.appending(p + "/server", path)
                e.server[path] = doc == .null ? .some(nil) : try fieldPaths(doc, dp)
            }
        }
        if let rows = m["rows"] {
            for (device, byKey) in try map(rows, p + "/rows") {
                // A device name is a pointer token: `/` and `~` in it are escaped.
                let devicePointer = JSONPointer.appending(p + "/rows", device)
                try knownDevice(device, devicePointer)
                var out: [String: RowExpectation?] = [:]
                for (key, row) in try map(byKey, devicePointer) {
                    let rp = JSONPointer.appending(devicePointer, key)
                    if row == .null {
                        out[key] = .some(nil)
                        continue
                    }
                    let r = try map(row, rp)
                    if let extra = r.keys.sorted().first(where: { !["fields", "dirty", "file"].contains($0) }) {
                        throw fail(JSONPointer.appending(rp, extra), "a row expectation has fields, dirty and file")
                    }
                    out[key] = RowExpectation(
                        fields: r["fields"] == nil ? [:] : try fieldPaths(r["fields"], rp + "/fields"),
                        dirty: r["dirty"] == nil ? nil : try boolean(r["dirty"], rp + "/dirty"),
                        file: r["file"] == nil ? nil : try boolean(r["file"], rp + "/file"))
                }
                e.rows[device] = out
            }
        }
        if let objects = m["objects"] {
            for (path, exists) in try map(objects, p + "/objects") {
                e.objects[path] = try boolean(exists, JSONPointer.appending(p + "/objects", path))
            }
        }
        switch m["storageBytes"] {
        case nil: break
        case .string("counted")?: e.storageBytes = .counted
        case .integer(let n)?: e.storageBytes = .value(n)
        default: throw fail(p + "/storageBytes", "an integer, or \"counted\"")
        }
        if let counts = m["serverCounts"] {
            for (name, n) in try map(counts, p + "/serverCounts") {
                let cp = JSONPointer.appending(p + "/serverCounts", name)
                e.serverCounts[try collection(.string(name), cp)] = Int(try integer(n, cp))
            }
        }
        if let requests = m["requests"] {
            for (device, n) in try map(requests, p + "/requests") {
                let rp = JSONPointer.appending(p + "/requests", device)
                try knownDevice(device, rp)
                e.requests[device] = Int(try integer(n, rp))
            }
        }
        if let converged = m["converged"] {
            for (i, d) in try array(converged, p + "/converged").enumerated() {
                let name = try string(d, p + "/converged/\(i)")
                try knownDevice(name, p + "/converged/\(i)")
                e.converged.append(name)
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
        case .save(let d, let c, let id, let changes, let fill):
            var m: [String: FirestoreValue] = ["collection": .string(c.rawValue), "changes": .map(changes)]
            if let id { m["id"] = .string(id) }
            if !fill.isEmpty { m["fill"] = .map(fill.mapValues { .integer(Int64($0)) }) }
            return op("save", d, m)
        case .delete(let d, let c, let id):
            return op("delete", d, ["collection": .string(c.rawValue), "id": .string(id)])
        case .open(let d, let id, let outcomes):
            var m: [String: FirestoreValue] = ["id": .string(id)]
            if let error = outcomes.value { m["error"] = error }
            return op("open", d, m)
        case .run(let d, let action, let outcomes):
            return op(action.rawValue, d, outcomes.value.map { ["error": $0] } ?? [:])
        case .restart(let d): return op("restart", d)
        case .serverCommit(let writes, let late):
            var m: [String: FirestoreValue] = [
                "writes": .array(writes.compactMap { try? CanonicalJSON.decode(CanonicalJSON.encode($0)) })
            ]
            if let late { m["lateBySeconds"] = .integer(late) }
            return op("serverCommit", nil, m)
        case .serverUpload(let path, let bytes):
            return op("serverUpload", nil, ["path": .string(path), "bytes": .bytes(bytes)])
        case .advance(let seconds, let micros, let d):
            var m: [String: FirestoreValue] = ["seconds": .integer(seconds)]
            if micros != 0 { m["microseconds"] = .integer(micros) }
            return op("advance", d, m)
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
                                if let file = row.file { r["file"] = .boolean(file) }
                                return .map(r)
                            })
                    })
            }
            if !e.objects.isEmpty { m["objects"] = .map(e.objects.mapValues { .boolean($0) }) }
            switch e.storageBytes {
            case .value(let n)?: m["storageBytes"] = .integer(n)
            case .counted?: m["storageBytes"] = .string("counted")
            case nil: break
            }
            if !e.serverCounts.isEmpty {
                m["serverCounts"] = .map(
                    Dictionary(
                        uniqueKeysWithValues: e.serverCounts.map { ($0.key.rawValue, .integer(Int64($0.value))) }))
            }
            if !e.requests.isEmpty { m["requests"] = .map(e.requests.mapValues { .integer(Int64($0)) }) }
            if !e.converged.isEmpty { m["converged"] = .array(e.converged.map { .string($0) }) }
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
            "note": .string(note), "pins": .array(pins.map { .string($0) }), "config": .map(config),
            "steps": .array(steps.map(\.value)),
        ])
    }
}
