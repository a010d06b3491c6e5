import Foundation
import VultureScenarios
import VultureSchemaCore
import VultureSyncSchema

/// The outcome of a whole run: per-case results, counts, and the failure-list reconciliation.
public struct ConformanceRun: Sendable {
    /// Every case run, in run order.
    public var results: [CaseResult]
    /// How the failed and passed cases agree with the failure list.
    public var reconciliation: FailureList.Reconciliation
    /// Failed cases the failure list names (expected failures).
    public var expectedFailures: [String]
    /// Failed `recommended.*` cases, reported without failing the run.
    public var recommendedFailures: [String]

    /// Counts for the closing line: expected failures count as skipped; a listed case that passed
    /// (a stale entry) counts as failed, not passed; an entry that matches no case adds a failure.
    public var summary: RunSummary {
        var s = RunSummary()
        let stale = Set(reconciliation.unexpectedPasses)
        for r in results {
            switch r.outcome {
            case .passed: if stale.contains(r.id) { s.failed += 1 } else { s.passed += 1 }
            case .skipped: s.skipped += 1
            case .failed: if expectedFailures.contains(r.id) { s.skipped += 1 } else { s.failed += 1 }
            }
        }
        s.failed += reconciliation.unknownEntries.count
        return s
    }

    /// 0 when every required case passed or is listed, the list is exact, and at least one case
    /// passed (an implementation that skips everything is not conformant); 1 otherwise (README "The conformance runner").
    public var exitStatus: Int32 {
        let required = reconciliation.unexpectedFailures.filter { !recommendedFailures.contains($0) }
        let listExact = reconciliation.unexpectedPasses.isEmpty && reconciliation.unknownEntries.isEmpty
        return required.isEmpty && listExact && !nothingPassed ? 0 : 1
    }

    /// Cases ran and none passed.
    public var nothingPassed: Bool { !results.isEmpty && !results.contains { $0.outcome.isPassed } }
}

/// Runs conformance cases against an implementation (README "The conformance runner", Goldens/protocol/README.md).
public enum ConformanceRunner {
    /// Runs `cases` (all, or only the ids in `only`) against `implementation` and reconciles the
    /// results with `failureList` (an empty list when nil).
    ///
    /// A required case the implementation skips does not pass: it fails unless the failure list
    /// names it, so exit status 0 means every required case passed or is listed (README "The conformance runner").
    /// `skippedRequiredFails: false` (for `check DIR`, where an absent output file is a partial
    /// check) leaves skipped cases skipped.
    ///
    /// - Parameters:
    ///   - cases: the cases, in the order to run them (``GoldenSuite/cases``).
    ///   - implementation: what answers them.
    ///   - failureList: the case ids expected to fail; nil for none.
    ///   - only: the ids to run; nil for all.
    ///   - skippedRequiredFails: whether a skipped required case fails (it does, but for `check DIR`).
    ///   - progress: called after each case, for live output.
    public static func run<I: ConformanceImplementation>(
        _ cases: [ConformanceCase], on implementation: inout I, failureList: FailureList? = nil,
        only: Set<String>? = nil, skippedRequiredFails: Bool = true, progress: (CaseResult) -> Void = { _ in }
    ) -> ConformanceRun {
        var results: [CaseResult] = []
        for c in cases where only?.contains(c.id) ?? true {
            var answer: ImplementationAnswer = .broken("not run")
            // A monotonic clock on every supported OS version (ContinuousClock needs macOS 13 and iOS 16).
            let start = DispatchTime.now().uptimeNanoseconds
            var outcome: CaseOutcome
            if c.op == ScenarioConformance.caseOp {
                // A scenario is many engine operations, judged by its expect steps.
                outcome = ScenarioConformance.judge(c, on: &implementation)
                answer = .output(.null)
            } else {
                answer = implementation.answer(c)
                outcome = c.judge(answer)
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
            if skippedRequiredFails, c.isRequired, case .skipped(let reason) = outcome {
                outcome = .failed(
                    message:
                        "skipped by the implementation (\(reason)); a required case fails unless the failure list names it",
                    differences: [])
            }
            let result = CaseResult(
                id: c.id, section: c.section, outcome: outcome, seconds: seconds, testCase: c, answer: answer)
            results.append(result)
            progress(result)
        }
        let list = failureList ?? FailureList()
        let allIDs = Set(cases.map(\.id))
        var rec = list.reconcile(results, allCaseIDs: allIDs)
        if only != nil {
            // A partial run cannot tell a stale entry from one whose case did not run.
            rec.unknownEntries = rec.unknownEntries.filter { !allIDs.contains($0.id) }
        }
        let failed = results.filter { $0.outcome.isFailed }.map(\.id)
        return ConformanceRun(
            results: results, reconciliation: rec,
            expectedFailures: failed.filter { list.entries[$0] != nil },
            recommendedFailures: failed.filter { $0.hasPrefix("recommended.") })
    }

    /// The lines of one failed case: `FAIL id (section): message`, each difference, then what explains
    /// it (``FailureExplanation``: the hashed text of an id, the expected rejection's meaning, the note,
    /// the pins and the input). Empty for a case that did not fail.
    public static func failureLines(_ r: CaseResult) -> [String] {
        guard case .failed(let message, let differences) = r.outcome else { return [] }
        var lines = ["FAIL \(r.id) (\(r.section)): \(message)"]
        for d in differences { lines.append("  \(d)") }
        return lines + FailureExplanation.lines(for: r)
    }

    /// Human-readable lines for a finished run: each unexpected failure with its differences and
    /// explanation (once: `includeFailures: false` leaves them out when they were printed as the cases
    /// ran), failure-list problems, and the closing `N passed, N failed[, N skipped]` line last.
    public static func report(_ run: ConformanceRun, failureList: FailureList?, includeFailures: Bool = true)
        -> [String]
    {
        var lines: [String] = []
        for r in run.results where includeFailures && !run.expectedFailures.contains(r.id) {
            lines += failureLines(r)
        }
        let file = failureList?.file ?? "the failure list"
        for id in run.reconciliation.unexpectedPasses {
            let at = failureList?.entries[id].map { "\(file):\($0)" } ?? file
            lines.append("STALE \(at): \(id) is listed but passed; remove the entry")
        }
        for e in run.reconciliation.unknownEntries {
            lines.append("UNKNOWN \(file):\(e.line): \(e.id) matches no case")
        }
        if run.nothingPassed {
            lines.append("no case passed: an implementation that skips or fails every case is not conformant")
        }
        if !run.expectedFailures.isEmpty {
            lines.append("\(run.expectedFailures.count) expected failure(s) listed in \(file), counted as skipped")
        }
        lines.append(run.summary.line)
        return lines
    }
}
