import Foundation

// The Foundation form of a value: what the Firebase SDK's `setData(_:merge:)` takes and `data()`
// returns — NSNull, NSNumber, String, Date, Data, arrays and string-keyed dictionaries — with the
// write sentinels handed to the app to map to the SDK's `FieldValue`.

/// A write sentinel in the Foundation form of a value (Goldens/FORMAT.md, writes): the app maps it
/// to the Firebase SDK's `FieldValue` — `.serverTimestamp` to `FieldValue.serverTimestamp()`,
/// `.increment(.integer(n))` to `FieldValue.increment(n)`, `.increment(.double(x))` to
/// `FieldValue.increment(x)`, `.delete` to `FieldValue.delete()`.
public enum FirestoreSentinel: Sendable, Hashable {
    /// The server's commit time (schema §2, `updatedAt`).
    case serverTimestamp
    /// Adds the operand to the stored number (schema §2, `storageBytes`).
    case increment(IncrementOperand)
    /// Removes the field in a merge write.
    case delete
}

/// A reference in the Foundation form: a full document name,
/// `projects/{p}/databases/{d}/documents/{path}`, for the app to map to the Firebase SDK's
/// `DocumentReference`. The schema's documents hold no references.
public struct FirestoreReference: Sendable, Hashable {
    /// The full document name.
    public var name: String

    /// A reference to the document `name` (not checked here; ``FirestoreValue/validate(form:pointer:)`` checks it).
    public init(name: String) { self.name = name }
}

extension FirestoreValue {
    /// The deepest nesting the Foundation reader follows: far above Firestore's 20 levels, and a
    /// stop for an array that contains itself.
    static let foundationMaximumDepth = 64

    /// The value in Foundation form, for the Firebase SDK's `setData(_:merge:)`:
    /// `null` → `NSNull()`, `boolean` → `Bool`, `integer` → `Int64`, `double` → `Double`, `string` →
    /// `String`, `timestamp` → `Date` (the middle of its microsecond, see below), `bytes` → `Data`,
    /// `geoPoint` → ``GeoPoint``, `reference` → ``FirestoreReference``, `array` → `[Any]`, `map` →
    /// `[String: Any]`, and each sentinel → whatever `sentinel` returns for it (the SDK's `FieldValue`).
    ///
    /// A timestamp becomes the `Date` half a microsecond after ``FirestoreTimestamp/date``: the
    /// Firebase SDK truncates a Date to nanoseconds and Firestore keeps microseconds, and the Date of
    /// the microsecond itself can lie a unit in the last place low (`…07.003999` would be stored as
    /// `…07.003998`); from the middle, every floor gives the microsecond back.
    /// - Parameter sentinel: maps a write sentinel to the SDK's value.
    public func foundationObject(sentinel: (FirestoreSentinel) -> Any) -> Any {
        switch self {
        case .null: return NSNull()
        case .boolean(let b): return b
        case .integer(let i): return i
        case .double(let d): return d
        case .string(let s): return s
        case .timestamp(let t):
            return Date(timeIntervalSinceReferenceDate: t.date.timeIntervalSinceReferenceDate + 0.000_000_5)
        case .bytes(let data): return data
        case .geoPoint(let g): return g
        case .reference(let name): return FirestoreReference(name: name)
        case .array(let values): return values.map { $0.foundationObject(sentinel: sentinel) }
        case .map(let fields): return Self.foundationFields(fields, sentinel: sentinel)
        case .serverTimestamp: return sentinel(.serverTimestamp)
        case .increment(let operand): return sentinel(.increment(operand))
        case .delete: return sentinel(.delete)
        }
    }

    /// A document's fields in Foundation form (see ``foundationObject(sentinel:)``): one call from
    /// the Firebase SDK's `setData(_:merge:)`.
    public static func foundationFields(
        _ fields: [String: FirestoreValue], sentinel: (FirestoreSentinel) -> Any
    ) -> [String: Any] {
        fields.mapValues { $0.foundationObject(sentinel: sentinel) }
    }

    /// Reads a value in Foundation form — what the Firebase SDK's `data()` returns, or what
    /// ``foundationObject(sentinel:)`` wrote.
    ///
    /// `NSNull` → `null`; an `NSNumber` by its stored type: a boolean (CFBoolean) → `boolean`, an
    /// integer type → `integer`, `float` or `double` → `double` (so `1` and `1.0` stay apart);
    /// `String` → `string`; `Date` → `timestamp` (``FirestoreTimestamp/init(date:)``, floored to the
    /// microsecond); `Data` → `bytes`; ``GeoPoint``, ``FirestoreReference`` and ``FirestoreSentinel``
    /// → their values; arrays and string-keyed dictionaries → `array` and `map`. Anything else goes
    /// to `other`, which maps the SDK's own classes: `Timestamp` (exactly, from its seconds and
    /// nanoseconds), `GeoPoint` and `DocumentReference`.
    /// - Parameters:
    ///   - object: the value.
    ///   - pointer: RFC 6901 pointer of `object`, for errors.
    ///   - other: the value of an object this reader does not know, or nil to reject it.
    /// - Throws: ``SchemaInputError`` naming the pointer: `foundation.type` for an object with no
    ///   Firestore type, a non-string key or an unsigned number above Int64.max;
    ///   `value.timestamp-range` for a date outside 0001…9999; `value.depth` past 64 levels; and
    ///   whatever `other` throws.
    public init(
        foundationObject object: Any, pointer: String = "", other: (Any) throws -> FirestoreValue? = { _ in nil }
    ) throws {
        self = try Self.readFoundation(object, pointer: pointer, depth: 0, other: other)
    }

    /// Reads a document's fields in Foundation form (the Firebase SDK's `data()`); see
    /// ``init(foundationObject:pointer:other:)``.
    /// - Throws: ``SchemaInputError`` naming the field's pointer.
    public static func fields(
        foundationFields: [String: Any], other: (Any) throws -> FirestoreValue? = { _ in nil }
    ) throws -> [String: FirestoreValue] {
        var out: [String: FirestoreValue] = [:]
        for (key, object) in foundationFields {
            out[key] = try readFoundation(object, pointer: JSONPointer.appending("", key), depth: 1, other: other)
        }
        return out
    }

    private static func readFoundation(
        _ object: Any, pointer: String, depth: Int, other: (Any) throws -> FirestoreValue?
    ) throws -> FirestoreValue {
        guard depth <= foundationMaximumDepth else {
            throw SchemaInputError(
                rule: .depth, pointer: pointer, message: "nested deeper than \(foundationMaximumDepth) levels")
        }
        switch object {
        case is NSNull: return .null
        case let sentinel as FirestoreSentinel:
            switch sentinel {
            case .serverTimestamp: return .serverTimestamp
            case .increment(let operand): return .increment(operand)
            case .delete: return .delete
            }
        case let point as GeoPoint: return .geoPoint(point)
        case let reference as FirestoreReference: return .reference(reference.name)
        case let string as String: return .string(string)
        case let date as Date:
            do { return .timestamp(try FirestoreTimestamp(date: date)) } catch var error as SchemaInputError {
                error.pointer = pointer
                throw error
            }
        case let data as Data: return .bytes(data)
        case let number as NSNumber: return try numberValue(number, pointer: pointer)
        case let array as [Any]:
            return .array(
                try array.enumerated().map { index, element in
                    try readFoundation(
                        element, pointer: JSONPointer.appending(pointer, index), depth: depth + 1, other: other)
                })
        case let dictionary as [String: Any]:
            var fields: [String: FirestoreValue] = [:]
            for (key, element) in dictionary {
                fields[key] = try readFoundation(
                    element, pointer: JSONPointer.appending(pointer, key), depth: depth + 1, other: other)
            }
            return .map(fields)
        case let dictionary as [AnyHashable: Any]:
            let key = dictionary.keys.first { !($0.base is String) }.map { "\($0.base)" } ?? "?"
            throw SchemaInputError(
                rule: .foundationType, pointer: pointer, message: "a map's keys are strings, found the key \(key)")
        default:
            if let value = try other(object) { return value }
            throw SchemaInputError(
                rule: .foundationType, pointer: pointer,
                message: "\(type(of: object)) has no Firestore type; map it in `other`")
        }
    }

    /// The class of a boolean NSNumber (CFBoolean on Apple platforms, its counterpart elsewhere).
    private static let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// An NSNumber by its stored type: CFBoolean → boolean, float/double → double, integers → integer.
    private static func numberValue(_ number: NSNumber, pointer: String) throws -> FirestoreValue {
        if ObjectIdentifier(type(of: number)) == booleanNumberClass { return .boolean(number.boolValue) }
        let code = Character(Unicode.Scalar(UInt8(bitPattern: number.objCType.pointee)))
        switch code {
        case "f", "d": return .double(number.doubleValue)
        case "c", "s", "i", "l", "q": return .integer(number.int64Value)
        case "C", "S", "I", "L", "Q":
            guard number.uint64Value <= UInt64(Int64.max) else {
                throw SchemaInputError(
                    rule: .foundationType, pointer: pointer,
                    message: "the unsigned number \(number.uint64Value) is above Int64.max")
            }
            return .integer(Int64(number.uint64Value))
        default:
            throw SchemaInputError(
                rule: .foundationType, pointer: pointer, message: "an NSNumber of the C type \"\(code)\"")
        }
    }
}
