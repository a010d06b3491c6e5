import Foundation
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// Why a `vulture-sync` command stopped before it synced (exit status 2): each names the file, the
/// argument or the field, and the rule it breaks. Nothing in the state directory changes then.
public enum SyncCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file that cannot be read or written: its path and the system's reason.
    case file(path: String, reason: String)
    /// An IGC file refused before import: its path, the line (1-based, 0 for the whole file), and
    /// the rule (`igc.empty`, `igc.a-record`, `igc.no-fix`, `igc.too-large`).
    case igc(path: String, line: Int, rule: String, message: String)
    /// An `edit` argument refused: the argument as given, the JSON pointer of the field, the rule id
    /// (`json.syntax`, `schema.type`, `schema.unknown-field`, `schema.document-id`, …; `edit.shape` for
    /// an argument that is not FIELD=VALUE, `edit.engine-field` for a field the engine or an import
    /// sets) and what is wrong.
    case value(argument: String, pointer: String, rule: String, message: String)
    /// A record that cannot be edited, opened or deleted (unknown collection, no such row, an id
    /// that is not the one its id rule gives).
    case record(String)
    /// A state directory made for another uid, or one this version cannot read.
    case state(path: String, reason: String)

    /// One line: `PATH:LINE: RULE: message`, `ARGUMENT: /pointer: RULE: message`, ….
    public var description: String {
        switch self {
        case .file(let path, let reason): "\(path.shownArgument): \(reason)"
        case .igc(let path, let line, let rule, let message):
            "\(path.shownArgument)\(line > 0 ? ":\(line)" : ""): \(rule): \(message)"
        case .value(let argument, let pointer, let rule, let message):
            "\(argument.shownArgument): \(pointer.isEmpty ? "" : pointer + ": ")\(rule): \(message)"
        case .record(let message): message
        case .state(let path, let reason): "\(path.shownArgument): \(reason)"
        }
    }
}

/// The IGC file checks made before an import (`IGCImportViolation`: the FAI IGC format as the
/// apps read it; schema §2 flights, §4 ids), on a file read from a path.
public enum IGCImportCheck {
    /// Reads and checks the file at `path`.
    /// - Returns: the file's bytes.
    /// - Throws: ``SyncCommandError/file(path:reason:)`` when it cannot be read,
    ///   ``SyncCommandError/igc(path:line:rule:message:)`` when it is no IGC file.
    public static func read(_ path: String) throws(SyncCommandError) -> Data {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .file(path: path, reason: "no such file")
        }
        if isDirectory.boolValue { throw .file(path: path, reason: "a directory, not an IGC file") }
        // The file a symbolic link names. A named pipe, a device or a socket is no file to import
        // (Foundation's reason for one is "You don't have permission").
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
        if let type = attributes?[.type] as? FileAttributeType, type != .typeRegular {
            throw .file(path: path, reason: "\(Self.kind(type)), not a regular IGC file")
        }
        let size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        if size > SchemaLimits.igcImportMaxRawBytes {
            throw .igc(
                path: path, line: 0, rule: InputRule.igcTooLarge.rawValue,
                message: "\(size) bytes, over the import cap of \(SchemaLimits.igcImportMaxRawBytes) bytes (schema §3)")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .file(path: path, reason: systemReason(of: error)) }
        try check(data, path: path)
        return data
    }

    /// What a file that is not a regular file is, for its refusal.
    static func kind(_ type: FileAttributeType) -> String {
        switch type {
        case .typeCharacterSpecial, .typeBlockSpecial: return "a device"
        case .typeSocket: return "a socket"
        default: return "a named pipe or other special file"
        }
    }

    /// Checks bytes already read (`IGCImportViolation.first(in:)`).
    /// - Throws: ``SyncCommandError/igc(path:line:rule:message:)``.
    public static func check(_ data: Data, path: String) throws(SyncCommandError) {
        if let v = IGCImportViolation.first(in: data) {
            throw .igc(path: path, line: v.line, rule: v.rule.rawValue, message: v.message)
        }
    }

    /// The flight fields an import takes from the file (schema §2 flights): `filename`, the header
    /// fields the apps let a pilot edit, and a summary with takeoff, landing and duration from the
    /// first and last fix (analysis version 0: not analysed); the record goes to the logbook.
    public static func fields(igc: Data, filename: String) -> [String: FirestoreValue] {
        let header = IGCHeader(igcBytes: igc)
        func text(_ s: String?) -> FirestoreValue { s.map { .string($0) } ?? .null }
        var summary = FlightSummary(takeoffAt: header.firstFix, landingAt: header.lastFix)
        if let t = header.firstFix, let l = header.lastFix { summary.duration = max(0, l.seconds - t.seconds) }
        return [
            "filename": .string(filename), "inLogbook": .boolean(true),
            "pilotName": text(header.pilotName), "passengerName": text(header.passengerName),
            "gliderType": text(header.gliderType), "gliderRegistration": text(header.gliderRegistration),
            "competitionIdentification": text(header.competitionIdentification),
            "competitionClass": text(header.competitionClass), "summary": summary.firestoreValue(form: .stored),
        ]
    }
}
