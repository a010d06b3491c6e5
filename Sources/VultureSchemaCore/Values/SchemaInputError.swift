// InputRule, the ids of these errors, is generated from Spec/rules.tsv (Generated/InputRule.swift).

/// A typed error for bad input: which file, where (line:column and JSON pointer), and the rule broken.
///
/// Thrown by every reader of this module (canonical JSON, REST JSON, value validation); never a crash.
/// `line` and `column` are 1-based; the column counts Unicode scalars. `pointer` is an RFC 6901 JSON
/// pointer into the input (`""` for the whole document). Values built in code have no line.
public struct SchemaInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the input came from, when known.
    public var file: String?
    /// 1-based line of the offending token, when the input was text.
    public var line: Int?
    /// 1-based column (Unicode scalars) of the offending token, when the input was text.
    public var column: Int?
    /// RFC 6901 JSON pointer to the offending value or key.
    public var pointer: String
    /// The rule broken.
    public var rule: InputRule
    /// What is wrong, for a person.
    public var message: String

    /// Creates an error; `file`, `line` and `column` may be filled in later by the reader.
    public init(
        rule: InputRule, pointer: String, message: String, file: String? = nil, line: Int? = nil,
        column: Int? = nil
    ) {
        self.rule = rule
        self.pointer = pointer
        self.message = message
        self.file = file
        self.line = line
        self.column = column
    }

    /// `FILE:LINE:COLUMN: /pointer: RULE-ID: message`, leaving out the parts that are unknown.
    public var description: String {
        var s = ""
        if let file { s += file + ":" }
        if let line, let column { s += "\(line):\(column):" }
        if !s.isEmpty { s += " " }
        return s + "\(pointer.isEmpty ? "/" : pointer): \(rule.rawValue): \(message)"
    }
}

/// Builds RFC 6901 JSON pointers (`~` → `~0`, `/` → `~1`).
public enum JSONPointer {
    /// The pointer `parent/token`, escaping the token.
    public static func appending(_ parent: String, _ token: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(token.utf8.count)
        for ch in token.unicodeScalars {
            switch ch {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(ch)
            }
        }
        return parent + "/" + escaped
    }

    /// The pointer `parent/index`.
    public static func appending(_ parent: String, _ index: Int) -> String {
        parent + "/" + String(index)
    }
}

/// One step of a path into a JSON document: an object key or an array index.
enum PathToken: Sendable {
    case key(String)
    case index(Int)

    /// The RFC 6901 pointer of a path.
    static func pointer(_ path: [PathToken]) -> String {
        var p = ""
        for t in path {
            switch t {
            case .key(let k): p = JSONPointer.appending(p, k)
            case .index(let i): p = JSONPointer.appending(p, i)
            }
        }
        return p
    }
}
