import Foundation

/// A JSON value with object members in a fixed order, written canonically (DESIGN.md §2: keys sorted
/// by UTF-16 code units, two-space indent, LF, final newline).
indirect enum JSONValue: Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number; written as an integer when whole and `asDouble` is false.
    case number(Double, asDouble: Bool)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool { a.text() == b.text() }
    func hash(into hasher: inout Hasher) { hasher.combine(text()) }

    /// The canonical text with a final newline.
    func text() -> String {
        var out = ""
        write(into: &out, indent: 0)
        return out + "\n"
    }

    private func write(into out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d, let asDouble):
            if d.rounded() == d && abs(d) < 1e15 {
                out += String(Int64(d)) + (asDouble ? ".0" : "")
            } else {
                out += "\(d)"
            }
        case .string(let s): out += Self.quoted(s)
        case .array(let values):
            if values.isEmpty {
                out += "[]"
                return
            }
            out += "[\n"
            for (index, value) in values.enumerated() {
                out += pad
                value.write(into: &out, indent: indent + 1)
                out += index == values.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            let sorted = members.sorted { $0.0.utf16.lexicographicallyPrecedes($1.0.utf16) }
            out += "{\n"
            for (index, member) in sorted.enumerated() {
                out += pad + Self.quoted(member.0) + ": "
                member.1.write(into: &out, indent: indent + 1)
                out += index == sorted.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "}"
        }
    }

    /// RFC 8785 string escaping.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\u{0C}": out += "\\f"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// The member `key` of an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// A copy of an object with `key` set (appended when new) or, for nil, removed.
    func setting(_ key: String, _ value: JSONValue?) -> JSONValue {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.0 == key }) {
            if let value { members[index].1 = value } else { members.remove(at: index) }
        } else if let value {
            members.append((key, value))
        }
        return .object(members)
    }
}

/// A sample value of a field: the same value rendered as Swift (the generated round-trip tests) and
/// as canonical typed JSON (the fixtures of the JSON Schema cross-check).
indirect enum SampleValue {
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    /// Seconds since the epoch, microseconds, RFC 3339 text.
    case timestamp(Int64, Int32, String)
    case bytes([UInt8])
    /// Enum name, case name, cloud value.
    case enumCase(String, String, SpecValue)
    /// A settings value (a `FirestoreValue`).
    case setting(SpecValue)
    case map(String, [(FieldSpec, SampleValue)])
    case array([SampleValue])
    case dictionary([(String, SampleValue)])

    /// 2026-10-20T14:03:07.123Z.
    static let sampleTimestamp = SampleValue.timestamp(1_792_504_987, 123_000, "2026-10-20T14:03:07.123Z")
}

/// Builds sample documents from the tables: every field has a value that its limits accept.
struct Samples {
    let spec: SchemaSpec

    func document(_ owner: String) -> SampleValue {
        .map(owner, spec.allFields(of: owner).map { ($0, value($0.type, field: $0)) })
    }

    private func clamp(_ value: Double, _ field: FieldSpec?) -> Double {
        var v = value
        for limit in field?.limits ?? [] {
            switch limit {
            case .minimum(let m): v = max(v, m)
            case .maximum(let m): v = min(v, m)
            default: break
            }
        }
        for limit in field?.limits ?? [] {
            if case .step(let s) = limit { v = (v / s).rounded(.up) * s }
        }
        return v
    }

    func value(_ type: FieldType, field: FieldSpec?) -> SampleValue {
        switch type {
        case .string:
            for limit in field?.limits ?? [] {
                if case .hexLength(let n) = limit {
                    return .string(String(String(repeating: "0123456789abcdef", count: n / 16 + 1).prefix(n)))
                }
            }
            return .string("\(field?.name ?? "text") sample")
        case .dateString: return .string("2026-10-20")
        case .unit(let table): return .string(spec.unitTable(named: table)?.units.first?.id ?? "")
        case .boolean: return .bool(true)
        case .integer: return .integer(Int64(clamp(1, field)))
        case .double: return .double(clamp(1.5, field))
        case .timestamp: return SampleValue.sampleTimestamp
        case .bytes: return .bytes([0, 1, 254, 255])
        case .settingValue: return .setting(spec.settingsKeys.first?.defaultValue ?? .string("sample"))
        case .enumeration(let name):
            guard let first = spec.enumeration(named: name)?.cases.first else { return .string("") }
            return .enumCase(name, first.name, first.cloudValue)
        case .map(let owner): return document(owner)
        case .array(let element): return .array([value(element, field: nil)])
        case .dictionary(let element):
            let key = spec.settingsKeys.first?.key ?? "key"
            return .dictionary([(key, value(element, field: nil))])
        }
    }

    /// Canonical typed JSON of a sample in a form.
    func json(_ sample: SampleValue, form: WriteFormKind) -> JSONValue {
        switch sample {
        case .bool(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .double(let d): return .number(d, asDouble: true)
        case .string(let s): return .string(s)
        case .timestamp(_, _, let text): return .object([("$timestamp", .string(text))])
        case .bytes(let bytes): return .object([("$bytes", .string(Data(bytes).base64EncodedString()))])
        case .enumCase(_, _, let cloud): return Self.json(cloud)
        case .setting(let value): return Self.json(value)
        case .array(let values): return .array(values.map { json($0, form: form) })
        case .dictionary(let entries): return .object(entries.map { ($0.0, json($0.1, form: form)) })
        case .map(_, let fields):
            return .object(
                fields.map { field, value in
                    switch (field.writeAs, form) {
                    case (.serverTimestamp, .write): return (field.name, .object([("$serverTimestamp", .bool(true))]))
                    case (.increment, .write): return (field.name, .object([("$increment", json(value, form: form))]))
                    default: return (field.name, json(value, form: form))
                    }
                })
        }
    }

    /// A table literal as canonical typed JSON.
    static func json(_ value: SpecValue) -> JSONValue {
        switch value {
        case .null: .null
        case .boolean(let b): .bool(b)
        case .integer(let i): .integer(i)
        case .double(let d): .number(d, asDouble: true)
        case .string(let s): .string(s)
        case .array(let values): .array(values.map(json))
        case .map(let members): .object(members.map { ($0.key, json($0.value)) })
        }
    }

    /// The Swift expression of a sample (`try` may be needed: timestamps throw).
    func swift(_ sample: SampleValue, types: SwiftTypes) -> String {
        switch sample {
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return SwiftText.integer(i)
        case .double(let d): return SwiftText.double(d)
        case .string(let s): return SwiftText.string(s)
        case .timestamp(let s, let us, _):
            return "try FirestoreTimestamp(seconds: \(SwiftText.integer(s)), microseconds: \(SwiftText.integer(us)))"
        case .bytes(let bytes): return "Data([" + bytes.map { String($0) }.joined(separator: ", ") + "])"
        case .enumCase(_, let name, _): return "." + SwiftText.identifier(name)
        case .setting(let value): return SwiftText.firestoreValue(value)
        case .array(let values): return "[" + values.map { swift($0, types: types) }.joined(separator: ", ") + "]"
        case .dictionary(let entries):
            return "["
                + entries.map { "\(SwiftText.string($0.0)): \(swift($0.1, types: types))" }
                .joined(separator: ", ") + "]"
        case .map(let owner, _): return "try Self.sample\(owner)()"
        }
    }
}

/// The two forms of a document (DESIGN.md §3).
enum WriteFormKind: String, CaseIterable {
    case write
    case stored
}
