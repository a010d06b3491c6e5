import Foundation
import VultureSchemaCore

/// Why bytes are no IGC file a flight can be imported from (the FAI IGC format as the apps read it;
/// schema §2 flights, §3 limits): more than `SchemaLimits.igcImportMaxRawBytes`, no record at all, a
/// first record that is not the `A` record (the logger), or no `B` fix with a valid time. A file
/// that passes is imported byte for byte: its flight id is the SHA-256 of exactly these bytes.
public struct IGCImportViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the fault; 0 for the whole file.
    public var line: Int
    /// `igc.too-large`, `igc.empty`, `igc.a-record` or `igc.no-fix`.
    public var rule: InputRule
    /// What is wrong, in plain English.
    public var message: String

    /// A violation at `line` (0: the whole file).
    public init(line: Int, rule: InputRule, message: String) {
        self.line = line
        self.rule = rule
        self.message = message
    }

    /// `line N: RULE: message`, or `RULE: message` for the whole file.
    public var description: String { "\(line > 0 ? "line \(line): " : "")\(rule.rawValue): \(message)" }

    /// The first fault of `data` as an IGC file to import, in the order the type lists them; nil
    /// for a file that can be imported.
    public static func first(in data: Data) -> IGCImportViolation? {
        if data.count > SchemaLimits.igcImportMaxRawBytes {
            return IGCImportViolation(
                line: 0, rule: .igcTooLarge,
                message: "\(data.count) bytes, over the import cap of \(SchemaLimits.igcImportMaxRawBytes) bytes")
        }
        var lineNumber = 0
        var firstRecord: (line: Int, byte: UInt8)?
        var hasFix = false
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let record = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
            guard let first = record.first else { continue }
            if firstRecord == nil { firstRecord = (lineNumber, first) }
            if first == UInt8(ascii: "B"), IGCHeader(igcBytes: Data(record)).fixCount > 0 {
                hasFix = true
                break
            }
        }
        guard let firstRecord else {
            return IGCImportViolation(line: 0, rule: .igcEmpty, message: "an empty file is no IGC file")
        }
        guard firstRecord.byte == UInt8(ascii: "A") else {
            return IGCImportViolation(
                line: firstRecord.line, rule: .igcARecord,
                message: "an IGC file starts with its A record (the logger's manufacturer and id)")
        }
        guard hasFix else {
            return IGCImportViolation(
                line: 0, rule: .igcNoFix,
                message: "no B record with a valid time (BHHMMSS…): a flight has at least one fix")
        }
        return nil
    }
}
