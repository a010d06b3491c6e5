import Foundation
import Testing

@testable import VultureSchemaCore
@testable import VultureSyncSchema

/// The single-pass reader accepts exactly what the two-phase reading (``StrictJSONReader`` then the
/// typed reading of the tree) accepts, with the same value; whatever it stops at, the two-phase
/// reading names with a typed error.
@Suite struct SinglePassReaderTests {
    /// The single pass's verdict: the value, or nil where it stopped; with fresh buffers, and with
    /// `reader`'s buffers after whatever it read before (the two must agree).
    static func singlePass(_ bytes: [UInt8], form: DocumentForm?, reader: CanonicalJSONReader? = nil)
        -> FirestoreValue?
    {
        let fresh = bytes.withUnsafeBufferPointer { SinglePassCanonicalReader.read($0, form: form) }
        if let reader {
            let reused = bytes.withUnsafeBufferPointer {
                SinglePassCanonicalReader.read($0, form: form, owner: reader)
            }
            #expect(reused == fresh, "a reused reader reads as a fresh one")
        }
        return fresh
    }

    /// The two-phase reading's verdict: the value, or the typed error.
    static func twoPhase(_ bytes: [UInt8], form: DocumentForm?) -> Result<FirestoreValue, SchemaInputError> {
        do {
            let node = try StrictJSONReader.parse(bytes, file: "case.json")
            return .success(try CanonicalJSON.decode(node: node, sourceBytes: bytes, file: "case.json", form: form))
        } catch let e as SchemaInputError {
            return .failure(e)
        } catch {
            Issue.record("untyped error \(error)")
            return .failure(SchemaInputError(rule: .jsonSyntax, pointer: "", message: "\(error)"))
        }
    }

    /// Both readings agree on `bytes` in both forms; returns whether the input was accepted.
    @discardableResult
    static func agree(_ bytes: [UInt8], _ label: @autoclosure () -> String, reader: CanonicalJSONReader? = nil)
        -> Bool
    {
        var accepted = false
        for form in [nil, DocumentForm.stored] {
            let single = singlePass(bytes, form: form, reader: reader)
            switch twoPhase(bytes, form: form) {
            case .success(let value):
                #expect(
                    single == value,
                    "\(label()) (\(form.map(\.rawValue) ?? "any form")): single pass \(single.map(\.description) ?? "stopped"), two-phase \(value)"
                )
                if single != nil, single != value {
                    // Same value, down to the bits of every double.
                    #expect(CanonicalJSON.encode(single!) == CanonicalJSON.encode(value))
                }
                accepted = accepted || form == nil
            case .failure(let error):
                #expect(
                    single == nil,
                    "\(label()): single pass accepted \(single.map(\.description) ?? "") where two-phase says \(error)")
                #expect(error.line != nil && error.column != nil && error.file == "case.json", "\(error)")
                // Through the public entry point the error is the two-phase one.
                do {
                    _ = try CanonicalJSON.decode(bytes, file: "case.json", form: form)
                    Issue.record("\(label()): decode accepted what two-phase rejects")
                } catch let e as SchemaInputError {
                    #expect(e == error)
                } catch {
                    Issue.record("untyped error \(error)")
                }
            }
        }
        return accepted
    }

    @Test func mutantsOfATypedDocument() {
        let cases = ReaderRobustnessTests.mutants(of: ReaderRobustnessTests.seedDocument, random: 6000, seed: 0xD1FF)
        var accepted = 0
        let reader = CanonicalJSONReader()
        for (k, bytes) in cases.enumerated() where Self.agree(bytes, "mutant \(k)", reader: reader) { accepted += 1 }
        #expect(accepted > 100 && accepted < cases.count, "\(accepted) of \(cases.count) accepted")
    }

    @Test func mutantsOfTheGoldens() throws {
        // Goldens 1.1.0 has one document golden per platform (flight.android.json, flight.ios.json).
        for name in ["flight", "task", "settings", "mapFile"].flatMap({ ["\($0).android", "\($0).ios"] }) {
            let url = IdsTestSupport.packageRoot.appendingPathComponent("Goldens/schema/\(name).json")
            let bytes = [UInt8](try Data(contentsOf: url))
            #expect(Self.agree(bytes, name), "the golden \(name) is read")
            for (k, m) in ReaderRobustnessTests.mutants(of: bytes, random: 600, seed: UInt64(bytes.count)).enumerated()
            where k % 37 == 0 || k >= bytes.count {
                Self.agree(m, "\(name) mutant \(k)")
            }
        }
    }

    @Test func rejectionsStopTheSinglePass() {
        for r in canonicalRejections {
            #expect(Self.singlePass(r.input, form: r.form) == nil, "\(r.label)")
        }
    }

    /// Firestore's depth rule as the emulator enforces it (FirestoreLimits.maximumDepth): a map at
    /// depth 21 is refused, even empty or written as `$map`; a scalar, a wrapper or an empty array
    /// there is accepted, by the single pass itself; nothing is at depth 22.
    @Test func depthRuleAtTheEdge() {
        /// `inner` as the value at `depth` (a document's top-level field is at depth 1).
        func nested(_ inner: String, at depth: Int) -> [UInt8] {
            Array((String(repeating: #"{"a":"#, count: depth) + inner + String(repeating: "}", count: depth)).utf8)
        }
        let accepted = [
            "1", #""s""#, "null", "[]", #"{"$timestamp":"2026-01-02T03:04:05Z"}"#,
            #"{"$geoPoint":{"latitude":1.5,"longitude":2}}"#, #"{"$double":"NaN"}"#,
        ]
        let refused = ["{}", #"{"b":1}"#, #"{"$map":{}}"#, #"{"$map":{"$b":1}}"#, "[1]", "[{}]"]
        for inner in accepted + refused {
            // An array at depth 20 holds its elements at depth 21, where a map is refused.
            let at20 = Self.agree(nested(inner, at: 20), "\(inner) at depth 20")
            #expect(at20 == (inner != "[{}]"), "\(inner) at depth 20")
            let at21 = nested(inner, at: 21)
            let isAccepted = Self.agree(at21, "\(inner) at depth 21")
            #expect(isAccepted == accepted.contains(inner), "\(inner) at depth 21")
            if isAccepted {
                #expect(Self.singlePass(at21, form: nil) != nil, "the single pass reads \(inner) at depth 21 itself")
            }
            #expect(!Self.agree(nested(inner, at: 22), "\(inner) at depth 22"), "\(inner) at depth 22")
        }
        // The refusal names value.depth, as the two-phase reading does.
        do {
            _ = try CanonicalJSON.decode(nested(#"{"b":1}"#, at: 21), file: "deep.json")
            Issue.record("a map at depth 21 was accepted")
        } catch let error as SchemaInputError {
            #expect(error.rule == .depth && error.pointer == String(repeating: "/a", count: 21), "\(error)")
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test func edgeValuesReadTheSame() {
        for edge in edgeValues {
            #expect(Self.agree(Array(edge.canonical.utf8), edge.label))
            #expect(Self.agree(CanonicalJSON.encode(edge.value), edge.label))
        }
    }

    /// Texts around each shortcut the single pass takes: exact doubles, escapes, UTF-8 boundaries,
    /// wrappers spelled with escapes, key lengths around the key cache.
    @Test func textsAroundTheShortcuts() {
        let texts: [String] = [
            "0", "-0", "-0.0", "0.0", "1", "-1", "9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "-9223372036854775809", "18446744073709551616", "12345678901234567890",
            "9007199254740993.0", "9007199254740992.0", "9007199254740993e0", "1e22", "1e23", "123456789e-22",
            "123456789e-23", "0.000000000000000000000001", "1.7976931348623157e308", "1.7976931348623159e308",
            "4.9e-324", "2.4e-324", "1e-400", "1e400", "-1e400", "1E+2", "1e-0", "1.5E3", "0.1", "0.30000000000000004",
            "99999999999999999999.5", "1.00000000000000000000000001", "00", "-", "1.", ".5", "1e", "1e+", "+1",
            "\"\\u0024timestamp\"", "{\"\\u0024timestamp\": \"2026-10-20T14:03:07Z\"}",
            "{\"$time\\u0073tamp\": \"2026-10-20T14:03:07.123456Z\"}", "{\"$bytes\": \"\\u0041AAA\"}",
            "{\"$bytes\": \"AA==\"}", "{\"$bytes\": \"AB==\"}", "{\"$bytes\": \"AAA=\"}", "{\"$bytes\": \"AAB=\"}",
            "{\"$bytes\": \"A===\"}", "{\"$bytes\": \"====\"}", "{\"$bytes\": \"AA=A\"}", "{\"$bytes\": \"AAAA\\n\"}",
            "{\"$double\": \"-0\"}", "{\"$double\": \"N\\u0061N\"}", "{\"$double\": \"nan\"}",
            "{\"$geoPoint\": {\"longitude\": 1, \"latitude\": -90}}", "{\"$geoPoint\": {\"latitude\": 1}}",
            "{\"$geoPoint\": {\"latitude\": 1, \"longitude\": 2, \"x\": 3}}",
            "{\"$geoPoint\": {\"latitude\": 1e400, \"longitude\": 2}}",
            "{\"$geoPoint\": {\"latitude\": 1, \"latitude\": 2}}",
            "{\"$geoPoint\": {\"lat\\u0069tude\": 1, \"longitude\": 2}}",
            "{\"$increment\": 1}", "{\"$increment\": -1.5}", "{\"$increment\": 1e400}",
            "{\"$increment\": 9223372036854775808}", "[{\"$increment\": 1}]", "{\"$delete\": true}",
            "{\"$serverTimestamp\": true }", "{\"$map\": {}}", "{\"$map\": {\"$a\": {\"$map\": {\"$b\": 1}}}}",
            "{\"$map\": {\"a\": 1, \"a\": 2}}", "{\"a\": {\"$map\": {\"__x__\": 1}}}", "{\"$map\": 1}",
            "{\"$reference\": \"projects/p/databases/d/documents/c/i\"}", "{\"$reference\": \"projects/p\"}",
            "{\"$timestamp\": \"2026-10-20T14:03:07Z\", \"x\": 1}",
            "{\"x\": 1, \"$timestamp\": \"2026-10-20T14:03:07Z\"}",
            "{\"a\": 1, \"\\u0061\": 2}", "{\"é\": 1, \"e\\u0301\": 2}", "{\"\\u212A\": 1, \"K\": 2}",
            "{\"__\": 1, \"___\": 2, \"____\": 3}", "{\"\": 1}", "{\"a\":1,}", "[1,]", "[]", "{}", "[[]]", "[{}]",
            "\"\\ud83d\\ude00\"", "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83d\\u0041\"", "\"\\uD83D\\uDE00x\"",
            "\"\\u00e9\\u0000\\u001f\"", "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"",
            "\"abc", "\"abc\\", "\"abc\\u", " true ", "tru", "fals", "nul", "trueX", "null null",
            "{\"sixteen-byte-key\": 1, \"sixteen-byte-kez\": 2, \"sixteen-byte-key\": 3}",
            "{\"a-key-of-exactly-seventeen\": [1, 2], \"a-key-of-exactly-seventeem\": 1}",
        ]
        let reader = CanonicalJSONReader()
        for t in texts { Self.agree(Array(t.utf8), t, reader: reader) }
        // UTF-8 boundaries, each inside a string, at the end of the input and before a quote.
        let sequences: [[UInt8]] = [
            [0xC2, 0x80], [0xDF, 0xBF], [0xC1, 0xBF], [0xC0, 0x80], [0xE0, 0xA0, 0x80], [0xE0, 0x9F, 0xBF],
            [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0x80], [0xBF], [0xC2], [0xE0, 0xA0], [0xF0, 0x90, 0x80], [0xC2, 0x41], [0xFF], [0xFE],
        ]
        for s in sequences {
            for prefix in [[], Array("abcdefghij".utf8)] {
                Self.agree([0x22] + prefix + s + [0x22], "\(s)")
                Self.agree([0x22] + prefix + s, "\(s) at the end")
                Self.agree([0x22] + prefix + s + Array("\\n\"".utf8), "\(s) before an escape")
                Self.agree(Array("{\"".utf8) + prefix + s + Array("\": 1}".utf8), "\(s) in a key")
            }
        }
        // Control characters and DEL in the eight-byte scan and after it.
        for b in [UInt8](0..<0x20) + [0x7F] {
            Self.agree([0x22] + Array("abcdefgh".utf8) + [b] + [0x22], "byte \(b)")
            Self.agree([0x22, b, 0x22], "byte \(b)")
        }
    }

    /// UTF-8 the reader checks eight bytes at a time (ASCII words, four two-byte sequences): every
    /// kind of fault at every place of a run of two-byte sequences, and random mixtures of one- to
    /// four-byte sequences with a wrong byte now and then, in values and keys.
    @Test func utf8RunsAndTheirFaults() {
        let run = Array(String(repeating: "éœß", count: 8).utf8)
        let faults: [[UInt8]] = [
            [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0x80], [0xBF, 0xBF], [0xC2, 0x41], [0xC2, 0xC2], [0xDF, 0xC0],
            [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
            [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0x41], [],
        ]
        let reader = CanonicalJSONReader()
        for fault in faults {
            for at in 0...run.count {
                let bytes = Array(run[..<at]) + fault + Array(run[at...])
                Self.agree([0x22] + bytes + [0x22], "\(fault) at \(at)", reader: reader)
            }
        }
        var rng = SplitMix64(state: 0x0007_F8F8)
        let pieces: [[UInt8]] = [
            [0x61], [0x7E], [0xC3, 0xA9], [0xC5, 0x93], [0xDF, 0xBF], [0xC2, 0x80], [0xE2, 0x82, 0xAC],
            [0xED, 0x9F, 0xBF], [0xEF, 0xBF, 0xBD], [0xF0, 0x9F, 0xAA, 0x82], [0xF4, 0x8F, 0xBF, 0xBF],
        ]
        let wrong: [UInt8] = [0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]
        for k in 0..<3_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...40, using: &rng) {
                if Int.random(in: 0..<60, using: &rng) == 0 {
                    bytes.append(wrong.randomElement(using: &rng)!)
                } else {
                    bytes += pieces[Int.random(in: 0..<(Bool.random(using: &rng) ? 2 : pieces.count), using: &rng)]
                }
            }
            Self.agree([0x22] + bytes + [0x22], "mixture \(k)", reader: reader)
            if k % 10 == 0 { Self.agree(Array("{\"".utf8) + bytes + Array("\": 1}".utf8), "key \(k)", reader: reader) }
        }
    }

    /// Maps with the keys of maps read before, in the same order, are copies of a remembered map with
    /// their values set in place: a stream of documents through one reader, with neighbours whose keys
    /// come in another order, differ in one key or its bytes past sixteen, repeat a key, or nest
    /// maps of the same keys, reads as fresh readers and the two-phase reading do.
    @Test func repeatedMapShapes() {
        let keys = ["a-first-key", "b", "c-a-key-longer-than-sixteen", "d", "e"]
        func object(_ keys: [String], _ k: Int) -> String {
            "{" + keys.enumerated().map { "\"\($1)\": \(k * 10 + $0)" }.joined(separator: ", ") + "}"
        }
        let variants: [(String, [String])] = [
            ("same", keys), ("reordered", [keys[1], keys[0]] + keys[2...]),
            ("one key changed", keys.dropLast() + ["f"]),
            ("past sixteen bytes", keys.map { $0 == keys[2] ? "c-a-key-longer-than-sixteeN" : $0 }),
            ("repeated key", keys.dropLast() + [keys[0]]), ("one more", keys + ["g"]),
            ("one fewer", Array(keys.dropLast())),
        ]
        let reader = CanonicalJSONReader()
        var rng = SplitMix64(state: 0x5EA9_E5)
        for k in 0..<300 {
            let (label, these) = k % 3 == 0 ? variants.randomElement(using: &rng)! : variants[0]
            let text =
                "{\"inner\": " + object(these, k) + ", \"list\": [" + object(keys, k) + ", " + object(these, k + 1)
                + "], \"wrapped\": {\"$map\": " + object(these.map { "$" + $0 }, k) + "}}"
            let accepted = Self.agree(Array(text.utf8), "\(label) \(k)", reader: reader)
            #expect(accepted == (label != "repeated key"), "\(label) \(k)")
        }
    }

    /// A remembered map shape takes a map only when its keys are the same bytes: canonically
    /// equivalent spellings (which `==` takes as equal) are different field names.
    @Test func shapeKeysCompareAsBytes() {
        let pairs: [(String, String, Bool)] = [
            ("\u{212B}", "A\u{030A}", false), ("\u{00C5}", "A\u{030A}", false), ("é", "e\u{301}", false),
            ("a-key-longer-than-fifteen", "a-key-longer-than-fifteen", true), ("b", "b", true), ("b", "c", false),
            ("a-key-longer-than-fifteen", String("xa-key-longer-than-fifteen".dropFirst()), true),
        ]
        for (a, b, same) in pairs {
            #expect(SinglePassCanonicalReader.sameKey(a, b) == same, "\(a.debugDescription) \(b.debugDescription)")
        }
    }

    /// Decimals of up to nineteen digits times or over a power of ten up to 10¹⁹, read in integer
    /// arithmetic, are the doubles the standard library reads from their text: random digits, values
    /// next to the halfway point between two doubles, and the extremes of both.
    @Test func decimalsReadInIntegerArithmetic() {
        var rng = SplitMix64(state: 0xDEC1_3A1)
        var cases: [(UInt64, Int)] = []
        for scale in -19...19 {
            for w: UInt64 in [1, 9, 10, 1 << 53, (1 << 53) + 1, 9_999_999_999_999_999_999, 9_007_199_254_740_993] {
                cases.append((w, scale))
            }
        }
        for _ in 0..<60_000 {
            let digits = Int.random(in: 16...19, using: &rng)
            let w = UInt64.random(
                in: 1...(digits == 19 ? 9_999_999_999_999_999_999 : Self.powersOfTen[digits] - 1), using: &rng)
            cases.append((w, Int.random(in: -19...19, using: &rng)))
        }
        // Halfway between two doubles: x + ulp/2 written exactly in at most nineteen digits.
        for _ in 0..<20_000 {
            let x = Double(UInt64.random(in: (1 << 52)...((1 << 53) - 1), using: &rng))  // an integer: ulp 1
            let w = UInt64(x) * 10 + 5
            for shift in 0...2 { cases.append((w * Self.powersOfTen[shift], -1 - shift)) }
        }
        var mismatches = 0
        for (w, scale) in cases {
            let ours = SinglePassCanonicalReader.decimalToDouble(w, scale)
            let text = Double("\(w)e\(scale)")!
            if ours.bitPattern != text.bitPattern {
                mismatches += 1
                if mismatches <= 10 { Issue.record("\(w)e\(scale): \(ours) vs \(text)") }
            }
        }
        #expect(mismatches == 0)
    }

    static let powersOfTen: [UInt64] = (0...19).map { k in (0..<k).reduce(1) { p, _ in p * 10 } }

    /// Random number texts: the fast path for short decimals and the text path agree to the bit.
    @Test func randomNumberTexts() {
        var rng = SplitMix64(state: 0x4E55_4D42)
        for _ in 0..<20_000 {
            var t = Int.random(in: 0..<4, using: &rng) == 0 ? "-" : ""
            let intDigits = Int.random(in: 1...20, using: &rng)
            t += String(Int.random(in: 1...9, using: &rng))
            for _ in 1..<intDigits { t += String(Int.random(in: 0...9, using: &rng)) }
            if Bool.random(using: &rng) {
                t += "."
                for _ in 0..<Int.random(in: 1...20, using: &rng) { t += String(Int.random(in: 0...9, using: &rng)) }
            }
            if Int.random(in: 0..<3, using: &rng) == 0 {
                t += ["e", "E", "e+", "e-", "E-"].randomElement(using: &rng)!
                t += String(Int.random(in: 0...340, using: &rng))
            }
            Self.agree(Array(t.utf8), t)
            Self.agree(Array("0.\(t.filter { $0.isNumber })".utf8), t)
        }
    }

    /// Random typed values, written canonically and in one line, read back the same.
    @Test func randomValuesRoundTrip() throws {
        var rng = SplitMix64(state: 0x5EED_0001)
        let reader = CanonicalJSONReader()
        for k in 0..<400 {
            let value = RandomValues.document(using: &rng)
            let pretty = CanonicalJSON.encode(value)
            #expect(Self.singlePass(pretty, form: nil, reader: reader) == value, "value \(k)")
            #expect(Self.agree(pretty, "value \(k)"))
            let compact = Array(CanonicalJSON.compactString(value).utf8)
            #expect(Self.singlePass(compact, form: nil) == value, "value \(k) compact")
        }
    }

    /// A stream reuses nothing between documents that could leak from one to the next.
    @Test func slicesOfOneBuffer() throws {
        let lines = "{\"a-rather-long-key-1\": 1}\n{\"a-rather-long-key-2\": \"x\"}\n[1, {\"$bytes\": \"AA==\"}]\n"
        let bytes = Array(lines.utf8)
        var values: [FirestoreValue] = []
        var start = 0
        while let nl = bytes[start...].firstIndex(of: 0x0A) {
            values.append(try CanonicalJSON.decode(bytes[start..<nl], file: "s.jsonl"))
            start = nl + 1
        }
        #expect(
            values == [
                .map(["a-rather-long-key-1": .integer(1)]), .map(["a-rather-long-key-2": .string("x")]),
                .array([.integer(1), .bytes(Data([0]))]),
            ])
        #expect(throws: SchemaInputError.self) { try CanonicalJSON.decode(bytes[0..<10], file: "s.jsonl") }
    }
}

/// Seeded random Firestore values: every type, strings with escapes, non-ASCII and astral
/// characters, doubles from random bits, keys that sort differently in UTF-8 and UTF-16.
enum RandomValues {
    static let alphabet: [Unicode.Scalar] = [
        "a", "b", "z", "A", "0", "_", "$", " ", "\"", "\\", "/", "\u{0}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}",
        "\u{1F}", "\u{7F}", "\u{80}", "é", "ß", "\u{301}", "\u{7FF}", "\u{800}", "€", "\u{D7FF}", "\u{E000}",
        "\u{FFFD}", "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}",
    ]

    static func string(using rng: inout SplitMix64, maxLength: Int = 24) -> String {
        var s = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxLength, using: &rng) { s.append(alphabet.randomElement(using: &rng)!) }
        return String(s)
    }

    static func key(using rng: inout SplitMix64) -> String {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return "k" + String(Int.random(in: 0..<40, using: &rng))
        case 1: return "aLongerFieldNameThatIsCached" + String(Int.random(in: 0..<5, using: &rng))
        default:
            let s = string(using: &rng, maxLength: 12)
            return s.hasPrefix("__") && s.hasSuffix("__") ? "x" + s : s
        }
    }

    static func double(using rng: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return Double(bitPattern: rng.next())
        case 1: return Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 64
        case 2: return Double(Int.random(in: -99_999...99_999, using: &rng)) / 100
        case 3:
            return [
                0.0, -0.0, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e21,
                1e-7, 123e-20,
            ].randomElement(using: &rng)!
        case 4: return Double.random(in: -1e6...1e6, using: &rng)
        default: return Double.random(in: 0...1, using: &rng) * pow(10, Double(Int.random(in: -30...30, using: &rng)))
        }
    }

    static func value(depth: Int, inArray: Bool, using rng: inout SplitMix64) -> FirestoreValue {
        let kinds = depth >= 4 ? 9 : (inArray ? 10 : 11)
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .null
        case 1: return .boolean(Bool.random(using: &rng))
        case 2: return .integer(Int64(bitPattern: rng.next()) >> Int64.random(in: 0...63, using: &rng))
        case 3: return .double(double(using: &rng))
        case 4: return .string(string(using: &rng))
        case 5:
            return .timestamp(
                try! FirestoreTimestamp(
                    seconds: Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng),
                    microseconds: [0, 123_000, Int32.random(in: 0..<1_000_000, using: &rng)].randomElement(using: &rng)!
                ))
        case 6:
            return .bytes(
                Data((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 7:
            return .geoPoint(
                GeoPoint(
                    latitude: Double.random(in: -90...90, using: &rng),
                    longitude: Double.random(in: -180...180, using: &rng)))
        case 8:
            return .reference("projects/p/databases/(default)/documents/users/u\(Int.random(in: 0..<9, using: &rng))")
        case 9:
            return .map(map(depth: depth + 1, using: &rng))
        default:
            return .array(
                (0..<Int.random(in: 0...5, using: &rng)).map { _ in value(depth: depth + 1, inArray: true, using: &rng)
                })
        }
    }

    static func map(depth: Int, using rng: inout SplitMix64) -> [String: FirestoreValue] {
        var m: [String: FirestoreValue] = [:]
        for _ in 0..<Int.random(in: 0...8, using: &rng) {
            m[key(using: &rng)] = value(depth: depth, inArray: false, using: &rng)
        }
        return m
    }

    static func document(using rng: inout SplitMix64) -> FirestoreValue {
        var m = map(depth: 0, using: &rng)
        if Int.random(in: 0..<4, using: &rng) == 0 { m["updatedAt"] = .serverTimestamp }
        // The reader takes a finite operand written as a number (a NaN, infinite or −0 operand has no text).
        let operand = double(using: &rng)
        if Int.random(in: 0..<4, using: &rng) == 0, operand.isFinite, operand != 0 || operand.sign == .plus {
            m["n"] = .increment(.double(operand))
        }
        if Int.random(in: 0..<4, using: &rng) == 0 { m["gone"] = .delete }
        return .map(m)
    }
}
