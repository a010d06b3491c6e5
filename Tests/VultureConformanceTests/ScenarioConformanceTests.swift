import Foundation
import Testing
import VultureChildProcess
import VultureConformance
import VultureReference
import VultureScenarios
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting
import VultureTesteeProcess

/// Another sync engine judged against the scenario goldens through the engine operations
/// (Goldens/protocol/README.md, Engine operations): in process, and over the testee protocol with the
/// reference testee as a child process.
@Suite(.serialized) struct ScenarioConformanceTests {
    static func scenarioCases() throws -> [ConformanceCase] {
        try GoldenSuite.load().cases.filter { $0.op == ScenarioConformance.caseOp }
    }

    @Test func everyScenarioGoldenIsACaseWithItsStableId() throws {
        let cases = try Self.scenarioCases()
        #expect(cases.count >= 25)
        #expect(cases.allSatisfy { $0.area == "scenarios" })
        // The level follows the pins: a choice or an open question makes a scenario recommended.
        for c in cases {
            let soft = c.pins.contains { SchemaPin(rawValue: $0)?.kind != .schema }
            #expect(c.id.hasPrefix(soft ? "recommended.scenario." : "required.scenario."), "\(c.id): \(c.pins)")
        }
        #expect(cases.map(\.id).contains("recommended.scenario.recents-tie-smaller-id-keeps"))
        #expect(cases.map(\.id).contains("required.scenario.overlap-late-commit"))
        #expect(cases.first { $0.id == "required.scenario.quota-pause" }?.section == "schema §3")
    }

    @Test func theReferenceEnginePassesEveryScenarioInProcess() throws {
        let cases = try Self.scenarioCases()
        var reference = ReferenceImplementation(schema: .vulture)
        let run = ConformanceRunner.run(cases, on: &reference)
        let failures = run.results.flatMap(ConformanceRunner.failureLines)
        #expect(run.summary == RunSummary(passed: cases.count, failed: 0, skipped: 0), "\(failures)")
        #expect(run.exitStatus == 0)
    }

    /// An engine that pulls from its cursor without the 2-minute overlap misses the late commits
    /// (the recents-tie scenarios make one too, so that two devices receive flights in different orders).
    @Test func anEngineWithoutTheOverlapFailsTheLateCommitScenarios() throws {
        let cases = try Self.scenarioCases()
        var broken = ReferenceImplementation(schema: .vulture, injectedBugs: [.noOverlap])
        let run = ConformanceRunner.run(cases, on: &broken)
        let failed = run.results.filter { $0.outcome.isFailed }.map(\.id)
        #expect(
            failed == [
                "required.scenario.overlap-edge-inclusive", "required.scenario.overlap-late-commit",
                "required.scenario.recents-tie-same-instant", "recommended.scenario.recents-tie-smaller-id-keeps",
            ])
        let late = try #require(run.results.first { $0.id == "required.scenario.overlap-late-commit" })
        #expect(
            ConformanceRunner.failureLines(late).first
                == "FAIL required.scenario.overlap-late-commit (schema §5.2): 1 expectation(s) of the scenario did not hold:\n    /steps/9/rows/b/homebases~1\(DocumentIds.homebaseId(name: "Field 002")): expected a row, found none"
        )
        // Listed in a failure list, the run passes; the list is strict both ways.
        let list = try FailureList(
            text:
                "required.scenario.overlap-edge-inclusive  # noOverlap\nrequired.scenario.overlap-late-commit  # noOverlap\n"
                + "required.scenario.recents-tie-same-instant  # noOverlap\n",
            file: "known.txt")
        var again = ReferenceImplementation(schema: .vulture, injectedBugs: [.noOverlap])
        #expect(ConformanceRunner.run(cases, on: &again, failureList: list).exitStatus == 0)
        var fixed = ReferenceImplementation(schema: .vulture)
        let stale = ConformanceRunner.run(cases, on: &fixed, failureList: list)
        #expect(stale.exitStatus == 1)
        #expect(
            stale.reconciliation.unexpectedPasses == [
                "required.scenario.overlap-edge-inclusive", "required.scenario.overlap-late-commit",
                "required.scenario.recents-tie-same-instant",
            ])
        // The first page asks updatedAt >= cursor − 120 s: with > the edge commit is missed.
        var strict = ReferenceImplementation(schema: .vulture, injectedBugs: [.strictCursor])
        let strictRun = ConformanceRunner.run(cases, on: &strict)
        #expect(
            strictRun.results.filter { $0.outcome.isFailed }.map(\.id) == ["required.scenario.overlap-edge-inclusive"])
    }

    /// An implementation without engines skips the scenarios: a required case fails unless listed.
    @Test func anImplementationWithoutEnginesSkipsThem() throws {
        struct IdsOnly: ConformanceImplementation {
            mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
                .skipped(reason: "no \(testCase.op)")
            }
        }
        let cases = try Self.scenarioCases()
        var implementation = IdsOnly()
        let run = ConformanceRunner.run(Array(cases.filter(\.isRequired).prefix(2)), on: &implementation)
        #expect(run.summary.failed == 2)
        let first = try #require(run.results.first)
        guard case .failed(let message, _) = first.outcome else {
            Issue.record("not failed: \(first.outcome)")
            return
        }
        #expect(message.hasPrefix("skipped by the implementation (no engine.reset)"))
    }

    static var referenceTestee: String? {
        ChildProcess.builtExecutable(named: "vulture-reference-testee")
    }

    /// The reference testee, a child process, passes every scenario over the protocol (engine
    /// operations with server requests); with an injected bug it fails the scenario that catches it.
    @Test(.enabled(if: referenceTestee != nil, "executables are not built"))
    func theReferenceTesteePassesEveryScenarioOverTheProtocol() throws {
        let exe = try #require(Self.referenceTestee)
        let cases = try Self.scenarioCases()
        let suite = try GoldenSuite.load()
        let testee = TesteeProcess(command: "'\(exe)'", timeout: 60, suiteVersion: suite.version)
        var driven = testee
        try testee.start()
        let run = ConformanceRunner.run(cases, on: &driven)
        testee.stop()
        let failures = run.results.flatMap(ConformanceRunner.failureLines)
        #expect(run.summary == RunSummary(passed: cases.count, failed: 0, skipped: 0), "\(failures)")
        #expect(testee.starts == 1, "one long-lived process")

        let buggy = TesteeProcess(
            command: "'\(exe)' --inject pagingByUpdatedAtAlone", timeout: 60, suiteVersion: suite.version)
        var drivenBuggy = buggy
        try buggy.start()
        let broken = ConformanceRunner.run(cases, on: &drivenBuggy)
        buggy.stop()
        let failed = broken.results.filter { $0.outcome.isFailed }.map(\.id)
        #expect(failed == ["required.scenario.first-sync-520-writes", "required.scenario.pull-page-edge-ties"])
    }
}
