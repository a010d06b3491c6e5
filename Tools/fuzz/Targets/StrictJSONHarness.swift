import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// strict-json: the strict reader gives a tree or a `json.*` error with its position; a tree written
/// by the canonical writer (pretty and compact) reads back as the same tree.
enum StrictJSONHarness {
    static let file = "fuzz.json"

    static func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let bytes = Array(input)
        let outcome = ReadOutcome { JSONTree(try StrictJSONReader.parse(bytes, file: file)) }
        try outcome.requireTyped("StrictJSONReader.parse", text: input, file: file)
        if let error = outcome.error {
            try require(
                error.rule.rawValue.hasPrefix("json."), "StrictJSONReader.parse broke a non-JSON rule: \(error)")
            return
        }
        guard let tree = outcome.value, tree.isWritable else { return }
        let node = tree.node
        for (name, text) in [
            ("CanonicalJSONWriter.write", CanonicalJSONWriter.write(node)),
            ("CanonicalJSONWriter.compact", Array(CanonicalJSONWriter.compact(node).utf8)),
        ] {
            let again = ReadOutcome { JSONTree(try StrictJSONReader.parse(text, file: "written")) }
            try require(again == .value(tree), "\(name) of \(tree) read back as \(again.shown)")
        }
    }
}

/// A JSON tree compared by value: object members as a set of keys (the reader rejects duplicates,
/// the writer sorts), doubles bit for bit, big integers by their text.
struct JSONTree: Equatable, CustomStringConvertible {
    let node: JSONNode

    init(_ node: JSONNode) { self.node = node }

    /// False when the tree holds a double no JSON number writes (±Infinity, from an overflowing literal).
    var isWritable: Bool { Self.writable(node) }

    static func writable(_ node: JSONNode) -> Bool {
        switch node.kind {
        case .double(let d): return d.isFinite
        case .array(let a): return a.allSatisfy(writable)
        case .object(let m): return m.allSatisfy { writable($0.value) }
        default: return true
        }
    }

    static func == (a: JSONTree, b: JSONTree) -> Bool { same(a.node, b.node) }

    static func same(_ a: JSONNode, _ b: JSONNode) -> Bool {
        switch (a.kind, b.kind) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.bigInteger(let x), .bigInteger(let y)): return x == y
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            var byKey: [String: JSONNode] = [:]
            for m in y { byKey[m.key] = m.value }
            return x.allSatisfy { m in byKey[m.key].map { same(m.value, $0) } ?? false }
        default: return false
        }
    }

    var description: String { String(CanonicalJSONWriter.compact(node).prefix(300)) }
}
