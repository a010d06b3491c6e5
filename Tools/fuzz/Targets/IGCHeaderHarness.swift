import Foundation
import VultureSchemaCore
import VultureSyncCommand
import VultureSyncSchema

/// igc-header: the header reader never fails and gives a consistent header; `vulture-sync import`'s
/// check gives a typed error with its rule and line, or passes a file with a fix, whose flight fields
/// are values canonical typed JSON writes and reads back.
enum IGCHeaderHarness {
    static let rules: Set<String> = [
        InputRule.igcEmpty.rawValue, InputRule.igcARecord.rawValue, InputRule.igcNoFix.rawValue,
        InputRule.igcTooLarge.rawValue,
    ]

    static func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let data = Data(buffer: input)
        let header = IGCHeader(igcBytes: data)
        try require(header.fixCount >= 0, "negative fix count")
        try require((header.firstFix == nil) == (header.lastFix == nil), "a first fix without a last one: \(header)")
        if let first = header.firstFix, let last = header.lastFix {
            try require(first <= last, "the first fix \(first) is after the last \(last)")
            try require(header.dateDays != nil && header.fixCount > 0, "fix times without a date or a fix: \(header)")
        }
        for name in [
            header.pilotName, header.passengerName, header.gliderType, header.gliderRegistration,
            header.competitionIdentification, header.competitionClass,
        ] {
            if let name {
                try require(
                    !name.isEmpty && name.uppercased() != "NIL" && name == name.trimmingCharacters(in: .whitespaces),
                    "a header value kept as given: \"\(name)\"")
            }
        }

        do throws(SyncCommandError) {
            try IGCImportCheck.check(data, path: "fuzz.igc")
        } catch {
            guard case .igc(let path, let line, let rule, _) = error else {
                throw FuzzViolation("IGCImportCheck.check threw \(error), not an igc.* error")
            }
            try require(path == "fuzz.igc" && line >= 0 && rules.contains(rule), "IGCImportCheck.check: \(error)")
            return
        }
        try require(header.fixCount > 0, "IGCImportCheck.check passed a file without a fix")
        let fields = IGCImportCheck.fields(igc: data, filename: "fuzz.igc")
        let value = FirestoreValue.map(fields)
        let again = ReadOutcome { try CanonicalJSON.decode(CanonicalJSON.encode(value), form: .stored) }
        try require(again == .value(value), "the flight fields \(value) read back as \(again.shown)")
    }
}
