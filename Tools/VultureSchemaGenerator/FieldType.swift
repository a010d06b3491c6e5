/// The Firestore type of a field, as written in the `type` column of `Spec/fields.tsv`
/// (and the value type of `Spec/settings-keys.tsv`).
///
/// Grammar: `string`, `boolean`, `integer` (int64), `double`, `timestamp`, `bytes`,
/// `date-string` (a `"yyyy-MM-dd"` string), `settingValue` (the type of the settings key the entry
/// belongs to), `enum:<Enum>`, `unit:<table>` (a unit id string of `units.tsv`), `map:<Owner>`,
/// `array:<type>`, `dictionary:<type>` (a map keyed by ids, every value of `<type>`).
public indirect enum FieldType: Hashable, Sendable, CustomStringConvertible {
    /// A UTF-8 string.
    case string
    /// `true` or `false`.
    case boolean
    /// A 64-bit signed integer (canonical JSON: a number without fraction).
    case integer
    /// A 64-bit IEEE double (canonical JSON: a number with a fraction or exponent).
    case double
    /// A Firestore timestamp (UTC, microsecond precision).
    case timestamp
    /// A Firestore bytes value.
    case bytes
    /// A calendar day as a `"yyyy-MM-dd"` string.
    case dateString
    /// The `v` of a settings entry: typed by `Spec/settings-keys.tsv`.
    case settingValue
    /// An enum of `Spec/enums.tsv`, stored as its cases' cloud values.
    case enumeration(String)
    /// A unit id of the named table of `Spec/units.tsv`, stored as a string.
    case unit(String)
    /// A nested map whose keys are the fields of the named owner.
    case map(String)
    /// An array of elements of the given type.
    case array(FieldType)
    /// A map keyed by ids whose values all have the given type.
    case dictionary(FieldType)

    /// Reads the grammar above.
    ///
    /// - Returns: nil for an unknown type name or an empty reference (`map:`).
    public init?(parsing text: String) {
        switch text {
        case "string": self = .string
        case "boolean": self = .boolean
        case "integer": self = .integer
        case "double": self = .double
        case "timestamp": self = .timestamp
        case "bytes": self = .bytes
        case "date-string": self = .dateString
        case "settingValue": self = .settingValue
        default:
            guard let colon = text.firstIndex(of: ":") else { return nil }
            let kind = text[..<colon]
            let rest = String(text[text.index(after: colon)...])
            func isName(_ name: String) -> Bool {
                !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            }
            switch kind {
            case "enum" where isName(rest): self = .enumeration(rest)
            case "unit" where isName(rest): self = .unit(rest)
            case "map" where isName(rest): self = .map(rest)
            case "array":
                guard let element = FieldType(parsing: rest) else { return nil }
                self = .array(element)
            case "dictionary":
                guard let element = FieldType(parsing: rest) else { return nil }
                self = .dictionary(element)
            default: return nil
            }
        }
    }

    /// The type written back in the table grammar.
    public var description: String {
        switch self {
        case .string: "string"
        case .boolean: "boolean"
        case .integer: "integer"
        case .double: "double"
        case .timestamp: "timestamp"
        case .bytes: "bytes"
        case .dateString: "date-string"
        case .settingValue: "settingValue"
        case .enumeration(let name): "enum:\(name)"
        case .unit(let name): "unit:\(name)"
        case .map(let name): "map:\(name)"
        case .array(let element): "array:\(element)"
        case .dictionary(let element): "dictionary:\(element)"
        }
    }

    /// Every `enum:`, `unit:` and `map:` name the type mentions, outermost first.
    public var references: [FieldType] {
        switch self {
        case .enumeration, .unit, .map: [self]
        case .array(let element), .dictionary(let element): element.references
        default: []
        }
    }
}

/// Whether a field's key must be in a full write (`required`) or may be left out (`optional`).
///
/// `required`: in every full write of a live document (`null` when nullable and without a value).
/// `optional`: a writer may leave the key out; a reader treats absent as `null` (DESIGN.md §3).
public enum FieldPresence: String, Hashable, Sendable, CaseIterable {
    /// In every full write of a live document.
    case required
    /// A writer may leave the key out.
    case optional
}

/// How a field appears in the write form (DESIGN.md §3).
public enum WriteForm: String, Hashable, Sendable, CaseIterable {
    /// The value itself.
    case value
    /// Always `FieldValue.serverTimestamp()` (`updatedAt`).
    case serverTimestamp
    /// Moved by `FieldValue.increment` (`storageBytes`).
    case increment
}

/// The unit of a numeric field (SI where the schema uses SI; angles in degrees).
public enum MeasurementUnit: String, Hashable, Sendable, CaseIterable {
    /// Metres.
    case metres = "m"
    /// Metres per second.
    case metresPerSecond = "m/s"
    /// Seconds.
    case seconds = "s"
    /// Milliseconds (epoch times of settings entries).
    case milliseconds = "ms"
    /// Degrees (coordinates, bearings, zone angles).
    case degrees = "deg"
    /// Bytes.
    case bytes
}

/// One constraint from the `limit` column of `Spec/fields.tsv` (`maxChars=10000` …).
public enum FieldLimit: Hashable, Sendable, CustomStringConvertible {
    /// A string has at most this many characters, counted in Unicode scalars (code points; pins.tsv charCount).
    case maxChars(Int)
    /// A bytes value has at most this many bytes.
    case maxBytes(Int)
    /// An array has at most this many elements.
    case maxItems(Int)
    /// A string is exactly this many lowercase hex digits.
    case hexLength(Int)
    /// A number is at least this value.
    case minimum(Double)
    /// A number is at most this value.
    case maximum(Double)
    /// A number is a whole multiple of this step.
    case step(Double)

    /// Reads one `name=value` item.
    ///
    /// - Returns: nil for an unknown name or a value that is not a number (an integer for the `max…` and `hexLength` kinds).
    public init?(parsing item: String) {
        let parts = item.split(separator: "=", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let name = String(parts[0])
        let text = String(parts[1])
        switch name {
        case "maxChars", "maxBytes", "maxItems", "hexLength":
            guard let count = Int(text), count >= 0 else { return nil }
            switch name {
            case "maxChars": self = .maxChars(count)
            case "maxBytes": self = .maxBytes(count)
            case "maxItems": self = .maxItems(count)
            default: self = .hexLength(count)
            }
        case "minimum", "maximum", "step":
            guard let number = Double(text), number.isFinite else { return nil }
            switch name {
            case "minimum": self = .minimum(number)
            case "maximum": self = .maximum(number)
            default:
                guard number > 0 else { return nil }
                self = .step(number)
            }
        default: return nil
        }
    }

    /// The item written back, e.g. `maxChars=10000`.
    public var description: String {
        func number(_ value: Double) -> String {
            value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
        return switch self {
        case .maxChars(let count): "maxChars=\(count)"
        case .maxBytes(let count): "maxBytes=\(count)"
        case .maxItems(let count): "maxItems=\(count)"
        case .hexLength(let count): "hexLength=\(count)"
        case .minimum(let value): "minimum=\(number(value))"
        case .maximum(let value): "maximum=\(number(value))"
        case .step(let value): "step=\(number(value))"
        }
    }

    /// The numeric bound of the limit, as a Double (for comparing with `Spec/limits.tsv`).
    public var bound: Double {
        switch self {
        case .maxChars(let count), .maxBytes(let count), .maxItems(let count), .hexLength(let count): Double(count)
        case .minimum(let value), .maximum(let value), .step(let value): value
        }
    }
}
