import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// What a failure report says besides the differences, so that a failure explains itself
/// (Goldens/protocol/README.md, Failure reports): the exact text an id hashes, the expected rejection's
/// meaning, the case's note, the pins it rests on, and its input cut to a readable length. Invisible
/// characters are escaped wherever text is shown.
public enum FailureExplanation {
    /// The longest input shown in a report line, in characters; the JSON report has the whole input.
    public static let maximumInputCharacters = 300

    /// The lines that follow a failed case's `FAIL` line and its differences, two-space indented.
    public static func lines(for result: CaseResult) -> [String] {
        guard let c = result.testCase else { return [] }
        var out: [String] = []
        var pathDiffers = false
        if case .failed(_, let differences) = result.outcome {
            pathDiffers = differences.contains { $0.pointer == "/path" }
        }
        if c.op.hasPrefix("id.") || pathDiffers, let hashed = hashedText(op: c.op, input: c.input) {
            out.append("  the reference hashed \(hashed)")
        }
        if case .error(let code) = c.expected, let entry = RuleRegistry.entry(code) {
            out.append("  expected rejection \(code): \(entry.meaning)")
        }
        if case .error(let code, _)? = result.answer, RuleRegistry.entry(code) == nil {
            out.append("  \(code) is no rule id or error code of the registry (Goldens/protocol/README.md)")
        }
        if let note = c.note { out.append("  note: \(note)") }
        for name in c.pins {
            guard let pin = SchemaPin(rawValue: name) else { continue }
            out.append("  rests on pin \(name) (\(pin.kind.rawValue)): \(cut(pin.choice, to: 240))")
        }
        out.append("  input: \(shownInput(c.input))")
        return out
    }

    /// The input as one line of canonical JSON, invisible characters escaped, cut after
    /// ``maximumInputCharacters`` characters.
    public static func shownInput(_ input: FirestoreValue) -> String {
        let text = escapeInvisible(CanonicalJSON.compactString(input))
        let count = text.unicodeScalars.count
        guard count > maximumInputCharacters else { return text }
        return cut(text, to: maximumInputCharacters) + " (\(count) characters; the JSON report has all of it)"
    }

    package static func cut(_ text: String, to limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit))) + "…"
    }

    /// Whether a scalar is hard or impossible to see: controls, format characters (U+200B, U+FEFF), spaces
    /// other than U+0020, line and paragraph separators, combining marks, private use, unassigned code points
    /// and noncharacters.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == " " { return false }
        if scalar.properties.isNoncharacterCodePoint { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .nonspacingMark,
            .enclosingMark, .spacingMark, .privateUse, .unassigned, .surrogate:
            return true
        default:
            return false
        }
    }

    /// `text` with every invisible scalar written as a JSON escape (`\u0085`, `\ufeff`, a surrogate pair
    /// above U+FFFF), so that JSON text stays JSON and a pasted string means the same.
    public static func escapeInvisible(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            guard isInvisible(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 { out += String(format: "\\u%04x", unit) }
        }
        return out
    }

    /// `text` as a JSON string literal with invisible characters escaped: `"\u0085bierset"`.
    public static func quoted(_ text: String) -> String {
        escapeInvisible(CanonicalJSON.compactString(.string(text)))
    }

    /// What the reference hashes for an id case, or for an encode case whose document id is a hash of
    /// record fields: the exact text, quoted with invisible characters escaped, and its UTF-8 length.
    public static func hashedText(op: String, input: FirestoreValue) -> String? {
        guard case .map(let m) = input else { return nil }
        func text(_ s: String) -> String { "\(quoted(s)) (\(s.utf8.count) UTF-8 bytes)" }
        func string(_ value: FirestoreValue?) -> String? { if case .string(let s)? = value { s } else { nil } }
        switch op {
        case "id.homebase":
            return string(m["name"]).map { text(DocumentIds.homebaseKey(name: $0)) }
        case "id.task":
            guard let url = string(m["externalUrl"]), !url.isEmpty else { return nil }
            return text(url)
        case "id.mapFile":
            guard let source = string(m["source"]), let type = string(m["type"]) else { return nil }
            if source == MapFileSource.user.rawValue, let hash = string(m["contentHash"]) {
                return text(DocumentIdRule.mapFileUser.input(["type": type, "contentHash": hash]))
            }
            guard let filename = string(m["filename"]) else { return nil }
            return text(DocumentIdRule.mapFileDownloaded.input(["source": source, "type": type, "filename": filename]))
        case "id.flight":
            guard case .bytes(let bytes)? = m["igc"] else { return nil }
            let head = bytes.prefix(16).map { String(format: "%02x", $0) }.joined(separator: " ")
            return "the \(bytes.count) bytes of input.igc as given (first: \(head)), never re-encoded"
        case "encode", "merge.payload":
            guard let collection = string(m["collection"]), case .map(let fixture)? = m["fixture"] else { return nil }
            let record = (fixture["record"] ?? fixture["local"])?.mapValue ?? [:]
            switch collection {
            case SyncCollection.homebases.rawValue:
                return string(record["name"]).map { text(DocumentIds.homebaseKey(name: $0)) + " for the document id" }
            case SyncCollection.tasks.rawValue:
                guard let url = string(record["externalUrl"]), !url.isEmpty else { return nil }
                return text(url) + " for the document id"
            case SyncCollection.mapFiles.rawValue:
                guard fixture["fileId"] == nil, let source = string(record["source"]), let type = string(record["type"])
                else { return nil }
                // Record enums are case names; the id takes the cloud strings.
                func cloud(_ enumName: String, _ caseName: String) -> String {
                    let value = SyncSchema.vulture.enumeration(named: enumName)?.cases.first { $0.name == caseName }?
                        .cloudValue
                    return string(value) ?? caseName
                }
                let s = cloud("MapFileSource", source)
                let t = cloud("MapFileType", type)
                if s == MapFileSource.user.rawValue, let hash = string(record["contentHash"]) {
                    return text(DocumentIdRule.mapFileUser.input(["type": t, "contentHash": hash]))
                        + " for the document id"
                }
                guard let filename = string(record["filename"]) else { return nil }
                return text(DocumentIdRule.mapFileDownloaded.input(["source": s, "type": t, "filename": filename]))
                    + " for the document id"
            default: return nil
            }
        default:
            return nil
        }
    }
}
