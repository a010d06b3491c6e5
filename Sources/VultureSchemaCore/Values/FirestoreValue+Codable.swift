import Foundation

// Codable for the value types the generated document structs hold, so that a document can be kept
// with any Swift coder (local caches, tests). This is not the golden format: goldens and fixtures go
// through `firestoreValue(form:)` and ``CanonicalJSON`` (Goldens/FORMAT.md).

extension FirestoreTimestamp: Codable {
    /// Reads the RFC 3339 text of canonical JSON (`2026-10-20T14:03:07.123Z`, 0, 3 or 6 fraction digits).
    /// - Throws: `DecodingError.dataCorrupted` for other text; `SchemaInputError` outside Firestore's range.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let t = try FirestoreTimestamp.parseRFC3339(text, allowedFractionDigits: [0, 3, 6], allowOffset: false)
        else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not a canonical timestamp")
        }
        self = t
    }

    /// Writes ``rfc3339``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }
}

/// Codable shape of a ``FirestoreValue``: the canonical typed JSON shape (Goldens/FORMAT.md), except that
/// every double is written `{"$double": "<canonical text>"}`, so that no coder can turn `5.0` into
/// the integer `5`.
extension FirestoreValue: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads the shape written by ``encode(to:)``.
    /// - Throws: `DecodingError.dataCorrupted` for an unknown or malformed `$` wrapper.
    public init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .boolean(b)
        } else if let i = try? single.decode(Int64.self) {
            self = .integer(i)
        } else if let s = try? single.decode(String.self) {
            self = .string(s)
        } else if let a = try? single.decode([FirestoreValue].self) {
            self = .array(a)
        } else {
            let members = try single.decode([String: FirestoreValue].self)
            self = try Self.unwrap(members, single)
        }
    }

    private static func unwrap(
        _ members: [String: FirestoreValue], _ container: any SingleValueDecodingContainer
    ) throws -> FirestoreValue {
        guard members.count == 1, let (key, payload) = members.first, key.hasPrefix("$") else { return .map(members) }
        func bad() -> DecodingError {
            DecodingError.dataCorruptedError(in: container, debugDescription: "malformed \(key) wrapper")
        }
        switch (key, payload) {
        case ("$double", .string(let text)):
            guard let d = Double(text) else { throw bad() }
            return .double(d)
        case ("$timestamp", .string(let text)):
            guard
                let t = try FirestoreTimestamp.parseRFC3339(text, allowedFractionDigits: [0, 3, 6], allowOffset: false)
            else { throw bad() }
            return .timestamp(t)
        case ("$bytes", .string(let text)):
            guard let data = Data(base64Encoded: text) else { throw bad() }
            return .bytes(data)
        case ("$geoPoint", .map(let point)):
            guard case .double(let lat)? = point["latitude"], case .double(let lon)? = point["longitude"] else {
                throw bad()
            }
            return .geoPoint(GeoPoint(latitude: lat, longitude: lon))
        case ("$reference", .string(let text)): return .reference(text)
        case ("$map", .map(let inner)): return .map(inner)
        case ("$serverTimestamp", .boolean(true)): return .serverTimestamp
        case ("$delete", .boolean(true)): return .delete
        case ("$increment", .integer(let i)): return .increment(.integer(i))
        case ("$increment", .double(let d)): return .increment(.double(d))
        default: throw bad()
        }
    }

    private static func doubleText(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return ECMAScriptNumber.canonicalDouble(d)
    }

    /// Writes the canonical typed JSON shape, doubles always as `{"$double": "…"}`.
    public func encode(to encoder: any Encoder) throws {
        func wrap(_ key: String, _ payload: FirestoreValue) throws {
            var keyed = encoder.container(keyedBy: Key.self)
            try keyed.encode(payload, forKey: Key(stringValue: key))
        }
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .boolean(let b):
            var single = encoder.singleValueContainer()
            try single.encode(b)
        case .integer(let i):
            var single = encoder.singleValueContainer()
            try single.encode(i)
        case .string(let s):
            var single = encoder.singleValueContainer()
            try single.encode(s)
        case .double(let d): try wrap("$double", .string(Self.doubleText(d)))
        case .timestamp(let t): try wrap("$timestamp", .string(t.rfc3339))
        case .bytes(let b): try wrap("$bytes", .string(b.base64EncodedString()))
        case .geoPoint(let g):
            try wrap("$geoPoint", .map(["latitude": .double(g.latitude), "longitude": .double(g.longitude)]))
        case .reference(let r): try wrap("$reference", .string(r))
        case .array(let a):
            var single = encoder.singleValueContainer()
            try single.encode(a)
        case .map(let m):
            if m.count == 1, m.keys.first?.hasPrefix("$") == true {
                try wrap("$map", .map(m))
            } else {
                var keyed = encoder.container(keyedBy: Key.self)
                for (key, value) in m { try keyed.encode(value, forKey: Key(stringValue: key)) }
            }
        case .serverTimestamp: try wrap("$serverTimestamp", .boolean(true))
        case .increment(.integer(let i)): try wrap("$increment", .integer(i))
        case .increment(.double(let d)): try wrap("$increment", .double(d))
        case .delete: try wrap("$delete", .boolean(true))
        }
    }
}
