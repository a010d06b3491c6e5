import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// SplitMix64: a small deterministic generator, so every run mutates the same way.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Bad input never crashes: thousands of truncated and byte-mutated files each give a value or a
/// typed error with a position; an accepted value writes back to bytes that read back to it.
@Suite struct ReaderRobustnessTests {
    static var seedDocument: [UInt8] {
        var fields: [String: FirestoreValue] = [:]
        for (i, edge) in edgeValues.enumerated() { fields["f\(i)"] = edge.value }
        fields["nested"] = .map([
            "list": .array(edgeValues.map(\.value).filter { if case .array = $0 { false } else { true } })
        ])
        fields["updatedAt"] = .serverTimestamp
        fields["storageBytes"] = .increment(.integer(42))
        return CanonicalJSON.encode(.map(fields))
    }

    static var seedREST: [UInt8] {
        var fields: [String: FirestoreValue] = [:]
        for (i, edge) in edgeValues.enumerated() { fields["f\(i)"] = edge.value }
        return try! FirestoreRESTJSON.encodeDocument(
            FirestoreRESTDocument(name: "projects/p/databases/d/documents/c/x", fields: fields))
    }

    /// Mutants: every truncation, then random flips, insertions of JSON-significant bytes,
    /// deletions and duplications.
    static func mutants(of seed: [UInt8], random count: Int, seed rngSeed: UInt64) -> [[UInt8]] {
        var out: [[UInt8]] = (0..<seed.count).map { Array(seed[..<$0]) }
        var rng = SplitMix64(state: rngSeed)
        let interesting: [UInt8] =
            Array("{}[]\":,\\$0.-eE \n".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xED, 0xF4, 0xF5, 0xFF]
        for _ in 0..<count {
            var m = seed
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<m.count, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: m[at] = UInt8.random(in: 0...255, using: &rng)
                case 1: m.insert(interesting.randomElement(using: &rng)!, at: at)
                case 2: m.remove(at: at)
                case 3: m[at] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
                default:
                    let end = min(m.count, at + Int.random(in: 1...16, using: &rng))
                    m.insert(contentsOf: m[at..<end], at: at)
                }
                if m.isEmpty { break }
            }
            out.append(m)
        }
        return out
    }

    @Test func canonicalReaderSurvivesMutants() {
        let cases = Self.mutants(of: Self.seedDocument, random: 4000, seed: 0x5EED)
        #expect(cases.count > 5000)
        var accepted = 0
        var rules: Set<InputRule> = []
        for bytes in cases {
            do {
                let v = try CanonicalJSON.decode(bytes, file: "mutant.json")
                accepted += 1
                let again = CanonicalJSON.encode(v)
                #expect(try CanonicalJSON.decode(again) == v)
            } catch let e as SchemaInputError {
                rules.insert(e.rule)
                #expect(e.line != nil && e.column != nil && e.file == "mutant.json", "\(e)")
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
        #expect(accepted < cases.count, "most mutants are invalid")
        #expect(rules.count >= 8, "mutants exercise many rules: \(rules.map(\.rawValue).sorted())")
    }

    @Test func restReaderSurvivesMutants() {
        let cases = Self.mutants(of: Self.seedREST, random: 3000, seed: 0xBEEF)
        for bytes in cases {
            do {
                let doc = try FirestoreRESTJSON.decodeDocument(bytes, file: "mutant.rest.json")
                #expect(try FirestoreRESTJSON.decodeDocument(try FirestoreRESTJSON.encodeDocument(doc)) == doc)
            } catch let e as SchemaInputError {
                #expect(e.line != nil && e.column != nil, "\(e)")
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }
}
