import Foundation
import VultureSimulation
import VultureSyncEngine

let args = Array(CommandLine.arguments.dropFirst())
if args.first == "bugs" {
    for bug in InjectedBug.allCases {
        var first: UInt64?
        var kinds: [String: Int] = [:]
        for seed in 1...1000 {
            let o = Simulation.run(SimulationOptions(seed: UInt64(seed), injectedBug: bug))
            if let f = o.failure {
                first = first ?? UInt64(seed)
                kinds[f.violation.invariant.rawValue, default: 0] += 1
            }
        }
        print("\(bug.rawValue): first \(first.map(String.init) ?? "none"), \(kinds)")
    }
    exit(0)
}
