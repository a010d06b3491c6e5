// VultureSchemaGenerator — reads and checks the Spec/ tables and emits every generated file: Swift
// codecs and facts, their tests, Goldens/SCHEMA.md and the JSON Schemas (README "Editing the schema").
import Foundation
import VultureSchemaCore

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
/// (README "Editing the schema": one command regenerates, one checks and never writes).
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
        files.append(SwiftValidationEmitter(spec: spec).file())
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
