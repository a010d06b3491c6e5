import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureSyncSchema
import VultureTesteeProcess

@Suite struct TesteeServerTests {
    static func server() -> TesteeServer<ReferenceImplementation> {
        TesteeServer(implementation: ReferenceImplementation(schema: .vulture), name: "ref")
    }

    @Test func handshakeCaseAndStop() {
        var s = Self.server()
        #expect(
            s.handle(line: #"{"type": "start", "protocolVersion": 1, "suiteVersion": "0.1.0"}"#).reply
                == #"{"implementation": "ref", "protocolVersion": 1, "type": "started"}"#)
        let answer = s.handle(
            line: #"{"type": "case", "seq": 7, "case": "x", "op": "id.homebase", "input": {"name": " KLIPPENECK "}}"#)
        #expect(
            answer.reply == #"{"output": "a4f7eaa79c7ead6b00e1875d70d7190baf681022d988e0ef2ed02d85a70e3792", "seq": 7}"#
        )
        let rejection = s.handle(
            line:
                #"{"type": "case", "seq": 8, "case": "x", "op": "id.recentCompetition", "input": {"competitionId": "a/b"}}"#
        )
        #expect(rejection.reply?.hasPrefix(#"{"error": {"code": "id.contains-slash""#) == true)
        let unknown = s.handle(line: #"{"type": "case", "seq": 9, "case": "x", "op": "no.such.op", "input": {}}"#)
        #expect(unknown.reply?.hasPrefix(#"{"seq": 9, "skipped": "#) == true)
        #expect(s.handle(line: #"{"type": "stop"}"#) == (nil, true))
    }

    @Test(arguments: [
        (#"{"type": "start", "protocolVersion": 2, "suiteVersion": "9.0.0"}"#, "protocol.unsupported-version", true),
        (#"{"type": "case", "seq": 1, "case": "x", "op": "id.homebase", "input": {}}"#, "protocol.not-started", false),
        (#"not json"#, "protocol.unreadable", false),
        (#"{"type": "dance"}"#, "protocol.unknown-type", false),
    ])
    func protocolErrorsAreTypedReplies(_ line: String, _ code: String, _ stops: Bool) {
        var s = Self.server()
        let (reply, stop) = s.handle(line: line)
        #expect(reply?.contains(#""code": "\#(code)""#) == true, "\(reply ?? "nil")")
        #expect(stop == stops)
    }

    /// The reference testee executable passes the whole suite through the runner's process driver.
    @Test(.enabled(if: ConformanceCLI.executable != nil, "executables are not built"))
    func referenceTesteePassesTheSuiteOverTheProtocol() throws {
        let exe = URL(fileURLWithPath: try #require(ConformanceCLI.executable)).deletingLastPathComponent()
            .appendingPathComponent("vulture-reference-testee").path
        try #require(FileManager.default.isExecutableFile(atPath: exe))
        let suite = try GoldenSuite.load()
        var testee = TesteeProcess(command: "'\(exe)'", timeout: 20, suiteVersion: suite.version)
        try testee.start()
        let run = ConformanceRunner.run(suite.cases, on: &testee)
        testee.stop()
        #expect(run.summary == RunSummary(passed: suite.cases.count, failed: 0, skipped: 0))
        #expect(testee.starts == 1, "one long-lived process")
    }
}
