import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// The testee protocol (Goldens/protocol/README.md): JSON Lines
/// over the testee's stdin and stdout, one long-lived process.
///
/// Runner → testee, one JSON object per line:
/// - `{"type": "start", "protocolVersion": 1, "suiteVersion": "…"}` — first; the testee answers
///   `{"type": "started", "protocolVersion": 1, "implementation": "…"}` or, for a version it does not
///   know, `{"type": "error", "error": {"code": "protocol.unsupported-version", "message": "…"}}`;
/// - `{"type": "case", "seq": n, "case": "id", "op": "…", "input": <canonical typed JSON>}` —
///   answered by `{"seq": n, "output": <canonical typed JSON>}`, `{"seq": n, "error": {"code": "…",
///   "message": "…"}}` or `{"seq": n, "skipped": "reason"}`;
/// - while an engine operation's case is open the testee may send server requests
///   `{"seq": n, "server": {"op": "commit" | "get" | "runQuery" | "upload" | "download" | "delete", "device", …}}`,
///   each answered by `{"type": "server", "seq": n, "result": …}` or `{"type": "server", "seq": n,
///   "error": {"code", "message"}}` before the case's answer;
/// - `{"type": "stop"}` — last; the testee exits 0 without answering.
public enum TesteeProtocol {
    /// The protocol version this runner speaks.
    public static let version: Int64 = 1

    /// The `start` line.
    public static func startLine(suiteVersion: String) -> String {
        line([
            "type": .string("start"), "protocolVersion": .integer(version), "suiteVersion": .string(suiteVersion),
        ])
    }

    /// The `stop` line.
    public static var stopLine: String { line(["type": .string("stop")]) }

    /// The request line of a case.
    public static func caseLine(seq: Int64, _ c: ConformanceCase) -> String {
        line([
            "type": .string("case"), "seq": .integer(seq), "case": .string(c.id), "op": .string(c.op),
            "input": c.input,
        ])
    }

    static func line(_ fields: [String: FirestoreValue]) -> String {
        CanonicalJSON.compactString(.map(fields))
    }

    /// The server request a testee's line to request `seq` holds (`{"seq": n, "server": request}`), or nil
    /// when the line is something else (the case's answer).
    public static func serverRequest(_ text: String, seq: Int64) -> FirestoreValue? {
        guard text.contains("\"server\""),
            case .map(let m)? = try? CanonicalJSON.decode(Array(text.utf8), file: "testee stdout"),
            m["seq"] == .integer(seq), m.count == 2, let request = m["server"]
        else { return nil }
        return request
    }

    /// The runner's answer line to a server request: `{"type": "server", "seq": n, "result" | "error": …}`.
    public static func serverAnswerLine(seq: Int64, _ answer: FirestoreValue) -> String {
        var m = answer.mapValue ?? [:]
        m["type"] = .string("server")
        m["seq"] = .integer(seq)
        return line(m)
    }

    /// Interprets a testee's answer line to request `seq`.
    /// - Returns: the answer, or `.broken` naming what is wrong with the line.
    public static func parseAnswer(_ text: String, seq: Int64) -> ImplementationAnswer {
        let members: [JSONMember]
        let shown = FailureExplanation.escapeInvisible(FailureExplanation.cut(text, to: 200))
        do {
            guard case .object(let m) = try StrictJSONReader.parse(Array(text.utf8), file: "testee stdout").kind else {
                return .broken("protocol: an answer is a JSON object, got the line: \(shown)")
            }
            members = m
        } catch {
            return .broken("protocol: unreadable answer line (\(error)); the line: \(shown)")
        }
        func member(_ k: String) -> JSONNode? { members.first { $0.key == k }?.value }
        guard case .integer(let got)? = member("seq")?.kind else {
            return .broken("protocol: the answer has no integer seq; the line: \(shown)")
        }
        guard got == seq else {
            // An earlier seq: the case it names was answered before, and this line is a second answer.
            let why = got < seq ? " (a second answer to an earlier case: its first was taken)" : ""
            return .broken("protocol: answered seq \(got), expected \(seq)\(why); the line: \(shown)")
        }
        let kinds = members.map(\.key).filter { $0 != "seq" }
        guard kinds.count == 1 else {
            return .broken(
                "protocol: an answer has seq and exactly one of output, error, skipped; got \(kinds); the line: \(shown)"
            )
        }
        let value = members.first { $0.key == kinds[0] }!.value
        switch kinds[0] {
        case "output":
            do {
                return .output(try CanonicalJSON.decode(node: value))
            } catch {
                return .broken("protocol: output is not canonical typed JSON: \(error); the line: \(shown)")
            }
        case "error":
            guard case .object(let e) = value.kind,
                case .string(let code)? = e.first(where: { $0.key == "code" })?.value.kind
            else { return .broken("protocol: error must be {code: string, message: string}; the line: \(shown)") }
            var message = ""
            if case .string(let m)? = e.first(where: { $0.key == "message" })?.value.kind { message = m }
            return .error(code: code, message: message)
        case "skipped":
            guard case .string(let reason) = value.kind else {
                return .broken("protocol: skipped must be a string; the line: \(shown)")
            }
            return .skipped(reason: reason)
        default:
            return .broken("protocol: unknown answer member \"\(kinds[0])\"; the line: \(shown)")
        }
    }
}
