import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// The testee side of the testee protocol (Goldens/protocol/README.md; Goldens/protocol/README.md): serves any
/// ``ConformanceImplementation`` over JSON Lines, so a Swift implementation (an iOS encoder)
/// becomes a testee with a few lines:
///
///     var server = TesteeServer(implementation: MyEncoder(), name: "my-encoder 1.0")
///     server.serve()   // reads stdin, writes stdout, returns on stop or end of input
public struct TesteeServer<Implementation: ConformanceImplementation> {
    /// What answers each case the runner sends.
    public var implementation: Implementation
    /// What `started` names as the implementation.
    public let name: String
    private var started = false
    /// Where the engine operations' server requests go: by default a `{"seq", "server"}` line on stdout,
    /// answered by the runner's next line on stdin.
    var serverChannel: (Int64) -> EngineServerChannel = { StandardIOServerChannel(seq: $0) }

    /// A server for `implementation`; `name` is what the `started` reply names (`my-encoder 1.0`).
    public init(implementation: Implementation, name: String) {
        self.implementation = implementation
        self.name = name
    }

    /// What to do with one request line: the reply line to write (nil for none) and whether to stop.
    /// Requests before `start`, unreadable lines and unknown message types get a protocol error
    /// reply, never a crash.
    public mutating func handle(line: String) -> (reply: String?, stop: Bool) {
        func errorLine(_ code: ErrorCode, _ message: String, seq: Int64? = nil) -> String {
            var m: [String: FirestoreValue] = [
                "error": .map(["code": .string(code.rawValue), "message": .string(message)])
            ]
            if let seq { m["seq"] = .integer(seq) } else { m["type"] = .string("error") }
            return CanonicalJSON.compactString(.map(m))
        }
        guard case .object(let members)? = try? StrictJSONReader.parse(Array(line.utf8)).kind else {
            return (errorLine(.protocolUnreadable, "a request is one JSON object per line"), false)
        }
        func member(_ k: String) -> JSONNode? { members.first { $0.key == k }?.value }
        switch member("type")?.kind {
        case .string("start")?:
            guard case .integer(TesteeProtocol.version)? = member("protocolVersion")?.kind else {
                return (
                    errorLine(
                        .protocolUnsupportedVersion, "this testee speaks protocol version \(TesteeProtocol.version)"),
                    true
                )
            }
            started = true
            let reply: FirestoreValue = .map([
                "type": .string("started"), "protocolVersion": .integer(TesteeProtocol.version),
                "implementation": .string(name),
            ])
            return (CanonicalJSON.compactString(reply), false)
        case .string("stop")?:
            return (nil, true)
        case .string("case")?:
            guard case .integer(let seq)? = member("seq")?.kind else {
                return (errorLine(.protocolShape, "a case has an integer seq"), false)
            }
            guard started else { return (errorLine(.protocolNotStarted, "send start first", seq: seq), false) }
            guard case .string(let id)? = member("case")?.kind, case .string(let op)? = member("op")?.kind,
                let inputNode = member("input")
            else { return (errorLine(.protocolShape, "a case has case, op and input", seq: seq), false) }
            let input: FirestoreValue
            do {
                input = try CanonicalJSON.decode(node: inputNode, sourceBytes: Array(line.utf8), file: "request")
            } catch {
                return (errorLine(.inputCanonical, "\(error)", seq: seq), false)
            }
            let c = ConformanceCase(id: id, section: "", op: op, input: input, expected: .output(.null))
            var reply: [String: FirestoreValue] = ["seq": .integer(seq)]
            switch implementation.answer(c, server: serverChannel(seq)) {
            case .output(let v): reply["output"] = v
            case .error(let code, let message):
                reply["error"] = .map(["code": .string(code), "message": .string(message)])
            case .skipped(let reason): reply["skipped"] = .string(reason)
            case .broken(let message):
                reply["error"] = .map([
                    "code": .string(ErrorCode.implementationBroken.rawValue), "message": .string(message),
                ])
            }
            return (CanonicalJSON.compactString(.map(reply)), false)
        default:
            return (errorLine(.protocolUnknownType, "type is start, case or stop"), false)
        }
    }

    /// Serves requests from stdin until `stop` or end of input; replies go to stdout, flushed per line.
    public mutating func serve() {
        while let line = readLine(strippingNewline: true) {
            let (reply, stop) = handle(line: line)
            if let reply {
                FileHandle.standardOutput.write(Data((reply + "\n").utf8))
            }
            if stop { return }
        }
    }
}

/// The testee's side of the server requests of an engine operation (Goldens/protocol/README.md, Server
/// requests): `{"seq": n, "server": request}` on stdout, the runner's `{"type": "server", "seq": n,
/// "result" | "error"}` read from stdin.
final class StandardIOServerChannel: EngineServerChannel {
    let seq: Int64

    init(seq: Int64) { self.seq = seq }

    func request(_ request: FirestoreValue) -> FirestoreValue {
        func failure(_ message: String) -> FirestoreValue {
            .map(["error": .map(["code": .string(ErrorCode.protocolShape.rawValue), "message": .string(message)])])
        }
        let line = CanonicalJSON.compactString(.map(["seq": .integer(seq), "server": request]))
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        guard let answer = readLine(strippingNewline: true) else { return failure("stdin ended") }
        guard case .map(var m)? = try? CanonicalJSON.decode(Array(answer.utf8), file: "server answer"),
            m["type"] == .string("server"), m["seq"] == .integer(seq)
        else { return failure("expected {\"type\": \"server\", \"seq\": \(seq), …}, got \(answer.prefix(200))") }
        m["type"] = nil
        m["seq"] = nil
        return .map(m)
    }
}
