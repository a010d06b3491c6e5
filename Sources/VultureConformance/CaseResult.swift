import VultureSyncSchema

/// What became of one conformance case.
public enum CaseOutcome: Sendable, Hashable {
    /// The testee's answer matched the golden.
    case passed
    /// The testee answered, wrongly: a message and the differences found.
    case failed(message: String, differences: [ValueDifference])
    /// The testee declined the case (`{seq, skipped: reason}`) or the runner could not run it here.
    case skipped(reason: String)

    /// True for `.passed`.
    public var isPassed: Bool { if case .passed = self { true } else { false } }
    /// True for `.failed`.
    public var isFailed: Bool { if case .failed = self { true } else { false } }
}

/// One case's result: its stable id, the schema section it tests, and its outcome.
public struct CaseResult: Sendable, Hashable {
    /// Stable hierarchical id (`required.ids.homebase.trim`).
    public var id: String
    /// The schema section the case tests (`schema §4`).
    public var section: String
    /// Passed, failed (with message and differences) or skipped (with a reason).
    public var outcome: CaseOutcome
    /// Wall time, seconds.
    public var seconds: Double
    /// The case judged (its op, input, expectation, note and pins), for reports; nil when unknown.
    public var testCase: ConformanceCase?
    /// What the implementation answered; nil when unknown.
    public var answer: ImplementationAnswer?

    /// A result; `seconds` is the wall time the case took, in seconds.
    public init(
        id: String, section: String, outcome: CaseOutcome, seconds: Double = 0, testCase: ConformanceCase? = nil,
        answer: ImplementationAnswer? = nil
    ) {
        self.id = id
        self.section = section
        self.outcome = outcome
        self.seconds = seconds
        self.testCase = testCase
        self.answer = answer
    }
}

/// Counts of a run and the one summary line every run ends with.
public struct RunSummary: Sendable, Hashable {
    /// Cases that passed.
    public var passed = 0
    /// Cases that failed, including stale failure-list entries (see ``ConformanceRun/summary``).
    public var failed = 0
    /// Cases skipped, including expected failures the failure list names.
    public var skipped = 0

    /// Counts of passed, failed and skipped cases; all zero by default.
    public init(passed: Int = 0, failed: Int = 0, skipped: Int = 0) {
        self.passed = passed
        self.failed = failed
        self.skipped = skipped
    }

    /// `N passed, N failed` with `, N skipped` when any were skipped (README "The conformance runner").
    public var line: String {
        var s = "\(passed) passed, \(failed) failed"
        if skipped > 0 { s += ", \(skipped) skipped" }
        return s
    }
}
