import Testing
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSimulation
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// The simulation as README "The simulation" describes it: seeded worlds against the reference
/// engine keep every invariant, each injected bug is caught, a run replays from its seed, and a
/// failure shrinks to a scenario that breaks the same invariant.
@Suite struct SimulationTests {
    /// Runs `count` seeds from `start` on every core.
    static func run(_ count: Int, from start: Int = 1, bug: InjectedBug? = nil) -> [SimulationOutcome] {
        SimulationBatch.run((start..<(start + count)).map { SimulationOptions(seed: UInt64($0), injectedBug: bug) })
    }

    /// `.ci/run` runs the thousand seeds of README "The simulation" with the release build of
    /// `vulture-simulate`; here, in a debug build, the first 40 keep the unit tests quick.
    @Test func theReferenceEngineKeepsEveryInvariant() {
        let failures = Self.run(40).compactMap { o in o.failure.map { "seed \(o.options.seed): \($0.violation)" } }
        #expect(failures == [])
    }

    /// The engines over the Firebase SDKs' surface alone (`--sdk-surface`): every version check in
    /// a transaction. `.ci/run` runs 1,000 such seeds; here the first 40, and the reserve without a
    /// version check is caught there too, on the seed that catches it over a database.
    @Test func theEngineOverTheSDKSurfaceKeepsEveryInvariant() {
        let outcomes = SimulationBatch.run((1...40).map { SimulationOptions(seed: UInt64($0), sdkSurface: true) })
        let failures = outcomes.compactMap { o in o.failure.map { "seed \(o.options.seed): \($0.violation)" } }
        #expect(failures == [])
        let caught = Simulation.run(
            SimulationOptions(seed: 5, injectedBug: .reserveWithoutPrecondition, sdkSurface: true))
        #expect(caught.failure?.violation.invariant == .storageBytesCounted)
    }

    /// For each injected bug, the first seed (of 1, 2, …) whose run breaks an invariant, and that
    /// invariant, as `vulture-simulate --inject NAME --seeds 1000` prints them. A change to the
    /// simulated world moves these seeds: run that command and write the first failing seed here.
    static let firstCatch: [InjectedBug: (seed: UInt64, invariant: Invariant)] = [
        .pagingByUpdatedAtAlone: (1, .convergence),
        .noOverlap: (3, .convergence),
        .strictCursor: (9, .convergence),
        .clearDoesNotTravel: (295, .acknowledgedEditKept),
        .trimWithoutIdTieBreak: (3, .recentsTieOrder),
        .reserveWithoutPrecondition: (5, .storageBytesCounted),
        .purgeDeletesLive: (8, .storageBytesCounted),
        .downloadBeforeUploaded: (1, .downloadOnlyWhenUploaded),
    ]

    /// The bugs the simulated world is meant to catch; the others (an engine's handling of large
    /// batches, a long absence, the R4 pass, the profile, …) need situations a random world rarely
    /// makes, and each is caught by the required scenario that EngineMutantTests names.
    static var simulatedBugs: [InjectedBug] { InjectedBug.allCases.filter { firstCatch[$0] != nil } }

    /// Each bug is caught within 1,000 seeds, by the invariant that names it, and the reference
    /// engine keeps every invariant on that same seed (the seed catches the bug, not the world).
    @Test(arguments: simulatedBugs)
    func everyInjectedBugIsCaughtWithinAThousandSeeds(_ bug: InjectedBug) throws {
        let expected = try #require(Self.firstCatch[bug], "no first catching seed written for \(bug.rawValue)")
        #expect(expected.seed <= 1_000)
        let caught = Simulation.run(SimulationOptions(seed: expected.seed, injectedBug: bug))
        #expect(caught.failure?.violation.invariant == expected.invariant, "seed \(expected.seed)")
        #expect(Simulation.run(SimulationOptions(seed: expected.seed)).failure == nil)
    }

    /// Seeds past 1,000 that once broke an invariant, each kept as a regression: a re-import over a
    /// newer analysis (analysisVersionNeverDrops), an object uploaded after another device's
    /// tombstone or left by a tombstone whose answer was lost (noOrphanedObject), and chains that
    /// need a fourth quiet-end round (convergence).
    @Test(arguments: [1448, 5337, 8093, 9629, 1477, 5066, 5816, 8267, 4820, 8801, 9075] as [UInt64])
    func aSeedThatOnceFailedKeepsEveryInvariant(_ seed: UInt64) {
        let outcome = Simulation.run(SimulationOptions(seed: seed))
        #expect(outcome.failure == nil, "seed \(seed): \(outcome.failure.map { "\($0.violation)" } ?? "")")
    }

    @Test func aSeedReplaysItsRun() {
        let once = Simulation.run(SimulationOptions(seed: 42))
        let again = Simulation.run(SimulationOptions(seed: 42))
        let other = Simulation.run(SimulationOptions(seed: 43))
        #expect(once.traceHash == again.traceHash)
        #expect(once.choices == again.choices)
        #expect(once.traceHash != other.traceHash)
        // Replaying the recorded decisions is the same run too.
        #expect(Simulation.run(SimulationOptions(seed: 42), tape: once.choices).traceHash == once.traceHash)
    }

    /// A deliberately broken merge rule (a clear of lastOpenedAt that does not travel) gives a
    /// shrunk run that replays from its decisions, and a scenario file that breaks the same invariant.
    @Test func aBrokenMergeRuleShrinksToAReplayableScenario() throws {
        let seed = try #require(Self.firstCatch[.clearDoesNotTravel]).seed
        let caught = Simulation.run(SimulationOptions(seed: seed, injectedBug: .clearDoesNotTravel))
        let shrunk = Shrinker.shrink(caught, budget: 1_500)
        let invariant = try #require(caught.failure?.violation.invariant)
        #expect(shrunk.failure?.violation.invariant == invariant)
        #expect(shrunk.choices.count < caught.choices.count)
        #expect(shrunk.steps.count < caught.steps.count)
        let replayed = Simulation.run(shrunk.options, tape: shrunk.choices)
        #expect(replayed.traceHash == shrunk.traceHash)

        let scenario = try Scenario(CanonicalJSON.decode(shrunk.scenarioBytes()))
        #expect(scenario.id == "scenario.simulation.seed-\(caught.options.seed)")
        let broken = try Simulation.check(scenario, injectedBug: .clearDoesNotTravel)
        #expect(broken?.violation.invariant == invariant)
        // Without the bug the same steps keep every invariant: the scenario pins the bug, not the run.
        #expect(try Simulation.check(scenario) == nil)
    }

    @Test func aScenarioForAnotherUserIsRefused() throws {
        let scenario = Scenario(
            id: "scenario.other-user", section: "schema §5", note: "", uid: "u2", start: .minimum,
            devices: [Scenario.Device(name: "a", platform: .android)], steps: [])
        #expect(throws: ScenarioError.self) { try Simulation.check(scenario) }
    }
}
