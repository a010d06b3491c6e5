import VultureSchemaCore
import VultureSyncSchema

/// One way an actual value differs from the expected one, at a JSON pointer.
///
/// Comparison is by typed value (Goldens/FORMAT.md): `1` and `1.0` differ, NaN equals NaN, key order
/// and layout do not matter.
public struct ValueDifference: Sendable, Hashable, CustomStringConvertible {
    /// What kind of difference.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The expected field is absent.
        case missing
        /// A field the expected value does not have.
        case unexpected
        /// Both present, of different types.
        case typeMismatch = "type-mismatch"
        /// Same type, different value (or array length).
        case valueMismatch = "value-mismatch"
    }

    /// JSON pointer of the difference inside the document (`/igc/sizeBytes`); empty for the root.
    public var pointer: String
    /// Missing, unexpected, type mismatch or value mismatch.
    public var kind: Kind
    /// The golden's value at ``pointer``; nil for `unexpected`.
    public var expected: FirestoreValue?
    /// The actual value at ``pointer``; nil for `missing`.
    public var actual: FirestoreValue?
    /// A suggestion for a person: "did you mean waterBallast?", "an integer where the schema wants a double", …
    public var hint: String?

    /// A difference at `pointer`, with an optional hint for a person.
    public init(pointer: String, kind: Kind, expected: FirestoreValue?, actual: FirestoreValue?, hint: String? = nil) {
        self.pointer = pointer
        self.kind = kind
        self.expected = expected
        self.actual = actual
        self.hint = hint
    }

    /// Values longer than this many characters are cut in ``description``.
    public static let maximumShownCharacters = 240

    /// `/pointer: kind: expected X, actual Y (hint)`, values in one-line canonical typed JSON (cut
    /// after ``maximumShownCharacters``).
    public var description: String {
        func show(_ v: FirestoreValue?) -> String {
            guard let v else { return "(absent)" }
            return "\(v.typeName) \(CanonicalJSON.compactString(v).excerpt(scalars: Self.maximumShownCharacters))"
        }
        var s =
            "\(pointer.isEmpty ? "/" : pointer): \(kind.rawValue): expected \(show(expected)), actual \(show(actual))"
        if let hint { s += " — \(hint)" }
        return s
    }
}

/// Compares typed values field by field and explains the differences (Goldens/FORMAT.md).
public enum TypedComparison {
    /// Every difference between `expected` and `actual`, in pointer order.
    ///
    /// - Parameters:
    ///   - expected: the golden value.
    ///   - actual: the testee's value.
    ///   - pointer: the pointer of these values inside their document.
    ///   - origin: what the schema says about a member the actual value has and the expected one lacks
    ///     (`SchemaMembers`); nil (or a nil answer) where the value has no schema, and the hint then says only
    ///     that the golden has no such member.
    /// - Returns: an empty array when the values are equal by typed value.
    public static func differences(
        expected: FirestoreValue, actual: FirestoreValue, pointer: String = "",
        origin: ((String) -> MemberOrigin?)? = nil
    ) -> [ValueDifference] {
        var out: [ValueDifference] = []
        compare(expected, actual, pointer: pointer, fieldName: nil, origin: origin, into: &out)
        return out
    }

    static func compare(
        _ e: FirestoreValue, _ a: FirestoreValue, pointer: String, fieldName: String?,
        origin: ((String) -> MemberOrigin?)?, into out: inout [ValueDifference]
    ) {
        switch (e, a) {
        case (.map(let em), .map(let am)):
            let missing = em.keys.filter { am[$0] == nil }
            let unexpected = am.keys.filter { em[$0] == nil }
            for key in em.keys.sorted(by: CanonicalJSONWriter.utf16Precedes) {
                let p = JSONPointer.appending(pointer, key)
                if let av = am[key], let ev = em[key] {
                    compare(ev, av, pointer: p, fieldName: key, origin: origin, into: &out)
                } else {
                    let near = nearest(key, among: unexpected)
                    var hint = near.map { "written as \"\($0)\"?" }
                    if hint == nil, em[key] == .null {
                        hint =
                            "a field without a value is written as null in a full write (Goldens/FORMAT.md), not omitted"
                    }
                    out.append(ValueDifference(pointer: p, kind: .missing, expected: em[key], actual: nil, hint: hint))
                }
            }
            for key in unexpected.sorted(by: CanonicalJSONWriter.utf16Precedes) {
                let p = JSONPointer.appending(pointer, key)
                let hint: String
                switch origin?(p) {
                case .schema(let what)?: hint = what
                case .notInSchema?:
                    hint =
                        nearest(key, among: missing + Array(em.keys)).map { "did you mean \($0)?" }
                        ?? "the schema has no such field here"
                case nil:
                    hint =
                        nearest(key, among: missing + Array(em.keys)).map { "did you mean \($0)?" }
                        ?? "the golden has no such member here"
                }
                out.append(ValueDifference(pointer: p, kind: .unexpected, expected: nil, actual: am[key], hint: hint))
            }
        case (.array(let ea), .array(let aa)):
            for i in 0..<min(ea.count, aa.count) {
                compare(
                    ea[i], aa[i], pointer: JSONPointer.appending(pointer, i), fieldName: fieldName, origin: origin,
                    into: &out)
            }
            if ea.count != aa.count {
                out.append(
                    ValueDifference(
                        pointer: pointer, kind: .valueMismatch, expected: e, actual: a,
                        hint: "expected \(ea.count) elements, actual \(aa.count)"))
            }
        default:
            guard e != a else { return }
            let sameType = e.typeName == a.typeName
            out.append(
                ValueDifference(
                    pointer: pointer, kind: sameType ? .valueMismatch : .typeMismatch, expected: e, actual: a,
                    hint: hint(expected: e, actual: a, fieldName: fieldName)))
        }
    }

    /// A hint for a scalar difference, where one helps.
    static func hint(expected e: FirestoreValue, actual a: FirestoreValue, fieldName: String?) -> String? {
        switch (e, a) {
        case (.double(let d), .integer(let i)) where Double(i) == d:
            return "an integer where the schema wants a double: write \(CanonicalJSON.compactString(e))"
        case (.integer(let i), .double(let d)) where Double(i) == d:
            return "a double where the schema wants an integer: write \(i)"
        case (.serverTimestamp, .timestamp):
            return "\(fieldName ?? "this field") must be the server-timestamp sentinel {\"$serverTimestamp\": true}, "
                + "never a client time (schema §2, common fields)"
        case (.increment, .integer), (.increment, .double):
            return "\(fieldName ?? "this field") moves by FieldValue.increment ({\"$increment\": n}), not by writing "
                + "a total (schema §2, profile)"
        case (.null, _):
            return "the expected value is null: a field without a value is written as null"
        case (.string(let x), .string(let y)) where x.lowercased() == y.lowercased():
            return "differs only in letter case"
        default:
            return nil
        }
    }

    /// The candidate nearest to `name` within edit distance 2, or nil; see `EditDistance.nearest(_:among:)` in VultureSyncSchema.
    public static func nearest(_ name: String, among candidates: [String]) -> String? {
        EditDistance.nearest(name, among: candidates)
    }

    /// Optimal-string-alignment distance; see `EditDistance.osa(_:_:)` in VultureSyncSchema.
    public static func editDistance(_ a: String, _ b: String) -> Int { EditDistance.osa(a, b) }
}
