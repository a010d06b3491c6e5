// VultureSchemaGenerator — reads and checks the Spec/ tables and emits every generated file: Swift
// codecs and facts, their tests, Goldens/SCHEMA.md and the JSON Schemas (README "Editing the schema").
import Foundation
import VultureSchemaCore

/// One file the generator produces: a path relative to the package root and its whole text; or one
/// generated region of a hand-written file (`region` set), the text between its two marker lines.
public struct GeneratedFile: Hashable, Sendable {
    /// Path from the package root, `/`-separated (`Sources/VultureSyncSchema/Generated/SchemaTables.swift`).
    public var relativePath: String
    /// The file's text (or the region's): UTF-8, LF line ends, one final newline.
    public var contents: String
    /// The region's name for a generated region of a hand-written file; nil for a whole file.
    public var region: String?

    /// Creates a file, or a region of one.
    public init(relativePath: String, contents: String, region: String? = nil) {
        self.relativePath = relativePath
        self.contents = contents
        self.region = region
    }

    /// The line that opens a region (`<!-- generated region NAME: … Do not edit. -->`).
    public static func regionStart(_ name: String) -> String {
        "<!-- generated region \(name): vulture-schema-gen from Spec/; edit Spec/ and run `swift run vulture-schema-gen generate`. Do not edit. -->"
    }

    /// The line that closes a region.
    public static func regionEnd(_ name: String) -> String { "<!-- end of generated region \(name) -->" }

    /// `text` with this region's body replaced; nil when the markers are missing or repeated.
    func splice(into text: String) -> String? {
        guard let region else { return contents }
        let start = Self.regionStart(region) + "\n"
        let end = Self.regionEnd(region)
        let parts = text.components(separatedBy: start)
        guard parts.count == 2 else { return nil }
        let rest = parts[1].components(separatedBy: "\n" + end)
        guard rest.count == 2 || (rest.count == 1 && parts[1].hasPrefix(end)) else { return nil }
        let tail = parts[1].hasPrefix(end) ? String(parts[1].dropFirst(end.count)) : rest[1]
        return parts[0] + start + contents + end + tail
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
        "Goldens/protocol/operations",
        "Sources/VultureSchemaCore/Generated",
        "Sources/VultureConformance/Generated",
    ]

    /// Every generated file, sorted by path.
    public static func generate(spec: SchemaSpec) -> [GeneratedFile] {
        var files: [GeneratedFile] = []
        files.append(SwiftTablesEmitter(spec: spec).file())
        files.append(SwiftFactsEmitter(spec: spec).file())
        files.append(SwiftSyncRulesEmitter(spec: spec).file())
        files += SwiftDocumentsEmitter(spec: spec).files()
        files.append(SwiftValidationEmitter(spec: spec).file())
        files.append(SwiftTestsEmitter(spec: spec).file())
        files.append(MarkdownEmitter(spec: spec).file())
        files += JSONSchemaEmitter(spec: spec).files()
        files += FixtureEmitter(spec: spec).files()
        files += SwiftRegistryEmitter(spec: spec).files()
        files += OperationSchemaEmitter(spec: spec).files()
        files += ProtocolTablesEmitter(spec: spec).regions()
        files += EngineContractEmitter(spec: spec).regions()
        files.append(FirestoreRulesEmitter(spec: spec).file())
        return files.sorted { ($0.relativePath, $0.region ?? "") < ($1.relativePath, $1.region ?? "") }
    }

    /// Writes the files under `root`, only those whose bytes differ from what is there; a region is
    /// spliced into its hand-written file between its markers.
    /// - Returns: the relative paths written, in order (a file with regions once).
    /// - Throws: the file system's error when a folder cannot be made or a file cannot be written;
    ///   ``RegionError`` when a hand-written file lacks a region's markers.
    @discardableResult
    public static func write(files: [GeneratedFile], to root: URL) throws -> [String] {
        var changed: [String] = []
        var created: Set<String> = []
        for file in files {
            let url = root.appendingPathComponent(file.relativePath)
            var text = file.contents
            if let region = file.region {
                let existing = try? Data(contentsOf: url)
                if existing == nil { created.insert(file.relativePath) }
                let old = existing.map { String(decoding: $0, as: UTF8.self) } ?? ""
                if let spliced = file.splice(into: old) {
                    text = spliced
                } else if created.contains(file.relativePath) {
                    // A file this call creates holds its regions one after the other.
                    text =
                        old + GeneratedFile.regionStart(region) + "\n" + file.contents + GeneratedFile.regionEnd(region)
                        + "\n"
                } else {
                    throw RegionError(path: file.relativePath, region: region)
                }
            }
            let bytes = Data(text.utf8)
            if let existing = try? Data(contentsOf: url), existing == bytes { continue }
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url, options: .atomic)
            if !changed.contains(file.relativePath) { changed.append(file.relativePath) }
        }
        return changed
    }

    /// A hand-written file without the markers of a generated region (or with them twice).
    public struct RegionError: Error, CustomStringConvertible {
        /// The file, from the package root.
        public var path: String
        /// The region's name.
        public var region: String
        public var description: String {
            "\(path) needs the lines \(GeneratedFile.regionStart(region)) and \(GeneratedFile.regionEnd(region)), once each"
        }
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
            if file.region != nil {
                guard let data = try? Data(contentsOf: url) else {
                    reports.append("missing: \(file.relativePath) (a hand-written file with generated regions)")
                    continue
                }
                let old = String(decoding: data, as: UTF8.self)
                guard let spliced = file.splice(into: old) else {
                    reports.append("missing region: \(RegionError(path: file.relativePath, region: file.region ?? ""))")
                    continue
                }
                if spliced != old { reports.append(LineDiff.unified(old: old, new: spliced, path: file.relativePath)) }
                continue
            }
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
