/// The rule a piece of input broke, as a stable id (`json.duplicate-key`, `value.array-in-array`, …).
///
/// The ids are part of the suite's contract: the runner prints them, invalid-document goldens name
/// them, and failure reports quote them. Sources: DESIGN.md §2 (canonical JSON), Firestore's data
/// model limits (schema §3), Firestore REST `Value` (DESIGN.md §2, last paragraph).
public enum InputRule: String, Sendable, CaseIterable, Codable {
    // JSON text (RFC 8259, strict).
    /// Not JSON: an unexpected character, a missing comma or colon, an unterminated literal.
    case jsonSyntax = "json.syntax"
    /// Something other than white space follows the top-level value.
    case jsonTrailingGarbage = "json.trailing-garbage"
    /// An object names the same key twice.
    case jsonDuplicateKey = "json.duplicate-key"
    /// A byte sequence that is not UTF-8 (overlong forms and encoded surrogates included).
    case jsonInvalidUTF8 = "json.invalid-utf8"
    /// A `\uD800`–`\uDFFF` escape without its partner.
    case jsonLoneSurrogate = "json.lone-surrogate"
    /// U+0000–U+001F inside a string without an escape.
    case jsonControlCharacter = "json.control-character"
    /// An integer literal outside int64.
    case jsonIntegerRange = "json.integer-range"
    /// A number literal too large for a double (it would be ±Infinity).
    case jsonDoubleRange = "json.double-range"
    /// Arrays and objects nested deeper than the reader follows (512).
    case jsonTooDeep = "json.too-deep"

    // Canonical typed JSON (DESIGN.md §2).
    /// A `$` wrapper with more than its one key, a wrong payload, or a map with a `$` key not written as `$map`.
    case canonicalWrapper = "canonical.wrapper"
    /// An object whose single key starts with `$` but is no known wrapper.
    case canonicalUnknownWrapper = "canonical.unknown-wrapper"
    /// A `$timestamp` not of the form `YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z`.
    case canonicalTimestamp = "canonical.timestamp"
    /// A `$bytes` or `bytesValue` that is not standard, padded, canonical base64.
    case base64 = "value.base64"

    // Firestore values (Firestore limits; schema §3).
    /// An array directly inside an array.
    case arrayInArray = "value.array-in-array"
    /// A map nested deeper than 20 levels, or any value deeper than 21 (a top-level field is at depth 1).
    case depth = "value.depth"
    /// A field name over 1,500 UTF-8 bytes.
    case fieldNameLength = "value.field-name-length"
    /// A field name matching `__.*__`, which Firestore reserves.
    case fieldNameReserved = "value.field-name-reserved"
    /// A write sentinel (`$serverTimestamp`, `$increment`, `$delete`) inside an array.
    case sentinelInArray = "value.sentinel-in-array"
    /// A write sentinel in a document read as stored form.
    case sentinelInStoredForm = "value.sentinel-in-stored-form"
    /// A timestamp outside 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z.
    case timestampRange = "value.timestamp-range"
    /// A geo point whose latitude is outside [-90, 90] or longitude outside [-180, 180], or not finite.
    case geoPointRange = "value.geo-point-range"
    /// A reference that is not `projects/{p}/databases/{d}/documents/{path}`.
    case referenceFormat = "value.reference-format"

    // Firestore REST JSON.
    /// A `Value` object without exactly one known `…Value` key, or a `Document` of the wrong shape.
    case restShape = "rest.shape"
    /// An `integerValue` that is not a decimal int64 string.
    case restInteger = "rest.integer"
    /// A `doubleValue` that is neither a number nor "NaN", "Infinity" or "-Infinity".
    case restDouble = "rest.double"
    /// A `timestampValue` that is not RFC 3339 with at most 9 fraction digits.
    case restTimestamp = "rest.timestamp"

    // Writes: Firestore's `Write` in canonical typed JSON and REST JSON (README, "Writes").
    /// A field path that is empty, has an empty segment, an unclosed or stray backtick, or an
    /// unquoted segment that is not `[A-Za-z_][A-Za-z_0-9]*`.
    case fieldPath = "write.field-path"
    /// A write or request of the wrong shape: an unknown or missing member, `delete` beside `fields`,
    /// a precondition with both `exists` and `updateTime`, names from two databases in one request.
    case writeShape = "write.shape"
    /// A value the mask does not cover, a `$delete` that is not itself a mask path or sits in a write
    /// without a mask, or a mask path beneath a transform.
    case writeMask = "write.mask"
    /// A transform this model does not hold (`maximum`, `minimum`, array union or removal), an
    /// unknown server value, an increment operand that is not a finite integer or double, or two
    /// transforms, or a transform and a value, on one field path.
    case writeTransform = "write.transform"

    // The sync schema's documents (Spec/fields.tsv, through the generated document types).
    /// A field holds a value of the wrong Firestore type, `null` where the field is not nullable, or a
    /// write sentinel where the form or the field does not allow one.
    case schemaType = "schema.type"
    /// A field the schema requires is absent (and has no default a reader could use).
    case schemaMissingField = "schema.missing-field"
    /// An enum field holds a value that is none of the enum's cloud values.
    case schemaEnum = "schema.enum"
    /// A value breaks a field's limit (`maxChars`, `maxBytes`, `maxItems`, `hexLength`, `minimum`,
    /// `maximum`, `step`).
    case schemaLimit = "schema.limit"
    /// A string is not in the field's format (`date-string`: `yyyy-MM-dd`).
    case schemaFormat = "schema.format"
}

/// A typed error for bad input: which file, where (line:column and JSON pointer), and the rule broken.
///
/// Thrown by every reader of this module (canonical JSON, REST JSON, value validation); never a crash.
/// `line` and `column` are 1-based; the column counts Unicode scalars. `pointer` is an RFC 6901 JSON
/// pointer into the input (`""` for the whole document). Values built in code have no line.
public struct SchemaInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the input came from, when known.
    public var file: String?
    /// 1-based line of the offending token, when the input was text.
    public var line: Int?
    /// 1-based column (Unicode scalars) of the offending token, when the input was text.
    public var column: Int?
    /// RFC 6901 JSON pointer to the offending value or key.
    public var pointer: String
    /// The rule broken.
    public var rule: InputRule
    /// What is wrong, for a person.
    public var message: String

    /// Creates an error; `file`, `line` and `column` may be filled in later by the reader.
    public init(
        rule: InputRule, pointer: String, message: String, file: String? = nil, line: Int? = nil,
        column: Int? = nil
    ) {
        self.rule = rule
        self.pointer = pointer
        self.message = message
        self.file = file
        self.line = line
        self.column = column
    }

    /// `FILE:LINE:COLUMN: /pointer: RULE-ID: message`, leaving out the parts that are unknown.
    public var description: String {
        var s = ""
        if let file { s += file + ":" }
        if let line, let column { s += "\(line):\(column):" }
        if !s.isEmpty { s += " " }
        return s + "\(pointer.isEmpty ? "/" : pointer): \(rule.rawValue): \(message)"
    }
}

/// Builds RFC 6901 JSON pointers (`~` → `~0`, `/` → `~1`).
public enum JSONPointer {
    /// The pointer `parent/token`, escaping the token.
    public static func appending(_ parent: String, _ token: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(token.utf8.count)
        for ch in token.unicodeScalars {
            switch ch {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(ch)
            }
        }
        return parent + "/" + escaped
    }

    /// The pointer `parent/index`.
    public static func appending(_ parent: String, _ index: Int) -> String {
        parent + "/" + String(index)
    }
}

/// One step of a path into a JSON document: an object key or an array index.
enum PathToken: Sendable {
    case key(String)
    case index(Int)

    /// The RFC 6901 pointer of a path.
    static func pointer(_ path: [PathToken]) -> String {
        var p = ""
        for t in path {
            switch t {
            case .key(let k): p = JSONPointer.appending(p, k)
            case .index(let i): p = JSONPointer.appending(p, i)
            }
        }
        return p
    }
}
