import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureScenarios
import VultureSimulation
import VultureSyncEngine

/// The simulation against the real parts (`vulture-simulate --backend emulator`): the Firestore
/// emulator with the generated rules loaded and fake-gcs-server, a project and a bucket per run.
/// `.ci/run` runs 20 seeds with the release build; here two short ones keep the unit tests quick.
/// They run where both emulators are installed, and fail instead of skipping under
/// `VULTURE_REQUIRE_EMULATOR=1`.
@Suite struct EmulatorSimulationTests {
    static let missing: String? = {
        var why: [String] = []
        if case .unavailable(let w) = FirestoreEmulator.availability() { why.append(w) }
        if case .unavailable(let w) = CloudStorageEmulator.availability() { why.append(w) }
        if let w = why.first, !FirestoreEmulator.isRequired { print("skipped: emulator simulation: \(w)") }
        return why.isEmpty ? nil : why.joined(separator: "; ")
    }()
    static let enabled = missing == nil || FirestoreEmulator.isRequired

    @Test(.enabled(if: enabled, Comment(rawValue: missing ?? "both emulators are available")))
    func seedsKeepEveryInvariantOnTheEmulators() throws {
        let firestore = try FirestoreEmulator.shared()
        let storage = try CloudStorageEmulator.shared()
        let rulesURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Goldens/firestore.rules")
        let rules = try String(contentsOf: rulesURL, encoding: .utf8)
        let outcomes = SimulationBatch.run(
            [SimulationOptions(seed: 1, steps: 30), SimulationOptions(seed: 2, steps: 30)],
            backend: { options in
                let name = "demo-vulture-simtest-\(getpid())-\(options.seed)"
                try firestore.loadRules(rules, projectId: name)
                return EmulatorScenarioBackend(
                    firestoreURL: firestore.baseURL, projectId: name, bucket: try storage.client(bucket: name))
            })
        #expect(outcomes.count == 2)
        for o in outcomes {
            #expect(o.failure == nil, "seed \(o.options.seed): \(o.failure.map { "\($0.violation)" } ?? "")")
            #expect(o.trace.count > 30, "seed \(o.options.seed) ran its steps")
        }
        // The same seed makes the same decisions against either server.
        let memory = Simulation.run(SimulationOptions(seed: 1, steps: 30))
        #expect(outcomes.first?.choices.prefix(3) == memory.choices.prefix(3))
    }
}
