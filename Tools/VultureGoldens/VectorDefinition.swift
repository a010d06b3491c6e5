import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// One vector case before its output is known: the reference implementation answers it when the
/// goldens are written.
struct VectorDefinition {
    /// The id without its level (`ids.homebase.trim`): the writer prefixes `required.`, or
    /// `recommended.` when a pin of ``pins`` is a choice or an open question.
    var id: String
    var section: String
    var op: String
    var input: FirestoreValue
    /// Why the case exists, kept in the golden as `note`.
    var note: String?
    /// The rejection code the case must get; the writer fails if the reference answers otherwise.
    var expectedError: String? = nil
    /// The pins of `Spec/pins.tsv` the expected answer rests on.
    var pins: [SchemaPin] = []
    /// The stored document an answer's write is judged on (the golden's `base`; Goldens/FORMAT.md,
    /// "Writes"), for a case whose output holds a `write`.
    var base: [String: FirestoreValue]? = nil

    /// The case id with its level. An id written with its level already keeps it (GoldenSuite refuses a
    /// level its pins contradict, so `vulture-goldens` stops on one).
    var fullId: String {
        id.hasPrefix("required.") || id.hasPrefix("recommended.") ? id : Level.of(pins) + "." + id
    }
}

/// `required` or `recommended`, from the pins a case rests on (Goldens/SCHEMA.md, Pinned choices).
enum Level {
    static func of(_ pins: [SchemaPin]) -> String {
        pins.contains { $0.kind != .schema } ? "recommended" : "required"
    }
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

/// The writers of the encode-like cases: each such case exists once per platform, its fixture's
/// context naming that platform and one of its devices (an iOS encoder writes `platform: "ios"`).
enum Writer: String, CaseIterable {
    case android, ios

    /// The device id of the writer (Android: a lowercase UUID; iOS: identifierForVendor, upper case).
    var deviceId: String {
        switch self {
        case .android: "5f0c2a9e-8d41-4b7a-9c3e-2a61f0d4b7e8"
        case .ios: "C1D2E3F4-A5B6-4C7D-8E9F-0A1B2C3D4E5F"
        }
    }

    /// `fixture` with its context naming this writer.
    func writing(_ fixture: [String: FirestoreValue]) -> [String: FirestoreValue] {
        var f = fixture
        var context = f["context"]?.mapValue ?? [:]
        context["platform"] = .string(rawValue)
        context["deviceId"] = .string(deviceId)
        f["context"] = .map(context)
        return f
    }
}
