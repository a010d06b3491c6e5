/// A field path: the field names from a document's top level down to one field
/// (`summary.takeoffAt` is `["summary", "takeoffAt"]`), as a write's mask and transforms name fields.
///
/// Text form, Firestore's quoting rules: a segment that is a simple identifier
/// (`[A-Za-z_][A-Za-z_0-9]*`) is written bare; any other segment is written in backticks, with a
/// backslash or a backtick inside it escaped by a backslash; segments are joined with `.`:
///
///     summary.takeoffAt        the names "summary", "takeoffAt"
///     `home base`.`a\`b`       the names "home base", "a`b"
///
/// When reading, a backslash inside backticks escapes any character, as Firestore accepts.
///
/// Ordered segment by segment, each segment by Unicode scalar values (a prefix sorts first), so
/// a mask written in order is deterministic. Source: README, "Writes"; schema §3.
public struct FieldPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The field names, top level first; never empty, no segment empty.
    public let segments: [String]

    package init(unchecked segments: [String]) {
        self.segments = segments
    }

    /// A path from its field names, top level first.
    /// - Throws: `SchemaInputError` (`write.field-path`, pointer "") when `segments` is empty or
    ///   holds an empty name.
    public init(_ segments: [String]) throws {
        guard !segments.isEmpty else {
            throw SchemaInputError(rule: .fieldPath, pointer: "", message: "a field path has at least one field name")
        }
        if let i = segments.firstIndex(where: \.isEmpty) {
            throw SchemaInputError(
                rule: .fieldPath, pointer: "", message: "field name \(i + 1) of the field path is empty")
        }
        self.segments = segments
    }

    /// Parses the text form (`summary.takeoffAt`, or with quoted segments as ``FieldPath`` shows).
    /// - Throws: `SchemaInputError` (`write.field-path`, pointer "") for an empty path, an empty
    ///   segment (`a..b`, a trailing `.`), an unquoted segment that is not a simple identifier
    ///   (`1a`, `é`, `a b`), an unclosed backtick, a dangling backslash, or text after a closing
    ///   backtick that is not `.`.
    public init(parsing text: String) throws {
        func fail(_ why: String) -> SchemaInputError {
            SchemaInputError(rule: .fieldPath, pointer: "", message: "field path \"\(text)\": \(why)")
        }
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { throw fail("empty") }
        var segments: [String] = []
        var i = 0
        while true {
            guard i < scalars.count else { throw fail("ends with '.'") }
            var segment = String.UnicodeScalarView()
            if scalars[i] == "`" {
                i += 1
                var closed = false
                while i < scalars.count {
                    let c = scalars[i]
                    if c == "\\" {
                        guard i + 1 < scalars.count else { throw fail("a backslash ends the path") }
                        segment.append(scalars[i + 1])
                        i += 2
                    } else if c == "`" {
                        i += 1
                        closed = true
                        break
                    } else {
                        segment.append(c)
                        i += 1
                    }
                }
                guard closed else { throw fail("a backtick is not closed") }
                guard !segment.isEmpty else { throw fail("a quoted field name is empty") }
            } else {
                while i < scalars.count, scalars[i] != "." {
                    segment.append(scalars[i])
                    i += 1
                }
                let name = String(segment)
                guard !name.isEmpty else { throw fail("has an empty field name") }
                guard Self.isSimpleIdentifier(name) else {
                    throw fail(
                        "\"\(name)\" must be quoted in backticks (bare field names match [A-Za-z_][A-Za-z_0-9]*)")
                }
            }
            segments.append(String(segment))
            if i == scalars.count { break }
            guard scalars[i] == "." else { throw fail("expected '.' after a closing backtick") }
            i += 1
        }
        self.segments = segments
    }

    /// `__name__`: the document's name as a query's sort key, filter field or cursor position.
    public static let documentName = FieldPath(unchecked: ["__name__"])

    /// True for `[A-Za-z_][A-Za-z_0-9]*`: a field name written without backticks.
    public static func isSimpleIdentifier(_ name: String) -> Bool {
        var first = true
        for u in name.utf8 {
            let letter = (u >= 0x41 && u <= 0x5A) || (u >= 0x61 && u <= 0x7A) || u == 0x5F
            let digit = u >= 0x30 && u <= 0x39
            if !(letter || (!first && digit)) { return false }
            first = false
        }
        return !first
    }

    /// The text form: simple identifiers bare, other names in backticks with a backslash before each
    /// backslash or backtick inside.
    public var description: String {
        var out = ""
        for (k, s) in segments.enumerated() {
            if k > 0 { out += "." }
            if Self.isSimpleIdentifier(s) {
                out += s
            } else {
                out += "`"
                for c in s.unicodeScalars {
                    if c == "`" || c == "\\" { out += "\\" }
                    out.unicodeScalars.append(c)
                }
                out += "`"
            }
        }
        return out
    }

    /// The path one field deeper.
    public func appending(_ name: String) -> FieldPath {
        FieldPath(unchecked: segments + [name])
    }

    /// True when `self` equals `other` or is one of its ancestors (`summary` covers `summary.takeoffAt`).
    public func isPrefix(of other: FieldPath) -> Bool {
        segments.count <= other.segments.count && other.segments.starts(with: segments)
    }

    /// Segment by segment, each by Unicode scalar values; a prefix first.
    public static func < (a: FieldPath, b: FieldPath) -> Bool {
        for (x, y) in zip(a.segments, b.segments) {
            let order = scalarOrder(x, y)
            if order != 0 { return order < 0 }
        }
        return a.segments.count < b.segments.count
    }

    /// `names` in Unicode scalar order (``scalarOrder(_:_:)``), as a mask of those top-level
    /// fields sorts: by their first eight UTF-8 bytes as one integer, the rest compared only on a tie.
    @inlinable package static func sortedByScalars(_ names: [String]) -> [String] {
        var keyed: [(UInt64, String)] = []
        keyed.reserveCapacity(names.count)
        for var name in names {
            let prefix = name.withUTF8 { bytes in
                var prefix: UInt64 = 0
                for i in 0..<Swift.min(8, bytes.count) { prefix |= UInt64(bytes[i]) << UInt64(56 - 8 * i) }
                return prefix
            }
            keyed.append((prefix, name))
        }
        keyed.sort { $0.0 != $1.0 ? $0.0 < $1.0 : scalarOrder($0.1, $1.1) < 0 }
        return keyed.map(\.1)
    }

    /// −1, 0 or 1 as `x` sorts before, equal to or after `y` by Unicode scalar values, compared
    /// as their UTF-8 bytes (the same order, without decoding).
    @inlinable package static func scalarOrder(_ x: String, _ y: String) -> Int {
        // Native strings compare their stored bytes in place; others byte by byte as they decode.
        let inPlace = x.utf8.withContiguousStorageIfAvailable { a in
            y.utf8.withContiguousStorageIfAvailable { b in
                for i in 0..<min(a.count, b.count) where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
                return a.count == b.count ? 0 : a.count < b.count ? -1 : 1
            }
        }
        if let order = inPlace ?? nil { return order }
        var a = x.utf8.makeIterator()
        var b = y.utf8.makeIterator()
        while let p = a.next() {
            guard let q = b.next() else { return 1 }
            if p != q { return p < q ? -1 : 1 }
        }
        return b.next() == nil ? 0 : -1
    }
}

extension FirestoreValue {
    /// The value at a field path through nested maps, or nil when a segment is missing or a
    /// non-map is in the way.
    public subscript(path path: FieldPath) -> FirestoreValue? {
        var current = self
        for segment in path.segments {
            guard case .map(let m) = current, let next = m[segment] else { return nil }
            current = next
        }
        return current
    }
}
