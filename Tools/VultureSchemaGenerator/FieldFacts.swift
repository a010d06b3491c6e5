/// Whether a field's key must be in a full write (`required`) or may be left out (`optional`).
///
/// `required`: in every full write of a live document (`null` when nullable and without a value).
/// `optional`: a writer may leave the key out; a reader treats absent as `null` (Goldens/FORMAT.md).
public enum FieldPresence: String, Hashable, Sendable, CaseIterable {
    /// In every full write of a live document.
    case required
    /// A writer may leave the key out.
    case optional
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
    /// The field is null (or absent) unless the boolean field of this name, in the same map, is true
    /// (`nullUnless=deleted`: only a tombstone has `deletedAt`).
    case nullUnless(String)
    /// The string is the Storage path of the object of this kind (`Spec/blobs.tsv`, `storagePath=igc`):
    /// the kind's path template with the document's uid, its id (a placeholder the collection's path
    /// template names) and its fields (any other placeholder: `{contentHash}`) filled in.
    case storagePath(String)

    /// The flag of a `nullUnless` limit, nil for any other limit.
    public var nullUnlessFlag: String? {
        if case .nullUnless(let flag) = self { return flag }
        return nil
    }

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
        case "nullUnless":
            func isLetter(_ u: UInt8) -> Bool { (65...90).contains(u) || (97...122).contains(u) }
            guard let first = text.utf8.first, isLetter(first),
                text.utf8.allSatisfy({ isLetter($0) || (48...57).contains($0) })
            else { return nil }
            self = .nullUnless(text)
        case "storagePath":
            guard !text.isEmpty, text.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else {
                return nil
            }
            self = .storagePath(text)
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
        case .nullUnless(let flag): "nullUnless=\(flag)"
        case .storagePath(let blob): "storagePath=\(blob)"
        }
    }

    /// The numeric bound of the limit, as a Double (for comparing with `Spec/limits.tsv`); nil for a
    /// limit without one (`nullUnless`, `storagePath`).
    public var bound: Double? {
        switch self {
        case .maxChars(let count), .maxBytes(let count), .maxItems(let count), .hexLength(let count): Double(count)
        case .minimum(let value), .maximum(let value), .step(let value): value
        case .nullUnless, .storagePath: nil
        }
    }
}
