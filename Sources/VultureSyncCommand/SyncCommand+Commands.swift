import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// One command's engine, store and output.
struct Context {
    let engine: SyncEngine
    let store: SQLiteLocalStore
    var identity: DeviceIdentity
    let sinks: SyncCommand.Sinks
    let progress: SyncProgress
    let storageLine: String

    func out(_ line: String) { sinks.output(line) }

    mutating func run(_ command: String, _ operands: [String]) throws -> Int32 {
        switch command {
        case "import": try importFlights(operands)
        case "edit": try edit(operands)
        case "open": try open(operands[0])
        case "delete": try delete(operands[0], operands[1])
        case "push", "pull", "sync": return try sync(command)
        case "status": status()
        default: dump()
        }
        return 0
    }

    // MARK: - Local changes

    func importFlights(_ files: [String]) throws {
        // Every file is read and checked first: a bad file stops the command before anything changes.
        // Each bad file is named (the last one as the command's error), so one run lists them all.
        var flights: [(path: String, bytes: Data)] = []
        var refused: [SyncCommandError] = []
        for path in files {
            do { flights.append((path, try IGCImportCheck.read(path))) } catch { refused.append(error) }
        }
        if let last = refused.last {
            for error in refused.dropLast() { sinks.errors("vulture-sync: \(error)") }
            throw last
        }
        progress.importTotal = flights.count
        var added = 0
        for (path, bytes) in flights {
            let filename = URL(fileURLWithPath: path).lastPathComponent
            let id = DocumentIds.flightId(igcBytes: bytes)
            let existed = store.row(.flights, id: id).map { !$0.isTombstone } ?? false
            do {
                try engine.importFlight(igc: bytes, fields: IGCImportCheck.fields(igc: bytes, filename: filename))
            } catch {
                throw SyncCommandError.record("\(path): \(error)")
            }
            if !existed { added += 1 }
            out("\(existed ? "already here" : "imported") flights/\(id) \(filename)")
            progress.importedOne()
        }
        progress.finish()
        out("\(added) imported, \(flights.count - added) already here")
    }

    /// The fields of `collection` a person may set: every top-level field but the common fields
    /// (the engine stamps them) and the blob map (an import makes it).
    static func editableFields(_ collection: SyncCollection) -> [String: SchemaField] {
        let common = Set(SyncSchema.vulture.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
        let blobMaps = Set(
            StorageObjectKind.allCases.filter { $0.recordType == collection.documentType }.map(\.mapField))
        var out: [String: SchemaField] = [:]
        for f in SyncSchema.vulture.fields(of: collection.documentType)
        where !common.contains(f.name) && !blobMaps.contains(f.name) {
            out[f.name] = f
        }
        return out
    }

    /// `FIELD=VALUE` arguments as changes, each value read as canonical typed JSON.
    static func changes(_ assignments: [String], collection: SyncCollection) throws(SyncCommandError) -> [String:
        FirestoreValue]
    {
        let editable = editableFields(collection)
        var changes: [String: FirestoreValue] = [:]
        for argument in assignments {
            guard let eq = argument.firstIndex(of: "="), eq != argument.startIndex else {
                throw .value(
                    argument: argument, pointer: "", rule: InputRule.editShape.rawValue,
                    message: "an edit is FIELD=VALUE")
            }
            let name = String(argument[..<eq])
            let text = String(argument[argument.index(after: eq)...])
            let pointer = "/" + name
            if changes[name] != nil {
                throw .value(
                    argument: argument, pointer: pointer, rule: InputRule.editShape.rawValue,
                    message: "\(name) is given twice; give each field once")
            }
            guard editable[name] != nil else {
                let common = SyncSchema.vulture.fields(of: SyncSchema.commonFieldsOwner).contains { $0.name == name }
                let isField = SyncSchema.vulture.fields(of: collection.documentType).contains { $0.name == name }
                let why =
                    common
                    ? "a common field: the engine sets it on every change (schema §2)"
                    : isField
                        ? "the blob map: an import sets it (schema §2 Storage objects)"
                        : "\(collection.documentType) has no field \(name); one of "
                            + editable.keys.sorted().joined(separator: ", ")
                throw .value(
                    argument: argument, pointer: pointer,
                    rule: common || isField ? InputRule.editEngineField.rawValue : SchemaRule.unknownField.rawValue,
                    message: why)
            }
            let value: FirestoreValue
            do { value = try CanonicalJSON.decode(Array(text.utf8), file: name) } catch let error as SchemaInputError {
                throw .value(
                    argument: argument, pointer: pointer, rule: error.rule.rawValue,
                    message: "\(error.message) — a value is canonical typed JSON: \"text\", 3, 5.0, true, null, "
                        + "{\"$timestamp\": \"2026-10-20T14:03:07.123Z\"}")
            } catch {
                throw .value(argument: argument, pointer: pointer, rule: "json.syntax", message: "\(error)")
            }
            changes[name] = value
        }
        return changes
    }

    func edit(_ operands: [String]) throws {
        let collection = try SyncCommand.collection(operands[0])
        let id = try SyncCommand.recordId(operands[1], in: collection)
        let changes = try Self.changes(Array(operands.dropFirst(2)), collection: collection)
        let existing = store.row(collection, id: id).flatMap { $0.isTombstone ? nil : $0 }
        if existing == nil {
            switch collection {
            case .flights: throw SyncCommandError.record("no flight \(id) here: import its IGC file first")
            case .mapFiles: throw SyncCommandError.record("no map file \(id) here: a map file is made by its import")
            default: break
            }
            let made: String?
            do throws(DocumentIdError) {
                made = try DocumentIds.documentId(
                    collection: collection, fields: changes, inputs: DocumentIdInputs(uid: engine.configuration.uid)
                ).id
            } catch .undetermined(let rule, _) where rule == .taskRandom {
                // A task without an external URL: the id is the writer's choice.
                made = nil
            } catch {
                throw SyncCommandError.value(
                    argument: id, pointer: "", rule: SchemaRule.documentId.rawValue, message: "\(error)")
            }
            if let made, made != id {
                throw SyncCommandError.value(
                    argument: id, pointer: "", rule: SchemaRule.documentId.rawValue,
                    message: "a new \(collection.rawValue) record's id is \(made) by its id rule (schema §4)")
            }
            do { try DocumentIds.validate(documentId: id) } catch {
                throw SyncCommandError.value(
                    argument: id, pointer: "", rule: SchemaRule.documentId.rawValue, message: "\(error)")
            }
        }
        // The record as the engine will write it (a full write: a map value holds every key its
        // schema requires), checked by the schema's validator on the fields edited.
        var fields = existing?.fields ?? [:]
        for (k, v) in changes { fields[k] = v }
        fields["updatedAt"] = .serverTimestamp
        let violations = SchemaValidator(schema: .vulture).validate(
            fields, documentType: collection.documentType, options: ValidationOptions(form: .write, strict: true)
        ).filter { v in
            v.severity == .error
                && changes.keys.contains { v.isAt(field: $0) }
        }
        if let v = violations.first {
            let argument = operands.dropFirst(2).first {
                $0.hasPrefix((FirestoreLimits.slashSegments(String(v.pointer.dropFirst())).first ?? "") + "=")
            }
            throw SyncCommandError.value(
                argument: argument ?? v.pointer, pointer: v.pointer, rule: v.rule, message: v.message)
        }
        do { try engine.save(collection, id: id, changes: changes) } catch {
            throw SyncCommandError.record("\(collection.rawValue)/\(id): \(error)")
        }
        out(
            "\(existing == nil ? "made" : "edited") \(collection.rawValue)/\(id): "
                + changes.keys.sorted().joined(separator: ", "))
    }

    func open(_ id: String) throws {
        let id = try SyncCommand.recordId(id, in: .flights)
        let data: Data?
        do { data = try engine.openFlight(id) } catch {
            throw SyncCommandError.record("flights/\(id): \(error)")
        }
        if let data {
            out("opened flights/\(id): IGC file \(data.count) bytes, SHA-256 checked")
        } else if store.row(.flights, id: id)?.fields["igc"]?.mapValue?["uploaded"] == .boolean(true) {
            out(
                "opened flights/\(id): its IGC file is uploaded, but not in this device's Cloud Storage "
                    + "(give the --storage-emulator and --bucket the uploading device used)")
        } else {
            out(
                "opened flights/\(id): its IGC file is neither here nor uploaded (schema §2: downloaded only when uploaded)"
            )
        }
    }

    func delete(_ collectionName: String, _ id: String) throws {
        let collection = try SyncCommand.collection(collectionName)
        let id = try SyncCommand.recordId(id, in: collection)
        do { try engine.delete(collection, id: id) } catch {
            throw SyncCommandError.record("\(error)")
        }
        out("deleted \(collection.rawValue)/\(id) (a tombstone until the next push)")
    }

    // MARK: - Sync

    mutating func sync(_ command: String) throws -> Int32 {
        let first = engine.events.count
        let outcome: SyncError?
        do {
            switch command {
            case "push":
                try engine.pull()
                try engine.push()
            case "pull": try engine.pull()
            default: try engine.sync()
            }
            outcome = nil
        } catch {
            outcome = error
        }
        progress.finish()
        for line in Self.summary(Array(engine.events[first...])) { out(line) }
        if let outcome {
            sinks.errors("vulture-sync \(command): \(outcome)")
            try identity.recordError("\(command): \(outcome)")
            return 1
        }
        try identity.recordError(nil)
        out("\(command) done")
        return 0
    }

    /// What the engine did, counted: pages and documents pulled, commits and writes, reservations,
    /// uploads, retries, merges, trims — in the order they first happened.
    static func summary(_ events: [SyncEvent]) -> [String] {
        var order: [String] = []
        var counts: [String: (events: Int, amount: Int)] = [:]
        func add(_ key: String, _ amount: Int = 1) {
            if counts[key] == nil { order.append(key) }
            counts[key, default: (0, 0)].events += 1
            counts[key, default: (0, 0)].amount += amount
        }
        var lines: [String] = []
        for e in events {
            switch e {
            case .pulledPage(let c, let n): add("pulled \(c.rawValue)", n)
            case .committed(let c, let writes, _): add("committed \(c.rawValue)", writes)
            case .reserved(let c, _, let delta): add("reserved \(c.rawValue)", Int(delta))
            case .capReached(let c, _): add("cap reached \(c.rawValue)")
            case .uploaded: add("uploaded")
            case .retried: add("retried")
            case .reconciled(let c, _): add("reconciled \(c.rawValue)")
            case .purged(let c, let ids): add("purged \(c.rawValue)", ids.count)
            case .merged(let c, _): add("merged \(c.rawValue)")
            case .fetched, .sent: break  // the pages and commits count them
            case .paused, .trimmed, .malformed: lines.append(e.description)
            }
        }
        let counted = order.compactMap { key -> String? in
            guard let c = counts[key] else { return nil }
            if key.hasPrefix("pulled") { return "\(key): \(c.amount) documents in \(c.events) pages" }
            if key.hasPrefix("committed") { return "\(key): \(c.amount) writes in \(c.events) commits" }
            if key.hasPrefix("reserved") { return "\(key): \(c.events) objects, storageBytes +\(c.amount)" }
            if key.hasPrefix("purged") { return "\(key): \(c.amount) tombstones" }
            return "\(key): \(c.events)"
        }
        return counted + lines
    }

    // MARK: - Looking

    func status() {
        let id = identity
        out(
            "user \(id.uid), device \(id.deviceId) (\(id.platform.rawValue)), state \(store.file.deletingLastPathComponent().path)"
        )
        out(storageLine)
        let header = ["collection", "rows", "live", "tombstones", "dirty", "cursor"]
        var table: [[String]] = [header]
        var totalDirty = 0
        for c in SyncCollection.pushOrder {
            let rows = store.rows(c)
            let tombstones = rows.filter(\.isTombstone).count
            let dirty = rows.filter(\.isDirty).count
            totalDirty += dirty
            table.append([
                c.rawValue, "\(rows.count)", "\(rows.count - tombstones)", "\(tombstones)", "\(dirty)",
                store.state.cursors[c]?.rfc3339 ?? "-",
            ])
        }
        let widths = header.indices.map { k in table.map { $0[k].count }.max() ?? 0 }
        for row in table {
            out(
                row.enumerated().map { k, cell in
                    k == 0 || k == row.count - 1
                        ? cell.padding(toLength: widths[k], withPad: " ", startingAt: 0)
                        : String(repeating: " ", count: widths[k] - cell.count) + cell
                }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
        let storageBytes = store.state.profile?["storageBytes"].flatMap { v -> Int64? in
            if case .integer(let n) = v { return n }
            return nil
        }
        out("profile storageBytes: \(storageBytes.map { "\($0)" } ?? "- (not pulled yet)")")
        out("dirty rows: \(totalDirty)")
        out("objects to upload: \(objectsToUpload())")
        out("last pull: \(store.state.lastPullAt?.rfc3339 ?? "never")")
        if let paused = store.state.pausedUntil { out("paused until: \(paused.rfc3339) (a daily quota error)") }
        out("last error: \(id.lastError ?? "none")")
    }

    /// Live rows whose object a push reserved (`uploaded: false`) and this device holds: a push that
    /// stopped after its reservation left them, and the next push uploads and marks them. Their rows
    /// are not dirty: the reservation is agreed with the server.
    func objectsToUpload() -> Int {
        var count = 0
        for kind in StorageObjectKind.allCases {
            guard let c = SyncCollection.allCases.first(where: { $0.documentType == kind.recordType }) else { continue }
            count +=
                store.rows(
                    c,
                    where: { row in
                        guard !row.isTombstone, case .map(let map)? = row.fields[kind.mapField],
                            map[StorageObjectKind.MapField.uploaded] == .boolean(false),
                            case .string(let path)? = map[StorageObjectKind.MapField.path]
                        else { return false }
                        return store.blob(path) != nil
                    }
                ).count
        }
        return count
    }

    /// Every row as `{"collection", "id", "fields"}` in compact canonical JSON, by collection (push
    /// order) and id: two state directories that agree print the same bytes.
    func dump() {
        for c in SyncCollection.pushOrder {
            for row in store.rows(c) {
                out(
                    CanonicalJSON.compactString(
                        .map(["collection": .string(c.rawValue), "id": .string(row.id), "fields": .map(row.fields)])))
            }
        }
    }
}
