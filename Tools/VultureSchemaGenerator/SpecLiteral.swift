import VultureSchemaCore

/// A value written in a `Spec/` cell (defaults, enum cloud values, constants): a typed JSON literal
/// read by the runtime's own canonical typed JSON reader, so a table cell and a golden mean the same
/// thing (`4` an integer, `4.0` a double, `{"$timestamp": …}` a timestamp; Spec/README.md).
enum SpecLiteral {
    /// Reads one cell.
    /// - Throws: ``SpecLiteralError`` naming the column inside the cell and the reader's rule.
    static func parse(_ text: String) throws(SpecLiteralError) -> FirestoreValue {
        do {
            return try CanonicalJSON.decode(Array(text.utf8))
        } catch let error as SchemaInputError {
            throw SpecLiteralError(column: error.column, rule: error.rule.rawValue, message: error.message)
        } catch {
            throw SpecLiteralError(column: nil, rule: InputRule.jsonSyntax.rawValue, message: "\(error)")
        }
    }
}

/// A cell that is not a typed JSON literal: where in the cell, the reader's rule id and what is wrong.
struct SpecLiteralError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based column (Unicode scalars) inside the cell, when known.
    var column: Int?
    /// The canonical reader's rule id (`json.syntax`, `json.duplicate-key`, …).
    var rule: String
    /// What is wrong.
    var message: String

    /// `RULE: message at column N`.
    var description: String { "\(rule): \(message)" + (column.map { " at column \($0)" } ?? "") }
}

extension FirestoreValue {
    /// The value as a Double when it is a number (integer or double).
    var numericValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
