import Foundation

/// A value written in a `Spec/` cell as a typed JSON literal (defaults, enum cloud values, constants).
///
/// As in the canonical typed JSON, a number with a fraction or exponent is a double (`0.0`, `1e3`)
/// and one without is an integer (`4`); strings are JSON strings with JSON escapes; maps keep their
/// key order as written.
public enum SpecValue: Hashable, Sendable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case boolean(Bool)
    /// A number written without fraction or exponent, within Int64.
    case integer(Int64)
    /// A finite number written with a fraction or exponent.
    case double(Double)
    /// A JSON string.
    case string(String)
    /// A JSON array.
    case array([SpecValue])
    /// A JSON object, keys in written order (a key appears once).
    case map([Member])

    /// One key and value of a ``SpecValue/map(_:)``.
    public struct Member: Hashable, Sendable {
        /// The key.
        public var key: String
        /// The value.
        public var value: SpecValue
        /// Creates a member.
        public init(key: String, value: SpecValue) {
            self.key = key
            self.value = value
        }
    }

    /// Parses one literal.
    ///
    /// - Throws: ``SpecValueSyntaxError`` naming the offset and the problem (an unquoted word,
    ///   a number outside Int64, a repeated map key, text after the value …).
    public static func parse(_ text: String) throws(SpecValueSyntaxError) -> SpecValue {
        var parser = SpecValueParser(Array(text.utf8))
        parser.skipSpaces()
        let value = try parser.parseValue(depth: 0)
        parser.skipSpaces()
        guard parser.index == parser.bytes.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    /// The value of `key` in a map (nil for other kinds or a missing key).
    public subscript(key: String) -> SpecValue? {
        guard case .map(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The value as a Double when it is a number (integer or double).
    public var numericValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The literal written back: compact JSON with `", "` and `": "` separators, keys in stored order.
    public var description: String {
        switch self {
        case .null: "null"
        case .boolean(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .double(let value):
            value.rounded() == value && abs(value) < 1e15 ? String(format: "%.1f", value) : "\(value)"
        case .string(let value): SpecValue.quoted(value)
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .map(let members):
            "{" + members.map { "\(SpecValue.quoted($0.key)): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    /// A JSON string literal of `text`.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 {
                    result +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// A literal that is not valid typed JSON: `offset` is the UTF-8 offset in the cell.
public struct SpecValueSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// UTF-8 offset in the literal where reading stopped.
    public var offset: Int
    /// What is wrong.
    public var message: String
    /// `message at offset N`.
    public var description: String { "\(message) at offset \(offset)" }
}

/// Recursive-descent reader of typed JSON literals (no dependency on Foundation's number guessing).
struct SpecValueParser {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func failure(_ message: String) -> SpecValueSyntaxError {
        SpecValueSyntaxError(offset: index, message: message)
    }

    mutating func skipSpaces() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    mutating func parseValue(depth: Int) throws(SpecValueSyntaxError) -> SpecValue {
        guard depth < 64 else { throw failure("nesting deeper than 64 levels") }
        guard index < bytes.count else { throw failure("expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseMap(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            if consume("true") { return .boolean(true) }
            if consume("false") { return .boolean(false) }
            if consume("null") { return .null }
            throw failure("expected a JSON value (strings are written in double quotes)")
        }
    }

    mutating func consume(_ word: String) -> Bool {
        let wordBytes = Array(word.utf8)
        guard index + wordBytes.count <= bytes.count, Array(bytes[index..<index + wordBytes.count]) == wordBytes else {
            return false
        }
        index += wordBytes.count
        return true
    }

    mutating func expect(_ byte: UInt8) throws(SpecValueSyntaxError) {
        skipSpaces()
        guard index < bytes.count, bytes[index] == byte else {
            throw failure("expected '\(Character(UnicodeScalar(byte)))'")
        }
        index += 1
    }

    mutating func parseMap(depth: Int) throws(SpecValueSyntaxError) -> SpecValue {
        index += 1
        var members: [SpecValue.Member] = []
        skipSpaces()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .map([])
        }
        while true {
            skipSpaces()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a quoted key")
            }
            let key = try parseString()
            if members.contains(where: { $0.key == key }) { throw failure("key \"\(key)\" appears twice") }
            try expect(UInt8(ascii: ":"))
            skipSpaces()
            members.append(.init(key: key, value: try parseValue(depth: depth + 1)))
            skipSpaces()
            guard index < bytes.count else { throw failure("unterminated map") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .map(members)
            }
            throw failure("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(SpecValueSyntaxError) -> SpecValue {
        index += 1
        var values: [SpecValue] = []
        skipSpaces()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        while true {
            skipSpaces()
            values.append(try parseValue(depth: depth + 1))
            skipSpaces()
            guard index < bytes.count else { throw failure("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            }
            throw failure("expected ',' or ']'")
        }
    }

    mutating func parseString() throws(SpecValueSyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var pending: [UInt8] = []
        func flush() throws(SpecValueSyntaxError) {
            guard !pending.isEmpty else { return }
            guard let text = String(validating: pending, as: UTF8.self) else {
                throw failure("invalid UTF-8 in string")
            }
            scalars.append(contentsOf: text.unicodeScalars)
            pending.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                try flush()
                return String(scalars)
            }
            if byte < 0x20 { throw failure("control character in string") }
            if byte == UInt8(ascii: "\\") {
                try flush()
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard consume("\\u") else { throw failure("lone high surrogate") }
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("invalid low surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
                    scalars.append(scalar)
                default: throw failure("invalid escape")
                }
                continue
            }
            pending.append(byte)
            index += 1
        }
        throw failure("unterminated string")
    }

    mutating func parseHex4() throws(SpecValueSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count,
            let text = String(validating: bytes[index..<index + 4], as: UTF8.self),
            let code = UInt32(text, radix: 16)
        else { throw failure("expected four hex digits") }
        index += 4
        return code
    }

    mutating func parseNumber() throws(SpecValueSyntaxError) -> SpecValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("expected digits") }
        if integerDigits > 1, bytes[index - integerDigits] == UInt8(ascii: "0") {
            throw failure("leading zero in number")
        }
        var isDouble = false
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            isDouble = true
            guard digits() > 0 else { throw failure("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            isDouble = true
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw failure("expected exponent digits") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isDouble {
            guard let value = Double(text), value.isFinite else { throw failure("number out of range") }
            return .double(value)
        }
        guard let value = Int64(text) else { throw failure("integer outside Int64") }
        return .integer(value)
    }
}
