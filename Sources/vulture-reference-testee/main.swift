import Foundation
import VultureCommandLine
import VultureConformance
import VultureReference
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

// The reference testee: this package's own codec served over the testee protocol, so the runner's
// process handling is exercised end to end (`vulture-conformance run --testee vulture-reference-testee`).
let usage = """
    usage: vulture-reference-testee [--inject BUG]

    Speaks the testee protocol (Goldens/protocol/README.md) on stdin/stdout, answering every
    case with the reference implementation, and the engine operations of the scenarios with the
    reference sync engine. Run it through the runner:
      swift run vulture-conformance run --testee "$(swift build --show-bin-path)/vulture-reference-testee"

      --inject BUG  give the engines a known bug, to see a scenario catch it: \(InjectedBug.allCases.map(\.rawValue).joined(separator: ", "))

    Exit status: 0 after the runner's stop or the end of stdin, 2 usage error.
    """

let tool = CommandLineTool(name: "vulture-reference-testee", usage: usage)
tool.run { arguments in
    let args = try CommandLineArguments(arguments, valueOptions: ["inject"])
    _ = try args.positionals()
    var bugs: Set<InjectedBug> = []
    if let name = args.option("inject") {
        guard let bug = InjectedBug(rawValue: name) else {
            throw UsageError(
                message:
                    "--inject: no bug \(name); one of \(InjectedBug.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        bugs.insert(bug)
    }
    var server = TesteeServer(
        implementation: ReferenceImplementation(schema: .vulture, injectedBugs: bugs),
        name: "vulture-reference-testee (Swift reference codec)"
            + (bugs.isEmpty ? "" : " with \(bugs.map(\.rawValue).sorted())")
    )
    server.serve()
    return 0
}
