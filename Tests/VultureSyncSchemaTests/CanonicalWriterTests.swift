import Foundation
import Testing

@testable import VultureSchemaCore
@testable import VultureSyncSchema

/// The direct writer (value → bytes) gives the bytes of the tree writer it replaced, kept here as the
/// oracle: every golden, seeded random values in both layouts, doubles from every binary exponent, and
/// keys that sort differently in UTF-8 and UTF-16.
@Suite struct CanonicalWriterTests {
    /// Every canonical file under Goldens/ reads and writes back to its own bytes.
    @Test func goldensWriteBackByteForByte() throws {
        let goldens = IdsTestSupport.packageRoot.appendingPathComponent("Goldens")
        let files =
            FileManager.default.enumerator(at: goldens, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        var typed = 0
        for url in files.sorted(by: { $0.path < $1.path }) {
            let bytes = [UInt8](try Data(contentsOf: url))
            let node = try StrictJSONReader.parse(bytes, file: url.path)
            #expect(CanonicalJSONWriter.write(node) == bytes, "\(url.lastPathComponent) as plain JSON")
            #expect(CanonicalJSONWriter.write(node) == ReferenceWriter.write(node), "\(url.lastPathComponent)")
            guard !url.path.contains("/protocol/"), !url.lastPathComponent.hasSuffix(".schema.json") else { continue }
            guard let value = try? CanonicalJSON.decode(bytes, file: url.path) else { continue }
            typed += 1
            #expect(CanonicalJSON.encode(value) == bytes, "\(url.lastPathComponent) as typed values")
            #expect(CanonicalJSON.compactString(value) == ReferenceWriter.compact(CanonicalJSON.node(value)))
        }
        #expect(typed > 40, "\(typed) typed goldens")
    }

    @Test func randomValuesWriteAsTheTreeWriterDid() {
        var rng = SplitMix64(state: 0x5EED_0002)
        for k in 0..<1500 {
            let value = RandomValues.document(using: &rng)
            let node = CanonicalJSON.node(value)
            #expect(CanonicalJSON.encode(value) == ReferenceWriter.write(node), "value \(k): \(value)")
            #expect(CanonicalJSON.compactString(value) == ReferenceWriter.compact(node), "value \(k)")
            #expect(CanonicalJSONWriter.write(node) == ReferenceWriter.write(node), "value \(k) as a tree")
            #expect(CanonicalJSONWriter.compact(node) == ReferenceWriter.compact(node), "value \(k) as a tree")
        }
    }

    /// An output of several megabytes, past the sizes where the writer's buffer goes on in a new chunk
    /// (2 MiB, then 4 and 8 MiB), with a string longer than a chunk: the tree writer's bytes.
    @Test func largeOutputsWriteAsTheTreeWriterDid() {
        var rng = SplitMix64(state: 0x5EED_0003)
        var documents: [FirestoreValue] = [
            .map(["long": .string(String(repeating: "ab\"c\u{1}é", count: 700_000))])
        ]
        var size = 0
        while size < 7 << 20 {
            let d = RandomValues.document(using: &rng)
            size += CanonicalJSON.encode(d).count
            documents.append(d)
        }
        let value = FirestoreValue.array(documents)
        let bytes = CanonicalJSON.encode(value)
        let reference = ReferenceWriter.write(CanonicalJSON.node(value))
        #expect(bytes.count > 10 << 20)
        #expect(bytes.count == reference.count)
        let difference = zip(bytes, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(difference == nil, "the bytes differ from offset \(difference ?? 0) on")
    }

    /// Maps with the keys of maps written before them (the writer remembers their order) and their
    /// neighbours: one key changed, a key alike in its first sixteen bytes (same length, or longer),
    /// a key sharing another's first sixteen bytes, keys with bytes UTF-16 orders differently or with
    /// something to escape, more keys than are remembered; built in different orders, interleaved.
    @Test func repeatedMapShapesWriteAsTheTreeWriterDid() {
        let base =
            (0..<20).map { "field\($0)" } + ["aLongerFieldNameThatIsCached", "takeoffCountryCode", "takeoffCode"]
        func replacing(_ old: String, _ new: String) -> [String] { base.map { $0 == old ? new : $0 } }
        let variants: [[String]] = [
            base, replacing("takeoffCode", "takeoffCodf"),
            replacing("aLongerFieldNameThatIsCached", "aLongerFieldNameThatIsCachee"),
            replacing("aLongerFieldNameThatIsCached", "aLongerFieldNameThatIsCached2"),
            base + ["aLongerFieldNameThatIsCacheZ"], replacing("field3", "field3\u{E000}"),
            replacing("field4", "field4😀"), replacing("field5", "fie\"ld5"), replacing("field6", "field6\u{0}"),
            replacing("field7", "f"), base + (0..<60).map { "extra\($0)" },
        ]
        var rng = SplitMix64(state: 0x5EED_0004)
        var documents: [FirestoreValue] = []
        for i in 0..<900 {
            let keys = variants[i % 3 == 0 ? Int.random(in: 0..<variants.count, using: &rng) : i % 2]
            var map: [String: FirestoreValue] = [:]
            for (k, key) in keys.shuffled(using: &rng).enumerated() { map[key] = .integer(Int64(i * 100 + k)) }
            documents.append(.map(["shape": .map(map), "n": .integer(Int64(i))]))
        }
        let value = FirestoreValue.array(documents)
        let bytes = CanonicalJSON.encode(value)
        let reference = ReferenceWriter.write(CanonicalJSON.node(value))
        let difference = zip(bytes, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(bytes.count == reference.count)
        #expect(difference == nil, "the bytes differ from offset \(difference ?? 0) on")
    }

    /// ECMAScript's digits for doubles of every binary exponent, random bit patterns, and the usual suspects.
    @Test func shortestDigitsAgreeWithSwiftsDescription() {
        // Decimal texts that no double holds exactly (subnormals, past 2^53), read as the compiler
        // would read them as literals, without its warning that they round.
        let rounded = [
            "5e-324", "1e-323", "1.5e-323", "2e-323", "2.2250738585072009e-308", "9007199254740993", "5.0e-324",
            "1234567890123456789",
        ]
        var doubles: [Double] =
            [
                2.2250738585072014e-308, 1.7976931348623157e308, 9_007_199_254_740_992, 9_007_199_254_740_994, 1e15,
                1e16, 1e17, 1e21, 1e22, 1e23, 123e-20,
                0.1, 0.2, 0.3, 1.0 / 3.0, 2.0 / 3.0, 50.8465573, 27.777777777777779, 5e-7, 1e-6, 1e-7, 4.35, 0.000001,
                9.999999999999999e22, 8.41e21, 1.0e23, 2.0, 100,
            ] + rounded.compactMap(Double.init)
        #expect(doubles.count == 36, "every rounded text reads as a double")
        for e in -1074...1023 {
            let p = e >= -1022 ? pow(2.0, Double(e)) : Double(bitPattern: UInt64(1) << UInt64(e + 1074))
            doubles += [p, p.nextUp, p.nextDown, p * 1.5, p * 1.1]
        }
        for k in -325...309 {
            let p = Double("1e\(k)") ?? 0
            doubles += [p, p.nextUp, p.nextDown]
        }
        for t in 1..<20_000 { doubles.append(Double(bitPattern: UInt64(t))) }
        var rng = SplitMix64(state: 0xD0B1E)
        for _ in 0..<100_000 {
            doubles.append(Double(bitPattern: rng.next()))
            doubles.append(Double(Int64.random(in: -1_000_000_000...1_000_000_000, using: &rng)) / 1000)
        }
        var mismatches = 0
        for d in doubles where d.isFinite {
            for v in [d, -d]
            where ECMAScriptNumber.string(v) != ReferenceWriter.ecmaScript(v)
                || ECMAScriptNumber.canonicalDouble(v) != ReferenceWriter.canonicalDouble(v)
            {
                mismatches += 1
                if mismatches <= 10 {
                    Issue.record(
                        "\(v.bitPattern): \(ECMAScriptNumber.string(v)) vs \(ReferenceWriter.ecmaScript(v))")
                }
            }
        }
        #expect(mismatches == 0)
        #expect(doubles.count > 200_000)
    }

    @Test func utf16OrderOfKeys() {
        var rng = SplitMix64(state: 0x0716)
        for _ in 0..<20_000 {
            let a = RandomValues.string(using: &rng, maxLength: 4)
            let b =
                Bool.random(using: &rng)
                ? a + RandomValues.string(using: &rng, maxLength: 2) : RandomValues.string(using: &rng, maxLength: 4)
            #expect(
                CanonicalJSONWriter.utf16Precedes(a, b) == a.utf16.lexicographicallyPrecedes(b.utf16),
                "\(a.debugDescription) \(b.debugDescription)")
            #expect(CanonicalJSONWriter.utf16Precedes(b, a) == b.utf16.lexicographicallyPrecedes(a.utf16))
        }
        // Keys alike in their first sixteen bytes, and keys across the UTF-8/UTF-16 difference.
        let keys = [
            "takeoffCode", "takeoffCountryCode", "takeoffCo", "sixteen-byte-key", "sixteen-byte-key2",
            "sixteen-byte-kez",
            "\u{E000}", "\u{FFFD}", "😀", "\u{10000}", "a\u{E000}", "a😀", "a", "", "\u{7F}", "\u{0}", "$a", "$\u{301}",
            "aaaaaaaaaaaaaaa\u{E000}", "aaaaaaaaaaaaaaa😀", "aaaaaaaaaaaaaaaa\u{E000}", "aaaaaaaaaaaaaaaa😀",
        ]
        let value = FirestoreValue.map(
            Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, .integer(Int64($0))) }))
        #expect(CanonicalJSON.encode(value) == ReferenceWriter.write(CanonicalJSON.node(value)))
    }

    @Test func writesTheTextOfTheFormat() {
        let value = FirestoreValue.map([
            "b": .array([.integer(-1), .double(-0.0), .double(.nan), .increment(.double(2.5))]),
            "$m": .map(["t": .timestamp(try! FirestoreTimestamp(seconds: -1, microseconds: 500_000))]),
            "g": .geoPoint(GeoPoint(latitude: -90, longitude: 1e-7)),
        ])
        #expect(
            CanonicalJSON.compactString(value)
                == "{\"$map\": {\"$m\": {\"t\": {\"$timestamp\": \"1969-12-31T23:59:59.500Z\"}}, \"b\": [-1, {\"$double\": \"-0\"}, "
                + "{\"$double\": \"NaN\"}, {\"$increment\": 2.5}], \"g\": {\"$geoPoint\": {\"latitude\": -90.0, \"longitude\": 1e-7}}}}"
        )
        #expect(
            CanonicalJSON.string(.map(["a": .array([.bytes(Data([1, 2, 3, 4]))])]))
                == "{\n  \"a\": [\n    {\n      \"$bytes\": \"AQIDBA==\"\n    }\n  ]\n}\n")
    }
}

/// The tree writer as it was before the direct writer (keys sorted through the UTF-16 view, doubles
/// through `description`): the oracle for the bytes.
enum ReferenceWriter {
    static func write(_ node: JSONNode) -> [UInt8] {
        var out: [UInt8] = []
        write(node, indent: 0, into: &out)
        out.append(0x0A)
        return out
    }

    static func compact(_ node: JSONNode) -> String {
        var out: [UInt8] = []
        writeCompact(node, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func newline(_ indent: Int, _ out: inout [UInt8]) {
        out.append(0x0A)
        for _ in 0..<indent { out.append(0x20) }
    }

    static func precedes(_ a: String, _ b: String) -> Bool { a.utf16.lexicographicallyPrecedes(b.utf16) }

    static func write(_ node: JSONNode, indent: Int, into out: inout [UInt8]) {
        switch node.kind {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let v): out.append(contentsOf: String(v).utf8)
        case .bigInteger(let text): out.append(contentsOf: text.utf8)
        case .double(let d): out.append(contentsOf: canonicalDouble(d).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let elements):
            if elements.isEmpty {
                out.append(contentsOf: "[]".utf8)
                return
            }
            out.append(0x5B)
            for (k, e) in elements.enumerated() {
                newline(indent + 2, &out)
                write(e, indent: indent + 2, into: &out)
                if k < elements.count - 1 { out.append(0x2C) }
            }
            newline(indent, &out)
            out.append(0x5D)
        case .object(let members):
            if members.isEmpty {
                out.append(contentsOf: "{}".utf8)
                return
            }
            out.append(0x7B)
            let sorted = members.sorted { precedes($0.key, $1.key) }
            for (k, m) in sorted.enumerated() {
                newline(indent + 2, &out)
                writeString(m.key, into: &out)
                out.append(0x3A)
                out.append(0x20)
                write(m.value, indent: indent + 2, into: &out)
                if k < sorted.count - 1 { out.append(0x2C) }
            }
            newline(indent, &out)
            out.append(0x7D)
        }
    }

    static func writeCompact(_ node: JSONNode, into out: inout [UInt8]) {
        switch node.kind {
        case .array(let elements):
            out.append(0x5B)
            for (k, e) in elements.enumerated() {
                if k > 0 { out.append(contentsOf: [0x2C, 0x20]) }
                writeCompact(e, into: &out)
            }
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            for (k, m) in members.sorted(by: { precedes($0.key, $1.key) }).enumerated() {
                if k > 0 { out.append(contentsOf: [0x2C, 0x20]) }
                writeString(m.key, into: &out)
                out.append(contentsOf: [0x3A, 0x20])
                writeCompact(m.value, into: &out)
            }
            out.append(0x7D)
        default:
            write(node, indent: 0, into: &out)
        }
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x08: out += [0x5C, 0x62]
            case 0x09: out += [0x5C, 0x74]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0C: out += [0x5C, 0x66]
            case 0x0D: out += [0x5C, 0x72]
            case 0x00..<0x20: out += [0x5C, 0x75, 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]]
            default: out.append(b)
            }
        }
        out.append(0x22)
    }

    static func shortestDigits(_ value: Double) -> (digits: [UInt8], n: Int) {
        let text = Array(value.magnitude.description.utf8)
        var mantissa = text[...]
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == 0x65 || $0 == 0x45 }) {
            mantissa = text[..<e]
            exponent = Int(String(decoding: text[(e + 1)...], as: UTF8.self)) ?? 0
        }
        var digits: [UInt8] = []
        var pointAt: Int? = nil
        for c in mantissa {
            if c == 0x2E { pointAt = digits.count } else { digits.append(c) }
        }
        var n = (pointAt ?? digits.count) + exponent
        var lead = 0
        while lead < digits.count, digits[lead] == 0x30 { lead += 1 }
        digits.removeFirst(lead)
        n -= lead
        while let last = digits.last, last == 0x30 { digits.removeLast() }
        return (digits, digits.isEmpty ? 1 : n)
    }

    static func ecmaScript(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        let (digits, n) = shortestDigits(value)
        if digits.isEmpty { return "0" }
        let k = digits.count
        var out: [UInt8] = value < 0 ? [0x2D] : []
        if k <= n && n <= 21 {
            out += digits
            out += [UInt8](repeating: 0x30, count: n - k)
        } else if 0 < n && n <= 21 {
            out += digits[..<n]
            out.append(0x2E)
            out += digits[n...]
        } else if -6 < n && n <= 0 {
            out += [0x30, 0x2E]
            out += [UInt8](repeating: 0x30, count: -n)
            out += digits
        } else {
            let e = n - 1
            out.append(digits[0])
            if k > 1 {
                out.append(0x2E)
                out += digits[1...]
            }
            out.append(0x65)
            out.append(e < 0 ? 0x2D : 0x2B)
            out += Array(String(abs(e)).utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func canonicalDouble(_ value: Double) -> String {
        if !value.isFinite { return "null" }
        if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
        let s = ecmaScript(value)
        if s.utf8.contains(where: { $0 == 0x2E || $0 == 0x65 }) { return s }
        return s + ".0"
    }
}
