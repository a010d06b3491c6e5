/// Firestore's structural limits on values, checked wherever a value is built or read.
///
/// Source: Firestore's documented limits (schema §3 names the document-size one); Goldens/FORMAT.md.
public enum FirestoreLimits {
    /// Maximum depth of a map: a document's top-level field is at depth 1. A map at depth 21 is
    /// refused (even empty), a scalar or an empty array there is not, and nothing is at depth 22
    /// (as the Firestore emulator enforces it).
    public static let maximumDepth = 20

    /// Whether a value at `depth` is nested too deep (see ``maximumDepth``).
    static func isTooDeep(depth: Int, isMap: Bool) -> Bool {
        depth > maximumDepth + 1 || (isMap && depth > maximumDepth)
    }
    /// Maximum size of a field name in UTF-8 bytes.
    public static let maximumFieldNameBytes = 1500
    /// Maximum size of a document (schema §3): 1 MiB = 1,048,576 bytes.
    public static let maximumDocumentBytes = 1_048_576

    /// The rule a field name breaks, if any: over 1,500 UTF-8 bytes, or matching `__.*__`.
    public static func fieldNameViolation(_ name: String) -> (rule: InputRule, message: String)? {
        let count = name.utf8.count
        if count > maximumFieldNameBytes {
            return (.fieldNameLength, "field name is \(count) UTF-8 bytes; Firestore allows 1500")
        }
        if count >= 4, name.utf8.starts(with: [0x5F, 0x5F]), name.utf8.reversed().starts(with: [0x5F, 0x5F]) {
            return (.fieldNameReserved, "field name \"\(name)\" matches __.*__, which Firestore reserves")
        }
        return nil
    }

    /// The rule a full document name breaks, if any: `projects/{p}/databases/{d}/documents/` then an
    /// even number of non-empty segments (collection, id, …).
    public static func referenceViolation(_ name: String) -> String? {
        let parts = slashSegments(name)
        guard parts.count >= 7, parts[0] == "projects", parts[2] == "databases", parts[4] == "documents",
            !parts[1].isEmpty, !parts[3].isEmpty, (parts.count - 5) % 2 == 0,
            parts.allSatisfy({ !$0.isEmpty })
        else {
            return "\"\(name)\" is not projects/{project}/databases/{database}/documents/{collection}/{id}…"
        }
        return nil
    }

    /// `text` split at every `/` (U+002F) by scalars, empty segments kept: the segments of a document
    /// path or name, or the tokens of a JSON pointer. Splitting by Characters would miss a `/` followed
    /// by a combining mark, which joins it into one Character (`"users/\u{301}x"`).
    public static func slashSegments(_ text: String) -> [Substring] {
        text.utf8.split(separator: 0x2F, omittingEmptySubsequences: false).map { Substring($0) }
    }
}

extension FirestoreValue {
    /// Checks Firestore's constraints on this value, as a document's field map when it is a map:
    /// no array directly inside an array, depth ≤ 20, field names ≤ 1,500 bytes and not `__.*__`,
    /// sentinels never inside arrays (nor anywhere in the stored form), timestamps and geo points
    /// in range, references well-formed.
    ///
    /// - Parameters:
    ///   - form: `.stored` rejects sentinels; `.write` or nil accepts them outside arrays.
    ///   - pointer: the JSON pointer of this value, for messages.
    /// - Throws: `SchemaInputError` naming the pointer and rule of the first violation.
    public func validate(form: DocumentForm? = nil, pointer: String = "") throws {
        try validate(form: form, pointer: pointer, depth: 0, inArray: false)
    }

    func validate(form: DocumentForm?, pointer: String, depth: Int, inArray: Bool) throws {
        if FirestoreLimits.isTooDeep(depth: depth, isMap: mapValue != nil) {
            throw SchemaInputError(
                rule: .depth, pointer: pointer, message: "nested deeper than Firestore's 20 levels")
        }
        switch self {
        case .array(let elements):
            if inArray {
                throw SchemaInputError(
                    rule: .arrayInArray, pointer: pointer, message: "an array directly inside an array")
            }
            for (i, e) in elements.enumerated() {
                try e.validate(form: form, pointer: JSONPointer.appending(pointer, i), depth: depth + 1, inArray: true)
            }
        case .map(let fields):
            for (k, v) in fields {
                let p = JSONPointer.appending(pointer, k)
                if let (rule, message) = FirestoreLimits.fieldNameViolation(k) {
                    throw SchemaInputError(rule: rule, pointer: p, message: message)
                }
                try v.validate(form: form, pointer: p, depth: depth + 1, inArray: false)
            }
        case .serverTimestamp, .increment, .delete:
            if inArray {
                throw SchemaInputError(
                    rule: .sentinelInArray, pointer: pointer, message: "\(typeName) sentinel inside an array")
            }
            if form == .stored {
                throw SchemaInputError(
                    rule: .sentinelInStoredForm, pointer: pointer,
                    message: "\(typeName) sentinel in a stored-form document")
            }
        case .timestamp(let t):
            if t < .minimum || t > .maximum {
                throw SchemaInputError(rule: .timestampRange, pointer: pointer, message: "timestamp out of range")
            }
        case .geoPoint(let g):
            if let message = g.rangeViolation {
                throw SchemaInputError(rule: .geoPointRange, pointer: pointer, message: message)
            }
        case .reference(let r):
            if let message = FirestoreLimits.referenceViolation(r) {
                throw SchemaInputError(rule: .referenceFormat, pointer: pointer, message: message)
            }
        case .null, .boolean, .integer, .double, .string, .bytes:
            break
        }
    }
}

extension GeoPoint {
    /// Why the point is out of range, or nil: latitude in [-90, 90], longitude in [-180, 180], finite.
    public var rangeViolation: String? {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude),
            (-180...180).contains(longitude)
        else { return "geo point (\(latitude), \(longitude)) outside latitude [-90, 90], longitude [-180, 180]" }
        return nil
    }
}
