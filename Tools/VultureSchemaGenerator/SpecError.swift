/// One problem found while reading or validating the `Spec/` tables.
///
/// `file` is the table's display path (`Spec/fields.tsv`), `line` its 1-based line number
/// (0 when the problem concerns the whole file, e.g. a missing file), `message` says what is wrong.
/// Printed as `Spec/fields.tsv:12: message` (or `Spec/fields.tsv: message` for line 0).
public struct SpecError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Display path of the table, e.g. `Spec/fields.tsv`.
    public var file: String
    /// 1-based line number in `file`; 0 when the problem has no single line.
    public var line: Int
    /// What is wrong, in one sentence.
    public var message: String

    /// Creates a problem report at `file:line`.
    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, the form compilers and editors link to.
    public var description: String {
        line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    }
}

/// Every problem found in one load of `Spec/`, in file and line order.
///
/// Thrown by ``SchemaSpec/load(from:)``: loading reports all problems, not only the first.
public struct SpecErrors: Error, Sendable, CustomStringConvertible {
    /// The problems, sorted by file, then line.
    public var errors: [SpecError]

    /// Wraps `errors`, sorting them by file and line.
    public init(_ errors: [SpecError]) {
        self.errors = errors.sorted { ($0.file, $0.line, $0.message) < ($1.file, $1.line, $1.message) }
    }

    /// One problem per line.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}

/// Where a row of `Spec/` came from, so cross-table checks can point at it.
public struct SpecLocation: Hashable, Sendable, CustomStringConvertible {
    /// Display path of the table, e.g. `Spec/fields.tsv`.
    public var file: String
    /// 1-based line number of the row.
    public var line: Int

    /// Creates a location.
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `file:line`.
    public var description: String { "\(file):\(line)" }

    /// A problem at this location.
    func error(_ message: String) -> SpecError {
        SpecError(file: file, line: line, message: message)
    }
}
