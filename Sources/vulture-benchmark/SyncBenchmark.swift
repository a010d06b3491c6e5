import Foundation
import VultureEmulators
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncCommand
import VultureSyncEngine
import VultureSyncSchema

/// `sync`: the reference engine's first sync of a logbook — a device that imported N flights (the
/// corpus IGC files, then generated ones) pulls, then pushes every record with its IGC object
/// (reserve → upload → mark, schema §5.1). The same logbook against ``InMemoryFirestore`` and the
/// Firestore emulator over REST, in the same run (the Cloud Storage side is in memory for both, so
/// the pairing compares the databases); then the cost per document in memory at 500, 5,000 and
/// 50,000 flights, the last within 1.2× of the first.
enum SyncBenchmark {
    /// What one first sync did.
    struct Outcome {
        /// Wall-clock seconds.
        var seconds: Double
        /// CPU seconds of the calling thread (the in-memory side runs on it alone).
        var cpuSeconds: Double = 0
        /// Page faults of the calling thread (first touches of memory the process had not used).
        var faults = 0
        var documents: Int
        var writes: Int
        var commits: Int
        /// The storage-size estimate of every committed write (the engine's batch estimate).
        var estimatedBytes: Int
        /// The gzipped IGC objects uploaded.
        var objectBytes: Int
    }

    /// The corpus IGC files (../shared/corpus/igc, read in place), or none when it is absent.
    static let corpus: [(name: String, bytes: Data)] = {
        let dir = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/igc")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter {
            $0.lowercased().hasSuffix(".igc")
        }.sorted()
        return names.compactMap { name in
            FileManager.default.contents(atPath: dir.appendingPathComponent(name).path).map { (name, $0) }
        }
    }()

    /// A generated IGC file: an A record, a header and 120 fixes a few seconds apart, different per `index`.
    static func generatedIGC(_ index: Int) -> Data {
        var lines = [
            "AXGN\(index)", "HFDTE\(String(format: "%02d", 1 + index % 28))0\(1 + index % 9)26",
            "HFPLTPILOTINCHARGE:Pilot \(index % 97)", "HFGTYGLIDERTYPE:LS\(index % 9)",
            "HFGIDGLIDERID:D-\(String(format: "%04d", index % 10_000))",
        ]
        for k in 0..<120 {
            let t = 36_000 + k * 4
            lines.append(
                String(
                    format: "B%02d%02d%02d52%02d%03dN006%02d%03dEA%05d%05d", t / 3600, t / 60 % 60, t % 60, index % 60,
                    (index * 7 + k) % 1000, k % 60, (index * 13 + k) % 1000, 500 + k, 510 + k))
        }
        return Data((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// `count` flights: the corpus files first, then generated ones.
    static func logbook(_ count: Int) -> [(name: String, bytes: Data)] {
        var out = Array(corpus.prefix(count))
        var index = 0
        while out.count < count {
            out.append(("generated-\(index).igc", generatedIGC(index)))
            index += 1
        }
        return out
    }

    /// A device that imported `flights` (not timed), then its first sync (timed, wall clock); then
    /// a second device of the same user, empty, and its first sync, which pulls the logbook.
    /// With `sdkSurface`, both devices reach `database` through `SDKSurfaceFirestore` (`.client`).
    static func firstSyncs(
        _ flights: [(name: String, bytes: Data)], database: FirestoreDatabase, uid: String, sdkSurface: Bool = false
    ) throws -> (push: Outcome, pull: Outcome) {
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let storage = InMemoryCloudStorage()
        func device(_ name: String) -> (SyncEngine, InMemoryLocalStore) {
            let store = InMemoryLocalStore()
            let engine = SyncEngine(
                configuration: SyncConfiguration(uid: uid, deviceId: name, platform: .android),
                backend: sdkSurface ? .client(SDKSurfaceFirestore(database)) : .database(database), storage: storage,
                store: store, clock: clock.source)
            return (engine, store)
        }
        func outcome(_ engine: SyncEngine, _ store: InMemoryLocalStore, seconds: Double) throws -> Outcome {
            var o = Outcome(seconds: seconds, documents: 0, writes: 0, commits: 0, estimatedBytes: 0, objectBytes: 0)
            for event in engine.events {
                switch event {
                case .committed(_, let writes, let bytes):
                    o.commits += 1
                    o.writes += writes
                    o.estimatedBytes += bytes
                case .pulledPage(let c, let n) where c == .flights: o.documents += n
                default: break
                }
            }
            let synced = store.rows(.flights).filter { !$0.isDirty }.count
            guard synced == flights.count else {
                throw BenchmarkError.mismatch("\(synced) of \(flights.count) flights synced")
            }
            return o
        }
        let (first, firstStore) = device("benchmark-device-1")
        for (name, bytes) in flights {
            try first.importFlight(igc: bytes, fields: IGCImportCheck.fields(igc: bytes, filename: name))
            clock.advance(seconds: 1)
        }
        var cpu = 0.0
        var usage = ThreadUsage.now()
        let pushWall = try seconds { cpu = try cpuSeconds { try first.sync() } }
        var push = try outcome(first, firstStore, seconds: pushWall)
        push.cpuSeconds = cpu
        push.faults = ThreadUsage.now().faults - usage.faults
        push.documents = flights.count
        push.objectBytes = storage.allObjects.reduce(0) { $0 + $1.bytes.count }
        clock.advance(seconds: 60)
        let (second, secondStore) = device("benchmark-device-2")
        usage = ThreadUsage.now()
        let pullWall = try seconds { cpu = try cpuSeconds { try second.sync() } }
        var pull = try outcome(second, secondStore, seconds: pullWall)
        pull.cpuSeconds = cpu
        pull.faults = ThreadUsage.now().faults - usage.faults
        guard pull.documents == flights.count, pull.writes == 0 else {
            throw BenchmarkError.mismatch("the second device pulled \(pull.documents) and wrote \(pull.writes)")
        }
        return (push, pull)
    }

    /// The first push of `flights` in memory through `SyncEngineActor` (events to an `AsyncStream`
    /// that a task reads, cancellation asked before every request): CPU seconds on the actor's
    /// queue and wall seconds of the `await` from outside, the import not timed.
    static func actorPush(_ flights: [(name: String, bytes: Data)]) throws -> (cpu: Double, wall: Double) {
        let serverClock = WritesBenchmark.Clock()
        let clock = ManualClock(try FirestoreTimestamp(seconds: 1_792_504_987))
        let device = SyncEngineActor(
            configuration: SyncConfiguration(uid: "benchmark-actor", deviceId: "actor", platform: .android),
            database: InMemoryFirestore(clock: { serverClock.now() }), storage: InMemoryCloudStorage(),
            store: InMemoryLocalStore(), clock: clock.source)
        let reader = Task { for await _ in device.events {} }
        defer { reader.cancel() }
        return try waitFor {
            for (name, bytes) in flights {
                _ = try await device.importFlight(igc: bytes, fields: IGCImportCheck.fields(igc: bytes, filename: name))
                clock.advance(seconds: 1)
            }
            let start = DispatchTime.now().uptimeNanoseconds
            let cpu = try await device.withEngine { engine in try cpuSeconds { try engine.sync() } }
            let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let synced = await device.rows(.flights).filter { !$0.isDirty }.count
            guard synced == flights.count else {
                throw BenchmarkError.mismatch("\(synced) of \(flights.count) flights synced through the actor")
            }
            return (cpu, wall)
        }
    }

    /// Runs `body` in a task and blocks the calling thread until it ends: the benchmark's code is
    /// synchronous.
    static func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = TaskOutcome<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { outcome.result = .success(try await body()) } catch { outcome.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try outcome.result!.get()
    }

    static func memorySyncs(_ flights: [(name: String, bytes: Data)], sdkSurface: Bool = false) throws
        -> (push: Outcome, pull: Outcome)
    {
        let serverClock = WritesBenchmark.Clock()
        return try firstSyncs(
            flights, database: InMemoryFirestore(clock: { serverClock.now() }), uid: "benchmark", sdkSurface: sdkSurface
        )
    }

    /// A database that sends one commit at a time (the protocol's default `commitEach`): the
    /// baseline the pipelined push is measured against.
    final class OneCommitAtATime: FirestoreDatabase, @unchecked Sendable {
        let backend: FirestoreDatabase
        init(backend: FirestoreDatabase) { self.backend = backend }
        var database: String { backend.database }
        func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
            try backend.commit(writes)
        }
        func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? { try backend.get(path) }
        func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
            try backend.runQuery(query)
        }
    }

    static func describe(_ o: Outcome) -> String {
        "\(Report.count(o.writes)) writes in \(Report.count(o.commits)) commits, "
            + "\(Report.mib(o.estimatedBytes)) of documents + \(Report.mib(o.objectBytes)) of objects"
    }

    static func run() throws {
        print("sync: the reference engine's first sync of a logbook (import not timed; pull, then push with blobs)")
        print(machineLine())
        print(
            "  the logbook: \(min(corpus.count, 500)) corpus IGC files"
                + (corpus.isEmpty ? " (../shared/corpus is absent)" : "") + " plus generated ones (120 fixes each)")
        let flights500 = logbook(500)

        // 1. 500 flights in memory beside the emulator.
        // The direct push and the push through SyncEngineActor in the same rounds, so that other
        // load on the machine weighs on both alike.
        let rounds = try (0..<3).map { _ in
            (try memorySyncs(flights500), try actorPush(flights500), try memorySyncs(flights500, sdkSurface: true))
        }
        let memory = rounds.map(\.0)
        let pushRate = Double(flights500.count) / median(memory.map(\.push.seconds))
        let pullRate = Double(flights500.count) / median(memory.map(\.pull.seconds))
        print("  first sync of 500 flights, the device that has them: \(describe(memory[0].push))")
        print(
            "  then a second device's first sync (pulls them): \(Report.count(memory[0].pull.documents)) documents, "
                + "\(Report.count(memory[0].pull.writes)) writes")
        print(Report.line("ours: InMemoryFirestore, push", Report.rate(pushRate, "documents/s")))
        print(Report.line("ours: InMemoryFirestore, pull", Report.rate(pullRate, "documents/s")))
        // Issue 23's goal: each side of the first sync of 500 flights in ≤ 50 ms of CPU.
        for (label, cpu) in [
            ("push", median(memory.map(\.push.cpuSeconds))), ("pull", median(memory.map(\.pull.cpuSeconds))),
        ] {
            print(
                Report.line(
                    "ours: 500 flights in memory, \(label) CPU",
                    String(format: "%8.1f ms", cpu * 1e3)
                        + String(format: "   (goal ≤ 50 ms: %@)", cpu <= 0.050 ? "met" : "NOT MET")))
        }
        // Issue 21: the engine behind SyncEngineActor must not be slower than the engine itself.
        let actor = rounds.map(\.1)
        let directCPU = median(memory.map(\.push.cpuSeconds))
        let actorCPU = median(actor.map(\.cpu))
        print(
            Report.line(
                "ours: the same push through SyncEngineActor, CPU", String(format: "%8.1f ms", actorCPU * 1e3))
                + String(format: "   async overhead × %.2f of the direct push", actorCPU / directCPU))
        let actorWall = median(actor.map(\.wall))
        print(
            Report.line("ours: SyncEngineActor, push", Report.rate(Double(flights500.count) / actorWall, "documents/s"))
                + String(format: "   wall × %.2f of the direct push", actorWall / median(memory.map(\.push.seconds))))
        // The same syncs over the SDKs' surface: every version check a transaction that reads first.
        let client = rounds.map(\.2)
        for (label, cpu, direct) in [
            ("push", median(client.map(\.push.cpuSeconds)), directCPU),
            ("pull", median(client.map(\.pull.cpuSeconds)), median(memory.map(\.pull.cpuSeconds))),
        ] {
            print(
                Report.line(
                    "ours: over the SDKs' surface (SDKSurfaceFirestore), \(label) CPU",
                    String(format: "%8.1f ms", cpu * 1e3))
                    + String(format: "   × %.2f of the same \(label) over the database", cpu / direct))
        }
        switch FirestoreEmulator.availability() {
        case .available:
            let emulator = try FirestoreEmulator.start()
            defer { emulator.stop() }
            // Four unmeasured syncs first (about 2,000 commits): the emulator's JVM compiles its hot
            // paths over the first thousands of commits, which would slow whichever side ran first.
            for round in 0..<4 {
                _ = try firstSyncs(flights500, database: emulator.client(), uid: "benchmark-warm-up-\(round)")
            }
            // Three rounds of each side, interleaved; medians.
            let emulatorRounds = try (0..<3).map { round in
                (
                    try firstSyncs(flights500, database: emulator.client(), uid: "benchmark-sync-\(round)"),
                    try firstSyncs(
                        flights500, database: OneCommitAtATime(backend: emulator.client()),
                        uid: "benchmark-serial-\(round)")
                )
            }
            let remote = emulatorRounds[0].0
            let theirPush = Double(flights500.count) / median(emulatorRounds.map(\.0.push.seconds))
            // Issue 23's goal: with commits in flight together, the push is ≥ 4× the 81 documents/s
            // it ran at when the issue was filed (one commit at a time through URLSession). The same
            // push one commit at a time is measured here too: both sides share two cores with the
            // emulator, which bounds what overlapping can add over it.
            let serialPush = Double(flights500.count) / median(emulatorRounds.map(\.1.push.seconds))
            print(
                Report.line(
                    "engine → emulator, one commit at a time, push", Report.rate(serialPush, "documents/s")))
            print(
                Report.line(
                    "ours: engine → emulator, \(emulator.client().commitsInFlight) in flight, push",
                    Report.rate(theirPush, "documents/s"))
                    + String(format: "   × %.2f of one at a time", theirPush / serialPush))
            print(
                Report.line(
                    "ours: that push ÷ the push when issue 23 was filed", Report.rate(81, "documents/s"),
                    ratio: theirPush / 81, goal: 4.0))
            let theirPull = Double(flights500.count) / median(emulatorRounds.map(\.0.pull.seconds))
            print(
                Report.line(
                    "Firestore emulator over REST, push (\(Report.count(remote.push.commits)) commits)",
                    Report.rate(theirPush, "documents/s"), ratio: pushRate / theirPush))
            print(
                Report.line(
                    "Firestore emulator over REST, pull", Report.rate(theirPull, "documents/s"),
                    ratio: pullRate / theirPull))
            print("    (ratio: in memory ÷ emulator; each emulator round writes under a user of its own)")
        case .unavailable(let why):
            print("  the emulator side is skipped: \(why)")
        }

        // 2. The cost per document in memory as the logbook grows.
        try costPerDocument(flights500)
    }

    /// The CPU time per document of the first sync in memory at 500, 5,000 and 50,000 flights, push
    /// and pull, and the 50,000-flight cost against the 500-flight one (issue 23: within 1.2×).
    ///
    /// Every size is measured on memory the process has already touched, as the 500-flight rounds
    /// always were: the heap keeps what it frees (glibc's `M_TRIM_THRESHOLD`), and one unmeasured
    /// round of each size goes first. A bigger logbook would otherwise pay its first touches of new
    /// pages (two per document, on a VM about 10 µs each where the host backs the page), a cost of
    /// the process's history, not of the engine; the page faults per document are printed, so the
    /// condition shows.
    ///
    /// On a shared machine one run can take half as long again as the next, so a bigger size is
    /// judged against the 500-flight runs next to it in time: three just before and three just after
    /// it, their median. Each ratio is taken within a round; the printed ratio is the median of
    /// ``costRounds`` rounds, and every round's ratio is printed beside it.
    static func costPerDocument(_ flights500: [(name: String, bytes: Data)]) throws {
        print("  CPU time per document in memory (goal: within 1.2× of the 500-flight cost at 50,000)")
        let sizes = [500, 5_000, 50_000]
        let logbooks = sizes.map { $0 == 500 ? flights500 : logbook($0) }
        retainFreedMemory()
        for flights in logbooks { _ = try memorySyncs(flights) }
        func cost(_ runs: [(push: Outcome, pull: Outcome)], _ n: Int) -> SizeCost {
            SizeCost(
                push: median(runs.map(\.push.cpuSeconds)) / Double(n),
                pull: median(runs.map(\.pull.cpuSeconds)) / Double(n),
                faults: median(runs.map { Double($0.push.faults + $0.pull.faults) }) / (2 * Double(n)))
        }
        func smallRuns() throws -> [(push: Outcome, pull: Outcome)] {
            try (0..<3).map { _ in try memorySyncs(flights500) }
        }
        // costs[r][i]: round r's cost of size i; ratios[r][i]: against the 500-flight runs around it.
        var costs: [[SizeCost]] = []
        var ratios: [[SizeCost]] = []
        for _ in 0..<costRounds {
            var before = try smallRuns()
            var roundCosts = [cost(before, 500)]
            var roundRatios = [SizeCost(push: 1, pull: 1, faults: 1)]
            for (i, flights) in logbooks.enumerated() where i > 0 {
                let c = cost([try memorySyncs(flights)], flights.count)
                let after = try smallRuns()
                let around = cost(before + after, 500)
                roundCosts.append(c)
                roundRatios.append(SizeCost(push: c.push / around.push, pull: c.pull / around.pull, faults: 0))
                before = after
            }
            costs.append(roundCosts)
            ratios.append(roundRatios)
        }
        for (i, count) in sizes.enumerated() {
            for (side, keyPath) in [("push", \SizeCost.push), ("pull", \SizeCost.pull)] {
                let each = ratios.map { $0[i][keyPath: keyPath] }
                let ratio = median(each)
                let goal = ratio <= 1.2 ? " (goal ≤ 1.2×: met)" : " (goal ≤ 1.2×: NOT MET)"
                print(
                    Report.line(
                        "\(Report.count(count)) flights, \(side)",
                        String(format: "%8.1f µs/document", median(costs.map { $0[i][keyPath: keyPath] }) * 1e6))
                        + String(format: "   × %.2f of 500", ratio)
                        + (count == 50_000
                            ? goal + "; rounds × " + each.map { String(format: "%.2f", $0) }.joined(separator: ", ")
                            : ""))
            }
        }
        let faults = sizes.indices.map { i in
            Report.count(sizes[i]) + String(format: " %.2f", median(costs.map { $0[i].faults }))
        }
        print("    (page faults per document and side in the measured rounds: \(faults.joined(separator: ", ")))")
    }

    /// The rounds of ``costPerDocument(_:)``.
    static let costRounds = 5

    /// One size's first sync in one round: CPU seconds per document of the push and of the pull, and
    /// page faults per document and side.
    struct SizeCost {
        var push: Double
        var pull: Double
        var faults: Double
    }

    /// Keeps freed memory in the process (glibc's `mallopt`, from `<malloc.h>`, which Swift does not
    /// import): no trim of the heap's top (`M_TRIM_THRESHOLD`, -1), and blocks up to 32 MiB from the
    /// heap rather than from maps returned on free (`M_MMAP_THRESHOLD`, -3), for the rest of the run.
    /// Elsewhere, nothing.
    static func retainFreedMemory() {
        #if canImport(Glibc)
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            _ = mallopt(-1, Int32.max)
            _ = mallopt(-3, 32 << 20)
        #endif
    }
}

/// What a task handed back to a thread waiting on a semaphore: written once before the signal,
/// read once after the wait.
final class TaskOutcome<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
