import Foundation

/// A strict RFC 8259 reader: UTF-8 only (no byte-order mark), no duplicate keys, no lone
/// surrogates, no unescaped control characters, no trailing garbage, integers kept apart from
/// doubles, nesting at most 512 deep.
///
/// Source: Goldens/FORMAT.md ("the reader keeps integer vs double exactly as written, rejects …").
public enum StrictJSONReader {
    /// The deepest nesting of arrays and objects the reader follows before `json.too-deep`.
    public static let maximumNesting = 512

    /// Parses one JSON text.
    /// - Parameters:
    ///   - bytes: the UTF-8 text.
    ///   - file: the file name for error messages.
    /// - Returns: the document's root node, with byte offsets.
    /// - Throws: `SchemaInputError` with file, line:column, the JSON pointer of the enclosing
    ///   value and one of the `json.*` rules.
    public static func parse(_ bytes: [UInt8], file: String? = nil) throws -> JSONNode {
        var parser = Parser(bytes: bytes)
        do {
            return try parser.parseDocument()
        } catch {
            throw JSONSourceText(bytes: bytes, file: file).locate(error.error, at: error.offset)
        }
    }

    /// Parses one JSON text held in `Data`. See ``parse(_:file:)-([UInt8],String?)``.
    public static func parse(_ data: Data, file: String? = nil) throws -> JSONNode {
        try parse([UInt8](data), file: file)
    }
}

private struct Parser {
    struct Failure: Error {
        var error: SchemaInputError
        var offset: Int
    }

    let bytes: [UInt8]
    var i = 0
    /// The keys and indices from the root to the value being read; made a pointer only on failure.
    var path: [PathToken] = []

    init(bytes: [UInt8]) { self.bytes = bytes }

    var pointer: String { PathToken.pointer(path) }

    func fail(_ rule: InputRule, _ message: String, at offset: Int? = nil) -> Failure {
        Failure(error: SchemaInputError(rule: rule, pointer: pointer, message: message), offset: offset ?? i)
    }

    mutating func parseDocument() throws(Failure) -> JSONNode {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            throw fail(.jsonSyntax, "a byte-order mark is not allowed")
        }
        skipWhitespace()
        let node = try parseValue(depth: 0)
        skipWhitespace()
        if i < bytes.count {
            throw fail(.jsonTrailingGarbage, "unexpected \(describe(bytes[i])) after the JSON value")
        }
        return node
    }

    func describe(_ b: UInt8) -> String {
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(Failure) -> JSONNode {
        guard i < bytes.count else { throw fail(.jsonSyntax, "unexpected end of input, expected a value") }
        let start = i
        switch bytes[i] {
        case 0x7B: return try parseObject(depth: depth + 1)
        case 0x5B: return try parseArray(depth: depth + 1)
        case 0x22: return JSONNode(.string(try parseString()), offset: start)
        case 0x74:
            try literal("true")
            return JSONNode(.bool(true), offset: start)
        case 0x66:
            try literal("false")
            return JSONNode(.bool(false), offset: start)
        case 0x6E:
            try literal("null")
            return JSONNode(.null, offset: start)
        case 0x2D, 0x30...0x39: return try parseNumber()
        default: throw fail(.jsonSyntax, "unexpected \(describe(bytes[i])), expected a value")
        }
    }

    mutating func literal(_ word: StaticString) throws(Failure) {
        let n = word.utf8CodeUnitCount
        let w = UnsafeBufferPointer(start: word.utf8Start, count: n)
        guard i + n <= bytes.count, bytes[i..<(i + n)].elementsEqual(w) else {
            throw fail(.jsonSyntax, "invalid literal, expected \(word)")
        }
        i += n
    }

    mutating func parseObject(depth: Int) throws(Failure) -> JSONNode {
        let start = i
        if depth > StrictJSONReader.maximumNesting {
            throw fail(.jsonTooDeep, "nested deeper than \(StrictJSONReader.maximumNesting) levels")
        }
        i += 1
        var members: [JSONMember] = []
        var seen: Set<String> = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == 0x7D {
            i += 1
            return JSONNode(.object(members), offset: start)
        }
        while true {
            skipWhitespace()
            guard i < bytes.count else { throw fail(.jsonSyntax, "unexpected end of input inside an object") }
            guard bytes[i] == 0x22 else {
                throw fail(.jsonSyntax, "expected a string key, found \(describe(bytes[i]))")
            }
            let keyOffset = i
            let key = try parseString()
            if members.count < 8 ? members.contains(where: { $0.key == key }) : seen.contains(key) {
                path.append(.key(key))
                throw fail(.jsonDuplicateKey, "duplicate key \"\(key)\"", at: keyOffset)
            }
            if members.count >= 7 {
                if seen.isEmpty { seen = Set(members.map(\.key)) }
                seen.insert(key)
            }
            skipWhitespace()
            path.append(.key(key))
            guard i < bytes.count, bytes[i] == 0x3A else { throw fail(.jsonSyntax, "expected ':' after the key") }
            i += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            path.removeLast()
            members.append(JSONMember(key: key, keyOffset: keyOffset, value: value))
            skipWhitespace()
            guard i < bytes.count else { throw fail(.jsonSyntax, "unexpected end of input inside an object") }
            if bytes[i] == 0x2C {
                i += 1
                continue
            }
            if bytes[i] == 0x7D {
                i += 1
                return JSONNode(.object(members), offset: start)
            }
            throw fail(.jsonSyntax, "expected ',' or '}', found \(describe(bytes[i]))")
        }
    }

    mutating func parseArray(depth: Int) throws(Failure) -> JSONNode {
        let start = i
        if depth > StrictJSONReader.maximumNesting {
            throw fail(.jsonTooDeep, "nested deeper than \(StrictJSONReader.maximumNesting) levels")
        }
        i += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == 0x5D {
            i += 1
            return JSONNode(.array(elements), offset: start)
        }
        while true {
            skipWhitespace()
            path.append(.index(elements.count))
            let value = try parseValue(depth: depth)
            path.removeLast()
            elements.append(value)
            skipWhitespace()
            guard i < bytes.count else { throw fail(.jsonSyntax, "unexpected end of input inside an array") }
            if bytes[i] == 0x2C {
                i += 1
                continue
            }
            if bytes[i] == 0x5D {
                i += 1
                return JSONNode(.array(elements), offset: start)
            }
            throw fail(.jsonSyntax, "expected ',' or ']', found \(describe(bytes[i]))")
        }
    }

    mutating func parseNumber() throws(Failure) -> JSONNode {
        let start = i
        if bytes[i] == 0x2D { i += 1 }
        func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= 0x30 && bytes[k] <= 0x39 }
        guard isDigit(i) else { throw fail(.jsonSyntax, "a '-' must be followed by a digit") }
        if bytes[i] == 0x30 {
            i += 1
            if isDigit(i) { throw fail(.jsonSyntax, "a number must not have a leading zero") }
        } else {
            while isDigit(i) { i += 1 }
        }
        var integral = true
        if i < bytes.count, bytes[i] == 0x2E {
            integral = false
            i += 1
            guard isDigit(i) else { throw fail(.jsonSyntax, "a '.' must be followed by a digit") }
            while isDigit(i) { i += 1 }
        }
        if i < bytes.count, bytes[i] == 0x65 || bytes[i] == 0x45 {
            integral = false
            i += 1
            if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
            guard isDigit(i) else { throw fail(.jsonSyntax, "an exponent must have a digit") }
            while isDigit(i) { i += 1 }
        }
        if integral {
            // Accumulate negatively so that Int64.min fits; overflow falls back to the text.
            var v: Int64 = 0
            var overflow = false
            var k = bytes[start] == 0x2D ? start + 1 : start
            while k < i {
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (d, o2) = m.subtractingReportingOverflow(Int64(bytes[k] &- 0x30))
                if o1 || o2 {
                    overflow = true
                    break
                }
                v = d
                k += 1
            }
            if !overflow {
                if bytes[start] == 0x2D { return JSONNode(.integer(v), offset: start) }
                if v != .min { return JSONNode(.integer(-v), offset: start) }
            }
            return JSONNode(.bigInteger(String(decoding: bytes[start..<i], as: UTF8.self)), offset: start)
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let d = Double(text) else { throw fail(.jsonSyntax, "malformed number \(text)", at: start) }
        return JSONNode(.double(d), offset: start)
    }

    /// Parses a string at `i` (which is at the opening quote), validating UTF-8 strictly.
    mutating func parseString() throws(Failure) -> String {
        i += 1
        let start = i
        // Fast path: printable ASCII with no escapes.
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x22 {
                let s = String(decoding: bytes[start..<i], as: UTF8.self)
                i += 1
                return s
            }
            if b == 0x5C || b < 0x20 || b >= 0x80 { break }
            i += 1
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: String(decoding: bytes[start..<i], as: UTF8.self).unicodeScalars)
        while true {
            guard i < bytes.count else { throw fail(.jsonSyntax, "unterminated string", at: start - 1) }
            let b = bytes[i]
            switch b {
            case 0x22:
                i += 1
                return String(scalars)
            case 0x5C:
                scalars.append(try parseEscape())
            case 0x00..<0x20:
                throw fail(.jsonControlCharacter, "control character U+00\(hex2(b)) must be escaped inside a string")
            case 0x00..<0x80:
                scalars.append(Unicode.Scalar(b))
                i += 1
            default:
                scalars.append(try decodeUTF8Scalar())
            }
        }
    }

    func hex2(_ b: UInt8) -> String {
        let s = String(b, radix: 16, uppercase: true)
        return s.count == 1 ? "0" + s : s
    }

    mutating func decodeUTF8Scalar() throws(Failure) -> Unicode.Scalar {
        let b0 = bytes[i]
        let length: Int
        var value: UInt32
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF:
            length = 2
            value = UInt32(b0 & 0x1F)
        case 0xE0:
            length = 3
            value = 0
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
            value = UInt32(b0 & 0x0F)
        case 0xED:
            length = 3
            value = 0x0D
            upper = 0x9F  // excludes encoded surrogates
        case 0xF0:
            length = 4
            value = 0
            lower = 0x90
        case 0xF1...0xF3:
            length = 4
            value = UInt32(b0 & 0x07)
        case 0xF4:
            length = 4
            value = 4
            upper = 0x8F
        default: throw fail(.jsonInvalidUTF8, "byte 0x\(hex2(b0)) cannot start a UTF-8 sequence")
        }
        for k in 1..<length {
            let idx = i + k
            guard idx < bytes.count else { throw fail(.jsonInvalidUTF8, "truncated UTF-8 sequence") }
            let b = bytes[idx]
            let lo = k == 1 ? lower : 0x80
            let hi = k == 1 ? upper : 0xBF
            guard b >= lo, b <= hi else {
                throw fail(.jsonInvalidUTF8, "invalid UTF-8 continuation byte 0x\(hex2(b))", at: idx)
            }
            value = value << 6 | UInt32(b & 0x3F)
        }
        i += length
        guard let scalar = Unicode.Scalar(value) else {
            throw fail(.jsonInvalidUTF8, "invalid UTF-8 sequence", at: i - length)
        }
        return scalar
    }

    mutating func parseEscape() throws(Failure) -> Unicode.Scalar {
        let escapeStart = i
        i += 1
        guard i < bytes.count else { throw fail(.jsonSyntax, "unterminated escape") }
        let c = bytes[i]
        i += 1
        switch c {
        case 0x22: return "\""
        case 0x5C: return "\\"
        case 0x2F: return "/"
        case 0x62: return "\u{08}"
        case 0x66: return "\u{0C}"
        case 0x6E: return "\n"
        case 0x72: return "\r"
        case 0x74: return "\t"
        case 0x75:
            let u = try hex4()
            if (0xD800...0xDBFF).contains(u) {
                guard i + 1 < bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75 else {
                    throw fail(
                        .jsonLoneSurrogate, "high surrogate \\u\(String(u, radix: 16)) without a low surrogate",
                        at: escapeStart)
                }
                i += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail(
                        .jsonLoneSurrogate, "high surrogate \\u\(String(u, radix: 16)) without a low surrogate",
                        at: escapeStart)
                }
                return Unicode.Scalar(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00))!
            }
            if (0xDC00...0xDFFF).contains(u) {
                throw fail(
                    .jsonLoneSurrogate, "low surrogate \\u\(String(u, radix: 16)) without a high surrogate",
                    at: escapeStart)
            }
            return Unicode.Scalar(u)!
        default:
            throw fail(.jsonSyntax, "invalid escape \\\(Character(Unicode.Scalar(c)))", at: escapeStart)
        }
    }

    mutating func hex4() throws(Failure) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail(.jsonSyntax, "\\u needs four hex digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw fail(.jsonSyntax, "\\u needs four hex digits")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }
}
