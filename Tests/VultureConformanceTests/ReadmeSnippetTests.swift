import Foundation
import Testing
import VultureConformance
import VultureFirestore
import VultureFirestoreTesting
import VultureReference
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The README's Swift snippets, compiled and run: each block of README.md appears below line for
/// line (imports aside), and `readmeSnippetsAreTheseTests` fails when the two drift apart.

/// The README's `MyEncoderImplementation`: here the reference implementation under another name.
struct MyEncoderImplementation: ConformanceImplementation {
    var reference = ReferenceImplementation(schema: .vulture)
    mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer { reference.answer(testCase) }
    // Its sync engine too: the scenario goldens' engine operations, with the runner's server.
    mutating func answer(_ testCase: ConformanceCase, server: EngineServerChannel) -> ImplementationAnswer {
        reference.answer(testCase, server: server)
    }
}

// README snippet 1: the suite in your own tests (failure-list.txt is this target's resource).
@Test func conformsToTheVultureSyncSchema() throws {
    let suite = try GoldenSuite.load()  // the goldens bundled with VultureConformance
    let known = try FailureList.load(resource: "failure-list.txt", in: .module)  // this test target's resource
    var mine = MyEncoderImplementation()  // conforms to ConformanceImplementation
    let run = ConformanceRunner.run(suite.cases, on: &mine, failureList: known)
    #expect(run.exitStatus == 0, "\(ConformanceRunner.report(run, failureList: known).joined(separator: "\n"))")
}

@Suite struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    // README snippet 2: typed documents and ids.
    @Test func typedDocumentsAndIds() throws {
        let value = try #require(
            try CanonicalJSON.decode(
                Data(contentsOf: Self.root.appendingPathComponent("Goldens/schema/flight.android.json")))[
                    fieldPath: "stored"])
        let flight = try FlightDocument(firestoreValue: value, form: .stored)  // typed errors: schema.type, …
        let write = flight.firestoreValue(form: .write)  // updatedAt → $serverTimestamp
        let id = DocumentIds.homebaseId(name: "  Aachen Merzbrück ")  // Kotlin trim() + lowercase(Locale.ROOT)
        #expect(write[fieldPath: "updatedAt"] == .serverTimestamp)
        #expect(id == DocumentIds.homebaseId(name: "aachen merzbrück"))
    }

    // README snippet 3: canonical typed JSON.
    @Test func canonicalTypedJSON() throws {
        let text = try String(
            contentsOf: Self.root.appendingPathComponent("Goldens/schema/flight.android.json"), encoding: .utf8)
        let golden = try CanonicalJSON.decode(Array(text.utf8), file: "flight.android.json")  // both forms
        let stored = golden[fieldPath: "stored"]!
        try stored.validate(form: .stored)  // Firestore's limits; no sentinels in the stored form
        let bytes = CanonicalJSON.encode(stored)  // byte-canonical
        let rest = try FirestoreRESTJSON.encodeDocument(FirestoreRESTDocument(fields: stored.mapValue ?? [:]))
        #expect(try CanonicalJSON.decode(bytes) == stored)
        #expect(try FirestoreRESTJSON.decodeDocument(rest).fields == stored.mapValue)
    }

    /// The server clock README snippet 4 injects: a fixed time (no wall clock).
    struct ServerClock: Sendable {
        let time: FirestoreTimestamp
        func now() -> FirestoreTimestamp { time }
    }

    // README snippet 4: VultureFirestore, the in-memory database.
    @Test func inMemoryFirestore() throws {
        let serverClock = ServerClock(time: try FirestoreTimestamp(seconds: 1_792_000_000, microseconds: 123_456))
        let summary: FirestoreValue = .map(["thermalAltitudeGained": .double(1200.0)])
        let uid = "u1"
        let path = "users/\(uid)/flights/f1"
        let since = try FirestoreTimestamp(seconds: 1_791_999_880)
        let cursor: FirestoreQuery.Cursor? = nil
        let db = InMemoryFirestore(clock: { serverClock.now() })  // or FirestoreRESTClient(baseURL:projectId:)
        // mergeFields: summary replaced whole, not leaf-merged
        let mask = [try FieldPath(["summary"]), try FieldPath(["updatedAt"])]
        let result = try db.commit([
            try .set(["summary": summary, "updatedAt": .serverTimestamp], mergeFields: mask, path: path)
        ])
        let page = try db.runQuery(
            FirestoreQuery(
                parent: "users/\(uid)", collectionId: "flights",
                filters: [.init(try FieldPath(["updatedAt"]), .greaterThanOrEqual, .timestamp(since))],
                orderBy: [.init(try FieldPath(["updatedAt"])), .init(.documentName)], startAt: cursor, limit: 500))
        #expect(result.commitTime == serverClock.time)
        #expect(result.writeResults.map(\.updateTime) == [serverClock.time])
        // The server timestamp is the request time in milliseconds.
        let written = try FirestoreTimestamp(seconds: 1_792_000_000, microseconds: 123_000)
        #expect(page.map(\.path) == [path])
        #expect(page.first?.fields == ["summary": summary, "updatedAt": .timestamp(written)])
    }

    // README snippet 5: VultureSyncEngine, two devices through one in-memory Firestore.
    @Test func twoDevicesSync() throws {
        let igc = Data("AXCSAAA\r\nHFDTE081116\r\nB1101355206343N00006198WA0058700558\r\n".utf8)
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_000_000))
        let server = InMemoryFirestore(clock: clock.source)  // or FirestoreRESTClient against the emulator
        let bucket = InMemoryCloudStorage()
        let phone = SyncEngine(
            configuration: SyncConfiguration(uid: "u1", deviceId: "phone", platform: .ios),
            database: server, storage: bucket, store: InMemoryLocalStore(), clock: clock.source)
        let tablet = SyncEngine(
            configuration: SyncConfiguration(uid: "u1", deviceId: "tablet", platform: .android),
            database: server, storage: bucket, store: InMemoryLocalStore(), clock: clock.source)
        let id = try phone.importFlight(igc: igc, fields: ["inLogbook": .boolean(true)])  // id: SHA-256 of the file
        try phone.sync()  // pull, push (reserve → upload → mark uploaded), purge
        clock.advance(seconds: 1)
        try tablet.sync()
        #expect(tablet.store.row(.flights, id: id)?.fields == phone.store.row(.flights, id: id)?.fields)
        #expect(try tablet.openFlight(id) == igc)  // downloaded: uploaded was true, SHA-256 checked
        #expect(id == DocumentIds.flightId(igcBytes: igc))
        #expect(tablet.store.row(.flights, id: id)?.fields["inLogbook"] == .boolean(true))
    }

    // README snippet 6: SyncEngineActor, the engine called from tasks, its events a stream; on the
    // main actor, as an app's view model calls it.
    @MainActor @Test func theEngineBehindAnActor() async throws {
        let igc = Data("AXCSAAA\r\nHFDTE081116\r\nB1101355206343N00006198WA0058700558\r\n".utf8)
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_000_000))
        let server = InMemoryFirestore(clock: clock.source)
        let bucket = InMemoryCloudStorage()
        let device = SyncEngineActor(
            configuration: SyncConfiguration(uid: "u1", deviceId: "phone", platform: .ios),
            database: server, storage: bucket, store: InMemoryLocalStore(), clock: clock.source)
        let sent = Task { () -> SyncEvent? in  // a UI would update that row
            for await event in device.events where event.isPerRecord { return event }
            return nil
        }
        let id = try await device.importFlight(igc: igc, fields: ["inLogbook": .boolean(true)])
        try await device.sync()  // cancelling the awaiting task stops it: SyncError.cancelled
        #expect(await sent.value == .sent(.flights, id: id))
        #expect(try server.get("users/u1/flights/\(id)") != nil)
        // Another device keeps the flight: a logbook flight is not trimmed, so no tombstone comes back.
        let tablet = SyncEngine(
            configuration: SyncConfiguration(uid: "u1", deviceId: "tablet", platform: .android),
            database: server, storage: bucket, store: InMemoryLocalStore(), clock: clock.source)
        clock.advance(seconds: 1)
        try tablet.sync()
        clock.advance(seconds: 1)
        try await device.sync()
        #expect(tablet.store.row(.flights, id: id)?.isTombstone == false)
        #expect(await device.row(.flights, id: id)?.isTombstone == false)
        #expect(try server.get("users/u1/flights/\(id)")?.fields["deleted"] == .boolean(false))
    }

    /// The ```swift blocks of README.md, without their `import` lines, trimmed.
    static func readmeBlocks() throws -> [[String]] {
        let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            if line == "```swift" {
                current = []
            } else if line == "```", let block = current {
                blocks.append(block)
                current = nil
            } else if current != nil {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty && !trimmed.hasPrefix("import ") { current?.append(trimmed) }
            }
        }
        return blocks
    }

    /// The text without any white space, so `swift format`'s line breaks and spacing do not matter.
    static func squeezed(_ text: String) -> String {
        String(text.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init))
    }

    @Test func readmeSnippetsAreTheseTests() throws {
        let blocks = try Self.readmeBlocks()
        #expect(blocks.count == 6)
        let source = Self.squeezed(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        for (index, block) in blocks.enumerated() {
            #expect(
                source.contains(Self.squeezed(block.joined())),
                "README snippet \(index + 1) is not in ReadmeSnippetTests.swift:\n\(block.joined(separator: "\n"))")
        }
        // A README line that changed (here: one more argument) is no longer found.
        let changed = blocks[0].map {
            $0.replacingOccurrences(of: "failureList: known)", with: "failureList: known, only: [])")
        }
        #expect(changed != blocks[0])
        #expect(!source.contains(Self.squeezed(changed.joined())))
    }
}
