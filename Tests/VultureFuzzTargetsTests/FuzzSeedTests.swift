import Foundation
import Testing
import VultureFuzzTargets

/// Every fuzz harness (Tools/fuzz) on every seed the goldens give it and on every input a fuzzer once
/// failed on (Tools/fuzz/regressions/TARGET): what the fuzzers start from holds, and no fixed fault
/// comes back. Without jansson here, json-differential compares the project's readers only.
@Suite struct FuzzSeedTests {
    @Test(arguments: FuzzTarget.allCases)
    func everySeedPasses(_ target: FuzzTarget) throws {
        let seeds = FuzzSeeds.seeds(target)
        #expect(seeds.count >= 5, "\(target.rawValue) has \(seeds.count) seeds")
        for seed in seeds {
            #expect(throws: Never.self, "\(target.rawValue) on a seed of \(seed.count) bytes") { try target.run(seed) }
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySavedRegressionPasses(_ target: FuzzTarget) throws {
        let folder = FuzzSeeds.regressionsFolder(target)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }
        for name in names.sorted() {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            #expect(throws: Never.self, "\(target.rawValue)/\(name)") { try target.run(bytes) }
        }
    }
}
