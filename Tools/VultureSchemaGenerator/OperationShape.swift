import VultureSchemaCore

/// The shape of an operation's input or output in the protocol page's notation (`Spec/operations.tsv`):
///
/// - `{name: T, name?: T, *: T}` a map: named members (`?` optional) and, after `*`, the shape of every
///   other member; `*settingsKey: T` and `*iosKey: T` name the other members' keys (settings key ids,
///   iOS keys); `{}` an empty map;
/// - `[T]` an array; `A|B` either; `"text"`, `true`, `false` and integers literal values;
/// - a named shape: `string`, `integer`, `boolean`, `null`, `any`, `object` (any map), `bytes`
///   (`{"$bytes": base64}`), `timestamp` (`{"$timestamp": …}`), `sha256` (64 lowercase hex),
///   `collection`, `form` (`write` or `stored`), `fixture`, `mergeFixture` (the fixture form, per
///   collection), `document`, `storedDocument` (a document of the input's collection), `storedMap`,
///   `writeMap` (a document's fields in the stored or the write form, partial documents allowed),
///   `settingsEntry` (`{v, t, d}`), `write` (a Firestore write in canonical typed JSON:
///   `{fields, mask?, precondition?}`, README "Writes").
public indirect enum OperationShape: Hashable, Sendable, CustomStringConvertible {
    /// One member of a map shape.
    public struct Member: Hashable, Sendable {
        /// The member's name.
        public var name: String
        /// Whether the member may be left out.
        public var isOptional: Bool
        /// Its shape.
        public var shape: OperationShape
    }

    /// A named shape (`string`, `bytes`, `fixture`, …).
    case named(String)
    /// A literal value.
    case literal(FirestoreValue)
    /// A map: named members, and the shape of other members with the key set naming them (nil: none allowed).
    case map(members: [Member], others: OperationShape?, otherKeys: String?)
    /// An array of one shape.
    case array(OperationShape)
    /// Any of several shapes.
    case either([OperationShape])

    /// The named shapes the notation knows.
    public static let names: Set<String> = [
        "string", "integer", "boolean", "null", "any", "object", "bytes", "timestamp", "sha256", "collection", "form",
        "fixture", "mergeFixture", "document", "storedDocument", "storedMap", "writeMap", "settingsEntry",
        "write",
    ]

    /// The key sets `*name:` may name.
    public static let keySets: Set<String> = ["settingsKey", "iosKey"]

    /// A shape problem: what is wrong and where in the text (0-based character offset).
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What is wrong.
        public var message: String
        /// 0-based offset into the text.
        public var offset: Int
        public var description: String { "\(message) at character \(offset + 1)" }
    }

    /// Parses the notation.
    /// - Throws: ``ParseError`` naming the position.
    public init(parsing text: String) throws(ParseError) {
        var parser = ShapeParser(Array(text.unicodeScalars))
        let shape = try parser.either()
        parser.skipSpaces()
        guard parser.index == parser.scalars.count else { throw parser.error("unexpected text") }
        self = shape
    }

    /// The shape written back in the notation (as parsed, spacing normalised).
    public var description: String {
        switch self {
        case .named(let name): return name
        case .literal(let value): return CanonicalJSON.compactString(value)
        case .array(let element): return "[\(element)]"
        case .either(let shapes): return shapes.map(\.description).joined(separator: "|")
        case .map(let members, let others, let keys):
            var parts = members.map { "\($0.name)\($0.isOptional ? "?" : ""): \($0.shape)" }
            if let others { parts.append("*\(keys ?? ""): \(others)") }
            return "{" + parts.joined(separator: ", ") + "}"
        }
    }

    /// Every named shape used, depth first.
    public var namesUsed: [String] {
        switch self {
        case .named(let name): return [name]
        case .literal: return []
        case .array(let element): return element.namesUsed
        case .either(let shapes): return shapes.flatMap(\.namesUsed)
        case .map(let members, let others, _): return members.flatMap(\.shape.namesUsed) + (others?.namesUsed ?? [])
        }
    }
}

/// A recursive-descent reader of the shape notation.
private struct ShapeParser {
    let scalars: [Unicode.Scalar]
    var index = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    func error(_ message: String) -> OperationShape.ParseError {
        OperationShape.ParseError(message: message, offset: index)
    }

    mutating func skipSpaces() {
        while index < scalars.count, scalars[index] == " " { index += 1 }
    }

    mutating func take(_ c: Unicode.Scalar) -> Bool {
        skipSpaces()
        guard index < scalars.count, scalars[index] == c else { return false }
        index += 1
        return true
    }

    mutating func word() -> String {
        skipSpaces()
        var out = ""
        while index < scalars.count,
            scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index])
                || scalars[index] == "-"
        {
            out.unicodeScalars.append(scalars[index])
            index += 1
        }
        return out
    }

    mutating func either() throws(OperationShape.ParseError) -> OperationShape {
        var shapes = [try single()]
        while take("|") { shapes.append(try single()) }
        return shapes.count == 1 ? shapes[0] : .either(shapes)
    }

    mutating func single() throws(OperationShape.ParseError) -> OperationShape {
        skipSpaces()
        guard index < scalars.count else { throw error("a shape is missing") }
        if take("{") { return try map() }
        if take("[") {
            let element = try either()
            guard take("]") else { throw error("expected ]") }
            return .array(element)
        }
        if scalars[index] == "\"" {
            index += 1
            var text = ""
            while index < scalars.count, scalars[index] != "\"" {
                text.unicodeScalars.append(scalars[index])
                index += 1
            }
            guard index < scalars.count else { throw error("unterminated string") }
            index += 1
            return .literal(.string(text))
        }
        let start = index
        let name = word()
        if name == "true" || name == "false" { return .literal(.boolean(name == "true")) }
        if let number = Int64(name) { return .literal(.integer(number)) }
        guard OperationShape.names.contains(name) else {
            index = start
            throw error("unknown shape '\(name)'; known: \(OperationShape.names.sorted().joined(separator: ", "))")
        }
        return .named(name)
    }

    mutating func map() throws(OperationShape.ParseError) -> OperationShape {
        var members: [OperationShape.Member] = []
        var others: OperationShape?
        var otherKeys: String?
        if take("}") { return .map(members: [], others: nil, otherKeys: nil) }
        repeat {
            if take("*") {
                guard others == nil else { throw error("a map has one * member") }
                let keys = word()
                if !keys.isEmpty {
                    guard OperationShape.keySets.contains(keys) else { throw error("unknown key set '\(keys)'") }
                    otherKeys = keys
                }
                guard take(":") else { throw error("expected :") }
                others = try either()
                continue
            }
            let name = word()
            guard !name.isEmpty else { throw error("expected a member name") }
            guard !members.contains(where: { $0.name == name }) else { throw error("member \(name) twice") }
            let optional = take("?")
            guard take(":") else { throw error("expected :") }
            members.append(OperationShape.Member(name: name, isOptional: optional, shape: try either()))
        } while take(",")
        guard take("}") else { throw error("expected , or }") }
        return .map(members: members, others: others, otherKeys: otherKeys)
    }
}
