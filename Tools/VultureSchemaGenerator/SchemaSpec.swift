import Foundation
import VultureSchemaCore

/// The whole schema as read from `Spec/`: every table as typed rows, with lookups for the generator.
///
/// Build it with ``load(from:)`` (reads and validates; throws ``SpecErrors``) or ``read(from:)``
/// (reads only, returning the problems found so far). ``validate()`` runs the cross-table checks
/// on an in-memory spec.
public struct SchemaSpec: Hashable, Sendable {
    /// Owner name of the fields every document of a collection with `commonFields = yes` carries (schema §2).
    public static let commonFieldsOwner = "CommonFields"

    /// `Spec/collections.tsv`, in table order.
    public var collections: [CollectionSpec] = []
    /// `Spec/fields.tsv`, in table order.
    public var fields: [FieldSpec] = []
    /// `Spec/enums.tsv`, one entry per enum, in order of first appearance.
    public var enums: [EnumSpec] = []
    /// `Spec/settings-keys.tsv`, in table order.
    public var settingsKeys: [SettingsKeySpec] = []
    /// `Spec/units.tsv`, one entry per table, in order of first appearance.
    public var unitTables: [UnitTableSpec] = []
    /// `Spec/ids.tsv`, in table order.
    public var idRules: [IdRuleSpec] = []
    /// `Spec/blobs.tsv`, in table order.
    public var blobs: [BlobSpec] = []
    /// `Spec/merge-rules.tsv`, in table order.
    public var mergeRules: [MergeRuleSpec] = []
    /// `Spec/sync-rules.tsv`, in table order.
    public var syncRules: [SyncRuleSpec] = []
    /// `Spec/limits.tsv`, in table order.
    public var limits: [LimitSpec] = []
    /// `Spec/constants.tsv`, in table order.
    public var constants: [ConstantSpec] = []
    /// `Spec/pins.tsv`, in table order.
    public var pins: [PinSpec] = []
    /// `Spec/rules.tsv`, in table order.
    public var rules: [RuleSpec] = []
    /// `Spec/operations.tsv`, in table order.
    public var operations: [OperationSpec] = []

    /// An empty spec.
    public init() {}

    // MARK: Lookups

    /// The collection whose document type is `documentType`.
    public func collection(documentType: String) -> CollectionSpec? {
        collections.first { $0.documentType == documentType }
    }

    /// The collection named `name` (`flights`).
    public func collection(named name: String) -> CollectionSpec? {
        collections.first { $0.name == name }
    }

    /// Collections in push order (schema §5.1); the profile, not pushed on its own, is left out.
    public var collectionsInPushOrder: [CollectionSpec] {
        collections.filter { $0.pushOrder != nil }.sorted { $0.pushOrder! < $1.pushOrder! }
    }

    /// Every owner of `fields.tsv` (document types, `CommonFields`, nested map types) in order of first appearance.
    public var ownerNames: [String] {
        var seen = Set<String>()
        return fields.map(\.owner).filter { seen.insert($0).inserted }
    }

    /// Owners that are nested map types: neither a document type nor `CommonFields`.
    public var mapTypeNames: [String] {
        let documents = Set(collections.map(\.documentType))
        return ownerNames.filter { !documents.contains($0) && $0 != Self.commonFieldsOwner }
    }

    /// The rows of `fields.tsv` with this owner, in table order (without common fields).
    public func fields(of owner: String) -> [FieldSpec] {
        fields.filter { $0.owner == owner }
    }

    /// Every field of a document or map type: the common fields first when `owner` is the
    /// document type of a collection that carries them, then the owner's own rows.
    public func allFields(of owner: String) -> [FieldSpec] {
        let common = collection(documentType: owner)?.hasCommonFields == true ? fields(of: Self.commonFieldsOwner) : []
        return common + fields(of: owner)
    }

    /// The enum named `name`.
    public func enumeration(named name: String) -> EnumSpec? {
        enums.first { $0.name == name }
    }

    /// The unit table named `name` (a settings key id).
    public func unitTable(named name: String) -> UnitTableSpec? {
        unitTables.first { $0.name == name }
    }

    /// The settings key `key`.
    public func settingsKey(_ key: String) -> SettingsKeySpec? {
        settingsKeys.first { $0.key == key }
    }

    /// The constant named `name`.
    public func constant(named name: String) -> ConstantSpec? {
        constants.first { $0.name == name }
    }

    /// The limit named `name`.
    public func limit(named name: String) -> LimitSpec? {
        limits.first { $0.name == name }
    }

    /// The pin named `name`.
    public func pin(named name: String) -> PinSpec? {
        pins.first { $0.name == name }
    }

    /// The rules whose id is `pattern`, or starts with its prefix when it ends in `.*` (`gzip.*`).
    public func rules(matching pattern: String) -> [RuleSpec] {
        guard pattern.hasSuffix(".*") else { return rules.filter { $0.id == pattern } }
        let prefix = String(pattern.dropLast())
        return rules.filter { $0.id.hasPrefix(prefix) }
    }

    /// The id rule variants of `record`, in table order.
    public func idRules(of record: String) -> [IdRuleSpec] {
        idRules.filter { $0.record == record }
    }

    /// The field a dotted path names inside `owner`: `summary.thermalAltitudeGained`,
    /// `turnpoints[].zone.R1`, `values.*.v`, `igc` (a map field itself).
    ///
    /// - Returns: nil when a segment names no field, or steps into a type that has no such element.
    public func field(at path: String, in owner: String) -> FieldSpec? {
        var currentOwner = owner
        var found: FieldSpec?
        var segments = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...]
        while let segment = segments.popFirst() {
            var name = segment
            var wantsElement = false
            if name.hasSuffix("[]") {
                name.removeLast(2)
                wantsElement = true
            }
            guard let field = allFields(of: currentOwner).first(where: { $0.name == name }) else { return nil }
            found = field
            var type = field.type
            if wantsElement {
                guard case .array(let element) = type else { return nil }
                type = element
            }
            if case .dictionary(let element) = type, let next = segments.first {
                guard next == "*" else { return nil }
                segments.removeFirst()
                type = element
                if segments.isEmpty { return field }
            }
            if segments.isEmpty { return field }
            guard case .map(let nested) = type else { return nil }
            currentOwner = nested
        }
        return found
    }

    /// A field with its full dotted path inside a document (`summary.thermalAltitudeGained`).
    public struct FieldPath: Hashable, Sendable {
        /// The full path: map keys joined by `.`, an array element as `[]`, a dictionary entry as `.*`.
        public var path: String
        /// The field at the end of the path.
        public var field: FieldSpec
    }

    /// Every field reachable from `owner` with its full path, depth first in table order
    /// (common fields first for a document that carries them). Recursion stops at a type already on the path.
    public func fieldPaths(of owner: String) -> [FieldPath] {
        var result: [FieldPath] = []
        func visit(_ owner: String, prefix: String, onPath: Set<String>) {
            for field in allFields(of: owner) {
                let path = prefix + field.name
                result.append(FieldPath(path: path, field: field))
                var type = field.type
                var suffix = "."
                switch type {
                case .array(let element):
                    type = element
                    suffix = "[]."
                case .dictionary(let element):
                    type = element
                    suffix = ".*."
                default: break
                }
                if case .map(let nested) = type, !onPath.contains(nested) {
                    visit(nested, prefix: path + suffix, onPath: onPath.union([nested]))
                }
            }
        }
        visit(owner, prefix: "", onPath: [owner])
        return result
    }
}
