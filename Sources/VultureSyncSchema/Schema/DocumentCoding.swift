import Foundation
import VultureSchemaCore

// The hand-written half of the generated document codecs (`Generated/*.swift`): how one
// field value is read from and written to the value model, and how a map's fields are read one by
// one with the table's presence, nullability, default and limits (Spec/fields.tsv, Goldens/FORMAT.md).

/// A Swift type that stands for one Firestore field value of the schema: `String`, `Bool`, `Int64`,
/// `Double`, `FirestoreTimestamp`, `Data`, `FirestoreValue` (a settings entry's `v`), arrays and
/// `[String: T]` dictionaries of them, the generated enums and the generated map types.
public protocol FirestoreFieldCodable {
    /// Reads the value at `pointer`.
    /// - Parameters:
    ///   - value: the Firestore value (never `.null`: the map reader handles null).
    ///   - pointer: RFC 6901 pointer of the value, for errors.
    ///   - form: `.write` or `.stored` to check the form's sentinels, nil to accept either.
    /// - Throws: `SchemaInputError` (`schema.type`, `schema.enum`, and the nested map's errors).
    static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> Self
    /// The value in the given form of a document.
    func encodeField(form: DocumentForm) -> FirestoreValue
}

/// A generated map type (a document or a nested map of `Spec/fields.tsv`): read from and written to
/// a `FirestoreValue.map(_:)`, keeping the fields it does not know.
public protocol SchemaMapCodable: FirestoreFieldCodable, Sendable, Hashable {
    /// The owner name in `Spec/fields.tsv` (`FlightDocument`, `FlightSummary`).
    static var schemaOwner: String { get }
    /// Fields the schema does not name, kept so that a reader never drops a newer version's fields.
    var unknownFields: [String: FirestoreValue] { get set }
    /// Reads a map. See the generated types for the rules.
    /// - Throws: `SchemaInputError` naming the field's JSON pointer.
    init(firestoreValue: FirestoreValue, pointer: String, form: DocumentForm?) throws
    /// The map in the given form (Goldens/FORMAT.md).
    func firestoreValue(form: DocumentForm) -> FirestoreValue
}

extension SchemaMapCodable {
    /// Reads the nested map at `pointer`.
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> Self {
        try Self(firestoreValue: value, pointer: pointer, form: form)
    }

    /// The nested map in the given form.
    public func encodeField(form: DocumentForm) -> FirestoreValue { firestoreValue(form: form) }
}

/// A generated document type: the top-level map of a collection of `Spec/collections.tsv`.
public protocol SchemaDocument: SchemaMapCodable {
    /// The collection id (`flights`; `users` for the profile, `settings` for settings/synced).
    static var collection: String { get }
}

extension FirestoreFieldCodable {
    /// A `schema.type` error: `value` is not what the field holds.
    static func typeError(_ value: FirestoreValue, expected: String, pointer: String) -> SchemaInputError {
        SchemaInputError(
            rule: .schemaType, pointer: pointer, message: "expected \(expected), found \(value.typeName)")
    }
}

extension String: FirestoreFieldCodable {
    /// Reads a string.
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> String {
        guard case .string(let s) = value else { throw typeError(value, expected: "a string", pointer: pointer) }
        return s
    }

    /// `.string(self)`.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .string(self) }
}

extension Bool: FirestoreFieldCodable {
    /// Reads a boolean.
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> Bool {
        guard case .boolean(let b) = value else { throw typeError(value, expected: "a boolean", pointer: pointer) }
        return b
    }

    /// `.boolean(self)`.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .boolean(self) }
}

extension Int64: FirestoreFieldCodable {
    /// Reads an integer; a double is a type error (Firestore keeps them apart).
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> Int64 {
        guard case .integer(let v) = value else { throw typeError(value, expected: "an integer", pointer: pointer) }
        return v
    }

    /// `.integer(self)`.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .integer(self) }
}

extension Double: FirestoreFieldCodable {
    /// Reads a double; an integer is a type error (Firestore keeps them apart).
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> Double {
        guard case .double(let v) = value else { throw typeError(value, expected: "a double", pointer: pointer) }
        return v
    }

    /// `.double(self)`.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .double(self) }
}

extension FirestoreTimestamp: FirestoreFieldCodable {
    /// Reads a timestamp.
    public static func decodeField(
        _ value: FirestoreValue, pointer: String, form: DocumentForm?
    ) throws -> FirestoreTimestamp {
        guard case .timestamp(let t) = value else { throw typeError(value, expected: "a timestamp", pointer: pointer) }
        return t
    }

    /// `.timestamp(self)`.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .timestamp(self) }
}

extension Data: FirestoreFieldCodable {
    /// Reads bytes.
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> Data {
        guard case .bytes(let b) = value else { throw typeError(value, expected: "bytes", pointer: pointer) }
        return b
    }

    /// `.bytes(self)`.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .bytes(self) }
}

extension FirestoreValue: FirestoreFieldCodable {
    /// Any value (a settings entry's `v`, typed by its key); a sentinel only in the write form.
    public static func decodeField(
        _ value: FirestoreValue, pointer: String, form: DocumentForm?
    ) throws -> FirestoreValue {
        if value.isSentinel && form == .stored {
            throw typeError(value, expected: "a value (no sentinel in the stored form)", pointer: pointer)
        }
        return value
    }

    /// The value itself.
    public func encodeField(form: DocumentForm) -> FirestoreValue { self }
}

extension Array: FirestoreFieldCodable where Element: FirestoreFieldCodable {
    /// Reads an array, each element at `pointer/index`.
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> [Element] {
        guard case .array(let elements) = value else { throw typeError(value, expected: "an array", pointer: pointer) }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let p = JSONPointer.appending(pointer, index)
            if case .null = element { throw typeError(element, expected: "an element", pointer: p) }
            result.append(try Element.decodeField(element, pointer: p, form: form))
        }
        return result
    }

    /// `.array` of the elements.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .array(map { $0.encodeField(form: form) }) }
}

extension Dictionary: FirestoreFieldCodable where Key == String, Value: FirestoreFieldCodable {
    /// Reads a map keyed by ids (`dictionary:` in Spec/fields.tsv), each value at `pointer/key`.
    public static func decodeField(
        _ value: FirestoreValue, pointer: String, form: DocumentForm?
    ) throws -> [String: Value] {
        guard case .map(let members) = value else { throw typeError(value, expected: "a map", pointer: pointer) }
        var result: [String: Value] = [:]
        for (key, member) in members {
            let p = JSONPointer.appending(pointer, key)
            if case .null = member { throw typeError(member, expected: "an entry", pointer: p) }
            result[key] = try Value.decodeField(member, pointer: p, form: form)
        }
        return result
    }

    /// `.map` of the entries.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .map(mapValues { $0.encodeField(form: form) }) }
}

/// A generated enum stored as its string cloud values (`Spec/enums.tsv`).
public protocol SchemaStringEnum: FirestoreFieldCodable, RawRepresentable, CaseIterable, Sendable
where RawValue == String {}

extension SchemaStringEnum {
    /// Reads a cloud string; any other string is `schema.enum`.
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> Self {
        guard case .string(let s) = value else { throw typeError(value, expected: "a string", pointer: pointer) }
        guard let result = Self(rawValue: s) else {
            let allowed = allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw SchemaInputError(
                rule: .schemaEnum, pointer: pointer, message: "\"\(s)\" is not one of \(allowed)")
        }
        return result
    }

    /// `.string(rawValue)`.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .string(rawValue) }
}

/// A generated enum stored as its integer cloud values (`ZoneType`, pins.tsv zoneTypeInteger).
public protocol SchemaIntegerEnum: FirestoreFieldCodable, RawRepresentable, CaseIterable, Sendable
where RawValue == Int64 {}

extension SchemaIntegerEnum {
    /// Reads a cloud integer; any other integer is `schema.enum`.
    public static func decodeField(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws -> Self {
        guard case .integer(let v) = value else { throw typeError(value, expected: "an integer", pointer: pointer) }
        guard let result = Self(rawValue: v) else {
            let allowed = allCases.map { String($0.rawValue) }.joined(separator: ", ")
            throw SchemaInputError(rule: .schemaEnum, pointer: pointer, message: "\(v) is not one of \(allowed)")
        }
        return result
    }

    /// `.integer(rawValue)`.
    public func encodeField(form: DocumentForm) -> FirestoreValue { .integer(rawValue) }
}

/// Reads the fields of one map in table order, then hands back the fields it was not asked for.
///
/// Absent and `null` are alike for a nullable or optional field (Goldens/FORMAT.md); an absent
/// non-nullable field takes the table default, or is `schema.missing-field` when it has none. In
/// the write form (`form == .write`) every required field must be present (a full write).
public struct SchemaMapReader {
    /// The map being read.
    private var fields: [String: FirestoreValue]
    /// Pointer of the map.
    public let pointer: String
    /// The form being checked, nil for either.
    public let form: DocumentForm?

    /// Starts reading `value`, which must be a map.
    /// - Throws: `schema.type` when `value` is not a map.
    public init(_ value: FirestoreValue, pointer: String, form: DocumentForm?) throws {
        guard case .map(let fields) = value else {
            throw SchemaInputError(
                rule: .schemaType, pointer: pointer, message: "expected a map, found \(value.typeName)")
        }
        self.fields = fields
        self.pointer = pointer
        self.form = form
    }

    /// The fields no read took: the map's unknown fields.
    public var unknownFields: [String: FirestoreValue] { fields }

    private func at(_ name: String) -> String { JSONPointer.appending(pointer, name) }

    private mutating func take(_ name: String) -> FirestoreValue? { fields.removeValue(forKey: name) }

    private func check<T: FirestoreFieldCodable>(
        _ value: FirestoreValue, _ name: String, limits: SchemaFieldLimits, isDateString: Bool
    ) throws -> T {
        if value.isSentinel {
            throw SchemaInputError(
                rule: .schemaType, pointer: at(name),
                message: "a \(value.typeName) sentinel where the field takes a value")
        }
        try SchemaLimitCheck.check(value, limits: limits, isDateString: isDateString, pointer: at(name))
        return try T.decodeField(value, pointer: at(name), form: form)
    }

    /// A non-nullable field: absent → `defaultValue`, or `schema.missing-field` without one.
    /// - Throws: `schema.missing-field`, `schema.type` (also for `null`), `schema.enum`, `schema.limit`.
    public mutating func required<T: FirestoreFieldCodable>(
        _ name: String, default defaultValue: T? = nil, limits: SchemaFieldLimits = SchemaFieldLimits(),
        isDateString: Bool = false
    ) throws -> T {
        guard let value = take(name) else {
            if let defaultValue, form != .write { return defaultValue }
            throw SchemaInputError(rule: .schemaMissingField, pointer: at(name), message: "required field is absent")
        }
        if case .null = value {
            throw SchemaInputError(
                rule: .schemaType, pointer: at(name), message: "null where the field is not nullable")
        }
        return try check(value, name, limits: limits, isDateString: isDateString)
    }

    /// A nullable field (or an optional one): absent or `null` → nil. In the write form a
    /// `required` field must be present (as `null` when it has no value).
    /// - Throws: `schema.missing-field` (write form), `schema.type`, `schema.enum`, `schema.limit`.
    public mutating func nullable<T: FirestoreFieldCodable>(
        _ name: String, isRequired: Bool = true, limits: SchemaFieldLimits = SchemaFieldLimits(),
        isDateString: Bool = false
    ) throws -> T? {
        guard let value = take(name) else {
            if isRequired && form == .write {
                throw SchemaInputError(
                    rule: .schemaMissingField, pointer: at(name), message: "a full write lists every field (null here)")
            }
            return nil
        }
        if case .null = value { return nil }
        return try check(value, name, limits: limits, isDateString: isDateString)
    }

    /// A `serverTimestamp` field (`updatedAt`): the sentinel in the write form (→ nil), a timestamp in
    /// the stored form.
    /// - Throws: `schema.missing-field` when absent, `schema.type` for anything else.
    public mutating func serverTimestamp(_ name: String) throws -> FirestoreTimestamp? {
        guard let value = take(name) else {
            throw SchemaInputError(rule: .schemaMissingField, pointer: at(name), message: "required field is absent")
        }
        switch (value, form) {
        case (.serverTimestamp, .write), (.serverTimestamp, nil): return nil
        case (.timestamp(let t), .stored), (.timestamp(let t), nil): return t
        default:
            let expected = form == .write ? "the $serverTimestamp sentinel" : "a timestamp"
            throw SchemaInputError(
                rule: .schemaType, pointer: at(name), message: "expected \(expected), found \(value.typeName)")
        }
    }

    /// The limit `nullUnless=FLAG` of a field already read: it holds a value only while the boolean
    /// `FLAG` is true (only a tombstone has `deletedAt`, schema §5.4).
    /// - Throws: `schema.null-unless` at the field's pointer.
    public func nullUnless(_ name: String, hasValue: Bool, flag: String, isSet: Bool) throws {
        guard hasValue, !isSet else { return }
        throw SchemaInputError(
            rule: .schemaNullUnless, pointer: at(name),
            message: "\(name) is null unless \(flag) is true: only a tombstone has \(name) (schema §5.4)")
    }

    /// An `increment` field (`storageBytes`): an integer, or in the write form `$increment` of an
    /// integer (the delta, returned as the value).
    /// - Throws: `schema.type`, `schema.limit`; absent gives `defaultValue` or `schema.missing-field`.
    public mutating func increment(
        _ name: String, default defaultValue: Int64? = nil, limits: SchemaFieldLimits = SchemaFieldLimits()
    ) throws -> Int64 {
        if form != .stored, case .increment(.integer(let delta))? = fields[name] {
            fields.removeValue(forKey: name)
            return delta
        }
        return try required(name, default: defaultValue, limits: limits)
    }
}

/// Writes the fields of one map: the unknown fields first, then the schema's fields over them.
public struct SchemaMapWriter {
    /// The fields written so far.
    public private(set) var fields: [String: FirestoreValue]
    /// The form being written.
    public let form: DocumentForm

    /// Starts from the fields a reader kept.
    public init(unknownFields: [String: FirestoreValue], form: DocumentForm) {
        self.fields = unknownFields
        self.form = form
    }

    /// The map.
    public var value: FirestoreValue { .map(fields) }

    /// A non-nullable field.
    public mutating func required<T: FirestoreFieldCodable>(_ name: String, _ value: T) {
        fields[name] = value.encodeField(form: form)
    }

    /// A nullable required field: nil is written as `null` (a full write lists every field, Goldens/FORMAT.md).
    public mutating func nullable<T: FirestoreFieldCodable>(_ name: String, _ value: T?) {
        fields[name] = value?.encodeField(form: form) ?? .null
    }

    /// An optional field (presence `optional`): nil is left out.
    public mutating func optional<T: FirestoreFieldCodable>(_ name: String, _ value: T?) {
        if let value { fields[name] = value.encodeField(form: form) } else { fields.removeValue(forKey: name) }
    }

    /// A `serverTimestamp` field: the sentinel in the write form; the timestamp in the stored form
    /// (left out when nil).
    public mutating func serverTimestamp(_ name: String, _ value: FirestoreTimestamp?) {
        switch form {
        case .write: fields[name] = .serverTimestamp
        case .stored:
            if let value { fields[name] = .timestamp(value) } else { fields.removeValue(forKey: name) }
        }
    }

    /// An `increment` field: `$increment` of the value (the delta) in the write form, the integer in
    /// the stored form.
    public mutating func increment(_ name: String, _ value: Int64) {
        fields[name] = form == .write ? .increment(.integer(value)) : .integer(value)
    }
}

/// Checks a value against a field's limits (Spec/fields.tsv `limit`; pins.tsv charCount).
public enum SchemaLimitCheck {
    /// Throws `schema.limit` for a broken limit and `schema.format` for a date-string that is not
    /// `yyyy-MM-dd`; values of other types pass (the type check follows).
    public static func check(
        _ value: FirestoreValue, limits: SchemaFieldLimits, isDateString: Bool = false, pointer: String
    ) throws {
        func fail(_ message: String) -> SchemaInputError {
            SchemaInputError(rule: .schemaLimit, pointer: pointer, message: message)
        }
        switch value {
        case .string(let s):
            if isDateString && !isCalendarDay(s) {
                throw SchemaInputError(rule: .schemaFormat, pointer: pointer, message: "\"\(s)\" is not yyyy-MM-dd")
            }
            if let maxChars = limits.maxChars, s.unicodeScalars.count > maxChars {
                throw fail("\(s.unicodeScalars.count) characters, more than \(maxChars)")
            }
            if let maxBytes = limits.maxBytes, s.utf8.count > maxBytes {
                throw fail("\(s.utf8.count) UTF-8 bytes, more than \(maxBytes)")
            }
            if let hexLength = limits.hexLength {
                let isHex = s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
                if s.utf8.count != hexLength || !isHex {
                    throw fail("expected \(hexLength) lowercase hex digits")
                }
            }
        case .bytes(let b):
            if let maxBytes = limits.maxBytes, b.count > maxBytes {
                throw fail("\(b.count) bytes, more than \(maxBytes)")
            }
        case .array(let a):
            if let maxItems = limits.maxItems, a.count > maxItems {
                throw fail("\(a.count) elements, more than \(maxItems)")
            }
        case .integer(let v): try number(Double(v), limits: limits, fail: fail)
        case .double(let v): try number(v, limits: limits, fail: fail)
        default: break
        }
    }

    private static func number(
        _ v: Double, limits: SchemaFieldLimits, fail: (String) -> SchemaInputError
    ) throws {
        if let minimum = limits.minimum, !(v >= minimum) { throw fail("\(v) is below the minimum \(minimum)") }
        if let maximum = limits.maximum, !(v <= maximum) { throw fail("\(v) is above the maximum \(maximum)") }
        if let step = limits.step, v.isFinite, (v / step).rounded() != v / step {
            throw fail("\(v) is not a multiple of \(step)")
        }
    }

    /// `yyyy-MM-dd` with a month 01–12 and a day 01–31.
    private static func isCalendarDay(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return false }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard digits.allSatisfy({ (0x30...0x39).contains(b[$0]) }) else { return false }
        let month = Int(b[5] - 0x30) * 10 + Int(b[6] - 0x30)
        let day = Int(b[8] - 0x30) * 10 + Int(b[9] - 0x30)
        return (1...12).contains(month) && (1...31).contains(day)
    }
}
