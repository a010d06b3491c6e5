import Foundation
import VultureSchemaCore

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
    case enumCase(String, String, FirestoreValue)
    /// A settings value (a `FirestoreValue`).
    case setting(FirestoreValue)
    case map(String, [(FieldSpec, SampleValue)])
    case array([SampleValue])
    case dictionary([(String, SampleValue)])
    /// A nullable field's null (Swift `nil`).
    case null

    /// 2026-10-20T14:03:07.123Z.
    static let sampleTimestamp = SampleValue.timestamp(1_792_504_987, 123_000, "2026-10-20T14:03:07.123Z")
}

/// Builds sample documents from the tables: every field has a value that its limits accept.
struct Samples {
    let spec: SchemaSpec

    /// A live document: a field that is null unless a flag is true (`deletedAt`) is null and its flag
    /// (`deleted`) false, since a document with `deleted` true is a tombstone, which keeps only the
    /// common fields (schema §5.4); every other field has a value.
    func document(_ owner: String) -> SampleValue {
        let fields = spec.allFields(of: owner)
        let flags = Set(fields.flatMap { $0.limits.compactMap(\.nullUnlessFlag) })
        return .map(
            owner,
            fields.map { field in
                if field.limits.contains(where: { $0.nullUnlessFlag != nil }) { return (field, .null) }
                if flags.contains(field.name), field.type == .boolean { return (field, .bool(false)) }
                return (field, value(field.type, field: field))
            })
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

    func value(_ type: SchemaFieldType, field: FieldSpec?) -> SampleValue {
        switch type {
        case .string:
            let hex64 = String(repeating: "0123456789abcdef", count: 4)
            for limit in field?.limits ?? [] {
                if case .hexLength(let n) = limit {
                    return .string(String(String(repeating: "0123456789abcdef", count: n / 16 + 1).prefix(n)))
                }
                // A Storage path: the blob's template with the uid u1 and, for the id or the content
                // hash, the 64-hex sample every hash field of a sample document holds.
                if case .storagePath(let name) = limit, let blob = spec.blobs.first(where: { $0.name == name }) {
                    var path = ""
                    var rest = Substring(blob.pathTemplate)
                    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                        path += rest[..<open]
                        path += rest[rest.index(after: open)..<close] == "uid" ? "u1" : hex64
                        rest = rest[rest.index(after: close)...]
                    }
                    return .string(path + rest)
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

    /// The sample as a value in a form: the write form has the sentinels (`$serverTimestamp`,
    /// `$increment`) where the field is written that way.
    func json(_ sample: SampleValue, form: WriteFormKind) -> FirestoreValue {
        switch sample {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .timestamp(let seconds, let microseconds, _):
            return .timestamp(FirestoreTimestamp(unchecked: seconds, microseconds))
        case .bytes(let bytes): return .bytes(Data(bytes))
        case .enumCase(_, _, let cloud): return cloud
        case .setting(let value): return value
        case .array(let values): return .array(values.map { json($0, form: form) })
        case .dictionary(let entries):
            return .map(Dictionary(entries.map { ($0.0, json($0.1, form: form)) }, uniquingKeysWith: { a, _ in a }))
        case .map(_, let fields):
            var members: [String: FirestoreValue] = [:]
            for (field, value) in fields {
                switch (field.writeAs, form) {
                case (.serverTimestamp, .write): members[field.name] = .serverTimestamp
                case (.increment, .write):
                    switch json(value, form: form) {
                    case .double(let d): members[field.name] = .increment(.double(d))
                    case .integer(let n): members[field.name] = .increment(.integer(n))
                    case let other: members[field.name] = other
                    }
                default: members[field.name] = json(value, form: form)
                }
            }
            return .map(members)
        }
    }

    /// 2026-10-20T14:03:07.123Z, the sample timestamp as a value.
    static let updatedAtSample = FirestoreTimestamp(unchecked: 1_792_504_987, 123_000)

    /// The Swift expression of a sample (`try` may be needed: timestamps throw).
    func swift(_ sample: SampleValue, types: SwiftTypes) -> String {
        switch sample {
        case .null: return "nil"
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

/// The two forms of a document (Goldens/FORMAT.md).
enum WriteFormKind: String, CaseIterable {
    case write
    case stored
}
