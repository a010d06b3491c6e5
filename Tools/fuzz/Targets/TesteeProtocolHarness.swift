import Foundation
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// testee-protocol: the input is a session of lines (split at LF). Each line goes to the runner's
/// readers of a testee's lines (an answer, a server request) and to the testee side
/// (`TesteeServer.handle(line:)`) serving an implementation that echoes its input. The testee's every
/// reply must be a line the runner reads: an answer to a case is that case's answer, never "broken".
enum TesteeProtocolHarness {
    static func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        var server = TesteeServer(implementation: EchoImplementation(), name: "fuzz-echo 1")
        for rawLine in input.split(separator: 0x0A, omittingEmptySubsequences: false) {
            // The runner reads a testee's line only when it is UTF-8 (LineQueue); the testee reads
            // stdin as Swift's readLine does, repairing what is not.
            if let text = String(validating: rawLine, as: UTF8.self) {
                _ = TesteeProtocol.parseAnswer(text, seq: 1)
                _ = TesteeProtocol.serverRequest(text, seq: 1)
            }
            let line = String(decoding: rawLine, as: UTF8.self)
            let (reply, stop) = server.handle(line: line)
            if let reply {
                try checkReply(reply, to: line)
            }
            if stop { return }
        }
    }

    /// A reply is one canonical JSON object on one line; a reply to a case with an integer seq is an
    /// answer the runner reads as that case's answer.
    static func checkReply(_ reply: String, to line: String) throws(FuzzViolation) {
        try require(!reply.utf8.contains(0x0A), "a reply spans lines: \(reply)")
        let value = ReadOutcome { try CanonicalJSON.decode(Array(reply.utf8), file: "reply") }
        guard case .map(let members)? = value.value else {
            throw FuzzViolation("the reply \(reply) to \(line) is not a canonical JSON object: \(value.shown)")
        }
        guard case .integer(let seq)? = members["seq"] else { return }
        let answer = TesteeProtocol.parseAnswer(reply, seq: seq)
        if case .broken(let why) = answer { throw FuzzViolation("the runner cannot read the reply \(reply): \(why)") }
        // The server's own protocol errors aside, the answer is the echo of the case's input.
        if case .error(_, let message) = answer, message != EchoImplementation.errorMessage { return }
        guard case .object(let request)? = try? StrictJSONReader.parse(Array(line.utf8)).kind,
            let inputNode = request.first(where: { $0.key == "input" })?.value,
            let input = try? CanonicalJSON.decode(node: inputNode)
        else { return }
        try require(answer == EchoImplementation().answer(input), "the echo of \(input) came back as \(answer)")
    }
}

/// Answers a case with its input (`{"error": code}` as that error, `{"skipped": reason}` as a skip).
struct EchoImplementation: ConformanceImplementation {
    static let errorMessage = "echoed"

    mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer { answer(testCase.input) }

    func answer(_ input: FirestoreValue) -> ImplementationAnswer {
        if case .map(let m) = input, m.count == 1 {
            if case .string(let code)? = m["error"] { return .error(code: code, message: Self.errorMessage) }
            if case .string(let reason)? = m["skipped"] { return .skipped(reason: reason) }
        }
        return .output(input)
    }
}
