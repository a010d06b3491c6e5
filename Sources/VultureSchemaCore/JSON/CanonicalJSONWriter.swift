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
/// ``CanonicalJSON`` applied as it goes, each map's members moved once into a temporary buffer and
/// their sort keys put in UTF-16 order (by a sort, or by the order of a map with the same keys written
/// before, ``KeyOrders``), no tree; doubles by ``ShortestDouble``, timestamps and base64 written in
/// place. The bytes are those of ``CanonicalJSONWriter/write(_:)`` on ``CanonicalJSON/node(_:)``.
struct CanonicalValueWriter: ~Copyable {
    var out: ByteSink
    let pretty: Bool
    /// The key orders of maps written before.
    private var orders = KeyOrders()

    init(pretty: Bool, capacity: Int = 4096) {
        self.pretty = pretty
        self.out = ByteSink(capacity: capacity)
    }

    /// A map's member: its key and value, moved out of the map once and out of here as written.
    fileprivate typealias Member = (key: String, value: FirestoreValue)

    /// A map member's place in UTF-16 order: its first sixteen UTF-8 bytes, big-endian, decide unless
    /// they are equal or hold a byte that UTF-16 orders differently (``special``); where its
    /// ``Member`` is; and whether those words alone spell the key as written (sixteen bytes or fewer,
    /// nothing to escape), with its length.
    fileprivate struct SortKey {
        var high: UInt64
        var low: UInt64
        var member: Int32
        var length: Int16
        var special: Bool
        var short: Bool
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
        let n = m.count
        withUnsafeTemporaryAllocation(of: Member.self, capacity: n) { members in
            withUnsafeTemporaryAllocation(of: SortKey.self, capacity: n) { keys in
                writeMap(m, members, keys, indent: indent)
            }
        }
    }

    /// ``writeMap(_:indent:)`` with room for its members and their sort keys.
    private mutating func writeMap(
        _ m: [String: FirestoreValue], _ members: UnsafeMutableBufferPointer<Member>,
        _ keys: UnsafeMutableBufferPointer<SortKey>, indent: Int
    ) {
        guard let memberBase = members.baseAddress, let keyBase = keys.baseAddress else { return }
        var dollar = false
        var plain = true
        var signature: UInt64 = 0
        var n = 0
        for (key, value) in m {
            let member = Int32(truncatingIfNeeded: n)
            let sortKey = key.utf8.withContiguousStorageIfAvailable { u -> SortKey in
                let k = Self.sortKey(u, member: member)
                if !dollar, k.high >> 56 == 0x24, SinglePassCanonicalReader.startsWithDollar(u) { dollar = true }
                return k
            }
            // A string without contiguous UTF-8 (bridged) is compared and written whole.
            let k = sortKey ?? SortKey(high: 0, low: 0, member: member, length: 0, special: true, short: false)
            if sortKey == nil, !dollar, key.hasPrefix("$") { dollar = true }
            plain = plain && !k.special
            signature &+= KeyOrders.mix(k.high, k.low)
            (keyBase + n).initialize(to: k)
            (memberBase + n).initialize(to: (key, value))
            n &+= 1
        }
        let sorted = UnsafeMutableBufferPointer(start: keyBase, count: n)
        let remembered = plain && n >= KeyOrders.minimumKeys && n <= KeyOrders.maximumKeys
        if !remembered || !orders.order(sorted, signature: signature) {
            Self.sort(sorted, UnsafeBufferPointer(start: memberBase, count: n))
            if remembered { orders.remember(sorted, signature: signature) }
        }
        // A map with a key starting with `$` is written inside `{"$map": …}`.
        var inner = indent
        if dollar {
            open("$map", indent: indent)
            inner = indent + 2
        }
        out.append(0x7B)
        for i in 0..<n {
            let k = sorted[i]
            let member = (memberBase + Int(k.member)).move()
            if k.short {
                out.appendMemberStart(first: i == 0, indent: inner + 2, pretty: pretty, k.high, k.low, Int(k.length))
            } else {
                if i > 0 { out.append(0x2C) }
                out.separate(inner + 2, pretty: pretty, first: i == 0)
                out.appendQuoted(member.key)
                out.append(0x3A)
                out.append(0x20)
            }
            write(member.value, indent: inner + 2)
        }
        keyBase.deinitialize(count: n)
        out.close(inner, pretty: pretty)
        out.append(0x7D)
        if dollar { closeWrapper(indent: indent) }
    }

    /// The sort key of the key whose UTF-8 is `u`.
    @inline(__always)
    private static func sortKey(_ u: UnsafeBufferPointer<UInt8>, member: Int32) -> SortKey {
        let (w0, w1) = JSONStringBytes.firstSixteenBytes(u)
        let high = UInt64(bigEndian: w0)
        let low = UInt64(bigEndian: w1)
        var special = false
        if (high | low) & 0x8080_8080_8080_8080 != 0 {
            for j in 0..<min(16, u.count) where u[j] >= 0xEE { special = true }
        }
        // Short: at most sixteen bytes, none to escape (the zeros of the padding read as spaces).
        var short = false
        if u.count <= 16 {
            let spaces: UInt64 = 0x2020_2020_2020_2020
            let pad0 = u.count >= 8 ? 0 : spaces << UInt64(u.count &* 8)
            let pad1 = u.count >= 16 ? 0 : u.count <= 8 ? spaces : spaces << UInt64((u.count &- 8) &* 8)
            short =
                !JSONStringBytes.hasQuoteBackslashOrControl(UInt64(littleEndian: w0) | pad0)
                && !JSONStringBytes.hasQuoteBackslashOrControl(UInt64(littleEndian: w1) | pad1)
        }
        return SortKey(
            high: high, low: low, member: member, length: Int16(truncatingIfNeeded: min(u.count, 16)),
            special: special, short: short)
    }

    /// Whether `a`'s key sorts before `b`'s by UTF-16 code units: by the sixteen-byte prefixes when
    /// they differ and hold no byte that UTF-16 orders differently, else by the whole keys.
    @inline(__always)
    private static func precedes(
        _ a: SortKey, _ b: SortKey, _ m: UnsafeBufferPointer<Member>
    ) -> Bool {
        if !a.special, !b.special {
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
        }
        return CanonicalJSONWriter.utf16Precedes(m[Int(a.member)].key, m[Int(b.member)].key)
    }

    /// Sorts the sort keys of one map: insertion sort for the usual few dozen members, the standard
    /// library's sort for more.
    private static func sort(
        _ keys: UnsafeMutableBufferPointer<SortKey>, _ m: UnsafeBufferPointer<Member>
    ) {
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

/// The key orders of maps written before, so that a map with the keys of one before it (the
/// documents of an export, the turnpoints of a task) is put in order by one look-up per key instead of
/// a sort. An order is remembered the second time a map with its count and signature (a sum over its
/// keys, in any order) is sorted, and only when its keys are plain (no byte that UTF-16 orders
/// differently in their first sixteen) and differ in their first sixteen bytes, which then order them
/// alone. A map takes a remembered order only when each of its keys' first sixteen bytes is found in
/// it, each at a different place, and it has as many keys, so those bytes order it the same way.
///
/// Sixteen slots in pairs: a count and signature may use either slot of its pair.
struct KeyOrders: ~Copyable {
    static let minimumKeys = 8
    static let maximumKeys = 64
    private static let slots = 16
    /// Places per slot in the open-addressing table of prefixes (at most half full).
    private static let tableSize = 128

    /// Per slot: key count (0 when empty), signature, whether `prefixes` and `table` hold its order.
    private var counts: UnsafeMutablePointer<Int>?
    private var signatures: UnsafeMutablePointer<UInt64>?
    private var filled: UnsafeMutablePointer<Bool>?
    /// Per slot, `maximumKeys` pairs of prefix words in sorted order.
    private var prefixes: UnsafeMutablePointer<(UInt64, UInt64)>?
    /// Per slot, `tableSize` places: 0 for none, else 1 + the place of a prefix in `prefixes`.
    private var table: UnsafeMutablePointer<UInt8>?

    init() {}

    deinit {
        counts?.deallocate()
        signatures?.deallocate()
        filled?.deallocate()
        prefixes?.deallocate()
        table?.deallocate()
    }

    /// A key's prefix words mixed into 64 bits: summed into a map's signature; the top seven bits
    /// are its place in a slot's table.
    @inline(__always)
    static func mix(_ high: UInt64, _ low: UInt64) -> UInt64 {
        (high ^ (low &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
    }

    /// The first slot of the pair for a count and signature.
    @inline(__always)
    private static func pair(_ signature: UInt64, _ count: Int) -> Int {
        Int(truncatingIfNeeded: ((signature ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15) >> 60) & ~1
    }

    /// Puts `keys` in a remembered order; false (keys unchanged) when none fits.
    fileprivate mutating func order(_ keys: UnsafeMutableBufferPointer<CanonicalValueWriter.SortKey>, signature: UInt64)
        -> Bool
    {
        guard let counts, let signatures, let filled, let prefixes, let table else { return false }
        let n = keys.count
        let pair = Self.pair(signature, n)
        var slot = pair
        if !(filled[slot] && counts[slot] == n && signatures[slot] == signature) {
            slot = pair | 1
            guard filled[slot], counts[slot] == n, signatures[slot] == signature else { return false }
        }
        let sorted = prefixes + slot &* Self.maximumKeys
        let places = table + slot &* Self.tableSize
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { position in
            var taken: UInt64 = 0
            for i in 0..<n {
                let k = keys[i]
                var h = Int(truncatingIfNeeded: Self.mix(k.high, k.low) >> 57)
                while true {
                    let e = places[h]
                    if e == 0 { return false }
                    let p = Int(e) &- 1
                    if sorted[p].0 == k.high, sorted[p].1 == k.low {
                        guard taken & (1 << p) == 0 else { return false }
                        taken |= 1 << p
                        position[i] = UInt8(truncatingIfNeeded: p)
                        break
                    }
                    h = (h &+ 1) & (Self.tableSize &- 1)
                }
            }
            // n different places below n: every place is taken once.
            withUnsafeTemporaryAllocation(of: CanonicalValueWriter.SortKey.self, capacity: n) { placed in
                guard let target = placed.baseAddress, let source = keys.baseAddress else { return }
                for i in 0..<n { (target + Int(position[i])).initialize(to: keys[i]) }
                source.update(from: target, count: n)
                target.deinitialize(count: n)
            }
            return true
        }
    }

    /// Remembers the order of `keys`, sorted (plain, `minimumKeys`…`maximumKeys` of them), the second
    /// time their count and signature come.
    fileprivate mutating func remember(
        _ keys: UnsafeMutableBufferPointer<CanonicalValueWriter.SortKey>, signature: UInt64
    ) {
        if counts == nil {
            counts = .allocate(capacity: Self.slots)
            counts?.initialize(repeating: 0, count: Self.slots)
            signatures = .allocate(capacity: Self.slots)
            signatures?.initialize(repeating: 0, count: Self.slots)
            filled = .allocate(capacity: Self.slots)
            filled?.initialize(repeating: false, count: Self.slots)
        }
        guard let counts, let signatures, let filled else { return }
        let n = keys.count
        let pair = Self.pair(signature, n)
        var slot = pair
        if counts[slot] != n || signatures[slot] != signature {
            slot = pair | 1
            guard counts[slot] == n, signatures[slot] == signature else {
                // The first time: only the count and signature, in a slot that holds no order if any.
                slot = filled[pair] && !filled[pair | 1] ? pair | 1 : pair
                counts[slot] = n
                signatures[slot] = signature
                filled[slot] = false
                return
            }
        }
        for i in 1..<n where keys[i].high == keys[i &- 1].high && keys[i].low == keys[i &- 1].low { return }
        if prefixes == nil {
            prefixes = .allocate(capacity: Self.slots &* Self.maximumKeys)
            prefixes?.initialize(repeating: (0, 0), count: Self.slots &* Self.maximumKeys)
            table = .allocate(capacity: Self.slots &* Self.tableSize)
            table?.initialize(repeating: 0, count: Self.slots &* Self.tableSize)
        }
        guard let prefixes, let table else { return }
        let sorted = prefixes + slot &* Self.maximumKeys
        let places = table + slot &* Self.tableSize
        places.update(repeating: 0, count: Self.tableSize)
        for i in 0..<n {
            let k = keys[i]
            sorted[i] = (k.high, k.low)
            var h = Int(truncatingIfNeeded: Self.mix(k.high, k.low) >> 57)
            while places[h] != 0 { h = (h &+ 1) & (Self.tableSize &- 1) }
            places[h] = UInt8(truncatingIfNeeded: i &+ 1)
        }
        filled[slot] = true
    }
}

/// A growing byte buffer for the writers, with the canonical spellings of scalars.
///
/// Up to ``chunkSize`` it is one malloc'd block grown by realloc; past that, what is written stays
/// where it is and writing goes on in a new chunk (each twice the last, up to 64 MiB), so no byte is
/// copied, nor its page faulted in twice, until ``bytes()`` copies them all once. (No huge pages are
/// asked for: where the kernel compacts memory to find them, a fault can cost milliseconds.)
struct ByteSink: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// The full chunks before `base`, in order, with the bytes written in each.
    private var chunks: [(base: UnsafeMutablePointer<UInt8>, count: Int)] = []
    /// The bytes written in `chunks`.
    private var chunked = 0

    /// Where a growing buffer stops being reallocated and goes on in chunks.
    static let chunkSize = 2 << 20

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        guard let p = malloc(self.capacity) else { fatalError("out of memory") }
        self.base = p.assumingMemoryBound(to: UInt8.self)
    }

    deinit {
        for chunk in chunks { free(chunk.base) }
        free(base)
    }

    /// The bytes written.
    consuming func bytes() -> [UInt8] {
        let n = chunked + count
        return [UInt8](unsafeUninitializedCapacity: n) { buffer, initialized in
            if var target = buffer.baseAddress {
                for chunk in chunks {
                    target.update(from: chunk.base, count: chunk.count)
                    target += chunk.count
                }
                target.update(from: base, count: count)
            }
            initialized = n
        }
    }

    @inline(__always)
    mutating func reserve(_ n: Int) {
        if capacity &- count < n { grow(n) }
    }

    private mutating func grow(_ n: Int) {
        let doubled = max(capacity * 2, count + n)
        if doubled <= Self.chunkSize {
            guard let p = realloc(base, doubled) else { fatalError("out of memory") }
            base = p.assumingMemoryBound(to: UInt8.self)
            capacity = doubled
            return
        }
        // A new chunk.
        let size = max(min(capacity * 2, 64 << 20), n)
        guard let p = malloc(size) else { fatalError("out of memory") }
        chunks.append((base, count))
        chunked += count
        base = p.assumingMemoryBound(to: UInt8.self)
        count = 0
        capacity = size
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
            // Spaces eight at a time, past the end where the buffer has room (overwritten next).
            reserve(indent &+ 9)
            base[count] = 0x0A
            let p = UnsafeMutableRawPointer(base + (count &+ 1))
            var k = 0
            repeat {
                p.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: k, as: UInt64.self)
                k &+= 8
            } while k < indent
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
        if v < 0 {
            base[count] = 0x2D
            count &+= 1
        }
        let n = Self.decimalLength(v.magnitude)
        Self.writeDigits(v.magnitude, count: n, to: base + count)
        count &+= n
    }

    /// The two-digit decimals 00 … 99, one after the other.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// 10⁰ … 10¹⁹.
    private static let powersOfTen: [UInt64] = (0..<20).map { k in (0..<k).reduce(1) { p, _ in p * 10 } }

    /// The number of decimal digits of `v` (1 for 0): from its bit length, corrected by one comparison.
    @inline(__always)
    static func decimalLength(_ v: UInt64) -> Int {
        let w = v | 1
        let guess = ((64 &- w.leadingZeroBitCount) &* 1233) >> 12
        return powersOfTen.withUnsafeBufferPointer { guess &+ (w >= $0[guess] ? 1 : 0) }
    }

    /// The last `count` decimal digits of `v` at `p`, zero-padded on the left, two at a time.
    @inline(__always)
    static func writeDigits(_ v: UInt64, count: Int, to p: UnsafeMutablePointer<UInt8>) {
        let pairs = digitPairs.utf8Start
        var v = v
        var k = count
        while k >= 2 {
            let (q, r) = v.quotientAndRemainder(dividingBy: 100)
            k &-= 2
            p[k] = pairs[Int(r) &* 2]
            p[k &+ 1] = pairs[Int(r) &* 2 &+ 1]
            v = q
        }
        if k == 1 { p[0] = UInt8(truncatingIfNeeded: v % 10) &+ 0x30 }
    }

    /// The start of a member whose key has at most sixteen bytes and nothing to escape, with one
    /// check for room: `,` unless first, the separator (``separate(_:pretty:first:)``), and `"key": `
    /// from the key's first sixteen bytes as two big-endian words (zero-padded).
    @inline(__always)
    mutating func appendMemberStart(
        first: Bool, indent: Int, pretty: Bool, _ high: UInt64, _ low: UInt64, _ length: Int
    ) {
        reserve(indent &+ 32)
        var p = UnsafeMutableRawPointer(base + count)
        if !first {
            p.storeBytes(of: 0x2C, as: UInt8.self)
            p += 1
        }
        if pretty {
            // Spaces eight at a time, past the end where the buffer has room (overwritten next).
            p.storeBytes(of: 0x0A, as: UInt8.self)
            var k = 0
            repeat {
                p.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: 1 &+ k, as: UInt64.self)
                k &+= 8
            } while k < indent
            p += indent &+ 1
        } else if !first {
            p.storeBytes(of: 0x20, as: UInt8.self)
            p += 1
        }
        p.storeBytes(of: 0x22, as: UInt8.self)
        p.storeBytes(of: high.bigEndian, toByteOffset: 1, as: UInt64.self)
        p.storeBytes(of: low.bigEndian, toByteOffset: 9, as: UInt64.self)
        p.storeBytes(of: 0x22, toByteOffset: length &+ 1, as: UInt8.self)
        p.storeBytes(of: 0x3A, toByteOffset: length &+ 2, as: UInt8.self)
        p.storeBytes(of: 0x20, toByteOffset: length &+ 3, as: UInt8.self)
        count = UnsafeMutablePointer<UInt8>(OpaquePointer(p)) - base &+ length &+ 4
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
        reserve(n &+ 10)
        base[count] = 0x22
        count &+= 1
        if n <= 16, Self.appendShortClean(p, n, to: base + count) {
            count &+= n
            base[count] = 0x22
            count &+= 1
            return
        }
        var runStart = 0
        var j = 0
        if n > 16 {
            // A string with nothing to escape (most) is checked a word at a time, the last word
            // overlapping, and copied at once.
            let raw = UnsafeRawPointer(p)
            while n &- j > 8,
                !JSONStringBytes.hasQuoteBackslashOrControl(raw.loadUnaligned(fromByteOffset: j, as: UInt64.self))
            {
                j &+= 8
            }
            if n &- j <= 8,
                !JSONStringBytes.hasQuoteBackslashOrControl(raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
            {
                (base + count).update(from: p, count: n)
                count &+= n
                base[count] = 0x22
                count &+= 1
                return
            }
        }
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

    /// Copies `n` (at most sixteen) bytes from `p` to `target` when none needs an escape, in whole
    /// words (up to eight bytes past `n` at `target`, which must have room); false, nothing copied,
    /// when one does.
    @inline(__always)
    private static func appendShortClean(_ p: UnsafePointer<UInt8>, _ n: Int, to target: UnsafeMutablePointer<UInt8>)
        -> Bool
    {
        let source = UnsafeRawPointer(p)
        let out = UnsafeMutableRawPointer(target)
        if n >= 8 {
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            guard !JSONStringBytes.hasQuoteBackslashOrControl(head), !JSONStringBytes.hasQuoteBackslashOrControl(tail)
            else { return false }
            out.storeBytes(of: head, as: UInt64.self)
            out.storeBytes(of: tail, toByteOffset: n &- 8, as: UInt64.self)
            return true
        }
        // Fewer than eight: gathered into a word of spaces, which need no escape.
        var word: UInt64 = 0x2020_2020_2020_2020
        withUnsafeMutableBytes(of: &word) { w in
            for k in 0..<n { w[k] = p[k] }
        }
        guard !JSONStringBytes.hasQuoteBackslashOrControl(word) else { return false }
        out.storeBytes(of: word, as: UInt64.self)
        return true
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
        // The layout of ECMA-262 Number::toString for value = 0.d₁…dₖ × 10ⁿ; at most 24 bytes with the sign.
        let k = Self.decimalLength(significand)
        let n = k &+ exponent
        let p = base + count
        if k <= n, n <= 21 {
            // Digits, then n − k zeros: 100, 1e21 − 1.
            Self.writeDigits(significand, count: k, to: p)
            (p + k).initialize(repeating: 0x30, count: n &- k)
            count &+= n
            if canonical {
                p[n] = 0x2E
                p[n &+ 1] = 0x30
                count &+= 2
            }
        } else if 0 < n, n <= 21 {
            // The point inside the digits: 1.5, 123.456.
            Self.writeDigits(significand, count: k, to: p + 1)
            for j in 0..<n { p[j] = p[j &+ 1] }
            p[n] = 0x2E
            count &+= k &+ 1
        } else if -6 < n, n <= 0 {
            // 0.000001 … 0.1.
            p[0] = 0x30
            p[1] = 0x2E
            (p + 2).initialize(repeating: 0x30, count: -n)
            Self.writeDigits(significand, count: k, to: p + (2 &- n))
            count &+= 2 &- n &+ k
        } else {
            // d[.ddd]e±x.
            Self.writeDigits(significand, count: k, to: p + 1)
            p[0] = p[1]
            if k > 1 {
                p[1] = 0x2E
                count &+= k &+ 1
            } else {
                count &+= 1
            }
            base[count] = 0x65
            base[count &+ 1] = n &- 1 < 0 ? 0x2D : 0x2B
            count &+= 2
            appendInteger(Int64(abs(n &- 1)))
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
        if y < 0 || y > 9_999 {
            appendInteger(y)
        } else {
            Self.writeDigits(UInt64(y), count: 4, to: base + count)
            count &+= 4
        }
        // -MM-DDTHH:MM:SS at fixed places, then at most .ffffffZ.
        reserve(24)
        let p = base + count
        let (hour, rest) = secondOfDay.quotientAndRemainder(dividingBy: 3600)
        p[0] = 0x2D
        Self.writeDigits(UInt64(m), count: 2, to: p + 1)
        p[3] = 0x2D
        Self.writeDigits(UInt64(d), count: 2, to: p + 4)
        p[6] = 0x54
        Self.writeDigits(UInt64(hour), count: 2, to: p + 7)
        p[9] = 0x3A
        Self.writeDigits(UInt64(rest / 60), count: 2, to: p + 10)
        p[12] = 0x3A
        Self.writeDigits(UInt64(rest % 60), count: 2, to: p + 13)
        count &+= 15
        let micros = UInt64(t.microseconds.magnitude)
        if micros != 0 {
            base[count] = 0x2E
            if micros % 1000 == 0 {
                Self.writeDigits(micros / 1000, count: 3, to: base + (count &+ 1))
                count &+= 4
            } else {
                Self.writeDigits(micros, count: 6, to: base + (count &+ 1))
                count &+= 7
            }
        }
        base[count] = 0x5A
        count &+= 1
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
