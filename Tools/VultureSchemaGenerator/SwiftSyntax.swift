import Foundation
import VultureSchemaCore

/// Swift spelling helpers for the emitters: identifiers, literals, doc comments.
enum SwiftText {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "as", "false", "is", "nil", "super", "self", "Self", "true", "try", "throws", "Any", "Type",
    ]

    /// The lower-camel property name of a cloud key: a leading upper-case run is lowered (`R1` → `r1`,
    /// `A12` → `a12`, `URLText` → `urlText`).
    static func propertyName(_ cloudName: String) -> String {
        let chars = Array(cloudName)
        var upper = 0
        while upper < chars.count, chars[upper].isUppercase { upper += 1 }
        if upper == 0 { return cloudName }
        // Keep the last capital of a run that starts a word (`URLText`: `url` + `Text`).
        let lowerCount = upper < chars.count && upper > 1 && chars[upper].isLowercase ? upper - 1 : upper
        return String(chars[..<lowerCount]).lowercased() + String(chars[lowerCount...])
    }

    /// A nested `public enum NAME` (four spaces in) of `static let`s, one per field: the Swift
    /// property name bound to the cloud name, each with the field's meaning.
    static func fieldNameEnum(_ name: String, _ fields: [FieldSpec], doc: String) -> [String] {
        var out = [""] + docComment(doc, indent: "    ")
        out.append("    public enum \(name) {")
        for (i, f) in fields.enumerated() {
            if i > 0 { out.append("") }
            out += docComment("`\(f.name)`: \(f.meaning)", indent: "        ")
            out.append("        public static let \(identifier(propertyName(f.name))) = \(string(f.name))")
        }
        out.append("    }")
        return out
    }

    /// `name`, in backticks when it is a keyword.
    static func identifier(_ name: String) -> String { keywords.contains(name) ? "`\(name)`" : name }

    /// A Swift string literal.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{" + String(scalar.value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// An integer literal, grouped by three digits from five digits on (`10_000`).
    static func integer<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        guard digits.count >= 5 else { return sign + digits }
        var groups: [String] = []
        var rest = Substring(digits)
        while rest.count > 3 {
            groups.insert(String(rest.suffix(3)), at: 0)
            rest = rest.dropLast(3)
        }
        groups.insert(String(rest), at: 0)
        return sign + groups.joined(separator: "_")
    }

    /// A hexadecimal literal grouped by four digits (`0x6D65_6863_73`).
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        var groups: [String] = []
        var rest = Substring(digits)
        while rest.count > 4 {
            groups.insert(String(rest.suffix(4)), at: 0)
            rest = rest.dropLast(4)
        }
        groups.insert(String(rest), at: 0)
        return "0x" + groups.joined(separator: "_")
    }

    /// The first eight UTF-8 bytes of `name` as a little-endian word, zero-padded (what
    /// `SchemaValidator.firstWord` reads from a key).
    static func firstWord(_ name: String) -> UInt64 {
        var word: UInt64 = 0
        for (k, b) in name.utf8.prefix(8).enumerated() { word |= UInt64(b) << UInt64(8 * k) }
        return word
    }

    /// A double literal that reads back as the same value (`0.0`, `48.1075`, `1e-07`).
    static func double(_ value: Double) -> String {
        let text = "\(value)"
        if text.contains(".") || text.contains("e") { return text }
        return text + ".0"
    }

    /// A ``FirestoreValue`` as a `FirestoreValue` literal (`.integer(1)`, `.map(["a": .double(0.0)])`).
    static func firestoreValue(_ value: FirestoreValue) -> String {
        switch value {
        case .null: return ".null"
        case .boolean(let b): return ".boolean(\(b))"
        case .integer(let i): return ".integer(\(integer(i)))"
        case .double(let d): return ".double(\(double(d)))"
        case .string(let s): return ".string(\(string(s)))"
        case .timestamp(let t):
            return ".timestamp(FirestoreTimestamp(unchecked: \(integer(t.seconds)), \(integer(Int64(t.microseconds)))))"
        case .bytes(let b): return ".bytes(Data([" + b.map { String($0) }.joined(separator: ", ") + "]))"
        case .geoPoint(let g):
            return ".geoPoint(GeoPoint(latitude: \(double(g.latitude)), longitude: \(double(g.longitude))))"
        case .reference(let r): return ".reference(\(string(r)))"
        case .array(let values): return ".array([" + values.map(firestoreValue).joined(separator: ", ") + "])"
        case .map(let members):
            if members.isEmpty { return ".map([:])" }
            return ".map(["
                + members.keys.sorted(by: CanonicalJSONWriter.utf16Precedes).map {
                    "\(string($0)): \(firestoreValue(members[$0]!))"
                }.joined(separator: ", ") + "])"
        case .serverTimestamp: return ".serverTimestamp"
        case .increment(.integer(let i)): return ".increment(.integer(\(integer(i))))"
        case .increment(.double(let d)): return ".increment(.double(\(double(d))))"
        case .delete: return ".delete"
        }
    }

    /// Lines of a `///` doc comment at `indent`, words wrapped before 120 columns.
    static func docComment(_ text: String, indent: String) -> [String] {
        var lines: [String] = []
        for paragraph in text.components(separatedBy: "\n") {
            if paragraph.isEmpty {
                lines.append(indent + "///")
                continue
            }
            var line = indent + "///"
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                if line.count + 1 + word.count > 118 && line != indent + "///" {
                    lines.append(line)
                    line = indent + "///"
                }
                line += " " + word
            }
            lines.append(line)
        }
        return lines
    }

    /// A `//` comment, words wrapped before 120 columns.
    static func lineComment(_ text: String) -> [String] {
        docComment(text, indent: "").map { "//" + $0.dropFirst(3) }
    }
}

/// What the schema's types become in Swift, shared by the emitters.
struct SwiftTypes {
    let spec: SchemaSpec

    /// The Swift type of a field value (without the optional).
    func swiftType(_ type: SchemaFieldType) -> String {
        switch type {
        case .string, .dateString, .unit: "String"
        case .boolean: "Bool"
        case .integer: "Int64"
        case .double: "Double"
        case .timestamp: "FirestoreTimestamp"
        case .bytes: "Data"
        case .settingValue: "FirestoreValue"
        case .enumeration(let name): name
        case .map(let name): name
        case .array(let element): "[\(swiftType(element))]"
        case .dictionary(let element): "[String: \(swiftType(element))]"
        }
    }

    /// Whether the Swift property is an optional: nullable, optional presence, or a server timestamp
    /// (nil in the write form).
    func isOptional(_ field: FieldSpec) -> Bool {
        field.isNullable || field.presence == .optional || field.writeAs == .serverTimestamp
    }

    /// The property's full Swift type.
    func propertyType(_ field: FieldSpec) -> String {
        swiftType(field.type) + (isOptional(field) ? "?" : "")
    }

    /// A Swift literal of `value` for a property of `type`, or nil when there is none.
    func literal(_ value: FirestoreValue, type: SchemaFieldType) -> String? {
        switch (type, value) {
        case (_, .null): return "nil"
        case (.boolean, .boolean(let b)): return b ? "true" : "false"
        case (.integer, .integer(let i)): return SwiftText.integer(i)
        case (.double, .double(let d)): return SwiftText.double(d)
        case (.double, .integer(let i)): return SwiftText.double(Double(i))
        case (.string, .string(let s)), (.dateString, .string(let s)), (.unit, .string(let s)):
            return SwiftText.string(s)
        case (.enumeration(let name), _):
            guard let enumCase = spec.enumeration(named: name)?.enumCase(cloudValue: value) else { return nil }
            return "." + SwiftText.identifier(enumCase.name)
        case (.settingValue, _): return SwiftText.firestoreValue(value)
        case (.array(let element), .array(let values)):
            let items = values.compactMap { literal($0, type: element) }
            guard items.count == values.count else { return nil }
            return "[" + items.joined(separator: ", ") + "]"
        case (.dictionary(let element), .map(let members)):
            if members.isEmpty { return "[:]" }
            let items = members.keys.sorted(by: CanonicalJSONWriter.utf16Precedes).compactMap { key in
                members[key].flatMap { literal($0, type: element) }.map { "\(SwiftText.string(key)): \($0)" }
            }
            guard items.count == members.count else { return nil }
            return "[" + items.joined(separator: ", ") + "]"
        default: return nil
        }
    }

    /// The `SchemaFieldLimits(…)` expression of a field's limits, or nil when it has none.
    func limitsExpression(_ limits: [FieldLimit]) -> String? {
        guard !limits.isEmpty else { return nil }
        var args: [String] = []
        for limit in limits {
            switch limit {
            case .maxChars(let n): args.append("maxChars: \(SwiftText.integer(n))")
            case .maxBytes(let n): args.append("maxBytes: \(SwiftText.integer(n))")
            case .maxItems(let n): args.append("maxItems: \(SwiftText.integer(n))")
            case .hexLength(let n): args.append("hexLength: \(SwiftText.integer(n))")
            case .minimum(let v): args.append("minimum: \(SwiftText.double(v))")
            case .maximum(let v): args.append("maximum: \(SwiftText.double(v))")
            case .step(let v): args.append("step: \(SwiftText.double(v))")
            case .nullUnless(let flag): args.append("nullUnless: \(SwiftText.string(flag))")
            case .storagePath(let blob): args.append("storagePath: \(SwiftText.string(blob))")
            }
        }
        // The initialiser's parameter order.
        let order = [
            "maxChars", "maxBytes", "maxItems", "hexLength", "minimum", "maximum", "step", "nullUnless", "storagePath",
        ]
        args.sort { a, b in
            (order.firstIndex { a.hasPrefix($0 + ":") } ?? 0) < (order.firstIndex { b.hasPrefix($0 + ":") } ?? 0)
        }
        return "SchemaFieldLimits(" + args.joined(separator: ", ") + ")"
    }

    /// The `SchemaFieldType` expression of a type (`.array(.map("Turnpoint"))`).
    func typeExpression(_ type: SchemaFieldType) -> String {
        switch type {
        case .string: ".string"
        case .boolean: ".boolean"
        case .integer: ".integer"
        case .double: ".double"
        case .timestamp: ".timestamp"
        case .bytes: ".bytes"
        case .dateString: ".dateString"
        case .settingValue: ".settingValue"
        case .enumeration(let name): ".enumeration(\(SwiftText.string(name)))"
        case .unit(let name): ".unit(\(SwiftText.string(name)))"
        case .map(let name): ".map(\(SwiftText.string(name)))"
        case .array(let element): ".array(\(typeExpression(element)))"
        case .dictionary(let element): ".dictionary(\(typeExpression(element)))"
        }
    }

    /// The owners that become Swift structs: every owner of fields.tsv, in table order.
    var structOwners: [String] { spec.ownerNames }
}

/// Line layout the way `swift format` (the repository's `.swift-format`, 120 columns) writes it, for
/// the shapes the emitters produce.
enum SwiftLayout {
    static let width = 120

    /// `label: value,` at `indent` spaces; when too long, a string literal moves to the next line
    /// (indented four more) and a `[…]` or `.map([…])` list is packed after its opening bracket.
    static func argument(label: String, value: String, comma: String, indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        let line = pad + label + ": " + value + comma
        if line.count <= width { return [line] }
        for (open, close) in [(".map([", "])"), ("[", "]")] where value.hasPrefix(open) && value.hasSuffix(close) {
            let inner = String(value.dropFirst(open.count).dropLast(close.count))
            let items = splitTopLevel(inner)
            return [pad + label + ": " + open] + packed(items, indent: indent + 4) + [pad + close + comma]
        }
        return [pad + label + ":", pad + "    " + value + comma]
    }

    /// Items each followed by `,`, as many per line as fit.
    static func packed(_ items: [String], indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        for item in items {
            let piece = item + ","
            if line.isEmpty {
                line = pad + piece
            } else if line.count + 1 + piece.count <= width {
                line += " " + piece
            } else {
                lines.append(line)
                line = pad + piece
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// Splits at commas outside parentheses, brackets and string literals.
    static func splitTopLevel(_ text: String) -> [String] {
        var parts: [String] = []
        var depth = 0
        var inString = false
        var escaped = false
        var current = ""
        for ch in text {
            if inString {
                if escaped {
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == "\"" {
                    inString = false
                }
                current.append(ch)
                continue
            }
            switch ch {
            case "\"": inString = true
            case "(", "[": depth += 1
            case ")", "]": depth -= 1
            case "," where depth == 0:
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            default: break
            }
            current.append(ch)
        }
        let last = current.trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { parts.append(last) }
        return parts
    }
}
