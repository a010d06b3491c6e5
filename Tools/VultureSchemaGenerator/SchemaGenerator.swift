import Foundation

/// One file the generator produces: a path relative to the package root and its whole text.
public struct GeneratedFile: Hashable, Sendable {
    /// Path from the package root, `/`-separated (`Sources/VultureSyncSchema/Generated/SchemaTables.swift`).
    public var relativePath: String
    /// The file's text: UTF-8, LF line ends, one final newline.
    public var contents: String

    /// Creates a file.
    public init(relativePath: String, contents: String) {
        self.relativePath = relativePath
        self.contents = contents
    }
}

/// Turns the `Spec/` tables into Swift code, tests and docs, and keeps the checked-in copies current
/// (DESIGN.md §1: one command regenerates, one checks and never writes).
///
/// Output is deterministic: no dates, no tool versions, files and their contents in a stable order.
/// Every file starts with a do-not-edit line naming the tables it comes from.
public enum SchemaGenerator {
    /// Folders whose every file the generator owns: a file there that ``generate(spec:)`` no longer
    /// produces is stale and reported by ``check(files:against:)``.
    public static let generatedDirectories = [
        "Sources/VultureSyncSchema/Generated",
        "Tests/VultureSyncSchemaTests/Generated",
        "Goldens/jsonschema",
    ]

    /// Every generated file, sorted by path.
    public static func generate(spec: SchemaSpec) -> [GeneratedFile] {
        var files: [GeneratedFile] = []
        files.append(SwiftTablesEmitter(spec: spec).file())
        files.append(SwiftFactsEmitter(spec: spec).file())
        files += SwiftDocumentsEmitter(spec: spec).files()
        files.append(SwiftTestsEmitter(spec: spec).file())
        files.append(MarkdownEmitter(spec: spec).file())
        files += JSONSchemaEmitter(spec: spec).files()
        files += FixtureEmitter(spec: spec).files()
        return files.sorted { $0.relativePath < $1.relativePath }
    }

    /// Writes the files under `root`, only those whose bytes differ from what is there.
    /// - Returns: the relative paths written, in order.
    /// - Throws: the file system's error when a folder cannot be made or a file cannot be written.
    @discardableResult
    public static func write(files: [GeneratedFile], to root: URL) throws -> [String] {
        var changed: [String] = []
        for file in files {
            let url = root.appendingPathComponent(file.relativePath)
            let bytes = Data(file.contents.utf8)
            if let existing = try? Data(contentsOf: url), existing == bytes { continue }
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url, options: .atomic)
            changed.append(file.relativePath)
        }
        return changed
    }

    /// Compares the files with what is checked in under `root`; never writes.
    ///
    /// - Returns: one report per problem, empty when everything is current: a unified-diff-like
    ///   golden→new report for a file that differs (`--- a/PATH` = checked in, `+++ b/PATH` = generated),
    ///   `missing: PATH` with the whole new text for a file not checked in, and
    ///   `stale: PATH (no longer generated; delete it)` for a file in ``generatedDirectories`` that the
    ///   generator no longer produces.
    public static func check(files: [GeneratedFile], against root: URL) -> [String] {
        var reports: [String] = []
        let produced = Set(files.map(\.relativePath))
        for file in files {
            let url = root.appendingPathComponent(file.relativePath)
            guard let data = try? Data(contentsOf: url) else {
                reports.append(
                    "missing: \(file.relativePath)\n"
                        + LineDiff.unified(old: "", new: file.contents, path: file.relativePath))
                continue
            }
            if data == Data(file.contents.utf8) { continue }
            let old = String(decoding: data, as: UTF8.self)
            reports.append(LineDiff.unified(old: old, new: file.contents, path: file.relativePath))
        }
        for directory in generatedDirectories {
            for path in listFiles(under: directory, root: root) where !produced.contains(path) {
                reports.append("stale: \(path) (no longer generated; delete it)")
            }
        }
        return reports
    }

    /// Regular files under `root/directory`, as sorted relative paths.
    static func listFiles(under directory: String, root: URL) -> [String] {
        let base = root.appendingPathComponent(directory)
        guard
            let enumerator = FileManager.default.enumerator(
                at: base, includingPropertiesForKeys: [.isRegularFileKey], options: [])
        else { return [] }
        var paths: [String] = []
        let basePath = base.standardizedFileURL.path
        for case let url as URL in enumerator {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(basePath + "/") else { continue }
            paths.append(directory + "/" + String(full.dropFirst(basePath.count + 1)))
        }
        return paths.sorted()
    }

    /// The do-not-edit line for `sources` (table file names such as `fields.tsv`), without comment markers.
    static func doNotEdit(_ sources: [String]) -> String {
        "Generated by vulture-schema-gen from " + sources.map { "Spec/\($0)" }.joined(separator: ", ")
            + ". Do not edit."
    }
}

/// A line diff in unified form with three lines of context.
enum LineDiff {
    /// `--- a/PATH` / `+++ b/PATH` followed by `@@ -l,n +l,n @@` hunks.
    static func unified(old: String, new: String, path: String) -> String {
        let a = lines(old)
        let b = lines(new)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        let midA = Array(a[prefix..<(a.count - suffix)])
        let midB = Array(b[prefix..<(b.count - suffix)])
        // Edit script: (kind, line) with kind " ", "-" or "+", over the whole files.
        var script: [(Character, String)] = a[..<prefix].map { (" ", $0) }
        script += middle(midA, midB)
        script += a[(a.count - suffix)...].map { (" ", $0) }
        return "--- a/\(path)\n+++ b/\(path)\n" + hunks(script)
    }

    private static func lines(_ text: String) -> [String] {
        var result = text.components(separatedBy: "\n")
        if result.last == "" { result.removeLast() }
        return result
    }

    /// Longest-common-subsequence edit script; falls back to delete-all/insert-all for huge middles.
    private static func middle(_ a: [String], _ b: [String]) -> [(Character, String)] {
        if a.isEmpty || b.isEmpty || a.count * b.count > 16_000_000 {
            return a.map { ("-", $0) } + b.map { ("+", $0) }
        }
        let n = a.count
        let m = b.count
        var table = [[Int32]](repeating: [Int32](repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var script: [(Character, String)] = []
        var i = 0
        var j = 0
        while i < n && j < m {
            if a[i] == b[j] {
                script.append((" ", a[i]))
                i += 1
                j += 1
            } else if table[i + 1][j] >= table[i][j + 1] {
                script.append(("-", a[i]))
                i += 1
            } else {
                script.append(("+", b[j]))
                j += 1
            }
        }
        script += a[i...].map { ("-", $0) }
        script += b[j...].map { ("+", $0) }
        return script
    }

    private static func hunks(_ script: [(Character, String)]) -> String {
        let context = 3
        let changes = script.indices.filter { script[$0].0 != " " }
        guard !changes.isEmpty else { return "" }
        // Group change indices whose context windows touch.
        var groups: [(Int, Int)] = []
        for index in changes {
            if let last = groups.last, index - last.1 <= 2 * context {
                groups[groups.count - 1].1 = index
            } else {
                groups.append((index, index))
            }
        }
        // Line numbers before each script position.
        var oldLine = [Int](repeating: 0, count: script.count + 1)
        var newLine = [Int](repeating: 0, count: script.count + 1)
        for (k, step) in script.enumerated() {
            oldLine[k + 1] = oldLine[k] + (step.0 == "+" ? 0 : 1)
            newLine[k + 1] = newLine[k] + (step.0 == "-" ? 0 : 1)
        }
        var out = ""
        for (first, last) in groups {
            let start = max(0, first - context)
            let end = min(script.count, last + context + 1)
            let oldCount = oldLine[end] - oldLine[start]
            let newCount = newLine[end] - newLine[start]
            out += "@@ -\(oldLine[start] + (oldCount > 0 ? 1 : 0)),\(oldCount)"
            out += " +\(newLine[start] + (newCount > 0 ? 1 : 0)),\(newCount) @@\n"
            for step in script[start..<end] { out += "\(step.0)\(step.1)\n" }
        }
        return out
    }
}
