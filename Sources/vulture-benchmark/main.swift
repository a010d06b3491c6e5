import Foundation
import VultureSyncSchema

// vulture-benchmark [ids]: throughput against reference tools measured in the same run.
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "ids-child":
    exit(IdsBenchmark.child(Array(arguments.dropFirst())))
case nil, "ids":
    do { try IdsBenchmark.run() } catch {
        print("ids benchmark: \(error)")
        exit(2)
    }
default:
    print("usage: vulture-benchmark [ids]")
    exit(2)
}
