/// Writes JSON in the project's canonical bytes (Goldens/FORMAT.md): UTF-8, LF, one trailing newline,
/// two-space indent, `"key": value`, every member and element on its own line, `{}` and `[]` for
/// empty containers, keys sorted by UTF-16 code units (RFC 8785 §3.2.3) at every level, strings
/// escaped as RFC 8785 §3.2.2.2, integers in plain decimal, doubles in ECMAScript form with `.0`
/// appended when that form has neither `.` nor `e`.
public enum CanonicalJSONWriter {
    /// The canonical bytes of `node`, with a final newline.
    ///
    /// A double that is NaN or infinite cannot be written as a JSON number; the typed layers wrap
    /// those before they get here, and this writer prints them as `null` defensively.
    /// `-0.0` is written `-0.0`.
    public static func write(_ node: JSONNode) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(node, indent: 0, into: &out)
        out.append(0x0A)
        return out
    }

    /// The canonical text of `node` (``write(_:)`` as a String).
    public static func string(_ node: JSONNode) -> String {
        String(decoding: write(node), as: UTF8.self)
    }

    static func newline(_ indent: Int, _ out: inout [UInt8]) {
        out.append(0x0A)
        for _ in 0..<indent { out.append(0x20) }
    }

    static func write(_ node: JSONNode, indent: Int, into out: inout [UInt8]) {
        switch node.kind {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let v): out.append(contentsOf: String(v).utf8)
        case .bigInteger(let text): out.append(contentsOf: text.utf8)
        case .double(let d): out.append(contentsOf: ECMAScriptNumber.canonicalDouble(d).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            if elements.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(0x5B)
            for (k, e) in elements.enumerated() {
                newline(indent + 2, &out)
                write(e, indent: indent + 2, into: &out)
                if k < elements.count - 1 { out.append(0x2C) }
            }
            newline(indent, &out)
            out.append(0x5D)
        case .object(let members):
            if members.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(0x7B)
            let sorted = members.sorted { utf16Precedes($0.key, $1.key) }
            for (k, m) in sorted.enumerated() {
                newline(indent + 2, &out)
                writeString(m.key, into: &out)
                out.append(0x3A)
                out.append(0x20)
                write(m.value, indent: indent + 2, into: &out)
                if k < sorted.count - 1 { out.append(0x2C) }
            }
            newline(indent, &out)
            out.append(0x7D)
        }
    }

    /// Whether `a` sorts before `b` by UTF-16 code units (RFC 8785 §3.2.3).
    public static func utf16Precedes(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Writes a string escaped as RFC 8785 §3.2.2.2.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22:
                out.append(0x5C)
                out.append(0x22)
            case 0x5C:
                out.append(0x5C)
                out.append(0x5C)
            case 0x08:
                out.append(0x5C)
                out.append(0x62)
            case 0x09:
                out.append(0x5C)
                out.append(0x74)
            case 0x0A:
                out.append(0x5C)
                out.append(0x6E)
            case 0x0C:
                out.append(0x5C)
                out.append(0x66)
            case 0x0D:
                out.append(0x5C)
                out.append(0x72)
            case 0x00..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(0x22)
    }
}

/// ECMAScript's Number-to-String (ECMA-262 Number::toString, the form RFC 8785 §3.2.2.3 uses).
public enum ECMAScriptNumber {
    /// The shortest round-trip decimal digits of a finite double and its decimal exponent `n`,
    /// such that the value is 0.d₁d₂…dₖ × 10ⁿ; digits are empty for zero.
    static func shortestDigits(_ value: Double) -> (digits: [UInt8], n: Int) {
        // Swift's description is the shortest round-trip (closest) digit string; only its layout
        // differs from ECMAScript's, so take the digits and exponent from it.
        let text = Array(value.magnitude.description.utf8)
        var mantissa = text[...]
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == 0x65 || $0 == 0x45 }) {
            mantissa = text[..<e]
            exponent = Int(String(decoding: text[(e + 1)...], as: UTF8.self)) ?? 0
        }
        var digits: [UInt8] = []
        var pointAt: Int? = nil
        for c in mantissa {
            if c == 0x2E { pointAt = digits.count } else { digits.append(c) }
        }
        var n = (pointAt ?? digits.count) + exponent
        var lead = 0
        while lead < digits.count, digits[lead] == 0x30 { lead += 1 }
        digits.removeFirst(lead)
        n -= lead
        while let last = digits.last, last == 0x30 { digits.removeLast() }
        return (digits, digits.isEmpty ? 1 : n)
    }

    /// ECMAScript's string for a finite double: `0`, `1.5`, `1e-7`, `1e+21`, `0.000001`, `100`.
    /// NaN and ±Infinity give `NaN`, `Infinity`, `-Infinity`; −0 gives `0`, as ECMAScript does.
    public static func string(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        let (digits, n) = shortestDigits(value)
        if digits.isEmpty { return "0" }
        let k = digits.count
        var out: [UInt8] = value < 0 ? [0x2D] : []
        if k <= n && n <= 21 {
            out += digits
            out += [UInt8](repeating: 0x30, count: n - k)
        } else if 0 < n && n <= 21 {
            out += digits[..<n]
            out.append(0x2E)
            out += digits[n...]
        } else if -6 < n && n <= 0 {
            out += [0x30, 0x2E]
            out += [UInt8](repeating: 0x30, count: -n)
            out += digits
        } else {
            let e = n - 1
            out.append(digits[0])
            if k > 1 {
                out.append(0x2E)
                out += digits[1...]
            }
            out.append(0x65)
            out.append(e < 0 ? 0x2D : 0x2B)
            out += Array(String(abs(e)).utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The canonical JSON form of a double (Goldens/FORMAT.md): ECMAScript's string with `.0` appended
    /// when it has neither `.` nor `e` (`5.0`, `1e-7`, `1000000000000000.0`); −0 as `-0.0`.
    /// NaN and ±Infinity have no JSON number form; they give `null` here (callers wrap them first).
    public static func canonicalDouble(_ value: Double) -> String {
        if !value.isFinite { return "null" }
        if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
        let s = string(value)
        if s.utf8.contains(where: { $0 == 0x2E || $0 == 0x65 }) { return s }
        return s + ".0"
    }
}

extension CanonicalJSONWriter {
    /// The node on one line, keys sorted as in the canonical form, `", "` and `": "` separators
    /// (`{"a": 1, "b": [true, null]}`), no final newline: for messages and JSON Lines.
    public static func compact(_ node: JSONNode) -> String {
        var out: [UInt8] = []
        writeCompact(node, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func writeCompact(_ node: JSONNode, into out: inout [UInt8]) {
        switch node.kind {
        case .array(let elements):
            out.append(0x5B)
            for (k, e) in elements.enumerated() {
                if k > 0 { out.append(contentsOf: [0x2C, 0x20]) }
                writeCompact(e, into: &out)
            }
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            for (k, m) in members.sorted(by: { utf16Precedes($0.key, $1.key) }).enumerated() {
                if k > 0 { out.append(contentsOf: [0x2C, 0x20]) }
                writeString(m.key, into: &out)
                out.append(contentsOf: [0x3A, 0x20])
                writeCompact(m.value, into: &out)
            }
            out.append(0x7D)
        default:
            write(node, indent: 0, into: &out)
        }
    }
}

extension CanonicalJSON {
    /// The value in canonical typed JSON on one line (`{"$timestamp": "…"}`), for messages and
    /// JSON Lines.
    public static func compactString(_ value: FirestoreValue) -> String {
        CanonicalJSONWriter.compact(node(value))
    }
}

extension FirestoreValue: CustomStringConvertible {
    /// The value in canonical typed JSON on one line (``CanonicalJSON/compactString(_:)``), for messages.
    public var description: String { CanonicalJSON.compactString(self) }
}
