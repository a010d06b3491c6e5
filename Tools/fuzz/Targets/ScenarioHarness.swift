import Foundation
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// scenario: a scenario file is read from canonical typed JSON into a `Scenario`, or refused with a
/// `ScenarioError` whose pointer leads into the file (to the value at fault, or to the object that
/// lacks the member). The same value read as one step (`engine.step`'s input) answers the same way.
enum ScenarioHarness {
    static let file = "fuzz.json"

    static func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let bytes = Array(input)
        let decoded = ReadOutcome { try CanonicalJSON.decode(bytes, file: file) }
        try decoded.requireTyped("CanonicalJSON.decode", text: input, file: file)
        guard let value = decoded.value else { return }
        do throws(ScenarioError) {
            _ = try Scenario(value, file: file)
        } catch {
            try require(error.file == file, "a scenario error without the file: \(error)")
            try requireLeadsInto(error.pointer, value, "Scenario")
        }
        do throws(ScenarioError) {
            _ = try ScenarioStep(value, pointer: "/steps/0", devices: ["a", "b"])
        } catch {
            let prefix = "/steps/0"
            try require(error.pointer.utf8.starts(with: prefix.utf8), "a step error outside the step: \(error)")
            try requireLeadsInto(
                String(Substring(error.pointer.utf8.dropFirst(prefix.utf8.count))), value, "ScenarioStep")
        }
    }

    /// Throws unless `pointer` names a value of `root`, or a member missing from an object (or an
    /// element past an array's end) whose parent is a value of `root`.
    static func requireLeadsInto(_ pointer: String, _ root: FirestoreValue, _ reader: String) throws(FuzzViolation) {
        guard !pointer.isEmpty else { return }
        try require(pointer.utf8.first == UInt8(ascii: "/"), "\(reader): malformed pointer \(pointer)")
        var current: FirestoreValue? = root
        // By bytes, as a key may start with a combining mark.
        let tokens = pointer.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
            .map { String(Substring($0)) }
        for (index, raw) in tokens.enumerated() {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let parent = current else {
                throw FuzzViolation("\(reader): pointer \(pointer) goes on past a missing value at token \(index)")
            }
            switch parent {
            case .map(let m): current = m[token]
            case .array(let a): current = Int(token).flatMap { a.indices.contains($0) ? a[$0] : nil }
            default: current = nil
            }
        }
    }
}
