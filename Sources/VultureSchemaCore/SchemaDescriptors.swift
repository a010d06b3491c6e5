/// The schema as data the runtime can use: the generated tables (`Generated/SchemaTables.swift`)
/// instantiate these types from `Spec/`, so nothing reads `Spec/` at run time (README "Editing the schema").

/// The Firestore type of a field (`Spec/fields.tsv`, column `type`).
public indirect enum SchemaFieldType: Sendable, Hashable, CustomStringConvertible {
    /// A UTF-8 string.
    case string
    /// `true` or `false`.
    case boolean
    /// An int64.
    case integer
    /// A double.
    case double
    /// A Firestore timestamp.
    case timestamp
    /// Firestore bytes.
    case bytes
    /// A calendar day, `"yyyy-MM-dd"`.
    case dateString
    /// A settings entry's `v`: typed by the entry's key (``SchemaSettingsKey/type``).
    case settingValue
    /// One of the named enum's cloud values.
    case enumeration(String)
    /// A unit id of the named unit table.
    case unit(String)
    /// A nested map whose fields are the named owner's.
    case map(String)
    /// An array of the element type.
    case array(SchemaFieldType)
    /// A map keyed by ids, every value of the element type.
    case dictionary(SchemaFieldType)

    /// Reads the table grammar: `string`, `boolean`, `integer`, `double`, `timestamp`, `bytes`,
    /// `date-string`, `settingValue`, `enum:<Enum>`, `unit:<table>`, `map:<Owner>`, `array:<type>`,
    /// `dictionary:<type>` (Spec/README.md).
    /// - Returns: nil for an unknown type name or an empty or malformed reference (`map:`).
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
                guard let element = SchemaFieldType(parsing: rest) else { return nil }
                self = .array(element)
            case "dictionary":
                guard let element = SchemaFieldType(parsing: rest) else { return nil }
                self = .dictionary(element)
            default: return nil
            }
        }
    }

    /// Every `enum:`, `unit:` and `map:` type the type mentions, outermost first.
    public var references: [SchemaFieldType] {
        switch self {
        case .enumeration, .unit, .map: [self]
        case .array(let element), .dictionary(let element): element.references
        default: []
        }
    }

    /// The table grammar (`string`, `enum:Platform`, `array:map:Turnpoint`, …).
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
        case .enumeration(let n): "enum:\(n)"
        case .unit(let n): "unit:\(n)"
        case .map(let n): "map:\(n)"
        case .array(let e): "array:\(e)"
        case .dictionary(let e): "dictionary:\(e)"
        }
    }
}

/// How an encoder writes a field in the write form (Goldens/FORMAT.md).
public enum SchemaWriteAs: String, Sendable, Hashable, CaseIterable {
    /// The value itself.
    case value
    /// Always `FieldValue.serverTimestamp()` (schema §2, updatedAt).
    case serverTimestamp
    /// Moved by `FieldValue.increment` (schema §2, storageBytes).
    case increment
}

/// A field's limits (`Spec/fields.tsv`, column `limit`); nil where none applies.
public struct SchemaFieldLimits: Sendable, Hashable {
    /// Most characters, counted as Unicode scalars (code points; `Spec/pins.tsv` charCount).
    public var maxChars: Int?
    /// Most bytes of a bytes value, or UTF-8 bytes of a string.
    public var maxBytes: Int?
    /// Most elements of an array.
    public var maxItems: Int?
    /// Exact length of a lowercase hex string.
    public var hexLength: Int?
    /// Smallest allowed number.
    public var minimum: Double?
    /// Largest allowed number.
    public var maximum: Double?
    /// The number must be a multiple of this.
    public var step: Double?
    /// The field is null or absent unless the boolean field of this name in the same map is true
    /// (`nullUnless=deleted`: only a tombstone has `deletedAt`, schema §5.4).
    public var nullUnless: String?
    /// The string is the Storage path of the object kind of this name (`Spec/blobs.tsv`,
    /// `storagePath=igc`): the kind's path template with the document's uid, id and fields filled in
    /// (schema §2 Storage objects).
    public var storagePath: String?

    /// Limits as given; a nil limit does not apply.
    public init(
        maxChars: Int? = nil, maxBytes: Int? = nil, maxItems: Int? = nil, hexLength: Int? = nil,
        minimum: Double? = nil, maximum: Double? = nil, step: Double? = nil, nullUnless: String? = nil,
        storagePath: String? = nil
    ) {
        self.maxChars = maxChars
        self.maxBytes = maxBytes
        self.maxItems = maxItems
        self.hexLength = hexLength
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.nullUnless = nullUnless
        self.storagePath = storagePath
    }
}

/// One field of a document or nested map (`Spec/fields.tsv`).
public struct SchemaField: Sendable, Hashable {
    /// The document or map type that holds the field (`FlightDocument`, `FlightSummary`, `CommonFields`).
    public var owner: String
    /// The cloud field name.
    public var name: String
    /// The Firestore type (column `type`: `string`, `enum:Platform`, `array:map:Turnpoint`, …).
    public var type: SchemaFieldType
    /// In every full write of a live document (null when nullable and without a value).
    public var isRequired: Bool
    /// Whether null is a legal value.
    public var isNullable: Bool
    /// What a reader uses when a non-nullable field is absent.
    public var defaultValue: FirestoreValue?
    /// SI unit (`m`, `m/s`, `s`, `bytes`, …) or nil.
    public var unit: String?
    /// The limits (column `limit`); every member nil when none applies.
    public var limits: SchemaFieldLimits
    /// How an encoder writes the field in the write form: the value or a sentinel (Goldens/FORMAT.md).
    public var writeAs: SchemaWriteAs
    /// The Android Room column, or nil.
    public var androidColumn: String?
    /// The iOS Core Data attribute, or nil.
    public var iosAttribute: String?
    /// Since-note (`analysis version 2`), or nil.
    public var since: String?
    /// One line of meaning.
    public var meaning: String
    /// Where the seed says it (`000 §2`).
    public var source: String

    /// A field as its row of `Spec/fields.tsv` gives it; the generated tables call this.
    public init(
        owner: String, name: String, type: SchemaFieldType, isRequired: Bool, isNullable: Bool,
        defaultValue: FirestoreValue? = nil, unit: String? = nil, limits: SchemaFieldLimits = SchemaFieldLimits(),
        writeAs: SchemaWriteAs = .value, androidColumn: String? = nil, iosAttribute: String? = nil,
        since: String? = nil, meaning: String, source: String
    ) {
        self.owner = owner
        self.name = name
        self.type = type
        self.isRequired = isRequired
        self.isNullable = isNullable
        self.defaultValue = defaultValue
        self.unit = unit
        self.limits = limits
        self.writeAs = writeAs
        self.androidColumn = androidColumn
        self.iosAttribute = iosAttribute
        self.since = since
        self.meaning = meaning
        self.source = source
    }

    /// Whether a document in `form` must hold the key: a full write holds every required field
    /// (null when nullable and without a value); a stored document only those a reader cannot do
    /// without — required, not nullable and without a default — since a reader treats an absent
    /// field as null or its default (Goldens/FORMAT.md, "The stored form").
    public func mustBePresent(in form: DocumentForm) -> Bool {
        switch form {
        case .write: isRequired
        case .stored: isRequired && !isNullable && defaultValue == nil
        }
    }
}

/// One enum case: its stable name, what Firestore stores, and the iOS raw value or index.
public struct SchemaEnumCase: Sendable, Hashable {
    /// The stable case id (`waypoints`): the Swift case name where the apps have one.
    public var name: String
    /// What Firestore stores: a string (`"WAYPOINTS"`) or an integer (`1`), one kind per enum.
    public var cloudValue: FirestoreValue
    /// The iOS raw value or index, or nil where iOS has none.
    public var iosValue: Int?

    /// A case as its row of `Spec/enums.tsv` gives it.
    public init(name: String, cloudValue: FirestoreValue, iosValue: Int? = nil) {
        self.name = name
        self.cloudValue = cloudValue
        self.iosValue = iosValue
    }
}

/// An enum of `Spec/enums.tsv`.
public struct SchemaEnum: Sendable, Hashable {
    /// The enum's name (`MapFileType`), referenced as `enum:<name>` by the field and settings tables.
    public var name: String
    /// The cases in table order.
    public var cases: [SchemaEnumCase]

    /// An enum with its cases in table order.
    public init(name: String, cases: [SchemaEnumCase]) {
        self.name = name
        self.cases = cases
    }
}

/// A collection of `Spec/collections.tsv`.
public struct SchemaCollection: Sendable, Hashable {
    /// The collection id (`flights`; `users` for the profile, `settings` for settings/synced).
    public var name: String
    /// The document path template (`users/{uid}/flights/{flightId}`).
    public var pathTemplate: String
    /// The document type (`FlightDocument`).
    public var documentType: String
    /// The id rule's record name in `Spec/ids.tsv`.
    public var idRecord: String
    /// Whether the documents carry the common fields.
    public var hasCommonFields: Bool
    /// Position in a push (1 first), nil when not pushed on its own.
    public var pushOrder: Int?

    /// A collection as its row of `Spec/collections.tsv` gives it.
    public init(
        name: String, pathTemplate: String, documentType: String, idRecord: String, hasCommonFields: Bool,
        pushOrder: Int?
    ) {
        self.name = name
        self.pathTemplate = pathTemplate
        self.documentType = documentType
        self.idRecord = idRecord
        self.hasCommonFields = hasCommonFields
        self.pushOrder = pushOrder
    }
}

/// How an iOS key-value-store key (or keys) maps to a settings key id (`Spec/settings-keys.tsv`).
public enum SchemaIOSKeyMapping: String, Sendable, Hashable, CaseIterable {
    /// The same value.
    case direct
    /// An iOS Int raw value ↔ the enum case with that `iosValue`.
    case enumRawValue
    /// An iOS index into the unit table ↔ the unit id (unknown → the first unit).
    case unitIndex
    /// Three keys (name, latitude, longitude) ↔ one map.
    case homeBaseKeys
    /// Seven keys (Type, Line, R1, A1, R2, A2, A12) ↔ one map.
    case zoneKeys
    /// The one iOS key is read from and written to this key id.
    case showTrackShared
    /// iOS writes the shared key's value here but never reads it back.
    case showTrackWriteOnly

    /// How many iOS keys the mapping takes (nil = at least one).
    public var iosKeyCount: Int? {
        switch self {
        case .direct, .enumRawValue, .unitIndex, .showTrackShared: 1
        case .homeBaseKeys: 3
        case .zoneKeys: 7
        case .showTrackWriteOnly: nil
        }
    }
}

/// One of the settings key ids (`Spec/settings-keys.tsv`).
public struct SchemaSettingsKey: Sendable, Hashable {
    /// The key id (`windSpeedUnit`): stored as `values.<key> = {v, t, d}` (schema §2, settings/synced).
    public var key: String
    /// The type of the entry's `v` (fields-table grammar; `unit:<table>` is a unit id).
    public var type: SchemaFieldType
    /// Whether `v` may be null.
    public var isNullable: Bool
    /// The value on a fresh install; it counts as `t = 0`, so any cloud value wins (schema §5.3).
    public var defaultValue: FirestoreValue
    /// Inclusive numeric range, when the key has one.
    public var range: ClosedRange<Double>?
    /// The unit of a numeric value (SI, e.g. `s`), or nil.
    public var unit: String?
    /// The iOS defaults / iCloud key-value-store keys, in the order ``iosMapping`` reads them.
    public var iosKeys: [String]
    /// How the iOS keys map to this key's value.
    public var iosMapping: SchemaIOSKeyMapping

    /// A key as its row of `Spec/settings-keys.tsv` gives it.
    public init(
        key: String, type: SchemaFieldType, isNullable: Bool, defaultValue: FirestoreValue,
        range: ClosedRange<Double>? = nil, unit: String? = nil, iosKeys: [String], iosMapping: SchemaIOSKeyMapping
    ) {
        self.key = key
        self.type = type
        self.isNullable = isNullable
        self.defaultValue = defaultValue
        self.range = range
        self.unit = unit
        self.iosKeys = iosKeys
        self.iosMapping = iosMapping
    }
}

/// A unit table: unit ids by iOS index (`Spec/units.tsv`); unknown index or id → the first.
public struct SchemaUnitTable: Sendable, Hashable {
    /// The table's name: the settings key id that uses it (`altitudeUnit`), referenced as `unit:<name>`.
    public var name: String
    /// Unit ids in iOS index order.
    public var units: [String]

    /// A table of unit ids in iOS index order; never empty, since unknown indices fall back to the first.
    public init(name: String, units: [String]) {
        self.name = name
        self.units = units
    }

    /// The unit id for an iOS index, falling back to the first unit (schema §2, units); "" for an
    /// empty table (the generator refuses one, so only a hand-built table can be empty).
    public func unit(iosIndex: Int) -> String { units.indices.contains(iosIndex) ? units[iosIndex] : units.first ?? "" }

    /// The iOS index of a unit id, falling back to 0 (schema §2, units).
    public func iosIndex(unit: String) -> Int { units.firstIndex(of: unit) ?? 0 }
}

/// The whole schema: the generated `SyncSchema.vulture` (in VultureSyncSchema) holds every table of `Spec/`.
public struct SyncSchema: Sendable {
    /// The collections (`Spec/collections.tsv`), in table order.
    public let collections: [SchemaCollection]
    /// Every field of every owner (`Spec/fields.tsv`), in table order.
    public let fields: [SchemaField]
    /// The enums (`Spec/enums.tsv`).
    public let enums: [SchemaEnum]
    /// The settings key ids (`Spec/settings-keys.tsv`), in table order.
    public let settingsKeys: [SchemaSettingsKey]
    /// The unit tables (`Spec/units.tsv`).
    public let unitTables: [SchemaUnitTable]
    /// Whether these are the tables generated from `Spec/` (``SyncSchema/vulture``), which the
    /// generated straight-line checks of `VultureSyncSchema` were written from.
    package private(set) var isGeneratedFromSpec = false
    private let fieldsByOwner: [String: [SchemaField]]
    private let documentFieldsByType: [String: [SchemaField]]
    private let enumsByName: [String: SchemaEnum]

    /// A schema from its tables, with lookups by owner, document type and enum name built once
    /// (the first of two same-named entries wins). The generated `SyncSchema.vulture` calls it.
    public init(
        collections: [SchemaCollection], fields: [SchemaField], enums: [SchemaEnum],
        settingsKeys: [SchemaSettingsKey], unitTables: [SchemaUnitTable]
    ) {
        self.collections = collections
        self.fields = fields
        self.enums = enums
        self.settingsKeys = settingsKeys
        self.unitTables = unitTables
        let byOwner = Dictionary(grouping: fields, by: \.owner)
        self.fieldsByOwner = byOwner
        self.documentFieldsByType = Dictionary(
            collections.map { c in
                (
                    c.documentType,
                    (c.hasCommonFields ? byOwner[Self.commonFieldsOwner] ?? [] : []) + (byOwner[c.documentType] ?? [])
                )
            }, uniquingKeysWith: { a, _ in a })
        self.enumsByName = Dictionary(enums.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// These tables marked as the ones generated from `Spec/`; only the generated ``SyncSchema/vulture`` calls it.
    package func markedAsGeneratedFromSpec() -> SyncSchema {
        var schema = self
        schema.isGeneratedFromSpec = true
        return schema
    }

    /// The owner name of the common fields.
    public static let commonFieldsOwner = "CommonFields"

    /// The fields of an owner in table order (without the common fields).
    public func fields(of owner: String) -> [SchemaField] { fieldsByOwner[owner] ?? [] }

    /// A document type's fields: the common fields first when its collection carries them.
    public func documentFields(of documentType: String) -> [SchemaField] {
        documentFieldsByType[documentType] ?? fields(of: documentType)
    }

    /// The collection whose documents are of `documentType` (`FlightDocument`), or nil.
    public func collection(documentType: String) -> SchemaCollection? {
        collections.first { $0.documentType == documentType }
    }

    /// The collection with this id (`flights`), or nil.
    public func collection(named name: String) -> SchemaCollection? { collections.first { $0.name == name } }

    /// The enum with this name (`MapFileType`), or nil.
    public func enumeration(named name: String) -> SchemaEnum? { enumsByName[name] }

    /// The unit table with this name (`altitudeUnit`), or nil.
    public func unitTable(named name: String) -> SchemaUnitTable? { unitTables.first { $0.name == name } }

    /// The settings key with this id (`altitudeUnit`), or nil.
    public func settingsKey(_ key: String) -> SchemaSettingsKey? { settingsKeys.first { $0.key == key } }
}
