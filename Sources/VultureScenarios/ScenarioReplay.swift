import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
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
    /// Time passes on the server by `seconds` and `microseconds` (a real server's clock runs on its own).
    func advance(seconds: Int64, microseconds: Int64)
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
    public func advance(seconds: Int64, microseconds: Int64) {
        clock.advance(seconds: seconds, microseconds: microseconds)
    }
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

/// A device row as an `expect` step sees it.
public struct ScenarioRowState: Sendable, Hashable {
    /// The fields as the device holds them (stored form).
    public var fields: [String: FirestoreValue]
    /// Whether the row holds changes the server does not have.
    public var dirty: Bool
    /// Whether the device holds the record's file (checked against its hash); nil when the engine
    /// did not say (an `expect` step asking for it then fails).
    public var file: Bool?

    /// A row state as given.
    public init(fields: [String: FirestoreValue], dirty: Bool, file: Bool? = nil) {
        self.fields = fields
        self.dirty = dirty
        self.file = file
    }
}

/// What an `expect` step reads from the devices of a replay: the reference engine's stores here, a
/// testee's answers to `engine.rows` in the conformance runner.
public protocol ScenarioDeviceView {
    /// The devices' names, sorted.
    var deviceNames: [String] { get }
    /// The device's rows of `collection` by id, tombstones included.
    /// - Throws: when the device cannot be asked (a testee that broke the protocol).
    func rows(device: String, collection: SyncCollection) throws -> [String: ScenarioRowState]
    /// The number of requests the device sent since the previous call (refused ones included).
    func takeRequestCount(device: String) -> Int
}

/// The engine-independent parts of a replay: another client's commits and uploads, the `expect`
/// checks and the judgement of a step's outcome. The reference engine's replay (`ScenarioReplay.run`)
/// is in VultureSyncTesting.
public enum ScenarioReplay {
    /// The failure of a device step whose outcome (nil: success; else the failure's name or message)
    /// is not one the step accepts, or nil.
    public static func judge(_ outcome: String?, _ outcomes: StepOutcomes, at p: String) -> String? {
        if outcomes.accepts(outcome) { return nil }
        if outcomes == .success { return "\(p): the step failed: \(outcome ?? "")" }
        return "\(p)/error: expected \(outcomes), actual \(outcome ?? "success")"
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
                guard var fields = w.fields, fields[CommonFields.Field.updatedAt] == .serverTimestamp else { return w }
                fields[CommonFields.Field.updatedAt] = .timestamp(visible)
                return try FirestoreWrite(path: w.path, fields: fields, mask: w.mask, precondition: w.precondition)
            }
        }
        _ = try backend.firestore.commit(sent)
    }

    /// A `serverUpload` step: another client puts `bytes` at `path` (`application/gzip`, no metadata),
    /// replacing any object there.
    /// - Throws: `CloudStorageError` when the bucket refuses it.
    public static func uploadOnServer(path: String, bytes: Data, backend: ScenarioBackend) throws {
        try backend.storage.upload(
            StorageObject(path: path, bytes: bytes, contentType: StorageObjectMetadata.igc.contentType),
            onlyIfAbsent: false)
    }

    /// Whether `actual` holds every field path of `expected` (a null also matches an absent field).
    /// With `realClock`, a server timestamp field only has to hold a timestamp. The profile's
    /// `platforms` (a set of platform names) compares without order.
    static func compare(
        _ expected: [String: FirestoreValue], _ actual: [String: FirestoreValue], _ p: String, realClock: Bool = false,
        unordered: Set<String> = []
    ) -> [String] {
        expected.keys.sorted().compactMap { key in
            let want = expected[key] ?? .null
            let path = (try? FieldPath(parsing: key)) ?? FieldPath(unchecked: [key])
            let have = FirestoreValue.map(actual)[path: path] ?? .null
            if realClock, serverTimestampFields.contains(key), case .timestamp = want, case .timestamp = have {
                return nil
            }
            if unordered.contains(key), case .array(let w) = want, case .array(let h) = have, w.count == h.count,
                w.allSatisfy({ x in w.filter { $0 == x }.count == h.filter { $0 == x }.count })
            {
                return nil
            }
            return want == have ? nil : "\(JSONPointer.appending(p, key)): expected \(want), actual \(have)"
        }
    }

    /// The fields the server sets to its request time (`writeAs` serverTimestamp in Spec/fields.tsv).
    static let serverTimestampFields = Set(
        SyncSchema.vulture.fields(of: SyncSchema.commonFieldsOwner).filter { $0.writeAs == .serverTimestamp }.map(
            \.name))

    /// The profile's fields that hold a set (compared without order).
    static let profileSets: Set<String> = [ProfileDocument.Field.platforms]

    /// The documents of one collection on the server.
    static func documents(_ collection: SyncCollection, backend: ScenarioBackend, uid: String) throws
        -> [FirestoreDocument]
    {
        try backend.firestore.runQuery(
            FirestoreQuery(parent: collection.parentPath(uid: uid), collectionId: collection.rawValue))
    }

    /// `storageBytes` as schema §2 defines it: the gzBytes of every distinct object a live document's
    /// blob map names, each object once.
    public static func countedStorageBytes(backend: ScenarioBackend, uid: String) throws -> Int64 {
        var sizes: [String: Int64] = [:]
        for kind in StorageObjectKind.allCases {
            guard let collection = SyncCollection.allCases.first(where: { $0.documentType == kind.recordType }) else {
                continue
            }
            for doc in try documents(collection, backend: backend, uid: uid).sorted(by: { $0.path < $1.path })
            where doc.fields[CommonFields.Field.deleted] != .boolean(true) {
                guard case .map(let map)? = doc.fields[kind.mapField],
                    case .string(let path)? = map[StorageObjectKind.MapField.path],
                    case .integer(let gz)? = map[StorageObjectKind.MapField.gzBytes], sizes[path] == nil
                else { continue }
                sizes[path] = gz
            }
        }
        return sizes.values.reduce(0, +)
    }

    /// The expectations of an `expect` step at pointer `p` that do not hold, each
    /// `POINTER: expected …, actual …`: server documents, objects, counts and `storageBytes` read from
    /// `backend`, rows and request counts from `devices` (whose requests since the previous step are taken).
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
                out += compare(
                    want, have.fields, sp, realClock: backend.serverClockIsReal,
                    unordered: path == SyncCollection.profilePath(uid: uid) ? profileSets : [])
            }
        }
        var fetched: [String: [SyncCollection: [String: ScenarioRowState]]] = [:]
        func rows(_ device: String, _ collection: SyncCollection) throws -> [String: ScenarioRowState] {
            if let known = fetched[device]?[collection] { return known }
            let answer = try devices.rows(device: device, collection: collection)
            fetched[device, default: [:]][collection] = answer
            return answer
        }
        for name in e.rows.keys.sorted() {
            guard devices.deviceNames.contains(name), let expected = e.rows[name] else { continue }
            for key in expected.keys.sorted() {
                let rp = JSONPointer.appending(JSONPointer.appending(p + "/rows", name), key)
                let segments = FirestoreLimits.slashSegments(key)
                let parts =
                    segments.count < 2
                    ? segments.map(String.init) : [String(segments[0]), segments.dropFirst().joined(separator: "/")]
                guard parts.count == 2, let collection = SyncCollection(rawValue: parts[0]) else {
                    out.append("\(rp): a row key is COLLECTION/ID")
                    continue
                }
                let row = try rows(name, collection)[parts[1]]
                switch (expected[key] ?? nil, row) {
                case (nil, nil): break
                case (nil, .some): out.append("\(rp): expected no row, found one")
                case (.some, nil): out.append("\(rp): expected a row, found none")
                case (.some(let want), .some(let have)):
                    out += compare(want.fields, have.fields, rp + "/fields", realClock: backend.serverClockIsReal)
                    if let dirty = want.dirty, dirty != have.dirty {
                        out.append("\(rp)/dirty: expected \(dirty), actual \(have.dirty)")
                    }
                    if let file = want.file, file != have.file {
                        out.append(
                            "\(rp)/file: expected \(file), actual \(have.file.map { "\($0)" } ?? "not answered")")
                    }
                }
            }
        }
        for name in e.converged {
            for collection in SyncCollection.pushOrder {
                let cp = "\(p)/converged: device \(name), \(collection.rawValue)"
                let mine = try rows(name, collection)
                let live = Set(mine.filter { $0.value.fields[CommonFields.Field.deleted] != .boolean(true) }.keys)
                let server = Set(
                    try documents(collection, backend: backend, uid: uid).filter {
                        $0.fields[CommonFields.Field.deleted] != .boolean(true)
                    }.map(\.id))
                for id in live.subtracting(server).sorted() {
                    out.append("\(cp): \(id) is live here, not on the server")
                }
                for id in server.subtracting(live).sorted() {
                    out.append("\(cp): \(id) is live on the server, not here")
                }
                for id in mine.keys.sorted() where mine[id]?.dirty == true {
                    out.append("\(cp): \(id) holds changes the server does not have")
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
            let live = try documents(collection, backend: backend, uid: uid).filter {
                $0.fields[CommonFields.Field.deleted] != .boolean(true)
            }.count
            if live != e.serverCounts[collection] {
                out.append(
                    "\(p)/serverCounts/\(collection.rawValue): expected \(e.serverCounts[collection] ?? 0), actual \(live)"
                )
            }
        }
        for name in devices.deviceNames {
            let sent = devices.takeRequestCount(device: name)
            if let want = e.requests[name], want != sent {
                out.append("\(p)/requests/\(name): expected \(want), actual \(sent)")
            }
        }
        if let bytes = e.storageBytes {
            let profile = try backend.firestore.get(SyncCollection.profilePath(uid: uid))
            let have = profile?.fields[ProfileDocument.Field.storageBytes] ?? .null
            switch bytes {
            case .value(let n):
                if have != .integer(n) { out.append("\(p)/storageBytes: expected \(n), actual \(have)") }
            case .counted:
                let counted = try countedStorageBytes(backend: backend, uid: uid)
                if have != .integer(counted) {
                    out.append(
                        "\(p)/storageBytes: expected \(counted) (the gzBytes of every object a live document names, "
                            + "each once), actual \(have)")
                }
            }
        }
        return out
    }
}
