import Foundation

/// A parsed JSON text, before any typed meaning: what the strict reader produces and the canonical
/// writer prints. Numbers keep whether they were written as integers (no fraction, no exponent).
///
/// `offset` is the byte offset of the node's first byte in its source (-1 when built in code);
/// readers turn it into line:column for errors. Objects keep their members in source order.
public struct JSONNode: Sendable {
    /// A node's JSON type and contents.
    public indirect enum Kind: Sendable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number written without fraction or exponent that fits int64.
        case integer(Int64)
        /// A number written without fraction or exponent that does not fit int64 (its text).
        case bigInteger(String)
        /// A number written with a fraction or an exponent (±Infinity when it overflows a double).
        case double(Double)
        /// A string, escapes decoded.
        case string(String)
        /// An array, elements in order.
        case array([JSONNode])
        /// An object, members in source order (the strict reader rejects duplicate keys).
        case object([JSONMember])
    }

    /// The node's JSON type and contents.
    public var kind: Kind
    /// Byte offset of the node's first byte in its source; -1 when built in code.
    public var offset: Int

    /// A node; `offset` is -1 for a node built in code.
    public init(_ kind: Kind, offset: Int = -1) {
        self.kind = kind
        self.offset = offset
    }

    /// The JSON type's name, for messages: null, boolean, integer, number, string, array, object.
    public var typeName: String {
        switch kind {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .bigInteger: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// One member of a JSON object: its key (and the key's byte offset) and value.
public struct JSONMember: Sendable {
    /// The member name, escapes decoded.
    public var key: String
    /// Byte offset of the key's opening quote in its source; -1 when built in code.
    public var keyOffset: Int
    /// The member's value.
    public var value: JSONNode

    /// A member; `keyOffset` is -1 for a member built in code.
    public init(key: String, keyOffset: Int = -1, value: JSONNode) {
        self.key = key
        self.keyOffset = keyOffset
        self.value = value
    }
}

/// Source text for error positions: turns a byte offset into 1-based line and column (Unicode
/// scalars) lazily, only when an error is reported.
package struct JSONSourceText {
    package let bytes: [UInt8]
    package let file: String?

    package init(bytes: [UInt8], file: String?) {
        self.bytes = bytes
        self.file = file
    }

    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var i = 0
        let end = min(max(offset, 0), bytes.count)
        while i < end {
            let b = bytes[i]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }

    /// The error with file, line and column filled from `offset` (left as is when `offset` < 0).
    package func locate(_ error: SchemaInputError, at offset: Int) -> SchemaInputError {
        var e = error
        e.file = e.file ?? file
        if offset >= 0, e.line == nil {
            let (l, c) = position(of: offset)
            e.line = l
            e.column = c
        }
        return e
    }
}
