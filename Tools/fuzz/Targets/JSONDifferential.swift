import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// A JSON value as a reference parser gives it: integers apart from reals, strings as UTF-8 bytes,
/// object members in any order.
public indirect enum ReferenceJSON: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent.
    case integer(Int64)
    /// A number with a fraction or an exponent.
    case real(Double)
    /// A string's UTF-8 bytes.
    case string([UInt8])
    /// An array.
    case array([ReferenceJSON])
    /// An object's members (key as UTF-8 bytes).
    case object([(key: [UInt8], value: ReferenceJSON)])
}

/// What a reference parser made of a text: a value, or a refusal with the parser's reason.
public enum ReferenceOutcome: Sendable {
    /// The text is JSON with this value.
    case accepted(ReferenceJSON)
    /// The text is not JSON (or not JSON the parser reads): its message.
    case rejected(String)
}

/// json-differential: the strict reader, the canonical reader, the REST reader and a reference JSON
/// parser read the same text and must agree.
///
/// - A text the strict reader refuses, the canonical and the REST readers refuse with the same error
///   (rule, pointer, line:column); a text it reads, neither refuses for a JSON text rule.
/// - A text without `$` keys, big integers or overflowing numbers is canonical typed JSON exactly when
///   its plain value keeps Firestore's rules (`FirestoreValue.validate`), and reads as that value.
/// - What the canonical reader reads (stored form) the REST writer and reader carry unchanged, and what
///   the REST reader reads the canonical writer and reader carry unchanged.
/// - The reference parser accepts what the strict reader accepts, with the same value, and refuses
///   what it refuses, apart from the differences of ``ReferenceDifference``.
public enum JSONDifferential {
    static let file = "fuzz.json"

    /// The rules of the JSON text itself (what the strict reader alone decides).
    static let textRules: Set<InputRule> = [
        .jsonSyntax, .jsonTrailingGarbage, .jsonDuplicateKey, .jsonInvalidUTF8, .jsonLoneSurrogate,
        .jsonControlCharacter, .jsonTooDeep,
    ]

    /// Reads `input` with every reader and checks that they agree; `reference` is the reference
    /// parser (jansson in the libFuzzer executable), nil to compare the project's readers only.
    /// - Throws: ``FuzzViolation`` for the first disagreement.
    public static func run(_ input: UnsafeBufferPointer<UInt8>, reference: ReferenceOutcome?) throws(FuzzViolation) {
        let bytes = Array(input)
        let strict = ReadOutcome { JSONTree(try StrictJSONReader.parse(bytes, file: file)) }
        let canonical = ReadOutcome { try CanonicalJSON.decode(bytes, file: file) }
        let rest = ReadOutcome { try FirestoreRESTJSON.decodeValue(bytes, file: file) }
        for (name, outcome) in [("canonical", canonical.error), ("REST", rest.error)] {
            guard let e = outcome else { continue }
            if let strictError = strict.error {
                try require(
                    e == strictError, "the \(name) reader refused with \(e), the strict reader with \(strictError)")
            } else {
                try require(
                    !textRules.contains(e.rule), "the \(name) reader refused a JSON text the strict reader read: \(e)")
            }
        }
        if let strictError = strict.error {
            try require(
                canonical.value == nil && rest.value == nil, "a reader accepted what is not JSON: \(strictError)")
        }

        if let tree = strict.value, let plain = plainValue(tree.node) {
            let valid = ReadOutcome { () throws -> Bool in
                try plain.validate()
                return true
            }
            switch (canonical, valid) {
            case (.value(let v), .value):
                try require(v == plain, "canonical JSON read \(v), its plain value is \(plain)")
            case (.rejected, .rejected): break
            default:
                throw FuzzViolation(
                    "canonical reader: \(canonical.shown); Firestore's rules on the plain value: \(valid.shown)")
            }
        }
        if let v = canonical.value, (try? v.validate(form: .stored)) != nil {
            let again = ReadOutcome {
                try FirestoreRESTJSON.decodeValue(CanonicalJSONWriter.write(try FirestoreRESTJSON.node(v)))
            }
            try require(again == .value(v), "canonical value \(v) through REST JSON came back as \(again.shown)")
        }
        if let r = rest.value {
            let again = ReadOutcome { try CanonicalJSON.decode(CanonicalJSON.encode(r), form: .stored) }
            try require(again == .value(r), "REST value \(r) through canonical JSON came back as \(again.shown)")
        }

        guard let reference else { return }
        switch (strict, reference) {
        case (.value(let tree), .accepted(let ref)):
            try require(same(tree.node, ref), "the reference parser read \(ref), the strict reader \(tree)")
        case (.value(let tree), .rejected(let reason)):
            guard ReferenceDifference.refusedOnly(tree.node) != nil else {
                throw FuzzViolation("the reference parser refused (\(reason)) what the strict reader read: \(tree)")
            }
        case (.rejected(let e), .accepted(let ref)):
            if bytes.contains(0), let withoutNUL = try? StrictJSONReader.parse(bytes.filter { $0 != 0 }) {
                // jansson passes over a raw NUL byte between tokens; without them the texts agree.
                try require(
                    same(withoutNUL, ref),
                    "the reference parser read \(ref) past a NUL byte, the strict reader \(JSONTree(withoutNUL)) without it"
                )
                return
            }
            guard ReferenceDifference.acceptedOnly(e, reference: ref) else {
                throw FuzzViolation("the reference parser read \(ref), the strict reader refused: \(e)")
            }
        case (.rejected, .rejected), (.untyped, _): break
        }
    }

    /// The Firestore value a JSON tree stands for when nothing in it is typed (no key starts with
    /// `$`) and every number fits (int64, finite double); nil otherwise.
    static func plainValue(_ node: JSONNode) -> FirestoreValue? {
        switch node.kind {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .integer(let v): return .integer(v)
        case .bigInteger: return nil
        case .double(let d): return d.isFinite ? .double(d) : nil
        case .string(let s): return .string(s)
        case .array(let elements):
            var out: [FirestoreValue] = []
            for e in elements {
                guard let v = plainValue(e) else { return nil }
                out.append(v)
            }
            return .array(out)
        case .object(let members):
            var out: [String: FirestoreValue] = [:]
            for m in members {
                guard !m.key.hasPrefix("$"), let v = plainValue(m.value) else { return nil }
                out[m.key] = v
            }
            return .map(out)
        }
    }

    /// The strict reader's tree and the reference parser's value are the same JSON value.
    static func same(_ node: JSONNode, _ ref: ReferenceJSON) -> Bool {
        switch (node.kind, ref) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .real(let b)): return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b)
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { m in
                b.contains { $0.key.elementsEqual(m.key.utf8) && same(m.value, $0.value) }
            }
        default: return false
        }
    }
}

/// Where the reference parser (jansson 2.14) and the strict reader knowingly differ.
public enum ReferenceDifference {
    /// Why the reference refuses a text the strict reader reads, or nil when it has no reason to:
    /// an integer outside int64 (the strict reader keeps its text; canonical JSON then refuses it as
    /// `json.integer-range`), a number past the largest double (read as ±Infinity; refused as
    /// `json.double-range`), or a key holding U+0000 (which jansson cannot keep).
    static func refusedOnly(_ node: JSONNode) -> String? {
        switch node.kind {
        case .bigInteger: return "an integer outside int64"
        case .double(let d) where !d.isFinite: return "a number past the largest double"
        case .array(let elements):
            for e in elements { if let why = refusedOnly(e) { return why } }
            return nil
        case .object(let members):
            for m in members {
                if m.key.unicodeScalars.contains("\u{0}") { return "a key holding U+0000" }
                if let why = refusedOnly(m.value) { return why }
            }
            return nil
        default: return nil
        }
    }

    /// Whether the reference may read a text the strict reader refuses with `error`: nesting deeper
    /// than the strict reader's 512 levels (jansson follows 2,048). (A raw NUL byte between tokens,
    /// which jansson passes over, is handled where the text is at hand.)
    ///
    /// Also two keys of one object that differ in bytes but not as Swift strings (`"é"` and
    /// `"e\u{301}"`, canonically equivalent): jansson keeps both, the strict reader refuses the second
    /// as `json.duplicate-key`, since a map's keys are Swift strings, which compare by canonical
    /// equivalence, and one of the two values would otherwise be lost.
    static func acceptedOnly(_ error: SchemaInputError, reference: ReferenceJSON) -> Bool {
        error.rule == .jsonTooDeep || (error.rule == .jsonDuplicateKey && hasEquivalentKeys(reference))
    }

    /// Whether an object in `value` has two keys that are equal as Swift strings.
    static func hasEquivalentKeys(_ value: ReferenceJSON) -> Bool {
        switch value {
        case .array(let elements): return elements.contains(where: hasEquivalentKeys)
        case .object(let members):
            let keys = members.map { String(decoding: $0.key, as: UTF8.self) }
            return Set(keys).count < keys.count || members.contains { hasEquivalentKeys($0.value) }
        default: return false
        }
    }
}
