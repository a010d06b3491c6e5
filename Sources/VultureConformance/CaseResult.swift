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
    public var outcome: CaseOutcome
    /// Wall time, seconds.
    public var seconds: Double

    public init(id: String, section: String, outcome: CaseOutcome, seconds: Double = 0) {
        self.id = id
        self.section = section
        self.outcome = outcome
        self.seconds = seconds
    }
}

/// Counts of a run and the one summary line every run ends with.
public struct RunSummary: Sendable, Hashable {
    public var passed = 0
    public var failed = 0
    public var skipped = 0

    public init(passed: Int = 0, failed: Int = 0, skipped: Int = 0) {
        self.passed = passed
        self.failed = failed
        self.skipped = skipped
    }

    /// `N passed, N failed` with `, N skipped` when any were skipped (DESIGN.md §4).
    public var line: String {
        var s = "\(passed) passed, \(failed) failed"
        if skipped > 0 { s += ", \(skipped) skipped" }
        return s
    }
}
