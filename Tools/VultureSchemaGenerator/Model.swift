import Foundation
import VultureSchemaCore

/// A collection of `Spec/collections.tsv`: where its documents live and how they are pushed (schema §2, §5.1).
public struct CollectionSpec: Hashable, Sendable {
    /// Firestore collection id (`flights`; `users` for the profile).
    public var name: String
    /// Document path template, e.g. `users/{uid}/flights/{flightId}`.
    public var pathTemplate: String
    /// Document type name; its fields are the ``FieldSpec`` rows with this owner.
    public var documentType: String
    /// Record name of the id rules in `Spec/ids.tsv`.
    public var idRecord: String
    /// Whether the document also carries the `CommonFields` rows.
    public var hasCommonFields: Bool
    /// Position in a push, 1 first; nil when the document is not pushed on its own (the profile).
    public var pushOrder: Int?
    /// One-line meaning.
    public var meaning: String
    /// Seed reference, e.g. `000 §2`.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// One field of a document or nested map (`Spec/fields.tsv`, schema §2).
public struct FieldSpec: Hashable, Sendable {
    /// The document type, `CommonFields` or nested map type the field belongs to.
    public var owner: String
    /// The cloud key.
    public var name: String
    /// Firestore type.
    public var type: SchemaFieldType
    /// Whether the key is in every full write.
    public var presence: FieldPresence
    /// Whether `null` is a legal value.
    public var isNullable: Bool
    /// What a reader uses when a non-nullable field is absent; nil when there is none.
    public var defaultValue: FirestoreValue?
    /// Unit of a numeric value; nil for none.
    public var unit: MeasurementUnit?
    /// Constraints on the value.
    public var limits: [FieldLimit]
    /// How the field appears in the write form.
    public var writeAs: SchemaWriteAs
    /// Android Room column (or an expression in parentheses); nil for none.
    public var androidColumn: String?
    /// iOS Core Data attribute (or an expression in parentheses); nil for none.
    public var iosAttribute: String?
    /// Since when the field exists, e.g. `analysisVersion 2 (Android, 2026-10-20)`; nil when it always did.
    public var since: String?
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// An enumeration of `Spec/enums.tsv` with its cases in table order.
public struct EnumSpec: Hashable, Sendable {
    /// Enum name, referenced as `enum:<name>`.
    public var name: String
    /// Cases in table order.
    public var cases: [EnumCaseSpec]
    /// How the cases are stored: all strings or all integers (from the first case's cloud value).
    public var encoding: EnumEncoding
    /// Row of the first case.
    public var location: SpecLocation

    /// The case whose cloud value is `value`, if any.
    public func enumCase(cloudValue value: FirestoreValue) -> EnumCaseSpec? {
        cases.first { $0.cloudValue == value }
    }
}

/// How an enum's cases are stored in Firestore.
public enum EnumEncoding: String, Hashable, Sendable {
    /// As a string (the stable id, schema §1 rule 3).
    case string
    /// As an integer (the CUP style number of a zone type).
    case integer
}

/// One case of an enum.
public struct EnumCaseSpec: Hashable, Sendable {
    /// Stable symbolic id (the Swift case name).
    public var name: String
    /// What Firestore stores: `.string` or `.integer`.
    public var cloudValue: FirestoreValue
    /// iOS raw value or index; nil where iOS has none.
    public var iosValue: Int?
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// One of the 42 keys of `settings/synced` (`Spec/settings-keys.tsv`, schema §2).
public struct SettingsKeySpec: Hashable, Sendable {
    /// Key id (never changes).
    public var key: String
    /// Type of the entry's `v`.
    public var type: SchemaFieldType
    /// Whether `v` may be null.
    public var isNullable: Bool
    /// Value on a fresh install (counts as `t = 0`).
    public var defaultValue: FirestoreValue
    /// Values allowed beyond the type.
    public var allowed: AllowedValues
    /// Unit of a numeric value; nil for none.
    public var unit: MeasurementUnit?
    /// iOS defaults / iCloud KVS keys, in order.
    public var iosKeys: [String]
    /// How the iOS keys map onto the value.
    public var iosMapping: SchemaIOSKeyMapping
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// The `allowed` column of `Spec/settings-keys.tsv`.
public enum AllowedValues: Hashable, Sendable, CustomStringConvertible {
    /// Any value of the type (`-`).
    case any
    /// A closed numeric range (`range:1...8`).
    case range(lower: Double, upper: Double)
    /// The cases, units or field limits of the key's own `enum:`, `unit:` or `map:` type.
    case ofType(SchemaFieldType)

    /// Reads `-`, `range:LOW...HIGH` or a type; nil when malformed.
    public init?(parsing text: String) {
        if text == "-" {
            self = .any
            return
        }
        if text.hasPrefix("range:") {
            let bounds = text.dropFirst("range:".count).components(separatedBy: "...")
            guard bounds.count == 2, let lower = Double(bounds[0]), let upper = Double(bounds[1]), lower <= upper else {
                return nil
            }
            self = .range(lower: lower, upper: upper)
            return
        }
        guard let type = SchemaFieldType(parsing: text) else { return nil }
        self = .ofType(type)
    }

    /// A bound as written: `8` for a whole number, `0.1` otherwise.
    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// The cell written back.
    public var description: String {
        switch self {
        case .any: "-"
        case .range(let lower, let upper): "range:\(Self.number(lower))...\(Self.number(upper))"
        case .ofType(let type): type.description
        }
    }

    /// The cell as written for a key of `type`: a range's bounds as that type's literals (`range:1...8`
    /// for an integer key, `range:0.1...1.0` for a double one), as `Spec/settings-keys.tsv` has them.
    public func description(for type: SchemaFieldType) -> String {
        guard case .range(let lower, let upper) = self, type == .double else { return description }
        return "range:\(CanonicalJSON.compactString(.double(lower)))...\(CanonicalJSON.compactString(.double(upper)))"
    }
}

/// A unit table of `Spec/units.tsv`: iOS index to unit id; unknown indexes and ids fall back to ``fallback``.
public struct UnitTableSpec: Hashable, Sendable {
    /// Table name: the settings key id that uses it.
    public var name: String
    /// Units ordered by iOS index.
    public var units: [UnitSpec]
    /// Row of the first unit.
    public var location: SpecLocation

    /// The first unit (index 0), used for unknown indexes and ids (schema §2).
    public var fallback: UnitSpec? { units.first }

    /// The unit at iOS `index`, or the fallback when unknown.
    public func unit(iosIndex index: Int) -> UnitSpec? {
        units.first { $0.index == index } ?? fallback
    }

    /// The unit with cloud id `id`, or the fallback when unknown.
    public func unit(id: String) -> UnitSpec? {
        units.first { $0.id == id } ?? fallback
    }
}

/// One unit of a unit table.
public struct UnitSpec: Hashable, Sendable {
    /// iOS index (0-based, contiguous).
    public var index: Int
    /// Cloud unit id (`kph`).
    public var id: String
    /// Display symbol (`km/h`).
    public var symbol: String
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// One deterministic-id rule variant of `Spec/ids.tsv` (schema §4).
public struct IdRuleSpec: Hashable, Sendable {
    /// Record name (a `CollectionSpec.idRecord`).
    public var record: String
    /// Variant name within the record (`downloaded`, `user` …).
    public var variant: String
    /// When the variant applies, in words.
    public var condition: String
    /// How the id is made.
    public var algorithm: IdAlgorithm
    /// Input template (`{source}|{type}|{filename}`); nil for a random id.
    public var input: String?
    /// How `{…}` values are prepared.
    public var normalization: IdNormalization
    /// Whether this table pins the rule where the seed is silent (see `Spec/pins.tsv`).
    public var isPinned: Bool
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation

    /// The `{name}` placeholders of ``input``, in order.
    public var placeholders: [String] {
        guard let input else { return [] }
        var names: [String] = []
        var rest = Substring(input)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }
}

/// How a deterministic id is computed.
public enum IdAlgorithm: String, Hashable, Sendable, CaseIterable {
    /// 64 lowercase hex characters of SHA-256 (strings hashed as UTF-8).
    case sha256Hex
    /// A new random UUID (lowercase 8-4-4-4-12).
    case randomUUID
    /// The input as is.
    case verbatim
    /// The literal input.
    case fixed
}

/// How the `{…}` values of an id input are prepared.
public enum IdNormalization: String, Hashable, Sendable, CaseIterable {
    /// Used as stored.
    case none
    /// Whitespace trimmed at both ends, then lower-cased with root-locale rules.
    case trimLowercase
    /// The value is standard padded Base64 text; its decoded bytes are hashed.
    case base64Decode
}

/// A kind of Cloud Storage object (`Spec/blobs.tsv`, schema §2 storage objects).
public struct BlobSpec: Hashable, Sendable {
    /// Blob name (`igc`, `mapFileContent`).
    public var name: String
    /// Object path template.
    public var pathTemplate: String
    /// Document type holding the blob map.
    public var record: String
    /// Field of ``record`` holding the blob map.
    public var mapField: String
    /// Content type of the object.
    public var contentType: String
    /// Content-Encoding header; nil = not set.
    public var contentEncoding: String?
    /// Custom metadata keys.
    public var customMetadata: [String]
    /// Rule cap on the stored object, bytes.
    public var maxObjectBytes: Int
    /// Cap on the bytes before gzip, bytes; nil for none.
    public var maxRawBytes: Int?
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// One merge rule of `Spec/merge-rules.tsv` (schema §5.3–§5.5).
public struct MergeRuleSpec: Hashable, Sendable {
    /// Document type, or nil for every document (`*`).
    public var document: String?
    /// Field path inside the document (`igc.uploaded`, `values.*`), or nil for every field (`*`).
    public var fieldPath: String?
    /// The rule.
    public var rule: MergeRuleKind
    /// Who wins equal rank; nil when the rule has no tie.
    public var tie: MergeTie?
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// The merge rules the schema names.
public enum MergeRuleKind: String, Hashable, Sendable, CaseIterable {
    /// Default: changed on one side → that side; on both → later `clientUpdatedAt` (§5.3).
    case threeWayLatestClientUpdatedAt
    /// Local OR remote (§5.3).
    case logicalOr
    /// The earliest non-null (§5.3).
    case earliestNonNull
    /// The latest when both set; a one-sided clear wins (§5.3, §5.5).
    case latestClearTravels
    /// The map with the higher `analysisVersion` (§5.3).
    case higherAnalysisVersion
    /// Ranked 0 < -1 < positive, as a whole with the preview (§5.5).
    case trackPreviewRank
    /// A side without the map takes the other's (§5.5).
    case blobMapNeverDropped
    /// The default rule, applied once the task arrives (§5.3, §5.5).
    case deferredUntilTaskArrives
    /// Per settings key, the larger `t` (§5.3).
    case largerEntryTime
    /// An empty string is written as null (§5.5).
    case emptyAsNull
    /// A delete wins over an edit unless recreated after `deletedAt` (§5.4).
    case tombstoneWins
    /// The later of the two non-null times, whatever the base (the merged row's own clock).
    case latestNonNull
}

/// Who wins a merge tie.
public enum MergeTie: String, Hashable, Sendable, CaseIterable {
    /// The document's (cloud) value.
    case server
    /// The local value.
    case local
}

/// A cap of `Spec/limits.tsv` (schema §3).
public struct LimitSpec: Hashable, Sendable {
    /// Limit name.
    public var name: String
    /// The cap.
    public var value: Int64
    /// Unit word (`bytes`, `chars`, `items`, `writes` …).
    public var unit: String
    /// Fields and blobs that must carry the same number.
    public var appliesTo: [LimitTarget]
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// What a limit applies to.
public enum LimitTarget: Hashable, Sendable, CustomStringConvertible {
    /// A field of `Spec/fields.tsv` (`FlightDocument.comments`).
    case field(owner: String, name: String)
    /// A blob of `Spec/blobs.tsv` (`blob:igc`).
    case blob(String)

    /// Reads `Owner.field` or `blob:<name>`; nil when malformed.
    public init?(parsing text: String) {
        if text.hasPrefix("blob:") {
            let name = String(text.dropFirst(5))
            guard !name.isEmpty else { return nil }
            self = .blob(name)
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self = .field(owner: String(parts[0]), name: String(parts[1]))
    }

    /// The target written back.
    public var description: String {
        switch self {
        case .field(let owner, let name): "\(owner).\(name)"
        case .blob(let name): "blob:\(name)"
        }
    }
}

/// A named constant of `Spec/constants.tsv`.
public struct ConstantSpec: Hashable, Sendable {
    /// Constant name.
    public var name: String
    /// The value.
    public var value: FirestoreValue
    /// Unit word; nil for none.
    public var unit: String?
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}

/// A choice this project pins where the seeds are silent, cut off or disagree (`Spec/pins.tsv`).
public struct PinSpec: Hashable, Sendable {
    /// Pin name.
    public var name: String
    /// The table and rows the pin fixes.
    public var subject: String
    /// The choice.
    public var choice: String
    /// Why.
    public var reason: String
    /// Seed reference.
    public var source: String
    /// Schema, choice or open question: decides the level of the cases resting on the pin.
    public var kind: PinKind
    /// Row of the table.
    public var location: SpecLocation
}

/// How firmly a pin (`Spec/pins.tsv` kind) holds, and so the level of the cases resting on it.
public enum PinKind: String, CaseIterable, Hashable, Sendable {
    /// The pin states the schema precisely where the seeds leave it implicit: cases resting on it are `required.*`.
    case schema
    /// The seeds are silent and this project chose: cases resting on it are `recommended.*`.
    case choice
    /// An open question (the sources disagree or the value is unverified): cases resting on it are `recommended.*`.
    case open
}

/// A rule id or error code of `Spec/rules.tsv`: the registry every reader, the validator and the
/// testee protocol draw their ids from.
public struct RuleSpec: Hashable, Sendable {
    /// A generated Swift enum case carrying the id.
    public struct SwiftCase: Hashable, Sendable {
        /// `InputRule`, `SchemaRule` or `ErrorCode`.
        public var enumName: String
        /// The case name (`jsonSyntax`).
        public var caseName: String
    }

    /// The stable id (`json.syntax`, `id.too-long`).
    public var id: String
    /// The enum cases that carry the id, in cell order.
    public var swiftCases: [SwiftCase]
    /// What breaks the rule.
    public var meaning: String
    /// Where the schema or format page explains it (`schema §4`, `Goldens/FORMAT.md`).
    public var section: String
    /// An input that breaks it (backticks mark literal JSON).
    public var example: String
    /// Seed or standard reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation

    /// The enums `Spec/rules.tsv` generates: name → module folder it is written to.
    public static let enums: [(name: String, directory: String)] = [
        ("InputRule", "Sources/VultureSchemaCore/Generated"),
        ("SchemaRule", "Sources/VultureSyncSchema/Generated"),
        ("ErrorCode", "Sources/VultureConformance/Generated"),
    ]
}

/// An operation of the testee protocol (`Spec/operations.tsv`).
public struct OperationSpec: Hashable, Sendable {
    /// The op name a case carries (`id.homebase`).
    public var op: String
    /// What `--only` selects: dotted, `{collection}` replaced by the input's collection.
    public var area: String
    /// The schema section it tests.
    public var section: String
    /// The input's shape in the page notation, parsed.
    public var input: OperationShape
    /// The output's shape in the page notation, parsed.
    public var output: OperationShape
    /// Rejections it may answer: rule ids or `prefix.*` groups.
    public var errors: [String]
    /// One-paragraph meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation
}
