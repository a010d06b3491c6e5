import Foundation
import VultureConformance
import VultureSyncSchema

// The reference testee: this package's own codec served over the testee protocol, so the runner's
// process handling is exercised end to end (`vulture-conformance run --testee vulture-reference-testee`).
if CommandLine.arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
    print(
        """
        usage: vulture-reference-testee

        Speaks the testee protocol (Goldens/protocol/README.md) on stdin/stdout, answering every
        case with the reference implementation. Run it through the runner:
          swift run vulture-conformance run --testee "$(swift build --show-bin-path)/vulture-reference-testee"
        """)
    exit(0)
}
var server = TesteeServer(
    implementation: ReferenceImplementation(schema: .vulture), name: "vulture-reference-testee (Swift reference codec)")
server.serve()
