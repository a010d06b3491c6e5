import Testing
import VultureFirestore
import VultureSchemaCore
import VultureSimulation
import VultureSyncEngine

/// The simulation as README "The simulation" describes it: seeded worlds against the reference
/// engine keep every invariant, each injected bug is caught, a run replays from its seed, and a
/// failure shrinks to a scenario that breaks the same invariant.
@Suite struct SimulationTests {
    /// Runs `count` seeds from `start` on every core.
    static func run(_ count: Int, from start: Int = 1, bug: InjectedBug? = nil) -> [SimulationOutcome] {
        SimulationBatch.run((start..<(start + count)).map { SimulationOptions(seed: UInt64($0), injectedBug: bug) })
    }

    /// The first run among 1,000 seeds, in chunks, that breaks an invariant with `bug` injected.
    static func firstCatch(_ bug: InjectedBug) -> SimulationOutcome? {
        var start = 1
        while start <= 1_000 {
            if let caught = run(100, from: start, bug: bug).first(where: { $0.failure != nil }) { return caught }
            start += 100
        }
        return nil
    }

    /// `.ci/run` runs the thousand seeds of issue 11 with the release build of `vulture-simulate`;
    /// here the first 200 keep the unit tests quick.
    @Test func theReferenceEngineKeepsEveryInvariant() {
        let failures = Self.run(200).compactMap { o in o.failure.map { "seed \(o.options.seed): \($0.violation)" } }
        #expect(failures == [])
    }

    /// The invariant that names each injected bug: the first seed that catches it breaks this one.
    static let namedBy: [InjectedBug: Invariant] = [
        .pagingByUpdatedAtAlone: .convergence,
        .noOverlap: .convergence,
        .strictCursor: .convergence,
        .clearDoesNotTravel: .acknowledgedEditKept,
        .trimWithoutIdTieBreak: .recentsTieOrder,
        .reserveWithoutPrecondition: .storageBytesCounted,
        .purgeDeletesLive: .storageBytesCounted,
        .downloadBeforeUploaded: .downloadOnlyWhenUploaded,
    ]

    @Test(arguments: InjectedBug.allCases)
    func everyInjectedBugIsCaughtWithinAThousandSeeds(_ bug: InjectedBug) throws {
        let caught = try #require(Self.firstCatch(bug), "\(bug.rawValue) kept every invariant over 1,000 seeds")
        #expect(caught.failure?.violation.invariant == Self.namedBy[bug])
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
        let caught = try #require(Self.firstCatch(.clearDoesNotTravel))
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
