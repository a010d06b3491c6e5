import Foundation

/// Writes JSON in the project's canonical bytes (Goldens/FORMAT.md): UTF-8, LF, one trailing newline,
/// two-space indent, `"key": value`, every member and element on its own line, `{}` and `[]` for
/// empty containers, keys sorted by UTF-16 code units (RFC 8785 §3.2.3) at every level, strings
/// escaped as RFC 8785 §3.2.2.2, integers in plain decimal, doubles in ECMAScript form with `.0`
/// appended when that form has neither `.` nor `e`.
///
/// Firestore values are written straight to bytes (``CanonicalJSON/encode(_:)-(FirestoreValue)``); this type writes
/// plain JSON trees (the JSON Schemas, the generator's fixtures) with the same layout and escaping.
public enum CanonicalJSONWriter {
    /// The canonical bytes of `node`, with a final newline.
    ///
    /// A double that is NaN or infinite cannot be written as a JSON number; the typed layers wrap
    /// those before they get here, and this writer prints them as `null` defensively.
    /// `-0.0` is written `-0.0`.
    public static func write(_ node: JSONNode) -> [UInt8] {
        var out = ByteSink(capacity: 4096)
        write(node, indent: 0, pretty: true, into: &out)
        out.append(0x0A)
        return out.bytes()
    }

    /// The canonical text of `node` (``write(_:)`` as a String).
    public static func string(_ node: JSONNode) -> String {
        String(decoding: write(node), as: UTF8.self)
    }

    static func write(_ node: JSONNode, indent: Int, pretty: Bool, into out: inout ByteSink) {
        switch node.kind {
        case .null: out.append(literal: "null")
        case .bool(let b): out.append(literal: b ? "true" : "false")
        case .integer(let v): out.appendInteger(v)
        case .bigInteger(let text): out.appendUTF8(text)
        case .double(let d): out.appendCanonicalDouble(d)
        case .string(let s): out.appendQuoted(s)
        case .array(let elements):
            if elements.isEmpty {
                out.append(literal: "[]")
                return
            }
            out.append(0x5B)
            for (k, e) in elements.enumerated() {
                if k > 0 { out.append(0x2C) }
                out.separate(indent + 2, pretty: pretty, first: k == 0)
                write(e, indent: indent + 2, pretty: pretty, into: &out)
            }
            out.close(indent, pretty: pretty)
            out.append(0x5D)
        case .object(let members):
            if members.isEmpty {
                out.append(literal: "{}")
                return
            }
            out.append(0x7B)
            for (k, m) in members.sorted(by: { utf16Precedes($0.key, $1.key) }).enumerated() {
                if k > 0 { out.append(0x2C) }
                out.separate(indent + 2, pretty: pretty, first: k == 0)
                out.appendQuoted(m.key)
                out.append(0x3A)
                out.append(0x20)
                write(m.value, indent: indent + 2, pretty: pretty, into: &out)
            }
            out.close(indent, pretty: pretty)
            out.append(0x7D)
        }
    }

    /// Whether `a` sorts before `b` by UTF-16 code units (RFC 8785 §3.2.3).
    public static func utf16Precedes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in utf16Precedes(utf8: x, y) } }
    }

    /// ``utf16Precedes(_:_:)`` on UTF-8 bytes: byte order is code-point order, which is UTF-16 order
    /// except between U+E000…U+FFFF (lead byte EE or EF) and supplementary scalars (lead byte F0…F4),
    /// whose surrogates sort first in UTF-16. Bytes that differ after equal ones are both lead bytes or
    /// both continuation bytes of scalars with the same lead byte, so only lead bytes need the check.
    @inline(__always)
    static func utf16Precedes(utf8 a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = min(a.count, b.count)
        var j = 0
        while j < n, a[j] == b[j] { j += 1 }
        if j == n { return a.count < b.count }
        let x = a[j]
        let y = b[j]
        if x >= 0xEE, y >= 0xEE, (x >= 0xF0) != (y >= 0xF0) { return x >= 0xF0 }
        return x < y
    }
}

/// ECMAScript's Number-to-String (ECMA-262 Number::toString, the form RFC 8785 §3.2.2.3 uses).
public enum ECMAScriptNumber {
    /// ECMAScript's string for a finite double: `0`, `1.5`, `1e-7`, `1e+21`, `0.000001`, `100`.
    /// NaN and ±Infinity give `NaN`, `Infinity`, `-Infinity`; −0 gives `0`, as ECMAScript does.
    public static func string(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        var out = ByteSink(capacity: 32)
        out.appendECMAScript(value, canonical: false)
        return String(decoding: out.bytes(), as: UTF8.self)
    }

    /// The canonical JSON form of a double (Goldens/FORMAT.md): ECMAScript's string with `.0` appended
    /// when it has neither `.` nor `e` (`5.0`, `1e-7`, `1000000000000000.0`); −0 as `-0.0`.
    /// NaN and ±Infinity have no JSON number form; they give `null` here (callers wrap them first).
    public static func canonicalDouble(_ value: Double) -> String {
        var out = ByteSink(capacity: 32)
        out.appendCanonicalDouble(value)
        return String(decoding: out.bytes(), as: UTF8.self)
    }
}

extension CanonicalJSONWriter {
    /// The node on one line, keys sorted as in the canonical form, `", "` and `": "` separators
    /// (`{"a": 1, "b": [true, null]}`), no final newline: for messages and JSON Lines.
    public static func compact(_ node: JSONNode) -> String {
        var out = ByteSink(capacity: 256)
        write(node, indent: 0, pretty: false, into: &out)
        return String(decoding: out.bytes(), as: UTF8.self)
    }
}

extension CanonicalJSON {
    /// The value in canonical typed JSON on one line (`{"$timestamp": "…"}`), for messages and
    /// JSON Lines.
    public static func compactString(_ value: FirestoreValue) -> String {
        var writer = CanonicalValueWriter(pretty: false)
        writer.write(value, indent: 0)
        return String(decoding: writer.out.bytes(), as: UTF8.self)
    }
}

extension FirestoreValue: CustomStringConvertible {
    /// The value in canonical typed JSON on one line (``CanonicalJSON/compactString(_:)``), for messages.
    public var description: String { CanonicalJSON.compactString(self) }
}

/// Writes a ``FirestoreValue`` as canonical typed JSON straight to bytes: the wrappers of
/// ``CanonicalJSON`` applied as it goes, map keys sorted by UTF-16 code units on a stack of sort keys
/// (no tree, no copy of the map), doubles by ``ShortestDouble``, timestamps and base64 written in place.
/// The bytes are those of ``CanonicalJSONWriter/write(_:)`` on ``CanonicalJSON/node(_:)``.
struct CanonicalValueWriter: ~Copyable {
    var out: ByteSink
    let pretty: Bool
    /// Sort keys of the maps being written, innermost last.
    private var keys: [SortKey] = []

    init(pretty: Bool, capacity: Int = 4096) {
        self.pretty = pretty
        self.out = ByteSink(capacity: capacity)
    }

    /// A map member's place in UTF-16 order: its first sixteen UTF-8 bytes, big-endian, decide unless
    /// they are equal or hold a byte that UTF-16 orders differently (``special``).
    private struct SortKey {
        var high: UInt64
        var low: UInt64
        var special: Bool
        var index: [String: FirestoreValue].Index
    }

    mutating func write(_ value: FirestoreValue, indent: Int) {
        switch value {
        case .null: out.append(literal: "null")
        case .boolean(let b): out.append(literal: b ? "true" : "false")
        case .integer(let v): out.appendInteger(v)
        case .double(let d): writeDouble(d, indent: indent)
        case .string(let s): out.appendQuoted(s)
        case .timestamp(let t):
            open("$timestamp", indent: indent)
            out.append(0x22)
            out.appendRFC3339(t)
            out.append(0x22)
            closeWrapper(indent: indent)
        case .bytes(let data):
            open("$bytes", indent: indent)
            out.append(0x22)
            out.appendBase64(data)
            out.append(0x22)
            closeWrapper(indent: indent)
        case .geoPoint(let g):
            open("$geoPoint", indent: indent)
            out.append(0x7B)
            out.separate(indent + 4, pretty: pretty, first: true)
            out.append(literal: "\"latitude\": ")
            writeDouble(g.latitude, indent: indent + 4)
            out.append(0x2C)
            out.separate(indent + 4, pretty: pretty, first: false)
            out.append(literal: "\"longitude\": ")
            writeDouble(g.longitude, indent: indent + 4)
            out.close(indent + 2, pretty: pretty)
            out.append(0x7D)
            closeWrapper(indent: indent)
        case .reference(let r):
            open("$reference", indent: indent)
            out.appendQuoted(r)
            closeWrapper(indent: indent)
        case .array(let elements):
            if elements.isEmpty {
                out.append(literal: "[]")
                return
            }
            out.append(0x5B)
            for (k, e) in elements.enumerated() {
                if k > 0 { out.append(0x2C) }
                out.separate(indent + 2, pretty: pretty, first: k == 0)
                write(e, indent: indent + 2)
            }
            out.close(indent, pretty: pretty)
            out.append(0x5D)
        case .map(let m):
            writeMap(m, indent: indent)
        case .serverTimestamp:
            open("$serverTimestamp", indent: indent)
            out.append(literal: "true")
            closeWrapper(indent: indent)
        case .delete:
            open("$delete", indent: indent)
            out.append(literal: "true")
            closeWrapper(indent: indent)
        case .increment(.integer(let v)):
            open("$increment", indent: indent)
            out.appendInteger(v)
            closeWrapper(indent: indent)
        case .increment(.double(let d)):
            open("$increment", indent: indent)
            writeDouble(d, indent: indent + 2)
            closeWrapper(indent: indent)
        }
    }

    /// `{` and the wrapper's key, its value to follow at `indent + 2`.
    private mutating func open(_ key: StaticString, indent: Int) {
        out.append(0x7B)
        out.separate(indent + 2, pretty: pretty, first: true)
        out.append(0x22)
        out.append(literal: key)
        out.append(literal: "\": ")
    }

    private mutating func closeWrapper(indent: Int) {
        out.close(indent, pretty: pretty)
        out.append(0x7D)
    }

    private mutating func writeDouble(_ d: Double, indent: Int) {
        if d.isFinite, d != 0 || d.sign == .plus {
            out.appendCanonicalDouble(d)
            return
        }
        open("$double", indent: indent)
        out.append(literal: d.isNaN ? "\"NaN\"" : d == 0 ? "\"-0\"" : d < 0 ? "\"-Infinity\"" : "\"Infinity\"")
        closeWrapper(indent: indent)
    }

    private mutating func writeMap(_ m: [String: FirestoreValue], indent: Int) {
        if m.isEmpty {
            out.append(literal: "{}")
            return
        }
        let start = keys.count
        var dollar = false
        var index = m.startIndex
        while index != m.endIndex {
            let key = m.keys[index]
            let sortKey = key.utf8.withContiguousStorageIfAvailable { u -> SortKey in
                // The first sixteen bytes, big-endian, zero-padded.
                var words: (UInt64, UInt64) = (0, 0)
                if let p = u.baseAddress {
                    withUnsafeMutableBytes(of: &words) {
                        $0.baseAddress?.copyMemory(from: p, byteCount: min(16, u.count))
                    }
                }
                let high = UInt64(bigEndian: words.0)
                let low = UInt64(bigEndian: words.1)
                var special = false
                if (high | low) & 0x8080_8080_8080_8080 != 0 {
                    for j in 0..<min(16, u.count) where u[j] >= 0xEE { special = true }
                }
                if !dollar, SinglePassCanonicalReader.startsWithDollar(u) { dollar = true }
                return SortKey(high: high, low: low, special: special, index: index)
            }
            // A string without contiguous UTF-8 (bridged) is compared whole.
            keys.append(sortKey ?? SortKey(high: 0, low: 0, special: true, index: index))
            if sortKey == nil, !dollar, key.hasPrefix("$") { dollar = true }
            m.formIndex(after: &index)
        }
        keys.withUnsafeMutableBufferPointer { all in
            guard let base = all.baseAddress else { return }
            Self.sort(UnsafeMutableBufferPointer(start: base + start, count: all.count - start), m)
        }
        // A map with a key starting with `$` is written inside `{"$map": …}`.
        var inner = indent
        if dollar {
            open("$map", indent: indent)
            inner = indent + 2
        }
        out.append(0x7B)
        for k in start..<keys.count {
            if k > start { out.append(0x2C) }
            out.separate(inner + 2, pretty: pretty, first: k == start)
            out.appendQuoted(m.keys[keys[k].index])
            out.append(0x3A)
            out.append(0x20)
            write(m.values[keys[k].index], indent: inner + 2)
        }
        keys.removeSubrange(start...)
        out.close(inner, pretty: pretty)
        out.append(0x7D)
        if dollar { closeWrapper(indent: indent) }
    }

    /// Whether `a`'s key sorts before `b`'s by UTF-16 code units: by the sixteen-byte prefixes when
    /// they differ and hold no byte that UTF-16 orders differently, else by the whole keys.
    @inline(__always)
    private static func precedes(_ a: SortKey, _ b: SortKey, _ m: [String: FirestoreValue]) -> Bool {
        if !a.special, !b.special {
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
        }
        return CanonicalJSONWriter.utf16Precedes(m.keys[a.index], m.keys[b.index])
    }

    /// Sorts the sort keys of one map: insertion sort for the usual few dozen members, the standard
    /// library's sort for more.
    private static func sort(_ keys: UnsafeMutableBufferPointer<SortKey>, _ m: [String: FirestoreValue]) {
        guard keys.count > 64 else {
            for i in 1..<max(keys.count, 1) {
                let x = keys[i]
                var j = i
                while j > 0, precedes(x, keys[j - 1], m) {
                    keys[j] = keys[j - 1]
                    j -= 1
                }
                keys[j] = x
            }
            return
        }
        var all = keys
        all.sort { precedes($0, $1, m) }
    }
}

/// A growing byte buffer for the writers, with the canonical spellings of scalars.
struct ByteSink: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        // malloc'd so that growing can use realloc, which moves large buffers by remapping pages.
        guard let p = malloc(self.capacity) else { fatalError("out of memory") }
        self.base = p.assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(base) }

    /// The bytes written.
    consuming func bytes() -> [UInt8] {
        let n = count
        let source = base
        return [UInt8](unsafeUninitializedCapacity: n) { buffer, initialized in
            if let target = buffer.baseAddress {
                Self.adviseHugePages(target, n)
                target.update(from: source, count: n)
            }
            initialized = n
        }
    }

    /// On Linux, asks for transparent huge pages for the 2 MiB-aligned inside of a large buffer about
    /// to be written, so that writing it takes a fault per 2 MiB instead of per 4 KiB (a hint only).
    static func adviseHugePages(_ p: UnsafeMutableRawPointer, _ n: Int) {
        #if os(Linux)
            let huge = 2 << 20
            guard n >= 4 * huge else { return }
            let start = (Int(bitPattern: p) + huge - 1) & ~(huge - 1)
            let end = (Int(bitPattern: p) + n) & ~(huge - 1)
            if end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) {
                _ = madvise(aligned, end - start, Int32(MADV_HUGEPAGE))
            }
        #endif
    }

    @inline(__always)
    mutating func reserve(_ n: Int) {
        if capacity &- count < n { grow(n) }
    }

    private mutating func grow(_ n: Int) {
        let newCapacity = max(capacity * 2, count + n)
        guard let p = realloc(base, newCapacity) else { fatalError("out of memory") }
        base = p.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
        Self.adviseHugePages(p + count, newCapacity - count)
    }

    @inline(__always)
    mutating func append(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let p = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).update(from: p, count: bytes.count)
        count &+= bytes.count
    }

    @inline(__always)
    mutating func append(literal text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func appendUTF8(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Before a member or element: a newline and `indent` spaces (pretty), or `", "`'s space (compact).
    @inline(__always)
    mutating func separate(_ indent: Int, pretty: Bool, first: Bool) {
        if pretty {
            reserve(indent &+ 1)
            base[count] = 0x0A
            (base + (count &+ 1)).initialize(repeating: 0x20, count: indent)
            count &+= indent &+ 1
        } else if !first {
            append(0x20)
        }
    }

    /// Before a closing bracket: a newline and `indent` spaces (pretty), nothing (compact).
    @inline(__always)
    mutating func close(_ indent: Int, pretty: Bool) {
        if pretty { separate(indent, pretty: true, first: false) }
    }

    mutating func appendInteger(_ v: Int64) {
        reserve(20)
        var magnitude = v.magnitude
        if v < 0 {
            base[count] = 0x2D
            count &+= 1
        }
        var digits = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digits &+= 1
        }
        var k = count &+ digits
        count = k
        repeat {
            k &-= 1
            base[k] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 0x30
            magnitude /= 10
        } while magnitude > 0
    }

    private static let hexDigits: StaticString = "0123456789abcdef"

    /// A string in quotes, escaped as RFC 8785 §3.2.2.2: `\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other
    /// controls as `\u00xx`; everything else (DEL, non-ASCII) as is. Runs without escapes are copied at once.
    mutating func appendQuoted(_ s: String) {
        if s.utf8.withContiguousStorageIfAvailable({ appendQuoted(utf8: $0) }) == nil {
            var s = s
            s.withUTF8 { appendQuoted(utf8: $0) }
        }
    }

    private mutating func appendQuoted(utf8 u: UnsafeBufferPointer<UInt8>) {
        guard let p = u.baseAddress else {
            append(literal: "\"\"")
            return
        }
        let n = u.count
        reserve(n &+ 2)
        base[count] = 0x22
        count &+= 1
        var runStart = 0
        var j = 0
        while j < n {
            // Eight bytes at a time while none needs an escape.
            while n &- j >= 8,
                !JSONStringBytes.hasQuoteBackslashOrControl(UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self))
            { j &+= 8 }
            guard j < n else { break }
            let b = p[j]
            if b >= 0x20, b != 0x22, b != 0x5C {
                j &+= 1
                continue
            }
            appendRun(p + runStart, j &- runStart)
            switch b {
            case 0x22: append(literal: "\\\"")
            case 0x5C: append(literal: "\\\\")
            case 0x08: append(literal: "\\b")
            case 0x09: append(literal: "\\t")
            case 0x0A: append(literal: "\\n")
            case 0x0C: append(literal: "\\f")
            case 0x0D: append(literal: "\\r")
            default:
                append(literal: "\\u00")
                append(Self.hexDigits.utf8Start[Int(b >> 4)])
                append(Self.hexDigits.utf8Start[Int(b & 0xF)])
            }
            j &+= 1
            runStart = j
        }
        appendRun(p + runStart, n &- runStart)
        append(0x22)
    }

    /// `n` bytes at `p`: short runs (keys, most values) byte by byte, longer ones with memcpy.
    @inline(__always)
    private mutating func appendRun(_ p: UnsafePointer<UInt8>, _ n: Int) {
        reserve(n)
        if n <= 16 {
            for k in 0..<n { base[count &+ k] = p[k] }
        } else {
            (base + count).update(from: p, count: n)
        }
        count &+= n
    }

    /// ECMAScript's Number::toString of a finite double; with `canonical`, `.0` after an integer form.
    /// −0 is written as 0 (`-0.0` in canonical form, see ``appendCanonicalDouble(_:)``).
    mutating func appendECMAScript(_ value: Double, canonical: Bool) {
        if value == 0 {
            append(literal: canonical ? "0.0" : "0")
            return
        }
        reserve(32)
        if value < 0 {
            base[count] = 0x2D
            count &+= 1
        }
        let (significand, exponent) = ShortestDouble.decimal(value.magnitude)
        // The digits, then the layout of ECMA-262 Number::toString for value = 0.d₁…dₖ × 10ⁿ.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 17 digits and more
        let k = withUnsafeMutableBytes(of: &digits) { raw -> Int in
            var f = significand
            var length = 0
            var probe = f
            repeat {
                length &+= 1
                probe /= 10
            } while probe > 0
            var j = length
            repeat {
                j &-= 1
                raw[j] = UInt8(truncatingIfNeeded: f % 10) &+ 0x30
                f /= 10
            } while f > 0
            return length
        }
        let n = k + exponent
        withUnsafeBytes(of: &digits) { raw in
            let d = UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: k)
            if k <= n, n <= 21 {
                append(d)
                reserve(n - k + 2)
                (base + count).initialize(repeating: 0x30, count: n - k)
                count &+= n - k
                if canonical { append(literal: ".0") }
            } else if 0 < n, n <= 21 {
                append(UnsafeBufferPointer(rebasing: d[0..<n]))
                append(0x2E)
                append(UnsafeBufferPointer(rebasing: d[n...]))
            } else if -6 < n, n <= 0 {
                append(literal: "0.")
                reserve(-n)
                (base + count).initialize(repeating: 0x30, count: -n)
                count &+= -n
                append(d)
            } else {
                append(d[0])
                if k > 1 {
                    append(0x2E)
                    append(UnsafeBufferPointer(rebasing: d[1...]))
                }
                append(0x65)
                append(n - 1 < 0 ? 0x2D : 0x2B)
                appendInteger(Int64(abs(n - 1)))
            }
        }
    }

    /// ``ECMAScriptNumber/canonicalDouble(_:)``: `null` for NaN and ±Infinity, `-0.0` for −0.
    mutating func appendCanonicalDouble(_ value: Double) {
        if !value.isFinite {
            append(literal: "null")
        } else if value == 0 {
            append(literal: value.sign == .minus ? "-0.0" : "0.0")
        } else {
            appendECMAScript(value, canonical: true)
        }
    }

    /// RFC 3339 in UTC as ``FirestoreTimestamp/rfc3339``: `YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z`.
    mutating func appendRFC3339(_ t: FirestoreTimestamp) {
        var (days, secondOfDay) = t.seconds.quotientAndRemainder(dividingBy: 86_400)
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (y, m, d) = CivilCalendar.civil(fromDays: days)
        reserve(32)
        pad(y, 4)
        append(0x2D)
        pad(m, 2)
        append(0x2D)
        pad(d, 2)
        append(0x54)
        pad(secondOfDay / 3600, 2)
        append(0x3A)
        pad(secondOfDay / 60 % 60, 2)
        append(0x3A)
        pad(secondOfDay % 60, 2)
        if t.microseconds != 0 {
            append(0x2E)
            if t.microseconds % 1000 == 0 {
                pad(Int64(t.microseconds / 1000), 3)
            } else {
                pad(Int64(t.microseconds), 6)
            }
        }
        append(0x5A)
    }

    /// `v` (≥ 0) in decimal, zero-padded to `width` digits (more when it needs more).
    private mutating func pad(_ v: Int64, _ width: Int) {
        guard v >= 0, v < 1_000_000 else {
            appendInteger(v)
            return
        }
        var digits = 1
        var probe = v
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        let n = max(width, digits)
        reserve(n)
        var x = v
        var k = count &+ n
        while k > count {
            k &-= 1
            base[k] = UInt8(truncatingIfNeeded: x % 10) &+ 0x30
            x /= 10
        }
        count &+= n
    }

    private static let base64Alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// Standard base64 with padding (the canonical spelling ``CanonicalBase64`` accepts).
    mutating func appendBase64(_ data: Data) {
        let n = data.count
        reserve((n + 2) / 3 * 4)
        let alphabet = Self.base64Alphabet.utf8Start
        data.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            var j = 0
            while j + 3 <= n {
                let v = UInt32(b[j]) << 16 | UInt32(b[j + 1]) << 8 | UInt32(b[j + 2])
                base[count] = alphabet[Int(v >> 18)]
                base[count &+ 1] = alphabet[Int(v >> 12 & 0x3F)]
                base[count &+ 2] = alphabet[Int(v >> 6 & 0x3F)]
                base[count &+ 3] = alphabet[Int(v & 0x3F)]
                count &+= 4
                j += 3
            }
            if n - j == 1 {
                let v = UInt32(b[j]) << 16
                base[count] = alphabet[Int(v >> 18)]
                base[count &+ 1] = alphabet[Int(v >> 12 & 0x3F)]
                base[count &+ 2] = 0x3D
                base[count &+ 3] = 0x3D
                count &+= 4
            } else if n - j == 2 {
                let v = UInt32(b[j]) << 16 | UInt32(b[j + 1]) << 8
                base[count] = alphabet[Int(v >> 18)]
                base[count &+ 1] = alphabet[Int(v >> 12 & 0x3F)]
                base[count &+ 2] = alphabet[Int(v >> 6 & 0x3F)]
                base[count &+ 3] = 0x3D
                count &+= 4
            }
        }
    }
}
