import Foundation
import VultureCommandLine
import VultureConformance
import VultureSyncSchema

// The reference testee: this package's own codec served over the testee protocol, so the runner's
// process handling is exercised end to end (`vulture-conformance run --testee vulture-reference-testee`).
let usage = """
    usage: vulture-reference-testee

    Speaks the testee protocol (Goldens/protocol/README.md) on stdin/stdout, answering every
    case with the reference implementation. Run it through the runner:
      swift run vulture-conformance run --testee "$(swift build --show-bin-path)/vulture-reference-testee"
    Exit status: 0 after the runner's stop or the end of stdin, 2 usage error.
    """

CommandLineTool(name: "vulture-reference-testee", usage: usage).run { arguments in
    _ = try CommandLineArguments(arguments, valueOptions: []).positionals()
    var server = TesteeServer(
        implementation: ReferenceImplementation(schema: .vulture),
        name: "vulture-reference-testee (Swift reference codec)"
    )
    server.serve()
    return 0
}
