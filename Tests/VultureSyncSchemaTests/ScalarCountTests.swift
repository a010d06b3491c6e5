import Testing

@testable import VultureSyncSchema

/// The `maxChars` check counts Unicode scalars from UTF-8 bytes a word at a time: the counts of the
/// standard library's scalar view, around the limit, for one- to four-byte scalars and mixtures,
/// short and far longer than one batch of words.
@Suite struct ScalarCountTests {
    @Test func countsAgreeWithTheScalarView() {
        var rng = SplitMix64(state: 0x5CA1_A125)
        let scalars: [String] = ["a", "é", "€", "🪂", "\u{301}", "\u{0}"]
        for limit in [1, 2, 7, 8, 9, 300, 10_000] {
            for scalar in scalars {
                for count in [limit - 1, limit, limit + 1] where count >= 0 {
                    let s = String(repeating: scalar, count: count)
                    #expect(
                        SchemaValidator.hasAtMostScalars(s, limit) == (count <= limit),
                        "\(count) × \(scalar.unicodeScalars.first!.value) against \(limit)")
                }
            }
            for _ in 0..<20 {
                var s = ""
                for _ in 0..<Int.random(in: 0...(limit + 3), using: &rng) { s += scalars.randomElement(using: &rng)! }
                #expect(
                    SchemaValidator.hasAtMostScalars(s, limit) == (s.unicodeScalars.count <= limit),
                    "\(s.unicodeScalars.count) scalars in \(s.utf8.count) bytes against \(limit)")
            }
        }
    }
}
