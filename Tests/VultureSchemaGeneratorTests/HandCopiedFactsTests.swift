import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSchemaGenerator

/// No hand-written Swift repeats a fact of `Spec/`: the runtime reads constants, limits, blob paths,
/// content types and id templates from the generated `SchemaFacts.swift`, so editing a table changes
/// the code (README "Editing the schema"). Scans the hand-written `.swift` files of `Sources/` and of
/// the goldens' case definitions (`Tools/VultureGoldens`); comments are not code and are skipped.
///
/// What counts as a copy: a number of `Spec/` from 60,000 up (byte caps: too distinctive to be
/// chance); any number of `Spec/` from 10 up inside the engine's modules (page sizes, the overlap,
/// the recents cap, retention days); a string literal holding a constant's text, a content type, an
/// id template's literal part, or a Storage path (`users/…/igc/…`, `users/…/files/…`).
@Suite struct HandCopiedFactsTests {
    static let root = specDirectory.deletingLastPathComponent()

    /// Folders whose every number of `Spec/` from 10 up counts (the engine's arithmetic lives there).
    static let engineFolders = [
        "Sources/VultureFirestore/", "Sources/VultureSyncEngine/",
    ]

    /// Files allowed to hold a number, and why.
    static let allowed: [String: String] = [
        "Sources/VultureSchemaCore/Values/FirestoreLimits.swift":
            "Firestore's 1 MiB document limit in the value model, which sits below the generated code; "
            + "FirestoreLimitsTests ties it to SchemaLimits.documentMaxBytes",
        "Sources/VultureFirestore/FirestoreStatus+HTTP.swift":
            "HTTP status codes (400, 5xx), which equal numbers of Spec/ by chance",
    ]

    /// A fact and the table row it comes from.
    struct Fact: Hashable {
        var text: String
        var origin: String
    }

    static func facts(_ spec: SchemaSpec) -> (numbers: [Int64: String], strings: [Fact]) {
        var numbers: [Int64: String] = [:]
        var strings: [Fact] = []
        for c in spec.constants {
            switch c.value {
            case .integer(let n) where abs(n) >= 10: numbers[n] = numbers[n] ?? "Spec/constants.tsv \(c.name)"
            case .string(let text) where text.count >= 12:
                strings.append(Fact(text: text, origin: "Spec/constants.tsv \(c.name)"))
            case .string(let text) where text.count >= 4:
                strings.append(Fact(text: "\"" + text + "\"", origin: "Spec/constants.tsv \(c.name)"))
            default: break
            }
        }
        for l in spec.limits where l.value >= 10 { numbers[l.value] = numbers[l.value] ?? "Spec/limits.tsv \(l.name)" }
        for r in spec.syncRules {
            if case .integer(let n)? = r.value, n >= 10 { numbers[n] = numbers[n] ?? "Spec/sync-rules.tsv \(r.name)" }
        }
        for b in spec.blobs {
            strings.append(Fact(text: b.contentType, origin: "Spec/blobs.tsv \(b.name) contentType"))
            let pieces = literalPieces(of: b.pathTemplate)
            if let first = pieces.first, pieces.count > 1 {
                for piece in pieces.dropFirst() where !piece.hasPrefix(".") {
                    strings.append(Fact(text: first + "/…/" + piece + "/", origin: "Spec/blobs.tsv \(b.name) path"))
                }
            }
        }
        for r in spec.idRules {
            for piece in literalPieces(of: r.input ?? "") where piece.contains("|") {
                strings.append(Fact(text: piece, origin: "Spec/ids.tsv \(r.record) \(r.variant)"))
            }
        }
        return (numbers, strings)
    }

    /// Whether string literal `s` repeats `fact`: a path fact `users/…/igc/` matches a literal that
    /// starts with `users/` and holds `/igc/`; a short constant (written `"synced"`) only the whole
    /// literal; any other fact by containment.
    static func repeats(_ s: String, _ fact: Fact) -> Bool {
        if fact.text.hasPrefix("\"") { return "\"" + s + "\"" == fact.text }
        let parts = fact.text.components(separatedBy: "/…/")
        if parts.count == 2 { return s.hasPrefix(parts[0] + "/") && s.contains("/" + parts[1]) }
        return s.contains(fact.text)
    }

    /// The literal text between `{…}` placeholders, trimmed of `/` (`/igc/` → `igc`, `.igc.gz`).
    static func literalPieces(of template: String) -> [String] {
        var pieces: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            pieces.append(String(rest[..<open]))
            rest = rest[rest.index(after: close)...]
        }
        pieces.append(String(rest))
        return pieces.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "/")) }.filter { $0.count >= 3 }
    }

    /// Every hand-written Swift file under `Sources/` and `Tools/VultureGoldens`.
    static func handWrittenSources() throws -> [URL] {
        var files: [URL] = []
        for top in ["Sources", "Tools/VultureGoldens"] {
            let dir = root.appendingPathComponent(top)
            guard let e = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in e where url.pathExtension == "swift" && !url.path.contains("/Generated/") {
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The code of one line: nothing after `//` outside a string literal.
    static func code(_ line: String) -> String {
        var inString = false
        var escaped = false
        var previous: Character = " "
        var out = ""
        for ch in line {
            if inString {
                if escaped {
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == "\"" {
                    inString = false
                }
            } else if ch == "\"" {
                inString = true
            } else if ch == "/" && previous == "/" {
                out.removeLast()
                return out
            }
            out.append(ch)
            previous = ch
        }
        return out
    }

    /// Integer literals (underscores removed) and string literal contents of a line of code.
    static func literals(_ code: String) -> (numbers: [Int64], strings: [String]) {
        var numbers: [Int64] = []
        var strings: [String] = []
        let chars = Array(code)
        var i = 0
        while i < chars.count {
            let ch = chars[i]
            if ch == "\"" {
                var j = i + 1
                var text = ""
                while j < chars.count, chars[j] != "\"" {
                    if chars[j] == "\\", j + 1 < chars.count {
                        text.append(chars[j])
                        j += 1
                    }
                    text.append(chars[j])
                    j += 1
                }
                strings.append(text)
                i = j + 1
            } else if ch.isNumber,
                i == 0 || !(chars[i - 1].isLetter || chars[i - 1].isNumber || "_.".contains(chars[i - 1]))
            {
                var j = i
                var digits = ""
                while j < chars.count, chars[j].isNumber || chars[j] == "_" {
                    if chars[j] != "_" { digits.append(chars[j]) }
                    j += 1
                }
                if j >= chars.count || !(chars[j].isLetter || chars[j] == ".") { numbers.append(Int64(digits) ?? -1) }
                i = j
            } else {
                i += 1
            }
        }
        return (numbers, strings)
    }

    @Test func noHandWrittenSourceRepeatsASpecValue() throws {
        let spec = try SchemaSpec.load(from: specDirectory)
        let facts = Self.facts(spec)
        #expect(facts.numbers[32_000_000] != nil && facts.numbers[120] != nil)
        #expect(facts.strings.contains { $0.text == "application/gzip" })
        #expect(facts.strings.contains { $0.text == "users/…/igc/" })
        #expect(facts.strings.contains { $0.text == "USER|" })
        var copies: [String] = []
        for url in try Self.handWrittenSources() {
            let text = try String(contentsOf: url, encoding: .utf8)
            let relative = String(url.path.dropFirst(Self.root.path.count + 1))
            let inEngine = Self.engineFolders.contains { relative.hasPrefix($0) }
            for (index, line) in text.components(separatedBy: "\n").enumerated() {
                let (numbers, strings) = Self.literals(Self.code(line))
                for n in numbers where Self.allowed[relative] == nil && (n >= 60_000 || inEngine) {
                    if let origin = facts.numbers[n] { copies.append("\(relative):\(index + 1): \(n) is \(origin)") }
                }
                for s in strings {
                    for fact in facts.strings where Self.repeats(s, fact) {
                        copies.append("\(relative):\(index + 1): \"\(s)\" repeats \"\(fact.text)\" (\(fact.origin))")
                    }
                }
            }
        }
        #expect(copies.isEmpty, "use the generated SchemaFacts.swift instead:\n\(copies.joined(separator: "\n"))")
    }

    /// Code that reads or writes documents by field name: a string literal there that is a field
    /// name of `Spec/fields.tsv` is a copy (use `FlightDocument.Field.deleted`,
    /// `StorageObjectKind.MapField.path`).
    static let fieldNameFolders = [
        "Sources/VultureSyncEngine/", "Sources/VultureSimulation/", "Sources/VultureScenarios/ScenarioRe",
        "Sources/VultureSyncSchema/Documents/", "Sources/VultureSyncSchema/Schema/",
    ]

    /// Files of those folders whose literals that look like field names are not document fields, and why.
    static let fieldNamesAllowed: [String: String] = [
        "Sources/VultureSyncEngine/Store/StoredValues.swift":
            "LocalRow's own Codable keys (collection, id, createdAt), not a document's fields"
    ]

    /// Files allowed to build a `users/…` path by interpolation, and why.
    static let pathsAllowed: [String: String] = [
        "Sources/VultureSyncEngine/Store/SQLiteLocalStore.swift":
            "turns a FileLocalStore blob file name back into the Storage object path it encodes, segment by segment"
    ]

    /// Whether literal `s` builds a document or object path by hand: `users/` then an interpolation.
    static func buildsPath(_ s: String) -> Bool { s.hasPrefix("users/\\(") }

    @Test func noHandWrittenSourceSpellsAFieldNameOrBuildsAPath() throws {
        let spec = try SchemaSpec.load(from: specDirectory)
        let names = Set(spec.fields.map(\.name))
        #expect(names.contains("deleted") && names.contains("gzBytes") && names.contains("v"))
        var copies: [String] = []
        for url in try Self.handWrittenSources() {
            let text = try String(contentsOf: url, encoding: .utf8)
            let relative = String(url.path.dropFirst(Self.root.path.count + 1))
            let checksNames =
                Self.fieldNameFolders.contains { relative.hasPrefix($0) } && Self.fieldNamesAllowed[relative] == nil
            for (index, line) in text.components(separatedBy: "\n").enumerated() {
                for s in Self.literals(Self.code(line)).strings {
                    if checksNames, names.contains(s) {
                        copies.append("\(relative):\(index + 1): \"\(s)\" is a field name of Spec/fields.tsv")
                    }
                    if Self.buildsPath(s), Self.pathsAllowed[relative] == nil {
                        copies.append(
                            "\(relative):\(index + 1): \"\(s)\" builds a path of Spec/collections.tsv by hand")
                    }
                }
            }
        }
        let builders = "SyncCollection.documentPath(uid:id:), parentPath(uid:), profilePath(uid:)"
        #expect(
            copies.isEmpty,
            "use the generated Field names and path builders (\(builders)) instead:\n\(copies.joined(separator: "\n"))")
    }

    @Test func theScanFindsCopies() {
        #expect(Self.literals(Self.code(#"let cap: Int64 = 32_000_000  // 120"#)).numbers == [32_000_000])
        #expect(Self.literals(Self.code(#"let p = "users/\(uid)/igc/\(id).igc.gz" // "x""#)).strings.count == 1)
        #expect(Self.literals(Self.code(#"let s = "a // b""#)).strings == ["a // b"])
        #expect(Self.literals("x1 = 2.5e10; y = 120").numbers == [120])
        #expect(Self.repeats(#"users/\(uid)/igc/\(id).igc.gz"#, Fact(text: "users/…/igc/", origin: "")))
        #expect(!Self.repeats("ours.igc.gz", Fact(text: "users/…/igc/", origin: "")))
        #expect(Self.literalPieces(of: "users/{uid}/igc/{flightId}.igc.gz") == ["users", "igc", ".igc.gz"])
        #expect(Self.buildsPath(Self.literals(Self.code(#"let p = "users/\(uid)/flights/\(id)""#)).strings[0]))
        #expect(!Self.buildsPath("users/u1/flights/f1"))
        #expect(Self.literals(Self.code(#"row.fields["deleted"] == nil // "summary""#)).strings == ["deleted"])
    }
}
