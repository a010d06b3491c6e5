import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// A failure list: the case ids a testee is known to fail, one per line (Goldens/protocol/README.md).
///
/// Format: UTF-8 text; one case id per line; `#` starts a comment (whole line or after the id);
/// blank lines ignored; an id listed twice is an error. The list is strict both ways: a listed case
/// that now passes fails the run (the list is stale), and so does an entry that matches no case.
public struct FailureList: Sendable, Hashable {
    /// Listed case id → 1-based line number in the file.
    public var entries: [String: Int]
    /// Where the list came from, for messages.
    public var file: String

    /// A list from entries already read (case id → 1-based line); empty by default.
    public init(entries: [String: Int] = [:], file: String = "(none)") {
        self.entries = entries
        self.file = file
    }

    /// A failure list read from text.
    /// - Throws: `FailureListError` naming file:line for a duplicate entry or an id with white space.
    public init(text: String, file: String) throws {
        var entries: [String: Int] = [:]
        // A byte-order mark and CRLF line ends (a list saved on Windows) are read as UTF-8 and LF.
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        // "\r\n" is one Character in Swift, so split on both spellings of a line end.
        let lines = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (index, raw) in lines.enumerated() {
            let line = index + 1
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let id = content.trimmingCharacters(in: .whitespacesAndNewlines)
            if id.isEmpty { continue }
            guard !id.contains(where: \.isWhitespace) else {
                throw FailureListError(file: file, line: line, message: "one case id per line, found \"\(id)\"")
            }
            if let first = entries[id] {
                throw FailureListError(file: file, line: line, message: "\(id) is listed already on line \(first)")
            }
            entries[id] = line
        }
        self.entries = entries
        self.file = file
    }

    /// Reads a failure list file.
    /// - Throws: `FailureListError` when the file cannot be read or is malformed.
    public static func load(path: String) throws -> FailureList {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.bytes(atPath: path)
        } catch {
            // The path once, in front: "FILE: cannot open: No such file or directory".
            throw FailureListError(
                file: path, line: nil, message: "cannot \(error.operation): \(error.reason)")
        }
        guard let text = String(validUTF8: bytes) else {
            throw FailureListError(file: path, line: nil, message: "the failure list is not UTF-8")
        }
        return try FailureList(text: text, file: path)
    }

    /// Reads a failure list from a file URL — for instance one beside your test file,
    /// `URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("failure-list.txt")`.
    /// - Throws: `FailureListError` when the file cannot be read or is malformed.
    public static func load(contentsOf url: URL) throws -> FailureList {
        try load(path: url.path)
    }

    /// Reads the failure list `name` (with its extension) from a bundle's resources: your test
    /// target's `Bundle.module` once its target lists `resources: [.copy("failure-list.txt")]`, so
    /// the list travels with the test bundle to a device or simulator.
    /// - Throws: `FailureListError` when the bundle has no such resource, or the file cannot be read
    ///   or is malformed.
    public static func load(resource name: String, in bundle: Bundle) throws -> FailureList {
        guard let url = bundle.url(forResource: name, withExtension: nil) else {
            let bundleName = bundle.bundleURL.lastPathComponent
            throw FailureListError(
                file: name, line: nil,
                message: "no resource \(name) in \(bundleName); list it in the test target's resources")
        }
        return try load(contentsOf: url)
    }

    /// How a run's results disagree with the list.
    public struct Reconciliation: Sendable, Hashable {
        /// Failed cases the list does not name.
        public var unexpectedFailures: [String] = []
        /// Listed cases that passed: the list is stale.
        public var unexpectedPasses: [String] = []
        /// Listed ids that match no case that ran (line numbers with them).
        public var unknownEntries: [(id: String, line: Int)] = []

        /// True when the run agrees with the list exactly.
        public var isExact: Bool { unexpectedFailures.isEmpty && unexpectedPasses.isEmpty && unknownEntries.isEmpty }

        public static func == (a: Reconciliation, b: Reconciliation) -> Bool {
            a.unexpectedFailures == b.unexpectedFailures && a.unexpectedPasses == b.unexpectedPasses
                && a.unknownEntries.map(\.id) == b.unknownEntries.map(\.id)
        }

        public func hash(into h: inout Hasher) {
            h.combine(unexpectedFailures)
            h.combine(unexpectedPasses)
            h.combine(unknownEntries.map(\.id))
        }
    }

    /// Compares results with the list. Skipped cases are neither failures nor passes; a listed
    /// skipped case is not stale. `selected` limits the unknown-entry check to the cases that ran
    /// (`--test ID` runs one case and does not call the rest of the list unknown).
    public func reconcile(_ results: [CaseResult], allCaseIDs: Set<String>) -> Reconciliation {
        var r = Reconciliation()
        let ran = Set(results.map(\.id))
        for result in results {
            switch result.outcome {
            case .failed where entries[result.id] == nil: r.unexpectedFailures.append(result.id)
            case .passed where entries[result.id] != nil: r.unexpectedPasses.append(result.id)
            default: break
            }
        }
        for (id, line) in entries where !allCaseIDs.contains(id) && !ran.contains(id) {
            r.unknownEntries.append((id, line))
        }
        r.unexpectedFailures.sort()
        r.unexpectedPasses.sort()
        // In the file's order, as a person fixing it reads it (lines are distinct: an id is listed once).
        r.unknownEntries.sort { $0.line < $1.line }
        return r
    }
}

extension FailureList {
    /// The exact failure list for a run (`--write-failure-list`): every case that failed, required or
    /// recommended (a required case the implementation skipped included), in run order, grouped under a
    /// comment per area, each with its reason cut short after `#`. A run of the same cases with this list
    /// exits 0 as long as the same cases fail and at least one passes.
    /// - Parameters:
    ///   - run: the finished run whose failed cases the list names.
    ///   - header: comment lines (without `#`) to start the file with.
    /// - Returns: the list's text, one case id per line with its reason as a comment, ending with a newline.
    public static func text(for run: ConformanceRun, header: [String]) -> String {
        var lines = header.map { "# " + $0 }
        var areas: [String] = []
        var byArea: [String: [String]] = [:]
        for r in run.results {
            guard case .failed(let message, _) = r.outcome else { continue }
            let area = r.testCase?.area ?? "other"
            if byArea[area] == nil { areas.append(area) }
            var reason: String
            switch r.answer {
            case .skipped(let why)?: reason = "skipped: " + why
            default: reason = message + (r.testCase?.note.map { "; " + $0 } ?? "")
            }
            reason = FailureExplanation.cut(
                reason.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "#", with: "no. "), to: 110)
            byArea[area, default: []].append("\(r.id)  # \(reason)")
        }
        for area in areas {
            lines.append("")
            lines.append("# \(area)")
            lines += byArea[area] ?? []
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A malformed or unreadable failure list: `FILE:LINE: message`.
public struct FailureListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The failure list's path.
    public var file: String
    /// 1-based line of the bad entry; nil when the whole file is at fault (unreadable, not UTF-8).
    public var line: Int?
    /// What is wrong.
    public var message: String
    public var description: String {
        let file = file.shownArgument
        return line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}
