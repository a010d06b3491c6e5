import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// Deterministic ids (schema §4), with the cases where Swift's or Python's own trim/lowercase
/// differ from Kotlin on the JVM (home base) and the R4 encoding case (flight).
enum IdVectors {
    static func igc(_ text: String) -> Data { Data(text.utf8) }

    static let asciiIGC =
        "AXCS001\r\nHFDTE081116\r\nHFPLTPILOTINCHARGE:ARNE MARTIN GUETTLER\r\nB1200005110683N00613448EA0039800498\r\n"

    static var file: VectorFile {
        var cases: [VectorDefinition] = []
        func flight(_ name: String, _ bytes: Data, _ note: String) {
            cases.append(
                VectorDefinition(
                    id: "ids.flight.\(name)", section: "schema §4", op: "id.flight",
                    input: .map(["igc": .bytes(bytes)]), note: note))
        }
        flight("crlf", igc(asciiIGC), "SHA-256 of the file's bytes as imported, CRLF line ends included")
        flight(
            "lf", igc(asciiIGC.replacingOccurrences(of: "\r\n", with: "\n")),
            "the same text with LF line ends is another file and another id")
        let latin1 =
            Data("AXCS001\r\nHFDTE270623\r\nHFPLTPILOT:J".utf8) + Data([0xE9]) + Data("r".utf8) + Data([0xF4])
            + Data("me\r\n".utf8)
        flight("latin1-original-bytes", latin1, "risk R4: the original ISO-8859-1 bytes are hashed, never re-encoded")
        flight(
            "latin1-reencoded-utf8", Data(String(data: latin1, encoding: .isoLatin1)!.utf8),
            "risk R4: the same text re-encoded as UTF-8 (what iOS computes from rawContent) is a different id")
        flight("empty", Data(), "an empty file still has an id (SHA-256 of no bytes)")

        func homebase(_ name: String, _ value: String, _ note: String) {
            cases.append(
                VectorDefinition(
                    id: "ids.homebase.\(name)", section: "schema §4", op: "id.homebase",
                    input: .map(["name": .string(value)]), note: note, pins: [.homebaseNormalization]))
        }
        homebase("plain", "Klippeneck", "SHA-256 of name.trim().lowercase()")
        homebase("trim", "  Klippeneck \t", "spaces and tabs around the name are trimmed")
        homebase("lowercase", "KLIPPENECK", "upper case is lowered: the same id as plain")
        homebase("inner-space", "Aachen Merzbrück", "inner spaces and non-ASCII letters stay")
        homebase("nbsp", "\u{00A0}Bierset\u{00A0}", "U+00A0 is a space char (Kotlin isWhitespace): trimmed")
        homebase(
            "information-separators", "\u{1C}\u{1F}Bierset",
            "U+001C–U+001F are whitespace to Java: trimmed; Swift keeps them")
        homebase("next-line", "\u{85}Bierset", "U+0085 is not whitespace to Kotlin: kept; Swift and Python trim it")
        homebase("zero-width-space", "\u{200B}Bierset", "U+200B is no whitespace anywhere: kept")
        homebase(
            "mongolian-vowel-separator", "\u{180E}Bierset", "U+180E is not whitespace in Unicode 13 (Java 17): kept")
        homebase("ideographic-space", "\u{3000}Bierset\u{3000}", "U+3000 is whitespace: trimmed")
        homebase("dotted-capital-i", "İSTANBUL", "Locale.ROOT lowercase of U+0130 is i + U+0307")
        homebase("final-sigma", "ΟΔΟΣ", "Σ at the end of a word lowers to ς (final sigma)")
        homebase("sigma-inside", "ΣΟΦΙΑ", "Σ at the start of a word lowers to σ")
        homebase("sharp-s", "GROSSE WIESE ẞ", "U+1E9E lowers to ß")
        homebase("titlecase-digraph", "ǅ", "U+01C5 lowers to U+01C6")
        homebase("empty-after-trim", "   ", "a name of spaces trims to the empty string, which still hashes")
        homebase(
            "byte-order-mark", "\u{FEFF}Bierset\u{FEFF}",
            "U+FEFF is no whitespace to Kotlin: kept at both ends; JavaScript's trim() drops it")

        func task(_ name: String, _ url: String, _ note: String) {
            cases.append(
                VectorDefinition(
                    id: "ids.task.\(name)", section: "schema §4", op: "id.task",
                    input: .map(["externalUrl": .string(url)]), note: note))
        }
        task(
            "soaring-spot", "/en/sgp-2026/results/club/task-1-on-2026-07-01",
            "SHA-256 of externalUrl (the iOS relative Soaring Spot format)")
        task("weglide", "https://www.weglide.org/task/12345", "any externalUrl hashes the same way")
        cases.append(
            VectorDefinition(
                id: "ids.task.no-url", section: "schema §4", op: "id.task",
                input: .map(["externalUrl": .null]),
                note: "without externalUrl the id is a random UUID, which no vector can pin", expectedError: "id.random"
            ))
        cases.append(
            VectorDefinition(
                id: "ids.task.empty-url", section: "schema §4 (pinned)", op: "id.task",
                input: .map(["externalUrl": .string("")]),
                note: "an empty externalUrl counts as none: a random UUID, never the SHA-256 of \"\"",
                expectedError: "id.random", pins: [.taskRandomId]))

        func mapFile(_ name: String, _ input: [String: FirestoreValue], _ note: String, error: String? = nil) {
            cases.append(
                VectorDefinition(
                    id: "ids.map-file.\(name)", section: "schema §4 (pinned)", op: "id.mapFile",
                    input: .map(input), note: note, expectedError: error,
                    pins: input["source"] == .string("USER") ? [.mapFileIdUser] : [.mapFileIdDownloaded]))
        }
        mapFile(
            "xcsoar-airspace",
            ["source": .string("XCSOAR"), "type": .string("AIRSPACE"), "filename": .string("germany.txt")],
            "pinned: SHA-256 of \"XCSOAR|AIRSPACE|germany.txt\"")
        mapFile(
            "openaip-waypoints",
            ["source": .string("OPENAIP"), "type": .string("WAYPOINTS"), "filename": .string("be_apt.cup")],
            "pinned: SHA-256 of \"OPENAIP|WAYPOINTS|be_apt.cup\"")
        mapFile(
            "user",
            [
                "source": .string("USER"), "type": .string("WAYPOINTS"),
                "contentHash": .string(String(repeating: "ab", count: 32)),
            ],
            "pinned: SHA-256 of \"\(DocumentIdRule.mapFileUser.input(["type": "WAYPOINTS", "contentHash": "<contentHash>"]))\""
        )
        mapFile(
            "user-bad-hash",
            [
                "source": .string("USER"), "type": .string("WAYPOINTS"),
                "contentHash": .string(String(repeating: "AB", count: 32)),
            ],
            "a content hash is 64 lowercase hex characters", error: "id.not-sha256-hex")
        mapFile(
            "lowercase-source",
            ["source": .string("xcsoar"), "type": .string("AIRSPACE"), "filename": .string("x.txt")],
            "sources are the upper-case cloud strings", error: "id.invalid-map-file-key")

        func competition(_ name: String, _ id: String, _ note: String, error: String? = nil) {
            cases.append(
                VectorDefinition(
                    id: "ids.recent-competition.\(name)", section: "schema §4", op: "id.recentCompetition",
                    input: .map(["competitionId": .string(id)]), note: note, expectedError: error,
                    pins: [.recentCompetitionIdValidity]))
        }
        competition("plain", "sgp-2026-belgium", "the Soaring Spot competition id itself")
        competition("slash", "sgp/2026", "a document id cannot hold '/'", error: "id.contains-slash")
        competition("empty", "", "a document id cannot be empty", error: "id.empty")
        competition("dot", "..", "'.' and '..' are not document ids", error: "id.dot-segment")
        competition("reserved", "__id__", "__.*__ is reserved by Firestore", error: "id.reserved")
        competition(
            "at-limit", String(repeating: "é", count: 750),
            "750 × é: 750 characters, 1,500 UTF-8 bytes, Firestore's limit: accepted")
        competition(
            "too-long", String(repeating: "é", count: 751),
            "751 × é: 1,502 UTF-8 bytes (only 751 characters): over Firestore's 1,500-byte limit", error: "id.too-long")
        // The content hash (Spec/ids.tsv contentHash): the key of a map file's Storage object and of
        // the user map-file id. The same file gives the same hash on both platforms, though iOS holds
        // a text file as a String and a CUB file as Base64 (schema §7).
        func contentHash(
            _ name: String, _ variant: String, _ content: FirestoreValue, _ note: String, error: String? = nil
        ) {
            cases.append(
                VectorDefinition(
                    id: "ids.content-hash.\(name)", section: "schema §2 mapFiles; schema §7", op: "id.contentHash",
                    input: .map(["variant": .string(variant), "content": content]), note: note, expectedError: error))
        }
        let cup = "name,code,country,lat,lon,elev,style\r\n\"Saint-Hubert\",EBSH,BE,5002.150N,00522.050E,562.0m,5\r\n"
        contentHash("bytes", "bytes", .bytes(Data(cup.utf8)), "SHA-256 of the file's bytes (CRLF line ends included)")
        contentHash(
            "ios-text", "iosText", .string(cup),
            "iOS holds the CUP file as a String: the SHA-256 of its UTF-8 bytes, the same hash as the file's bytes")
        let accented = "name,code\n\"Hahnweide Kirchheim/Teck (Öhringen)\",EDST\n"
        contentHash(
            "ios-text-non-ascii", "iosText", .string(accented),
            "a String with non-ASCII letters is hashed as its UTF-8 bytes (Ö is C3 96), never as UTF-16 or Latin-1")
        let cub = Data([0x43, 0x55, 0x42, 0x00, 0xFF, 0x10, 0x80, 0x7F, 0x01, 0xFE, 0x00, 0x00, 0xC0, 0xDE])
        contentHash("cub-bytes", "bytes", .bytes(cub), "a CUB file (binary) is hashed as its bytes")
        contentHash(
            "ios-cub", "iosCub", .string(cub.base64EncodedString()),
            "iOS holds a CUB file as Base64 text: the SHA-256 of the decoded bytes, the same hash as the file's bytes "
                + "(not of the Base64 text)")
        contentHash(
            "ios-cub-not-base64", "iosCub", .string("Q1VCAP8QgH8B/gAAwN4"),
            "Base64 without its padding is not what iOS stores for a CUB file: refused", error: "input.shape")
        return VectorFile(area: "ids", summary: "deterministic document ids and content hashes", cases: cases)
    }
}
