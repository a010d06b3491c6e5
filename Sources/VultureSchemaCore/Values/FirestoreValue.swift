import Foundation

/// A Firestore value, or a write sentinel, as the schema's documents hold them.
///
/// Shapes (Goldens/FORMAT.md): `null`, `boolean`, `integer` (int64), `double` (IEEE 754 binary64, NaN,
/// ±Infinity and −0 included), `string` (valid Unicode), `timestamp` (microseconds, 0001…9999),
/// `bytes`, `geoPoint` (degrees), `reference` (a full document name), `array`, `map`, and the write
/// sentinels `serverTimestamp`, `increment` (integer or double operand) and `delete`, which belong to
/// the write form only (Goldens/FORMAT.md).
///
/// Equality is by typed value: `integer(1)` ≠ `double(1.0)`, NaN equals NaN, `0.0` ≠ `-0.0`.
/// Firestore's structural limits are checked by ``validate(form:pointer:)`` and by every reader.
public enum FirestoreValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case boolean(Bool)
    /// A signed 64-bit integer.
    case integer(Int64)
    /// An IEEE 754 binary64 number; NaN, ±Infinity and −0 included.
    case double(Double)
    /// A string of valid Unicode.
    case string(String)
    /// An instant with microsecond precision, 0001-01-01 … 9999-12-31 UTC.
    case timestamp(FirestoreTimestamp)
    /// Raw bytes.
    case bytes(Data)
    /// A latitude and longitude in degrees.
    case geoPoint(GeoPoint)
    /// A full document name: `projects/{p}/databases/{d}/documents/{path}`.
    case reference(String)
    /// An array; never directly inside another array.
    case array([FirestoreValue])
    /// A map of field names to values.
    case map([String: FirestoreValue])
    /// `FieldValue.serverTimestamp()`: the server's commit time replaces it (schema §2, updatedAt).
    case serverTimestamp
    /// `FieldValue.increment(n)`: adds `n` to the stored number (schema §2, storageBytes).
    case increment(IncrementOperand)
    /// `FieldValue.delete()`: removes the field in a merge write.
    case delete
}

/// The operand of an `increment` sentinel: Firestore keeps integer and double increments apart.
public enum IncrementOperand: Sendable, Hashable {
    /// An int64 operand.
    case integer(Int64)
    /// A double operand.
    case double(Double)

    public static func == (a: IncrementOperand, b: IncrementOperand) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y
        case (.double(let x), .double(let y)): return FirestoreValue.sameDouble(x, y)
        default: return false
        }
    }

    public func hash(into h: inout Hasher) {
        switch self {
        case .integer(let x):
            h.combine(0)
            h.combine(x)
        case .double(let x):
            h.combine(1)
            h.combine(x.isNaN ? Double.nan.bitPattern : x.bitPattern)
        }
    }
}

/// A geographic point in degrees (WGS 84): latitude in [-90, 90], longitude in [-180, 180].
public struct GeoPoint: Sendable, Hashable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double

    /// A point in degrees; not range-checked here (``FirestoreValue/validate(form:pointer:)`` checks it).
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

extension FirestoreValue: Hashable {
    /// Doubles are the same value when their bits are, or when both are NaN (0.0 and −0.0 differ).
    static func sameDouble(_ x: Double, _ y: Double) -> Bool {
        x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
    }

    public static func == (a: FirestoreValue, b: FirestoreValue) -> Bool {
        switch (a, b) {
        case (.null, .null), (.serverTimestamp, .serverTimestamp), (.delete, .delete): return true
        case (.boolean(let x), .boolean(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.double(let x), .double(let y)): return sameDouble(x, y)
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.timestamp(let x), .timestamp(let y)): return x == y
        case (.bytes(let x), .bytes(let y)): return x == y
        case (.geoPoint(let x), .geoPoint(let y)):
            return sameDouble(x.latitude, y.latitude) && sameDouble(x.longitude, y.longitude)
        case (.reference(let x), .reference(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.map(let x), .map(let y)): return x == y
        case (.increment(let x), .increment(let y)): return x == y
        default: return false
        }
    }

    public func hash(into h: inout Hasher) {
        h.combine(typeName)
        switch self {
        case .null, .serverTimestamp, .delete: break
        case .boolean(let x): h.combine(x)
        case .integer(let x): h.combine(x)
        case .double(let x): h.combine(x.isNaN ? Double.nan.bitPattern : x.bitPattern)
        case .string(let x): for u in x.unicodeScalars { h.combine(u) }
        case .timestamp(let x): h.combine(x)
        case .bytes(let x): h.combine(x)
        case .geoPoint(let x):
            h.combine(x.latitude.bitPattern)
            h.combine(x.longitude.bitPattern)
        case .reference(let x): h.combine(x)
        case .array(let x): h.combine(x)
        case .map(let x): h.combine(x)
        case .increment(let x): h.combine(x)
        }
    }
}

extension FirestoreValue {
    /// The type's name as the schema tables and error messages spell it
    /// (`null`, `boolean`, `integer`, `double`, `string`, `timestamp`, `bytes`, `geoPoint`,
    /// `reference`, `array`, `map`, `serverTimestamp`, `increment`, `delete`).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .boolean: "boolean"
        case .integer: "integer"
        case .double: "double"
        case .string: "string"
        case .timestamp: "timestamp"
        case .bytes: "bytes"
        case .geoPoint: "geoPoint"
        case .reference: "reference"
        case .array: "array"
        case .map: "map"
        case .serverTimestamp: "serverTimestamp"
        case .increment: "increment"
        case .delete: "delete"
        }
    }

    /// True for the write sentinels `serverTimestamp`, `increment` and `delete` (Goldens/FORMAT.md).
    public var isSentinel: Bool {
        switch self {
        case .serverTimestamp, .increment, .delete: true
        default: false
        }
    }

    /// The map's fields, or nil when this is not a map.
    public var mapValue: [String: FirestoreValue]? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// The value at a dotted field path (`summary.takeoffAt`) through nested maps, or nil.
    public subscript(fieldPath path: String) -> FirestoreValue? {
        var current = self
        for segment in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard case .map(let m) = current, let next = m[String(segment)] else { return nil }
            current = next
        }
        return current
    }
}

/// Which form of a document a value belongs to (Goldens/FORMAT.md).
public enum DocumentForm: String, Sendable, CaseIterable, Codable {
    /// What an encoder sends: sentinels allowed (outside arrays).
    case write
    /// What a reader pulls: sentinels resolved, none allowed.
    case stored
}
