import Foundation

@testable import VultureSchemaGenerator

/// The package's `Spec/` folder, found from this file (package root = three levels up).
let specDirectory: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // VultureSchemaGeneratorTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("Spec")

/// A throw-away copy of `Spec/` in a temporary folder also named `Spec`, so errors read `Spec/<file>:<line>`.
final class SpecCopy {
    let root: URL
    let directory: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-spec-\(UUID().uuidString)")
        directory = root.appendingPathComponent("Spec")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: specDirectory, to: directory)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    /// The lines of `file` (without the final empty line).
    func lines(_ file: String) throws -> [String] {
        let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Rewrites `file` line by line.
    func edit(_ file: String, _ change: (inout [String]) throws -> Void) throws {
        var lines = try lines(file)
        try change(&lines)
        try (lines.joined(separator: "\n") + "\n").write(
            to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
    }

    /// 1-based number of the first line of `file` that starts with `prefix`.
    func lineNumber(_ file: String, startingWith prefix: String) throws -> Int {
        guard let index = try lines(file).firstIndex(where: { $0.hasPrefix(prefix) }) else {
            throw SpecCopyProblem(message: "no line starting with \(prefix) in \(file)")
        }
        return index + 1
    }

    /// Replaces the first line starting with `prefix`; returns its 1-based number.
    @discardableResult
    func replaceLine(_ file: String, startingWith prefix: String, _ transform: (String) -> String) throws -> Int {
        let number = try lineNumber(file, startingWith: prefix)
        try edit(file) { $0[number - 1] = transform($0[number - 1]) }
        return number
    }

    /// The errors `SchemaSpec.load` throws for the copy (empty when it loads).
    func loadErrors() -> [SpecError] {
        do {
            _ = try SchemaSpec.load(from: directory)
            return []
        } catch let failure as SpecErrors {
            return failure.errors
        } catch {
            return [SpecError(file: "?", line: 0, message: "unexpected error \(error)")]
        }
    }
}

struct SpecCopyProblem: Error {
    let message: String
}

/// Replaces the tab-separated cell at `column` (0-based) of a row.
func replacingCell(_ line: String, column: Int, with value: String) -> String {
    var cells = line.components(separatedBy: "\t")
    cells[column] = value
    return cells.joined(separator: "\t")
}
