import Foundation
import VultureSchemaCore

extension SchemaSpec {
    /// Cross-table checks of an in-memory spec.
    ///
    /// Reports, each at the row concerned: repeated names (collections, fields, enum cases and cloud
    /// values, settings keys, unit indexes and ids, id variants, blobs, merge rules, limits, constants,
    /// pins); unknown types (`map:`, `enum:`, `unit:` naming nothing); owners no document reaches;
    /// limits that do not fit the type; defaults that do not fit the type, enum, unit, nullability or
    /// limits; settings defaults outside the allowed values; iOS key mappings with the wrong key count
    /// or enum without iOS values; unit tables with gaps; id rules and blobs naming unknown records or
    /// fields; merge rules naming fields that do not exist or of the wrong type; limits whose field or
    /// blob carries another number.
    /// - Returns: every problem found, in table order; empty for a clean spec.
    public func validate() -> [SpecError] { validate(leftOutFields: []) }

    /// ``validate()`` after a read that left out the fields.tsv rows `leftOutFields` (`Owner.field`)
    /// for problems already reported: a reference to one of them is not reported again as a field
    /// that does not exist.
    func validate(leftOutFields: Set<String>) -> [SpecError] {
        var errors: [SpecError] = []
        validateCollections(&errors)
        validateFields(&errors)
        validateEnums(&errors)
        validateSettingsKeys(&errors)
        validateUnits(&errors)
        validateIdRules(&errors)
        validateBlobs(&errors, leftOutFields: leftOutFields)
        validateMergeRules(&errors, leftOutFields: leftOutFields)
        validateSyncRules(&errors)
        validateLimits(&errors, leftOutFields: leftOutFields)
        checkUnique(constants.map { ($0.name, $0.location) }, what: "constant", into: &errors)
        checkUnique(pins.map { ($0.name, $0.location) }, what: "pin", into: &errors)
        validateRules(&errors)
        validateOperations(&errors)
        return errors
    }

    /// Rule ids: unique, dotted lower case; each Swift case named once.
    private func validateRules(_ errors: inout [SpecError]) {
        checkUnique(rules.map { ($0.id, $0.location) }, what: "rule id", into: &errors)
        checkUnique(
            rules.flatMap { r in r.swiftCases.map { ("\($0.enumName).\($0.caseName)", r.location) } },
            what: "swift case", into: &errors)
        for rule in rules {
            let segments = rule.id.split(separator: ".", omittingEmptySubsequences: false)
            let wellFormed =
                segments.count >= 2
                && segments.allSatisfy { s in
                    !s.isEmpty
                        && s.unicodeScalars.allSatisfy {
                            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                        }
                }
            if !wellFormed {
                errors.append(rule.location.error("rule id '\(rule.id)' must be dotted lower-case words (json.syntax)"))
            }
            if Set(rule.swiftCases.map(\.enumName)).count != rule.swiftCases.count {
                errors.append(rule.location.error("rule \(rule.id) names one enum twice"))
            }
        }
    }

    /// Operations: unique names; areas dotted; shapes naming only shapes that make sense where they
    /// stand; errors naming rules of rules.tsv.
    private func validateOperations(_ errors: inout [SpecError]) {
        checkUnique(operations.map { ($0.op, $0.location) }, what: "operation", into: &errors)
        for op in operations {
            let area = op.area.replacingOccurrences(of: "{collection}", with: "c")
            if area.isEmpty || area.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
                errors.append(op.location.error("area '\(op.area)' must be dotted words"))
            }
            let inputNames = Set(op.input.namesUsed)
            let needsCollection = inputNames.intersection(["fixture", "mergeFixture", "document", "storedDocument"])
            if !needsCollection.isEmpty || op.area.contains("{collection}") {
                guard case .map(let members, _, _) = op.input, members.contains(where: { $0.name == "collection" })
                else {
                    errors.append(
                        op.location.error("op \(op.op): a collection-dependent input needs a collection member"))
                    continue
                }
            }
            if inputNames.contains("document"),
                case .map(let members, _, _) = op.input, !members.contains(where: { $0.name == "form" })
            {
                errors.append(op.location.error("op \(op.op): an input document needs a form member"))
            }
            for pattern in op.errors where rules(matching: pattern).isEmpty {
                errors.append(op.location.error("op \(op.op): error '\(pattern)' matches no rule of rules.tsv"))
            }
        }
    }

    // MARK: Helpers

    private func checkUnique(_ items: [(String, SpecLocation)], what: String, into errors: inout [SpecError]) {
        var first: [String: SpecLocation] = [:]
        for (name, location) in items {
            if let earlier = first[name] {
                errors.append(location.error("duplicate \(what) \(name) (first at \(earlier))"))
            } else {
                first[name] = location
            }
        }
    }

    /// Owners a field type may reference: document types, `CommonFields` and map owners of fields.tsv.
    private var knownOwners: Set<String> {
        Set(fields.map(\.owner)).union(collections.map(\.documentType))
    }

    /// Problems with the names a type references.
    private func referenceProblems(_ type: SchemaFieldType) -> [String] {
        type.references.compactMap { reference in
            switch reference {
            case .enumeration(let name) where enumeration(named: name) == nil:
                "unknown type '\(type)': no enum \(name) in enums.tsv"
            case .unit(let name) where unitTable(named: name) == nil:
                "unknown type '\(type)': no unit table \(name) in units.tsv"
            case .map(let name) where !fields.contains(where: { $0.owner == name }):
                "unknown type '\(type)': no fields with owner \(name) in fields.tsv"
            default: nil
            }
        }
    }

    // MARK: Tables

    private func validateCollections(_ errors: inout [SpecError]) {
        checkUnique(collections.map { ($0.name, $0.location) }, what: "collection", into: &errors)
        checkUnique(collections.map { ($0.documentType, $0.location) }, what: "document type", into: &errors)
        checkUnique(
            collections.compactMap { c in c.pushOrder.map { (String($0), c.location) } }, what: "push order",
            into: &errors)
        for collection in collections {
            if fields(of: collection.documentType).isEmpty {
                errors.append(
                    collection.location.error("document type \(collection.documentType) has no fields in fields.tsv"))
            }
            if idRules(of: collection.idRecord).isEmpty {
                errors.append(collection.location.error("id rule \(collection.idRecord) has no rows in ids.tsv"))
            }
            let segments = collection.pathTemplate.split(separator: "/", omittingEmptySubsequences: false)
            // users/{uid} itself, or users/{uid}/COLLECTION/{id} (the generated path builders rely on it).
            let isProfile = segments.count == 2 && collection.name == "users"
            let isChild = segments.count == 4 && segments[2] == collection.name && !segments[3].isEmpty
            if segments.first != "users" || segments.count < 2 || segments[1] != "{uid}" || !(isProfile || isChild) {
                errors.append(
                    collection.location.error(
                        "path '\(collection.pathTemplate)' must be users/{uid} (collection users) or "
                            + "users/{uid}/\(collection.name)/{ID}"))
            }
            if collection.hasCommonFields {
                let common = fields(of: Self.commonFieldsOwner)
                if common.isEmpty {
                    errors.append(
                        collection.location.error(
                            "commonFields is yes but fields.tsv has no \(Self.commonFieldsOwner) rows"))
                }
                for field in fields(of: collection.documentType) where common.contains(where: { $0.name == field.name })
                {
                    errors.append(
                        field.location.error(
                            "field \(field.owner).\(field.name) repeats a common field of the same name"))
                }
            }
        }
    }

    private func validateFields(_ errors: inout [SpecError]) {
        checkUnique(fields.map { ("\($0.owner).\($0.name)", $0.location) }, what: "field", into: &errors)
        // Every owner must be reachable from a document type, CommonFields or a settings key's type.
        var reachable: Set<String> = Set(collections.map(\.documentType)).union([Self.commonFieldsOwner])
        for key in settingsKeys {
            for case .map(let owner) in key.type.references { reachable.insert(owner) }
        }
        var frontier = Array(reachable)
        while let owner = frontier.popLast() {
            for field in fields(of: owner) {
                for case .map(let nested) in field.type.references where !reachable.contains(nested) {
                    reachable.insert(nested)
                    frontier.append(nested)
                }
            }
        }
        for field in fields {
            if let problem = Self.fieldNameProblem(field.name) {
                errors.append(field.location.error("field name \"\(field.name)\" of \(field.owner): \(problem)"))
            }
        }
        var reportedOwners: Set<String> = []
        for field in fields {
            if !reachable.contains(field.owner), reportedOwners.insert(field.owner).inserted {
                errors.append(
                    field.location.error(
                        "owner \(field.owner) is neither a document type of collections.tsv nor a map type any field or settings key references"
                    ))
            }
            let typeProblems = referenceProblems(field.type)
            errors += typeProblems.map { field.location.error("\($0) (field \(field.owner).\(field.name))") }
            for limit in field.limits where !limitFits(limit, field.type) {
                errors.append(
                    field.location.error(
                        "limit \(limit) does not apply to type \(field.type) (field \(field.owner).\(field.name))"))
            }
            for case .nullUnless(let flag) in field.limits {
                let sibling = fields.first { $0.owner == field.owner && $0.name == flag }
                if sibling?.type != .boolean {
                    errors.append(
                        field.location.error(
                            "limit nullUnless=\(flag) names no boolean field \(field.owner).\(flag) (field \(field.owner).\(field.name))"
                        ))
                }
                if !field.isNullable {
                    errors.append(
                        field.location.error(
                            "limit nullUnless=\(flag) on a field that is not nullable (\(field.owner).\(field.name))"))
                }
            }
            for case .storagePath(let name) in field.limits {
                // The blob must exist, and the field must sit in the blob map of its record.
                guard let blob = blobs.first(where: { $0.name == name }) else {
                    errors.append(
                        field.location.error(
                            "limit storagePath=\(name) names no blob of blobs.tsv (field \(field.owner).\(field.name))")
                    )
                    continue
                }
                let mapField = fields.first { $0.owner == blob.record && $0.name == blob.mapField }
                if mapField?.type != .map(field.owner) {
                    errors.append(
                        field.location.error(
                            "limit storagePath=\(name): blob \(name)'s map \(blob.record).\(blob.mapField) is not of type "
                                + "map:\(field.owner) (field \(field.owner).\(field.name))"))
                }
            }
            if field.writeAs == .serverTimestamp && field.type != .timestamp {
                errors.append(
                    field.location.error(
                        "writeAs serverTimestamp needs type timestamp (field \(field.owner).\(field.name))"))
            }
            if field.writeAs == .increment && field.type != .integer && field.type != .double {
                errors.append(
                    field.location.error("writeAs increment needs a number type (field \(field.owner).\(field.name))"))
            }
            if field.unit != nil && ![SchemaFieldType.integer, .double].contains(field.type) {
                errors.append(
                    field.location.error(
                        "unit \(field.unit!.rawValue) on a non-numeric field \(field.owner).\(field.name)"))
            }
            if let value = field.defaultValue, typeProblems.isEmpty {
                for problem in problems(
                    value, type: field.type, nullable: field.isNullable, limits: field.limits, depth: 0)
                {
                    errors.append(field.location.error("default \(value) of \(field.owner).\(field.name): \(problem)"))
                }
            }
        }
    }

    private func limitFits(_ limit: FieldLimit, _ type: SchemaFieldType) -> Bool {
        switch limit {
        case .maxChars, .hexLength: type == .string
        case .maxBytes: type == .bytes
        case .maxItems: { if case .array = type { true } else { false } }()
        case .minimum, .maximum, .step: type == .integer || type == .double
        case .nullUnless: true
        case .storagePath: type == .string
        }
    }

    private func validateEnums(_ errors: inout [SpecError]) {
        checkUnique(enums.map { ($0.name, $0.location) }, what: "enum", into: &errors)
        for enumeration in enums {
            checkUnique(
                enumeration.cases.map { ($0.name, $0.location) }, what: "case of enum \(enumeration.name):",
                into: &errors)
            checkUnique(
                enumeration.cases.map { ($0.cloudValue.description, $0.location) },
                what: "cloud value of enum \(enumeration.name):", into: &errors)
            checkUnique(
                enumeration.cases.compactMap { c in c.iosValue.map { (String($0), c.location) } },
                what: "iOS value of enum \(enumeration.name):", into: &errors)
        }
    }

    private func validateSettingsKeys(_ errors: inout [SpecError]) {
        checkUnique(settingsKeys.map { ($0.key, $0.location) }, what: "settings key", into: &errors)
        for key in settingsKeys {
            let location = key.location
            let typeProblems = referenceProblems(key.type)
            errors += typeProblems.map { location.error("\($0) (settings key \(key.key))") }
            if case .ofType(let allowedType) = key.allowed, allowedType != key.type {
                errors.append(
                    location.error(
                        "allowed '\(allowedType)' of settings key \(key.key) must be - , a range or its own type \(key.type)"
                    ))
            }
            if case .range = key.allowed, key.type != .integer, key.type != .double {
                errors.append(
                    location.error("a range needs an integer or double settings key (\(key.key) is \(key.type))"))
            }
            if typeProblems.isEmpty {
                for problem in problems(
                    key.defaultValue, type: key.type, nullable: key.isNullable, limits: [], depth: 0)
                {
                    errors.append(location.error("default \(key.defaultValue) of settings key \(key.key): \(problem)"))
                }
            }
            if case .range(let lower, let upper) = key.allowed, let number = key.defaultValue.numericValue,
                !(lower...upper).contains(number)
            {
                errors.append(
                    location.error(
                        "default \(key.defaultValue) of settings key \(key.key) is outside the allowed range \(key.allowed)"
                    ))
            }
            if let count = key.iosMapping.iosKeyCount, key.iosKeys.count != count {
                errors.append(
                    location.error(
                        "iosMapping \(key.iosMapping.rawValue) takes \(count) iOS key(s), settings key \(key.key) lists \(key.iosKeys.count)"
                    ))
            }
            if key.iosKeys.isEmpty {
                errors.append(location.error("settings key \(key.key) lists no iOS key"))
            }
            switch key.iosMapping {
            case .unitIndex:
                if case .unit = key.type {
                } else {
                    errors.append(location.error("iosMapping unitIndex needs a unit: type (settings key \(key.key))"))
                }
            case .enumRawValue:
                if case .enumeration(let name) = key.type, let enumeration = enumeration(named: name) {
                    for enumCase in enumeration.cases where enumCase.iosValue == nil {
                        errors.append(
                            location.error(
                                "iosMapping enumRawValue needs an iosValue for case \(name).\(enumCase.name) (settings key \(key.key))"
                            ))
                    }
                } else if case .enumeration = key.type {
                } else {
                    errors.append(
                        location.error("iosMapping enumRawValue needs an enum: type (settings key \(key.key))"))
                }
            case .homeBaseKeys, .zoneKeys:
                if case .map = key.type {
                } else {
                    errors.append(
                        location.error(
                            "iosMapping \(key.iosMapping.rawValue) needs a map: type (settings key \(key.key))"))
                }
            case .showTrackShared, .showTrackWriteOnly:
                if key.type != .boolean {
                    errors.append(
                        location.error(
                            "iosMapping \(key.iosMapping.rawValue) needs a boolean (settings key \(key.key))"))
                }
            case .direct: break
            }
        }
        let sharedKeys = settingsKeys.filter { $0.iosMapping == .showTrackShared }
        for writeOnly in settingsKeys where writeOnly.iosMapping == .showTrackWriteOnly {
            if !sharedKeys.contains(where: { writeOnly.iosKeys.first == $0.iosKeys.first }) {
                errors.append(
                    writeOnly.location.error(
                        "showTrackWriteOnly key \(writeOnly.key) must start with the iOS key of a showTrackShared key"))
            }
        }
    }

    private func validateUnits(_ errors: inout [SpecError]) {
        checkUnique(unitTables.map { ($0.name, $0.location) }, what: "unit table", into: &errors)
        for table in unitTables {
            checkUnique(
                table.units.map { (String($0.index), $0.location) }, what: "index in unit table \(table.name):",
                into: &errors)
            checkUnique(
                table.units.map { ($0.id, $0.location) }, what: "unit id in unit table \(table.name):", into: &errors)
            for (position, unit) in table.units.enumerated() where unit.index != position {
                errors.append(
                    unit.location.error(
                        "unit table \(table.name): index \(unit.index) out of order; indexes run 0, 1, 2 … in table order"
                    ))
                break
            }
            if !settingsKeys.contains(where: { $0.type == .unit(table.name) }) {
                errors.append(table.location.error("unit table \(table.name) is used by no settings key"))
            }
        }
    }

    private static let externalIdInputs: Set<String> = ["igcFileBytes", "uid", "competitionId"]

    /// The inputs of an object key rule (`contentHash`): the content as bytes, or as the iOS string.
    private static let objectKeyInputs: Set<String> = ["contentBytes", "content"]

    /// Whether `record` is a field that keys a Storage object: a `{placeholder}` of a blobs.tsv path
    /// naming a field of the blob's record (`contentHash`).
    func isObjectKey(_ record: String) -> Bool {
        blobs.contains { blob in
            blob.pathTemplate.contains("{\(record)}")
                && fields.contains { $0.owner == blob.record && $0.name == record }
        }
    }

    private func validateIdRules(_ errors: inout [SpecError]) {
        checkUnique(idRules.map { ("\($0.record) \($0.variant)", $0.location) }, what: "id rule", into: &errors)
        for rule in idRules {
            if isObjectKey(rule.record) {
                for name in rule.placeholders where !Self.objectKeyInputs.contains(name) {
                    errors.append(
                        rule.location.error(
                            "input placeholder {\(name)} of the object key \(rule.record) is none of "
                                + Self.objectKeyInputs.sorted().joined(separator: ", ")))
                }
                continue
            }
            guard let collection = collections.first(where: { $0.idRecord == rule.record }) else {
                errors.append(
                    rule.location.error(
                        "id rule record \(rule.record) is used by no collection and keys no Storage object"))
                continue
            }
            if rule.algorithm != .randomUUID && rule.input == nil {
                errors.append(
                    rule.location.error(
                        "id rule \(rule.record) \(rule.variant): algorithm \(rule.algorithm.rawValue) needs an input"))
            }
            for name in rule.placeholders where !Self.externalIdInputs.contains(name) {
                if field(at: name, in: collection.documentType) == nil {
                    errors.append(
                        rule.location.error("id input placeholder {\(name)} is no field of \(collection.documentType)"))
                }
            }
        }
    }

    private func validateBlobs(_ errors: inout [SpecError], leftOutFields: Set<String>) {
        checkUnique(blobs.map { ($0.name, $0.location) }, what: "blob", into: &errors)
        for blob in blobs {
            guard collection(documentType: blob.record) != nil else {
                errors.append(blob.location.error("blob record \(blob.record) is no document type of collections.tsv"))
                continue
            }
            guard let field = field(at: blob.mapField, in: blob.record) else {
                if leftOutFields.contains("\(blob.record).\(blob.mapField)") { continue }
                errors.append(blob.location.error("blob map field \(blob.record).\(blob.mapField) does not exist"))
                continue
            }
            if case .map = field.type {
            } else {
                errors.append(
                    blob.location.error("blob map field \(blob.record).\(blob.mapField) is \(field.type), not a map"))
            }
        }
    }

    private func validateMergeRules(_ errors: inout [SpecError], leftOutFields: Set<String>) {
        checkUnique(
            mergeRules.map { ("\($0.document ?? "*") \($0.fieldPath ?? "*")", $0.location) }, what: "merge rule for",
            into: &errors)
        let documentTypes = collections.map(\.documentType)
        for rule in mergeRules {
            if let document = rule.document, !documentTypes.contains(document) {
                errors.append(
                    rule.location.error(
                        "merge rule names document \(document), which is no document type of collections.tsv"))
                continue
            }
            guard let path = rule.fieldPath else { continue }
            let owners = rule.document.map { [$0] } ?? documentTypes
            let resolved = owners.compactMap { field(at: path, in: $0) }
            guard let target = resolved.first else {
                // A left-out row of that name (the path's last segment) was reported already.
                let name = "." + (path.split(separator: ".").last.map(String.init) ?? path)
                if leftOutFields.contains(where: { $0.hasSuffix(name) }) { continue }
                errors.append(
                    rule.location.error(
                        "merge rule names field '\(rule.document ?? "*").\(path)' that does not exist in fields.tsv"))
                continue
            }
            let fitting: Bool
            switch rule.rule {
            case .logicalOr, .tombstoneWins: fitting = target.type == .boolean
            case .earliestNonNull, .latestClearTravels, .latestNonNull: fitting = target.type == .timestamp
            case .higherAnalysisVersion, .blobMapNeverDropped:
                fitting = { if case .map = target.type { true } else { false } }()
            case .emptyAsNull: fitting = target.type == .string && target.isNullable
            case .largerEntryTime: fitting = { if case .dictionary = target.type { true } else { false } }()
            case .trackPreviewRank, .deferredUntilTaskArrives, .threeWayLatestClientUpdatedAt: fitting = true
            }
            if !fitting {
                errors.append(
                    rule.location.error(
                        "merge rule \(rule.rule.rawValue) does not fit field '\(path)' of type \(target.type)\(target.isNullable ? " (nullable)" : "")"
                    ))
            }
        }
    }

    private func validateLimits(_ errors: inout [SpecError], leftOutFields: Set<String>) {
        checkUnique(limits.map { ($0.name, $0.location) }, what: "limit", into: &errors)
        for limit in limits {
            for target in limit.appliesTo {
                switch target {
                case .field(let owner, let name):
                    guard let field = fields.first(where: { $0.owner == owner && $0.name == name }) else {
                        if leftOutFields.contains("\(owner).\(name)") { continue }
                        errors.append(
                            limit.location.error("limit \(limit.name) applies to field \(target), which does not exist")
                        )
                        continue
                    }
                    if !field.limits.contains(where: { $0.bound == Double(limit.value) }) {
                        errors.append(
                            limit.location.error(
                                "limit \(limit.name) = \(limit.value), but field \(target) carries \(field.limits.isEmpty ? "no limit" : field.limits.map(\.description).joined(separator: ","))"
                            ))
                    }
                case .blob(let name):
                    guard let blob = blobs.first(where: { $0.name == name }) else {
                        errors.append(
                            limit.location.error("limit \(limit.name) applies to blob \(name), which does not exist"))
                        continue
                    }
                    if Int64(blob.maxObjectBytes) != limit.value && blob.maxRawBytes.map(Int64.init) != limit.value {
                        errors.append(
                            limit.location.error(
                                "limit \(limit.name) = \(limit.value), but blob \(name) has maxObjectBytes \(blob.maxObjectBytes) and maxRawBytes \(blob.maxRawBytes.map(String.init) ?? "-")"
                            ))
                    }
                }
            }
        }
    }

    // MARK: Values

    /// Problems of `value` as a value of `type`; empty when it fits.
    func problems(_ value: FirestoreValue, type: SchemaFieldType, nullable: Bool, limits: [FieldLimit], depth: Int)
        -> [String]
    {
        guard depth < 32 else { return ["nested too deep"] }
        if value == .null { return nullable ? [] : ["null where the value is not nullable"] }
        var result: [String] = []
        func mismatch() -> [String] { ["\(value) is not a value of type \(type)"] }
        switch type {
        case .settingValue:
            return []
        case .boolean:
            guard case .boolean = value else { return mismatch() }
        case .integer, .double:
            if type == .integer, case .integer = value {
            } else if type == .double, case .double = value {
            } else {
                return type == .double && value.numericValue != nil
                    ? ["\(value) is an integer literal; a double is written with a fraction (\(value).0)"] : mismatch()
            }
            let number = value.numericValue!
            for limit in limits {
                switch limit {
                case .minimum(let bound) where number < bound: result.append("\(value) is below the minimum \(bound)")
                case .maximum(let bound) where number > bound: result.append("\(value) is above the maximum \(bound)")
                case .step(let step) where (number / step).rounded() != number / step:
                    result.append("\(value) is not a multiple of the step \(step)")
                default: break
                }
            }
        case .string, .dateString:
            guard case .string(let text) = value else { return mismatch() }
            if type == .dateString, !Self.isCalendarDay(text) { result.append("\(value) is not a yyyy-MM-dd day") }
            for limit in limits {
                switch limit {
                case .maxChars(let count) where text.unicodeScalars.count > count:
                    result.append("longer than \(count) characters")
                case .hexLength(let count)
                where text.utf8.count != count
                    || !text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }):
                    result.append("\(value) is not \(count) lowercase hex digits")
                default: break
                }
            }
        case .timestamp, .bytes:
            return ["type \(type) has no literal form in Spec/ (leave the default as -)"]
        case .enumeration(let name):
            guard let enumeration = enumeration(named: name) else { return ["no enum \(name)"] }
            if enumeration.enumCase(cloudValue: value) == nil {
                let values = enumeration.cases.map(\.cloudValue.description).joined(separator: ", ")
                return ["\(value) is not a value of enum \(name) (\(values))"]
            }
        case .unit(let name):
            guard let table = unitTable(named: name) else { return ["no unit table \(name)"] }
            guard case .string(let id) = value, table.units.contains(where: { $0.id == id }) else {
                return ["\(value) is not a unit of table \(name) (\(table.units.map(\.id).joined(separator: ", ")))"]
            }
        case .array(let element):
            guard case .array(let elements) = value else { return mismatch() }
            for case .maxItems(let count) in limits where elements.count > count {
                result.append("more than \(count) items")
            }
            for (index, item) in elements.enumerated() {
                result += problems(item, type: element, nullable: false, limits: [], depth: depth + 1).map {
                    "[\(index)]: \($0)"
                }
            }
        case .dictionary(let element):
            guard case .map(let members) = value else { return mismatch() }
            for member in members.sorted(by: { CanonicalJSONWriter.utf16Precedes($0.key, $1.key) }) {
                result += problems(member.value, type: element, nullable: false, limits: [], depth: depth + 1).map {
                    "\(member.key): \($0)"
                }
            }
        case .map(let owner):
            guard case .map(let members) = value else { return mismatch() }
            let ownerFields = allFields(of: owner)
            for member in members.sorted(by: { CanonicalJSONWriter.utf16Precedes($0.key, $1.key) }) {
                guard let field = ownerFields.first(where: { $0.name == member.key }) else {
                    result.append("key \"\(member.key)\" is no field of \(owner)")
                    continue
                }
                result += problems(
                    member.value, type: field.type, nullable: field.isNullable, limits: field.limits, depth: depth + 1
                )
                .map { "\(member.key): \($0)" }
            }
            for field in ownerFields
            where field.presence == .required && members[field.name] == nil {
                result.append("missing key \"\(field.name)\" of \(owner)")
            }
        }
        return result
    }

    /// Whether `text` is a real calendar day written `yyyy-MM-dd`.
    static func isCalendarDay(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), year >= 1
        else { return false }
        let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }
}

extension SchemaSpec {
    /// Swift keywords a generated property cannot be named without backquotes.
    static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any",
        "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "Type",
    ]

    /// Why a cloud field name cannot be a field of the schema, or nil: it must be an identifier
    /// (`[A-Za-z][A-Za-z0-9_]*`, which Firestore field paths take without quoting and Swift
    /// takes as a property), not a Swift keyword, not `unknownFields` (the generated types' own
    /// property), and not Firestore's reserved `__.*__`.
    static func fieldNameProblem(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first),
            name.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
            })
        else { return "a field name is a letter followed by letters, digits and _" }
        if name.hasPrefix("__") && name.hasSuffix("__") { return "Firestore reserves __.*__" }
        if swiftKeywords.contains(name) { return "a Swift keyword cannot be a generated property" }
        if name == "unknownFields" { return "the generated types use unknownFields themselves" }
        return nil
    }
}
