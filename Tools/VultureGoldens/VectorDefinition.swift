import VultureConformance
import VultureSyncSchema

/// One vector case before its output is known: the reference implementation answers it when the
/// goldens are written.
struct VectorDefinition {
    var id: String
    var section: String
    var op: String
    var input: FirestoreValue
    /// Why the case exists, kept in the golden as `note`.
    var note: String?
    /// The rejection code the case must get; the writer fails if the reference answers otherwise.
    var expectedError: String? = nil
}

/// A vector file: its area and cases.
struct VectorFile {
    var area: String
    var summary: String
    var cases: [VectorDefinition]
}

func ts(_ text: String) -> FirestoreValue {
    guard let t = try? FirestoreTimestamp.parseRFC3339(text, allowedFractionDigits: [0, 3, 6], allowOffset: false)
    else {
        fatalError("bad timestamp literal \(text) in a vector definition")
    }
    return .timestamp(t)
}
