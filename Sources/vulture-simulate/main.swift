import Foundation
import VultureSimulation

let args = Array(CommandLine.arguments.dropFirst())
if args.first == "trace", let s = UInt64(args[1]) {
    let o = Simulation.run(SimulationOptions(seed: s))
    print(o.trace.joined(separator: "\n"))
    print(o.failure.map { "FAIL step \($0.step): \($0.violation)" } ?? "ok")
    exit(0)
}
var failed = 0
let n = Int(args.first ?? "50") ?? 50
for seed in 1...n {
    let o = Simulation.run(SimulationOptions(seed: UInt64(seed)))
    if let f = o.failure {
        failed += 1
        print("seed \(seed) step \(f.step): \(f.violation)")
    }
}
print("\(n - failed) passed, \(failed) failed")
