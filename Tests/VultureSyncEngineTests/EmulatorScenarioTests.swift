import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// The gate of the tests that need both emulators: they run where the Firestore emulator jar (with
/// Java) and fake-gcs-server are installed, and where one is missing but `VULTURE_REQUIRE_EMULATOR=1`
/// (`.ci/run`), so that CI fails instead of skipping.
enum EmulatorBackends {
    static let missing: String? = {
        var why: [String] = []
        if case .unavailable(let w) = FirestoreEmulator.availability() { why.append(w) }
        if case .unavailable(let w) = CloudStorageEmulator.availability() { why.append(w) }
        return why.isEmpty ? nil : why.joined(separator: "; ")
    }()

    /// True when the tests should run.
    static let enabled = missing == nil || FirestoreEmulator.isRequired

    /// Why they are skipped, printed beside the skipped test.
    static let skipReason: Comment = {
        if let missing {
            if !FirestoreEmulator.isRequired { print("skipped: emulator scenario tests: \(missing)") }
            return Comment(rawValue: missing)
        }
        return "both emulators are available"
    }()

    nonisolated(unsafe) private static var counter = 0
    private static let counterLock = NSLock()

    /// A name no other run of this process uses (`demo-vulture-scenario-PID-N`).
    static func uniqueName(_ prefix: String) -> String {
        counterLock.lock()
        defer { counterLock.unlock() }
        counter += 1
        return "\(prefix)-\(getpid())-\(counter)"
    }

    /// A backend of its own: a fresh emulator project (with the generated security rules loaded
    /// when `rules` is given) and a fresh bucket, on the process's shared emulators.
    static func backend(rules: String? = nil) throws -> EmulatorScenarioBackend {
        let emulator = try FirestoreEmulator.shared()
        let project = uniqueName("demo-vulture-scenario")
        if let rules { try emulator.loadRules(rules, projectId: project) }
        let bucket = try CloudStorageEmulator.shared().client(bucket: uniqueName("vulture-scenario"))
        return EmulatorScenarioBackend(firestoreURL: emulator.baseURL, projectId: project, bucket: bucket)
    }

    /// The package root (this file is Tests/VultureSyncEngineTests/…).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The checked-in security rules (`Goldens/firestore.rules`, generated from Spec/).
    static func generatedRules() throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent("Goldens/firestore.rules"), encoding: .utf8)
    }

    /// Every scenario golden (`Goldens/scenarios/**/*.json`), by file name.
    static func scenarioGoldens() throws -> [(file: String, scenario: Scenario)] {
        let folder = packageRoot.appendingPathComponent("Goldens/scenarios")
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var out: [(String, Scenario)] = []
        for case let relative as String in walker where relative.hasSuffix(".json") {
            let url = folder.appendingPathComponent(relative)
            let bytes = try [UInt8](Data(contentsOf: url))
            let file = "Goldens/scenarios/\(relative)"
            // Other JSON files of the folder (a format's schema) are not scenarios.
            let value = try CanonicalJSON.decode(bytes, file: file)
            guard value[fieldPath: "steps"] != nil else { continue }
            out.append((file, try Scenario(value, file: file)))
        }
        return out.sorted { $0.0 < $1.0 }
    }
}

/// Every scenario replayed by the reference engine on the real parts — the Firestore emulator with
/// the generated rules loaded and the devices signed in as the user (never `owner`), and
/// fake-gcs-server — holds the same expectations as in memory.
@Suite(.enabled(if: EmulatorBackends.enabled, EmulatorBackends.skipReason))
struct EmulatorScenarioTests {
    static func replayBoth(_ scenario: Scenario, rules: String) throws {
        let memory = ScenarioReplay.run(scenario, backend: InMemoryScenarioBackend(start: scenario.start))
        #expect(memory.failures == [], "\(scenario.id) in memory")
        let emulator = ScenarioReplay.run(scenario, backend: try EmulatorBackends.backend(rules: rules))
        #expect(
            emulator.failures == [],
            "\(scenario.id) on the emulators; events: \(emulator.events.mapValues { $0.map(\.description) })")
    }

    @Test func theInlineScenarioHoldsOnTheEmulators() throws {
        let scenario = try ScenarioReplayTests.homebaseScenario()
        try Self.replayBoth(scenario, rules: try EmulatorBackends.generatedRules())
    }

    @Test func everyScenarioGoldenHoldsOnTheEmulators() throws {
        let rules = try EmulatorBackends.generatedRules()
        let goldens = try EmulatorBackends.scenarioGoldens()
        print("replaying \(goldens.count) scenario goldens on the emulators")
        for (_, scenario) in goldens {
            try Self.replayBoth(scenario, rules: rules)
        }
    }

    @Test func aScenarioStartsOnTheEmulatorsDayWithinADay() throws {
        let start = try FirestoreTimestamp(seconds: 1_792_504_987)
        let now = try FirestoreTimestamp(seconds: 1_796_000_000, microseconds: 5)
        let moved = EmulatorScenarioBackend.start(start, near: now)
        #expect(moved >= now && moved < now.adding(seconds: 86_400))
        #expect((moved.seconds - start.seconds) % 86_400 == 0, "whole days: the time of day is kept")
        #expect(EmulatorScenarioBackend.start(now.adding(seconds: 86_400 * 3 + 7), near: now) == now.adding(seconds: 7))
    }
}
