import Foundation
import Testing
import VultureChildProcess
import VultureSchemaCore

@testable import VultureSyncSchema

/// Compares our home base ids with the JVM's (schema §4: Android computes `name.trim().lowercase()`
/// with Kotlin on the JVM). The oracle is Tools/jvm/HomebaseIds.java, compiled and run with
/// `javac`/`java` from PATH (apt package openjdk-17-jdk-headless); skipped when javac is absent.
@Suite(
    "Home base id against the JVM oracle (schema §4)",
    .enabled(
        if: IdsTestSupport.which("javac") != nil && IdsTestSupport.which("java") != nil,
        "javac/java not on PATH (apt package openjdk-17-jdk-headless)"
    ),
    .enabled("java on PATH is not Java 17 (Unicode 13, the version the tables follow)") {
        try IdsTestSupport.isJava17(IdsTestSupport.which("java") ?? "java")
    }
)
struct IdsJVMOracleTests {
    /// Code points whose trimming or lowercasing is special on either side.
    static func specialScalars() -> [Unicode.Scalar] {
        var values = Set<UInt32>()
        for u in JVMTextTables.whitespaceCodeUnits { values.insert(UInt32(u)) }
        var i = 0
        while i < JVMTextTables.lowercasePairs.count {
            values.insert(JVMTextTables.lowercasePairs[i])
            values.insert(JVMTextTables.lowercasePairs[i + 1])
            i += 2
        }
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            let p = s.properties
            if p.isWhitespace || p.changesWhenLowercased || p.lowercaseMapping != String(s) { values.insert(v) }
        }
        for v: UInt32 in [
            0x00, 0x08, 0x0E, 0x7F, 0x85, 0x180E, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x03A3, 0x0130, 0x0131,
        ] {
            values.insert(v)
        }
        return values.sorted().compactMap(Unicode.Scalar.init)
    }

    /// Neighbours for the final-sigma word rule: one of each class Java's word iterator knows.
    static let sigmaNeighbours: [String] = {
        var out: [String] = []
        for v in UInt32(0x20)...0x7E { out.append(String(Unicode.Scalar(v)!)) }
        let extra: [UInt32] = [
            0x09, 0x0A, 0x0D, 0xA0, 0xAD, 0xA2, 0xB5, 0xC0, 0xE9, 0x01C5, 0x02B0, 0x0300, 0x0301, 0x0345, 0x0391,
            0x03B1,
            0x0386, 0x03C2, 0x03A3, 0x05D0, 0x0627, 0x0660, 0x066A, 0x066B, 0x0903, 0x0964, 0x0965, 0x0E01, 0x0E31,
            0x200B, 0x200C, 0x200D, 0x2019, 0x2027, 0x2028, 0x2029, 0x2030, 0x20AC, 0x2160, 0x2170, 0x24B6, 0x24D0,
            0x3000, 0x3005, 0x3041, 0x30A1, 0x30FC, 0x4E00, 0xE000, 0xFEFF, 0xFF21, 0x1D400, 0x10400, 0x1F600,
            0x5F, 0x203F, 0xFE33, 0x20000, 0x1F3FB, 0xE0041, 0x10000, 0x1D165, 0x1D7CE, 0x3400, 0x9FA6, 0xFA6A, 0xF900,
        ]
        for v in extra { out.append(String(Unicode.Scalar(v)!)) }
        return out
    }()

    static func names() -> [String] {
        var names: [String] = []
        for s in specialScalars() {
            let c = String(s)
            names += [c, "Base\(c)", "\(c)Base", " \(c)Home \(c)BASE\(c) ", "AB\(c)CD", "\(c)\(c)x\(c)\(c)"]
        }
        let sigma = "\u{3A3}"
        let alpha = "\u{391}"
        for c in sigmaNeighbours {
            names += [
                "\(alpha)\(sigma)\(c)", "\(alpha)\(c)\(sigma)", "\(alpha)\(sigma)\(c)\(alpha)", "\(c)\(sigma)",
                "\(c)\(sigma)\(alpha)", "1\(c)\(sigma)", "\(alpha)\(sigma)\(c)1", "\(alpha)\(c)\(c)\(sigma) x",
                "\(alpha)1\(c)1\(sigma)", "$1\(c)\(alpha)\(sigma)",
            ]
        }
        names += [
            "ΟΔΟΣ", "ΟΔΥΣΣΕΥΣ", "ΣΑΣ", "Σ", "ΣΣ", "ΑΣ's", "Α'Σ", "Α.Σ", "Α-Σ", "ΑΣ-Α", "ΑΣ1Α", "ΑΣ1", "1ΑΣ", "Α1Σ",
            "Α\u{300}Σ", "ΑΣ\u{300}", "ΑΣ\u{300}Α", "\u{300}Σ", "ΑΣ%", "Α1%Σ", "Α1.2Σ", "$1Σ", "Α--Σ", "Α१Σ", "Α।Σ",
            "ΑΣ।", "ΑΣ।1", "Α__Σ", "Α_", "_Σ", "Α\u{AD}Σ", "Α\u{AD}Σ\u{AD}Α", "Α漢Σ", "ΑΣ漢", "ΑカΣ", "Σ\u{345}",
            "Α\u{345}Σ", "ǅΣ", "ʰΣ", "ΑΣʰ", "Ⓐ Σ", "ⒶΣ",
        ]
        return names
    }

    @Test func homebaseIdsMatchTheJVM() throws {
        let javac = try #require(IdsTestSupport.which("javac"))
        let java = try #require(IdsTestSupport.which("java"))
        let dir = try IdsTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = IdsTestSupport.packageRoot.appendingPathComponent("Tools/jvm/HomebaseIds.java").path
        let compile = try IdsTestSupport.run(javac, ["-d", dir.path, source])
        #expect(compile.status == 0, "javac failed: \(compile.stderr)")
        guard compile.status == 0 else { return }
        let names = Self.names()
        #expect(names.count > 10_000)
        let input = names.map { IdsTestSupport.hex(Data($0.utf8)) }.joined(separator: "\n") + "\n"
        let run = try IdsTestSupport.run(java, ["-cp", dir.path, "HomebaseIds"], input: Data(input.utf8))
        #expect(run.status == 0, "java failed: \(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == names.count)
        var mismatches: [String] = []
        for (name, line) in zip(names, lines) {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                mismatches.append("bad oracle line \(line)")
                continue
            }
            let oursKey = IdsTestSupport.hex(Data(DocumentIds.homebaseKey(name: name).utf8))
            let oursId = DocumentIds.homebaseId(name: name)
            // Documented divergence (JVMText): JDK 17's word iterator around surrogate pairs next to Σ.
            let knownDivergence =
                name.unicodeScalars.contains("\u{3A3}") && name.unicodeScalars.contains { $0.value > 0xFFFF }
            if knownDivergence { continue }
            if oursKey != parts[0] || oursId != parts[1] {
                let cps = name.unicodeScalars.map { String(format: "U+%04X", $0.value) }.joined(separator: " ")
                mismatches.append("[\(cps)] ours \(oursKey) jvm \(parts[0])")
            }
        }
        #expect(
            mismatches.isEmpty,
            "\(mismatches.count) of \(names.count) differ, first: \(mismatches.prefix(20).joined(separator: "\n"))")
    }

    /// Every home-base id golden (Goldens/vectors/ids.json) is what the JVM computes: the goldens
    /// are held to Android's semantics, not only to this package's.
    @Test func homebaseGoldensMatchTheJVM() throws {
        let javac = try #require(IdsTestSupport.which("javac"))
        let java = try #require(IdsTestSupport.which("java"))
        let goldens = IdsTestSupport.packageRoot.appendingPathComponent("Goldens/vectors/ids.json")
        let file = try CanonicalJSON.decode(Data(contentsOf: goldens), file: "Goldens/vectors/ids.json")
        guard case .array(let cases)? = file.mapValue?["cases"] else {
            Issue.record("ids.json has no cases")
            return
        }
        var names: [String] = []
        var expected: [String] = []
        for c in cases {
            guard case .string("id.homebase")? = c.mapValue?["op"],
                case .string(let name)? = c.mapValue?["input"]?.mapValue?["name"],
                case .string(let id)? = c.mapValue?["output"]
            else { continue }
            names.append(name)
            expected.append(id)
        }
        #expect(names.count >= 10)
        let dir = try IdsTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = IdsTestSupport.packageRoot.appendingPathComponent("Tools/jvm/HomebaseIds.java").path
        let compile = try IdsTestSupport.run(javac, ["-d", dir.path, source])
        try #require(compile.status == 0, "javac failed: \(compile.stderr)")
        let input = names.map { IdsTestSupport.hex(Data($0.utf8)) }.joined(separator: "\n") + "\n"
        let run = try IdsTestSupport.run(java, ["-cp", dir.path, "HomebaseIds"], input: Data(input.utf8))
        let jvmIds = run.stdout.split(separator: "\n").map {
            $0.split(separator: " ").last.map(String.init) ?? ""
        }
        #expect(jvmIds == expected)
    }

    /// The checked-in table is exactly what Tools/jvm/GenerateJvmTextTables.java prints on this JVM.
    @Test func checkedInTablesMatchTheJVM() throws {
        let javac = try #require(IdsTestSupport.which("javac"))
        let java = try #require(IdsTestSupport.which("java"))
        let dir = try IdsTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = IdsTestSupport.packageRoot
        let compile = try IdsTestSupport.run(
            javac, ["-d", dir.path, root.appendingPathComponent("Tools/jvm/GenerateJvmTextTables.java").path])
        #expect(compile.status == 0, "javac failed: \(compile.stderr)")
        guard compile.status == 0 else { return }
        let run = try IdsTestSupport.run(
            java, ["--add-opens", "java.base/java.lang=ALL-UNNAMED", "-cp", dir.path, "GenerateJvmTextTables"])
        #expect(run.status == 0, "java failed: \(run.stderr)")
        let checkedIn = try Data(
            contentsOf: root.appendingPathComponent("Sources/VultureSyncSchema/Ids/Generated/JVMTextTables.swift"))
        #expect(run.standardOutput == checkedIn, "regenerate with the command in Tools/jvm/GenerateJvmTextTables.java")
    }
}
