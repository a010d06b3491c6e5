import Foundation

/// The single-pass reader behind ``CanonicalJSON/decode(_:file:form:)-([UInt8],_,_)``: canonical typed JSON
/// (Goldens/FORMAT.md) from bytes straight to ``FirestoreValue``, with no tree in between.
///
/// It accepts exactly what the two-phase reading accepts (``StrictJSONReader`` for the JSON text, then
/// the typed reading of the tree) and gives the same value: strict UTF-8 (each string checked once, in bulk,
/// as it is made), no byte-order mark, no unescaped control characters, no lone surrogates,
/// no duplicate keys (found while the map is built, with no set per object), integers apart from
/// doubles (int64 only), finite doubles, canonical `$` wrappers, canonical base64 (checked while it is
/// decoded), canonical timestamps, Firestore's depth, field-name, sentinel, geo-point and reference
/// rules. It names no error: at the first byte it does not accept it stops, and the caller reads the
/// input again in two phases, which names the error (file, line:column, pointer, rule) in the order
/// the format defines: the JSON text first, then the typed values in document order. Errors are rare,
/// so the second reading costs nothing on valid input.
///
/// Members of the maps being read wait on one stack shared by the whole document, so that each map is
/// built once with its final capacity; keys come from a small cache, so that a key repeated across a
/// document (or a stream of documents) is one string made once; a map with the keys of one read
/// before, in the same order, is a copy of it with its values set in place (``MapShape``), no key
/// hashed. No temporary collection is made per value.
struct SinglePassCanonicalReader: ~Copyable {
    /// The reader stopped: the input is not canonical typed JSON, or breaks one of Firestore's rules.
    struct Rejected: Error {}

    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var i = 0
    private let storedForm: Bool
    /// Where the buffers go back when the reading ends.
    private let owner: CanonicalJSONReader

    /// Members of the maps being read, innermost last: each map takes its members off the top.
    private var members: UnsafeMutablePointer<(String, FirestoreValue)>
    private var memberCount = 0
    private var memberCapacity: Int
    /// Decoded bytes of a string with escapes.
    private var scratch: UnsafeMutablePointer<UInt8>
    private var scratchCapacity: Int
    /// Keys of up to 64 bytes by a hash of their first sixteen bytes and length, two places a hash.
    private let keyCache: UnsafeMutablePointer<CachedKey>
    /// The hash of the last key made (its first sixteen bytes and length), for a map's signature.
    private var keyHash: UInt64 = 0

    /// A key read before: its first sixteen bytes as two words (all of a short key), its length, and
    /// the string made from it.
    struct CachedKey {
        var first: UInt64
        var second: UInt64
        var count: Int
        var key: String
    }

    static let keyCacheSize = 256

    /// A reader over the `count` bytes at `base` with the buffers of `owner`; `form == .stored`
    /// rejects sentinels.
    private init(base: UnsafePointer<UInt8>, count: Int, form: DocumentForm?, owner: CanonicalJSONReader) {
        self.base = base
        self.end = count
        self.storedForm = form == .stored
        self.owner = owner
        self.members = owner.members
        self.memberCapacity = owner.memberCapacity
        self.scratch = owner.scratch
        self.scratchCapacity = owner.scratchCapacity
        self.keyCache = owner.keyCache
    }

    deinit {
        // Members left by a rejected input are released; the buffers go back to their owner.
        members.deinitialize(count: memberCount)
        owner.members = members
        owner.memberCapacity = memberCapacity
        owner.scratch = scratch
        owner.scratchCapacity = scratchCapacity
        owner.shrinkAfterLargeDocument()
    }

    /// Reads the whole input as one value with the buffers of `owner`; nil when it is not accepted.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, form: DocumentForm?, owner: CanonicalJSONReader)
        -> FirestoreValue?
    {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        var reader = SinglePassCanonicalReader(base: base, count: bytes.count, form: form, owner: owner)
        return try? reader.document()
    }

    /// ``read(_:form:owner:)`` with fresh buffers.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, form: DocumentForm?) -> FirestoreValue? {
        read(bytes, form: form, owner: CanonicalJSONReader())
    }

    mutating func document() throws(Rejected) -> FirestoreValue {
        if end >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { throw Rejected() }
        skipWhitespace()
        let v = try value(depth: 0, inArray: false)
        skipWhitespace()
        guard i == end else { throw Rejected() }
        return v
    }

    // MARK: Values

    @inline(__always)
    private mutating func skipWhitespace() {
        while i < end {
            switch base[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i &+= 1
            default: return
            }
        }
    }

    @inline(__always)
    private mutating func expect(_ byte: UInt8) throws(Rejected) {
        guard i < end, base[i] == byte else { throw Rejected() }
        i &+= 1
    }

    private mutating func value(depth: Int, inArray: Bool) throws(Rejected) -> FirestoreValue {
        // A scalar or an empty array may sit one level below the deepest map (FirestoreLimits.maximumDepth).
        guard depth <= FirestoreLimits.maximumDepth &+ 1, i < end else { throw Rejected() }
        switch base[i] {
        case 0x22:
            let s = try string()
            return .string(try makeString(s))
        case 0x7B: return try object(depth: depth, inArray: inArray)
        case 0x5B:
            guard !inArray else { throw Rejected() }
            return try array(depth: depth)
        case 0x74:
            try literal(0x74_72_75_65, length: 4)
            return .boolean(true)
        case 0x66:
            try literal(0x66_61_6C_73, length: 4)
            guard i < end, base[i] == 0x65 else { throw Rejected() }
            i &+= 1
            return .boolean(false)
        case 0x6E:
            try literal(0x6E_75_6C_6C, length: 4)
            return .null
        case 0x2D, 0x30...0x39:
            switch try number() {
            case .integer(let v): return .integer(v)
            case .double(let d): return .double(d)
            }
        default: throw Rejected()
        }
    }

    /// Four bytes given big-endian in `word` (`true`, `fals`, `null`).
    @inline(__always)
    private mutating func literal(_ word: UInt32, length: Int) throws(Rejected) {
        guard end &- i >= length else { throw Rejected() }
        var w: UInt32 = 0
        for k in 0..<4 { w = w << 8 | UInt32(base[i &+ k]) }
        guard w == word else { throw Rejected() }
        i &+= 4
    }

    private mutating func array(depth: Int) throws(Rejected) -> FirestoreValue {
        i &+= 1
        skipWhitespace()
        if i < end, base[i] == 0x5D {
            i &+= 1
            return .array([])
        }
        var out: [FirestoreValue] = []
        while true {
            skipWhitespace()
            out.append(try value(depth: depth &+ 1, inArray: true))
            skipWhitespace()
            guard i < end else { throw Rejected() }
            if base[i] == 0x2C {
                i &+= 1
                continue
            }
            guard base[i] == 0x5D else { throw Rejected() }
            i &+= 1
            return .array(out)
        }
    }

    /// An object: a plain map, or (first key starting with `$`) a one-key wrapper.
    private mutating func object(depth: Int, inArray: Bool) throws(Rejected) -> FirestoreValue {
        i &+= 1
        skipWhitespace()
        guard i < end else { throw Rejected() }
        if base[i] == 0x7D {
            i &+= 1
            guard !FirestoreLimits.isTooDeep(depth: depth, isMap: true) else { throw Rejected() }
            return .map([:])
        }
        guard base[i] == 0x22 else { throw Rejected() }
        let key = try string()
        if Self.startsWithDollar(key) {
            return try wrapper(key, depth: depth, inArray: inArray)
        }
        return .map(try members(firstKey: key, depth: depth, dollarKeys: false))
    }

    /// The members of a map whose first key has been read; `dollarKeys` allows keys starting with `$`
    /// (inside `$map`).
    private mutating func members(firstKey: UnsafeBufferPointer<UInt8>, depth: Int, dollarKeys: Bool)
        throws(Rejected) -> [String: FirestoreValue]
    {
        // A map is refused at depth 21 (FirestoreLimits.maximumDepth), where a scalar is not.
        guard !FirestoreLimits.isTooDeep(depth: depth, isMap: true) else { throw Rejected() }
        let start = memberCount
        var key = firstKey
        // The keys in order, hashed: which map read before this one may have the same keys.
        var signature: UInt64 = 0
        while true {
            guard Self.isFieldName(key), dollarKeys || !Self.startsWithDollar(key) else { throw Rejected() }
            let name = try makeKey(key)
            signature = (signature ^ keyHash) &* 0x9E37_79B9_7F4A_7C15 &+ 1
            // `": "` (the canonical separator, one line or many) at once; any other spacing the long way.
            if end &- i >= 2, base[i] == 0x3A, base[i &+ 1] == 0x20 {
                i &+= 2
            } else {
                skipWhitespace()
                try expect(0x3A)
            }
            skipWhitespace()
            let v = try value(depth: depth &+ 1, inArray: false)
            push(name, v)
            // `, "` on one line at once, likewise.
            if end &- i >= 3, base[i] == 0x2C, base[i &+ 1] == 0x20, base[i &+ 2] == 0x22 {
                i &+= 2
                key = try string()
                continue
            }
            skipWhitespace()
            guard i < end else { throw Rejected() }
            if base[i] == 0x2C {
                i &+= 1
                skipWhitespace()
                guard i < end, base[i] == 0x22 else { throw Rejected() }
                key = try string()
                continue
            }
            guard base[i] == 0x7D else { throw Rejected() }
            i &+= 1
            return try popMap(from: start, signature: signature)
        }
    }

    /// Whether a key starts with `$` as `String.hasPrefix("$")` says: its first character (grapheme
    /// cluster) is `$`, so `$` followed by a combining mark is not a `$` key.
    @inline(__always)
    static func startsWithDollar(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count > 0, key[0] == 0x24 else { return false }
        // An ASCII character never joins the `$` before it; anything else asks the grapheme rules.
        if key.count == 1 || key[1] < 0x80 { return true }
        return String(decoding: key, as: UTF8.self).hasPrefix("$")
    }

    /// Firestore's field-name rules (``FirestoreLimits/fieldNameViolation(_:)``) on UTF-8 bytes.
    @inline(__always)
    private static func isFieldName(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = key.count
        if n > FirestoreLimits.maximumFieldNameBytes { return false }
        if n >= 4, key[0] == 0x5F, key[1] == 0x5F, key[n - 1] == 0x5F, key[n - 2] == 0x5F { return false }
        return true
    }

    @inline(__always)
    private mutating func push(_ key: String, _ value: FirestoreValue) {
        if memberCount == memberCapacity {
            let grown = UnsafeMutablePointer<(String, FirestoreValue)>.allocate(capacity: memberCapacity * 2)
            grown.moveInitialize(from: members, count: memberCount)
            members.deallocate()
            members = grown
            memberCapacity *= 2
        }
        (members + memberCount).initialize(to: (key, value))
        memberCount &+= 1
    }

    /// The map of the members from `start` to the top, taken off the stack; a repeated key rejects.
    ///
    /// A map with the keys of one read before, in the same order (the documents of a stream, the
    /// turnpoints of a task), is a copy of that map's ``MapShape`` with the values put in by index:
    /// no key is hashed. Otherwise each key is hashed into a new dictionary, and the second map of a
    /// signature becomes its shape.
    private mutating func popMap(from start: Int, signature: UInt64) throws(Rejected) -> [String: FirestoreValue] {
        let n = memberCount &- start
        let slot = MapShape.slot(signature)
        let shapeKey = MapShape.key(signature, n)
        let known = n >= MapShape.minimumKeys && !owner.shapeKeys.isEmpty && owner.shapeKeys[slot] == shapeKey
        let shape = known ? owner.shapes[slot] : nil
        if let shape {
            var same = true
            shape.keys.withUnsafeBufferPointer { keys in
                for k in 0..<n where !Self.sameKey(members[start &+ k].0, keys[k]) {
                    same = false
                    break
                }
            }
            if same {
                var map = shape.template
                shape.indices.withUnsafeBufferPointer { indices in
                    for k in 0..<n { map.values[indices[k]] = (members + (start &+ k)).move().1 }
                }
                memberCount = start
                return map
            }
        }
        // The second map of a signature: its keys in order, to make its shape from.
        let keepKeys = known && shape == nil
        var keys: [String] = []
        if keepKeys { keys.reserveCapacity(n) }
        var map = [String: FirestoreValue](minimumCapacity: n)
        var repeated = false
        for k in start..<memberCount {
            let (key, v) = (members + k).move()
            if keepKeys { keys.append(key) }
            if map.updateValue(v, forKey: key) != nil { repeated = true }
        }
        memberCount = start
        if repeated { throw Rejected() }
        if n >= MapShape.minimumKeys {
            if owner.shapeKeys.isEmpty {
                owner.shapeKeys = [UInt64](repeating: 0, count: MapShape.slots)
                owner.shapes = [MapShape?](repeating: nil, count: MapShape.slots)
            }
            // The first time only its signature and count; the second time its shape.
            owner.shapeKeys[slot] = shapeKey
            owner.shapes[slot] = keepKeys ? MapShape(of: map, keys: keys) : nil
        }
        return map
    }

    /// Whether two keys have the same UTF-8 bytes (field names are bytes: `==` would also take a
    /// canonically equivalent spelling): at once when they are one string, as the key cache makes
    /// a repeated key, else byte by byte.
    @inline(__always)
    static func sameKey(_ a: String, _ b: String) -> Bool {
        if MemoryLayout<String>.size == 16 {
            // The same representation (the same small string, or the same storage and count) is the
            // same bytes; another may still hold them.
            let identical = withUnsafeBytes(of: a) { x in
                withUnsafeBytes(of: b) { y in
                    x.loadUnaligned(as: UInt64.self) == y.loadUnaligned(as: UInt64.self)
                        && x.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                            == y.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                }
            }
            if identical { return true }
        }
        guard a.utf8.count == b.utf8.count else { return false }
        let same = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                guard let p = x.baseAddress, let q = y.baseAddress else { return true }
                return memcmp(p, q, x.count) == 0
            }
        }
        return (same ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }

    // MARK: Wrappers

    private mutating func wrapper(_ key: UnsafeBufferPointer<UInt8>, depth: Int, inArray: Bool) throws(Rejected)
        -> FirestoreValue
    {
        let kind = WrapperKind(key)
        skipWhitespace()
        try expect(0x3A)
        skipWhitespace()
        guard i < end else { throw Rejected() }
        let v: FirestoreValue
        switch kind {
        case .double:
            guard base[i] == 0x22 else { throw Rejected() }
            let s = try string()
            if Self.equals(s, "NaN") {
                v = .double(.nan)
            } else if Self.equals(s, "Infinity") {
                v = .double(.infinity)
            } else if Self.equals(s, "-Infinity") {
                v = .double(-.infinity)
            } else if Self.equals(s, "-0") {
                v = .double(-0.0)
            } else {
                throw Rejected()
            }
        case .timestamp:
            guard base[i] == 0x22 else { throw Rejected() }
            let s = try string()
            guard let t = FirestoreTimestamp.parseCanonical(utf8: s) else { throw Rejected() }
            v = .timestamp(t)
        case .bytes:
            guard base[i] == 0x22 else { throw Rejected() }
            let s = try string()
            guard let data = CanonicalBase64.decode(utf8: s) else { throw Rejected() }
            v = .bytes(data)
        case .geoPoint:
            v = .geoPoint(try geoPoint())
        case .reference:
            guard base[i] == 0x22 else { throw Rejected() }
            let s = try makeString(try string())
            guard FirestoreLimits.referenceViolation(s) == nil else { throw Rejected() }
            v = .reference(s)
        case .map:
            guard base[i] == 0x7B else { throw Rejected() }
            i &+= 1
            skipWhitespace()
            guard i < end else { throw Rejected() }
            if base[i] == 0x7D {
                i &+= 1
                guard !FirestoreLimits.isTooDeep(depth: depth, isMap: true) else { throw Rejected() }
                v = .map([:])
            } else {
                guard base[i] == 0x22 else { throw Rejected() }
                let first = try string()
                v = .map(try members(firstKey: first, depth: depth, dollarKeys: true))
            }
        case .serverTimestamp, .delete:
            try literal(0x74_72_75_65, length: 4)
            guard !inArray, !storedForm else { throw Rejected() }
            v = kind == .delete ? .delete : .serverTimestamp
        case .increment:
            guard base[i] == 0x2D || (base[i] >= 0x30 && base[i] <= 0x39) else { throw Rejected() }
            let operand = try number()
            guard !inArray, !storedForm else { throw Rejected() }
            v = .increment(operand)
        case .unknown:
            throw Rejected()
        }
        skipWhitespace()
        // A wrapper has exactly one key.
        try expect(0x7D)
        return v
    }

    private enum WrapperKind {
        case double, timestamp, bytes, geoPoint, reference, map, serverTimestamp, delete, increment, unknown

        init(_ key: UnsafeBufferPointer<UInt8>) {
            switch key.count {
            case 4 where SinglePassCanonicalReader.equals(key, "$map"): self = .map
            case 6 where SinglePassCanonicalReader.equals(key, "$bytes"): self = .bytes
            case 7 where SinglePassCanonicalReader.equals(key, "$double"): self = .double
            case 7 where SinglePassCanonicalReader.equals(key, "$delete"): self = .delete
            case 9 where SinglePassCanonicalReader.equals(key, "$geoPoint"): self = .geoPoint
            case 10 where SinglePassCanonicalReader.equals(key, "$timestamp"): self = .timestamp
            case 10 where SinglePassCanonicalReader.equals(key, "$reference"): self = .reference
            case 10 where SinglePassCanonicalReader.equals(key, "$increment"): self = .increment
            case 16 where SinglePassCanonicalReader.equals(key, "$serverTimestamp"): self = .serverTimestamp
            default: self = .unknown
            }
        }
    }

    @inline(__always)
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard bytes.count == n else { return false }
        let t = text.utf8Start
        for k in 0..<n where bytes[k] != t[k] { return false }
        return true
    }

    /// `{"latitude": number, "longitude": number}` in either order, nothing else; in range.
    private mutating func geoPoint() throws(Rejected) -> GeoPoint {
        try expect(0x7B)
        var latitude: Double?
        var longitude: Double?
        for k in 0..<2 {
            skipWhitespace()
            guard i < end, base[i] == 0x22 else { throw Rejected() }
            let key = try string()
            let isLatitude: Bool
            if Self.equals(key, "latitude") {
                isLatitude = true
            } else if Self.equals(key, "longitude") {
                isLatitude = false
            } else {
                throw Rejected()
            }
            skipWhitespace()
            try expect(0x3A)
            skipWhitespace()
            guard i < end, base[i] == 0x2D || (base[i] >= 0x30 && base[i] <= 0x39) else { throw Rejected() }
            let d: Double
            switch try number() {
            case .integer(let v): d = Double(v)
            case .double(let x): d = x
            }
            if isLatitude {
                guard latitude == nil else { throw Rejected() }
                latitude = d
            } else {
                guard longitude == nil else { throw Rejected() }
                longitude = d
            }
            skipWhitespace()
            try expect(k == 0 ? 0x2C : 0x7D)
        }
        guard let latitude, let longitude else { throw Rejected() }
        let g = GeoPoint(latitude: latitude, longitude: longitude)
        guard g.rangeViolation == nil else { throw Rejected() }
        return g
    }

    // MARK: Numbers

    private static let exactPowersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// 10⁰ … 10¹⁹.
    private static let powersOfTen: [UInt64] = (0...19).map { k in (0..<k).reduce(1) { p, _ in p &* 10 } }

    /// The double nearest `w` × 10^`scale` (ties to even), for 0 < `w` < 2⁶⁴ and −19 ≤ `scale` ≤ 19: the
    /// product in 128 bits, or the quotient to 63 or 64 bits with its remainder, rounded once to 53
    /// bits. Exact, as the text's own reading is.
    static func decimalToDouble(_ w: UInt64, _ scale: Int) -> Double {
        let p = powersOfTen[abs(scale)]
        var high: UInt64
        var low: UInt64
        var exponent: Int
        var sticky = false
        if scale >= 0 {
            (high, low) = w.multipliedFullWidth(by: p)
            exponent = 0
        } else {
            // w · 2^s / p with s chosen so that the quotient has 63 or 64 bits; the remainder is sticky.
            let s = 63 &- (64 &- w.leadingZeroBitCount) &+ (64 &- p.leadingZeroBitCount)
            let shifted: (UInt64, UInt64) =
                s >= 64 ? (w << UInt64(s &- 64), 0) : s == 0 ? (0, w) : (w >> UInt64(64 &- s), w << UInt64(s))
            let (q, r) = p.dividingFullWidth(shifted)
            (high, low) = (0, q)
            exponent = -s
            sticky = r != 0
        }
        // The top 53 bits, rounded to nearest, ties to even.
        let bits = high != 0 ? 128 &- high.leadingZeroBitCount : 64 &- low.leadingZeroBitCount
        guard bits > 53 else { return Double(sign: .plus, exponent: exponent, significand: Double(low)) }
        let drop = bits &- 53
        var m: UInt64
        var rest: (UInt64, UInt64)
        if drop >= 64 {
            m = high >> UInt64(drop &- 64)
            rest = (high & ((1 << UInt64(drop &- 64)) &- 1), low)
        } else {
            m = high << UInt64(64 &- drop) | low >> UInt64(drop)
            rest = (0, low & ((1 << UInt64(drop)) &- 1))
        }
        let half: (UInt64, UInt64) = drop > 64 ? (1 << UInt64(drop &- 65), 0) : (0, 1 << UInt64(drop &- 1))
        let above = rest.0 > half.0 || (rest.0 == half.0 && rest.1 > half.1)
        let tie = rest == half
        if above || (tie && (sticky || m & 1 == 1)) { m &+= 1 }
        return Double(sign: .plus, exponent: exponent &+ drop, significand: Double(m))
    }

    /// A number: an int64 when written without fraction or exponent, else a finite double.
    private mutating func number() throws(Rejected) -> IncrementOperand {
        let start = i
        let negative = base[i] == 0x2D
        if negative { i &+= 1 }
        guard i < end, base[i] &- 0x30 < 10 else { throw Rejected() }
        var mantissa: UInt64 = 0
        var digits = 0
        if base[i] == 0x30 {
            i &+= 1
            if i < end, base[i] &- 0x30 < 10 { throw Rejected() }
        } else {
            while i < end {
                let d = base[i] &- 0x30
                guard d < 10 else { break }
                if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d) }
                digits &+= 1
                i &+= 1
            }
        }
        var fractionDigits = 0
        var integral = true
        if i < end, base[i] == 0x2E {
            integral = false
            i &+= 1
            guard i < end, base[i] &- 0x30 < 10 else { throw Rejected() }
            while i < end {
                let d = base[i] &- 0x30
                guard d < 10 else { break }
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    fractionDigits &+= 1
                }
                if mantissa != 0 { digits &+= 1 }
                i &+= 1
            }
        }
        var exponent = 0
        if i < end, base[i] | 0x20 == 0x65 {
            integral = false
            i &+= 1
            var exponentNegative = false
            if i < end, base[i] == 0x2B || base[i] == 0x2D {
                exponentNegative = base[i] == 0x2D
                i &+= 1
            }
            guard i < end, base[i] &- 0x30 < 10 else { throw Rejected() }
            while i < end {
                let d = base[i] &- 0x30
                guard d < 10 else { break }
                if exponent < 100_000 { exponent = exponent &* 10 &+ Int(d) }
                i &+= 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if integral {
            // At most 19 digits were kept; more is outside int64.
            guard digits <= 19 else { throw Rejected() }
            if negative {
                guard mantissa <= UInt64(Int64.max) &+ 1 else { throw Rejected() }
                return .integer(mantissa == UInt64(Int64.max) &+ 1 ? .min : -Int64(mantissa))
            }
            guard mantissa <= UInt64(Int64.max) else { throw Rejected() }
            return .integer(Int64(mantissa))
        }
        // Exact when the digits fit 53 bits and the power of ten is exact (Clinger's fast path): one
        // correctly rounded multiplication or division, the same double as the text's.
        let scale = exponent &- fractionDigits
        if digits <= 19, mantissa <= 1 << 53, scale >= -22, scale <= 22 {
            var d = Double(mantissa)
            if scale < 0 {
                d /= Self.exactPowersOfTen[-scale]
            } else {
                d *= Self.exactPowersOfTen[scale]
            }
            return .double(negative ? -d : d)
        }
        // Up to nineteen digits times or over a power of ten up to 10¹⁹, in integer arithmetic, rounded
        // once (the seventeen-digit doubles of computed values: 60500.55000000001).
        if digits <= 19, mantissa != 0, scale >= -19, scale <= 19 {
            let d = Self.decimalToDouble(mantissa, scale)
            return .double(negative ? -d : d)
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: i &- start), as: UTF8.self)
        guard let d = Double(text), d.isFinite else { throw Rejected() }
        return .double(d)
    }

    // MARK: Strings

    /// Reads the string at `i` (its opening quote): the decoded UTF-8, a view of the input when it has
    /// no escapes, else of the scratch buffer (valid until the next string).
    private mutating func string() throws(Rejected) -> UnsafeBufferPointer<UInt8> {
        i &+= 1
        let start = i
        // Eight bytes at a time up to a quote, a backslash or a control character, which the word's
        // mask points at; the last few bytes one by one. Bytes of 0x80 and more (UTF-8 sequences)
        // pass here; the string is checked as UTF-8 once, when it is made.
        while true {
            #if _endian(little)
                if end &- i >= 8 {
                    let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    let found = JSONStringBytes.quoteBackslashOrControl(w)
                    if found == 0 {
                        i &+= 8
                        continue
                    }
                    i &+= found.trailingZeroBitCount &>> 3
                }
            #endif
            guard i < end else { break }
            let b = base[i]
            if b == 0x22 {
                i &+= 1
                return UnsafeBufferPointer(start: base + start, count: i &- 1 &- start)
            }
            if b == 0x5C || b < 0x20 { break }
            i &+= 1
        }
        guard i < end, base[i] == 0x5C else { throw Rejected() }
        return try escapedString(from: start)
    }

    /// The end of the valid UTF-8 sequences starting at `j` (a byte ≥ 0x80), up to the next ASCII byte.
    /// Accepts the sequences ``StrictJSONReader`` accepts: no overlong forms, no surrogates, nothing
    /// above U+10FFFF, nothing cut by the end of the input.
    @inline(__always)
    static func skipUTF8(_ p: UnsafePointer<UInt8>, _ j0: Int, _ end: Int) throws(Rejected) -> Int {
        var j = j0
        while j < end {
            let b0 = p[j]
            if b0 < 0x80 { return j }
            if b0 < 0xE0 {
                guard b0 >= 0xC2, j &+ 1 < end, p[j &+ 1] & 0xC0 == 0x80 else { throw Rejected() }
                j &+= 2
            } else if b0 < 0xF0 {
                guard j &+ 2 < end else { throw Rejected() }
                let b1 = p[j &+ 1]
                let lower: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
                let upper: UInt8 = b0 == 0xED ? 0x9F : 0xBF
                guard b1 >= lower, b1 <= upper, p[j &+ 2] & 0xC0 == 0x80 else { throw Rejected() }
                j &+= 3
            } else {
                guard b0 <= 0xF4, j &+ 3 < end else { throw Rejected() }
                let b1 = p[j &+ 1]
                let lower: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
                let upper: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
                guard b1 >= lower, b1 <= upper, p[j &+ 2] & 0xC0 == 0x80, p[j &+ 3] & 0xC0 == 0x80 else {
                    throw Rejected()
                }
                j &+= 4
            }
        }
        return j
    }

    /// A string with escapes, decoded into the scratch buffer; `i` is at the first backslash.
    private mutating func escapedString(from start: Int) throws(Rejected) -> UnsafeBufferPointer<UInt8> {
        reserveScratch(i &- start &+ 16, keeping: 0)
        scratch.update(from: base + start, count: i &- start)
        var out = i &- start
        while i < end {
            let b = base[i]
            if b == 0x22 {
                i &+= 1
                return UnsafeBufferPointer(start: scratch, count: out)
            }
            if b < 0x20 { throw Rejected() }
            if b != 0x5C {
                // A run without escapes, copied at once (checked as UTF-8 with the whole string).
                let runStart = i
                while i < end {
                    let c = base[i]
                    if c == 0x22 || c == 0x5C || c < 0x20 { break }
                    i &+= 1
                }
                reserveScratch(out &+ (i &- runStart) &+ 16, keeping: out)
                (scratch + out).update(from: base + runStart, count: i &- runStart)
                out &+= i &- runStart
                continue
            }
            reserveScratch(out &+ 16, keeping: out)
            guard end &- i >= 2 else { throw Rejected() }
            let c = base[i &+ 1]
            i &+= 2
            let decoded: UInt8
            switch c {
            case 0x22: decoded = 0x22
            case 0x5C: decoded = 0x5C
            case 0x2F: decoded = 0x2F
            case 0x62: decoded = 0x08
            case 0x66: decoded = 0x0C
            case 0x6E: decoded = 0x0A
            case 0x72: decoded = 0x0D
            case 0x74: decoded = 0x09
            case 0x75:
                var u = try hex4()
                if u >= 0xD800 && u <= 0xDBFF {
                    guard end &- i >= 2, base[i] == 0x5C, base[i &+ 1] == 0x75 else { throw Rejected() }
                    i &+= 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low <= 0xDFFF else { throw Rejected() }
                    u = 0x10000 &+ ((u &- 0xD800) << 10) &+ (low &- 0xDC00)
                } else if u >= 0xDC00 && u <= 0xDFFF {
                    throw Rejected()
                }
                out = Self.appendUTF8(u, to: scratch, at: out)
                continue
            default: throw Rejected()
            }
            scratch[out] = decoded
            out &+= 1
        }
        throw Rejected()
    }

    /// Grows the scratch buffer to at least `n` bytes, keeping its first `keeping` bytes.
    private mutating func reserveScratch(_ n: Int, keeping: Int) {
        guard scratchCapacity < n else { return }
        let capacity = max(n, scratchCapacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: scratch, count: keeping)
        scratch.deallocate()
        scratch = grown
        scratchCapacity = capacity
    }

    private mutating func hex4() throws(Rejected) -> UInt32 {
        guard end &- i >= 4 else { throw Rejected() }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = base[i]
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b &- 0x30
            case 0x41...0x46: d = b &- 0x41 &+ 10
            case 0x61...0x66: d = b &- 0x61 &+ 10
            default: throw Rejected()
            }
            v = v << 4 | UInt32(d)
            i &+= 1
        }
        return v
    }

    /// Writes the UTF-8 of scalar `u` (not a surrogate, ≤ U+10FFFF) at `out`; the new end.
    @inline(__always)
    private static func appendUTF8(_ u: UInt32, to p: UnsafeMutablePointer<UInt8>, at out: Int) -> Int {
        if u < 0x80 {
            p[out] = UInt8(u)
            return out &+ 1
        }
        if u < 0x800 {
            p[out] = UInt8(0xC0 | u >> 6)
            p[out &+ 1] = UInt8(0x80 | u & 0x3F)
            return out &+ 2
        }
        if u < 0x10000 {
            p[out] = UInt8(0xE0 | u >> 12)
            p[out &+ 1] = UInt8(0x80 | (u >> 6) & 0x3F)
            p[out &+ 2] = UInt8(0x80 | u & 0x3F)
            return out &+ 3
        }
        p[out] = UInt8(0xF0 | u >> 18)
        p[out &+ 1] = UInt8(0x80 | (u >> 12) & 0x3F)
        p[out &+ 2] = UInt8(0x80 | (u >> 6) & 0x3F)
        p[out &+ 3] = UInt8(0x80 | u & 0x3F)
        return out &+ 4
    }

    /// A string from bytes that must be UTF-8 as ``StrictJSONReader`` reads it (no overlong forms, no
    /// surrogates, nothing above U+10FFFF, nothing cut short), checked once, as the string is made.
    @inline(__always)
    private func makeString(_ bytes: UnsafeBufferPointer<UInt8>) throws(Rejected) -> String {
        guard let p = bytes.baseAddress else { return "" }
        let ascii = Self.isASCII(bytes)
        if !ascii { try Self.checkUTF8(p, bytes.count) }
        // Checked here once: where the standard library has UTF8Span, copied without a second check
        // (`String(decoding:)` checks again, at about ten instructions a byte past ASCII).
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            return String(copying: UTF8Span(unchecked: bytes.span, isKnownASCII: ascii))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Throws unless the `n` bytes at `p` are well-formed UTF-8 (RFC 3629): ASCII and runs of
    /// two-byte sequences (U+0080…U+07FF: the accented letters of most European names) eight bytes
    /// at a time, anything else by ``skipUTF8(_:_:_:)``.
    static func checkUTF8(_ p: UnsafePointer<UInt8>, _ n: Int) throws(Rejected) {
        var j = 0
        while j < n {
            #if _endian(little)
                if n &- j >= 8 {
                    let w = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)
                    if w & 0x8080_8080_8080_8080 == 0 {
                        j &+= 8
                        continue
                    }
                    // Four times 110xxxxx 10xxxxxx with a lead byte from C2 (its bits 1–4 not all clear).
                    let leads = ((w & 0x001E_001E_001E_001E) &+ 0x7FFF_7FFF_7FFF_7FFF) & 0x8000_8000_8000_8000
                    if w & 0xC0E0_C0E0_C0E0_C0E0 == 0x80C0_80C0_80C0_80C0, leads == 0x8000_8000_8000_8000 {
                        j &+= 8
                        continue
                    }
                }
            #endif
            if p[j] < 0x80 {
                j &+= 1
            } else {
                j = try skipUTF8(p, j, n)
            }
        }
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = bytes.baseAddress else { return true }
        let n = bytes.count
        var j = 0
        while n &- j >= 8 {
            if UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            j &+= 8
        }
        while j < n {
            if p[j] >= 0x80 { return false }
            j &+= 1
        }
        return true
    }

    /// A map key, from the cache when the same bytes were a key before (a key repeats within a
    /// document and across the documents of a stream): no new string, no UTF-8 check, no allocation.
    @inline(__always)
    private mutating func makeKey(_ bytes: UnsafeBufferPointer<UInt8>) throws(Rejected) -> String {
        let n = bytes.count
        guard n > 0, n <= 64, let p = bytes.baseAddress else {
            keyHash = UInt64(truncatingIfNeeded: n)
            return try makeString(bytes)
        }
        // The first sixteen bytes as two words, zero-padded.
        let words = JSONStringBytes.firstSixteenBytes(bytes)
        var h = (words.0 ^ UInt64(n) &* 0x9E37_79B9_7F4A_7C15) &* 0xFF51_AFD7_ED55_8CCD
        h ^= (h >> 29) ^ (words.1 &* 0xC4CE_B9FE_1A85_EC53)
        h ^= h >> 32
        keyHash = h
        // Two places per hash, the last hit first, so that two keys of one hash do not push each other
        // out (each time made again, each a new string).
        let slot = keyCache + Int(truncatingIfNeeded: h & UInt64(Self.keyCacheSize - 2))
        func holds(_ entry: UnsafeMutablePointer<CachedKey>) -> Bool {
            guard entry.pointee.count == n, entry.pointee.first == words.0, entry.pointee.second == words.1 else {
                return false
            }
            if n <= 16 { return true }
            return entry.pointee.key.utf8.withContiguousStorageIfAvailable { cached in
                guard cached.count == n, let c = cached.baseAddress else { return false }
                return memcmp(c + 16, p + 16, n &- 16) == 0
            } ?? false
        }
        if holds(slot) { return slot.pointee.key }
        if holds(slot + 1) {
            swap(&slot.pointee, &(slot + 1).pointee)
            return slot.pointee.key
        }
        let key = try makeString(bytes)
        swap(&slot.pointee, &(slot + 1).pointee)
        slot.pointee = CachedKey(first: words.0, second: words.1, count: n, key: key)
        return key
    }
}

extension CanonicalBase64 {
    /// The standard alphabet's values by byte; 0xFF for bytes outside it (`=` included).
    static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (k, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(c)] = UInt8(k)
        }
        return table
    }()

    /// ``decode(_:)`` on UTF-8 bytes, decoding and checking in one pass: four characters per three
    /// bytes, `=` padding only at the end, and the bits the padding leaves out zero (the only spelling
    /// the bytes encode back to). Nil when the text is not that.
    static func decode(utf8 text: UnsafeBufferPointer<UInt8>) -> Data? {
        let n = text.count
        guard n % 4 == 0 else { return nil }
        if n == 0 { return Data() }
        let padding = text[n - 1] == 0x3D ? (text[n - 2] == 0x3D ? 2 : 1) : 0
        var data = Data(count: n / 4 * 3 - padding)
        let ok = values.withUnsafeBufferPointer { table in
            data.withUnsafeMutableBytes { raw -> Bool in
                guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
                var o = 0
                var k = 0
                let full = n - (padding > 0 ? 4 : 0)
                while k < full {
                    let a = table[Int(text[k])]
                    let b = table[Int(text[k + 1])]
                    let c = table[Int(text[k + 2])]
                    let d = table[Int(text[k + 3])]
                    guard (a | b | c | d) & 0xC0 == 0 else { return false }
                    out[o] = a << 2 | b >> 4
                    out[o + 1] = b << 4 | c >> 2
                    out[o + 2] = c << 6 | d
                    o += 3
                    k += 4
                }
                guard padding > 0 else { return true }
                let a = table[Int(text[k])]
                let b = table[Int(text[k + 1])]
                guard (a | b) & 0xC0 == 0 else { return false }
                out[o] = a << 2 | b >> 4
                if padding == 2 { return b & 0x0F == 0 }
                let c = table[Int(text[k + 2])]
                guard c & 0xC0 == 0, c & 0x03 == 0 else { return false }
                out[o + 1] = b << 4 | c >> 2
                return true
            }
        }
        return ok ? data : nil
    }
}

/// The keys of a map read before, in the order they came, and an empty copy of it: a map with the same
/// keys in the same order is that copy with its values set by index (``SinglePassCanonicalReader``).
final class MapShape {
    /// Maps of fewer keys are hashed as they come.
    static let minimumKeys = 3
    static let slots = 128

    /// The keys in the order of the text.
    let keys: [String]
    /// Where each key is in `template`.
    let indices: [[String: FirestoreValue].Index]
    /// The map with every value null.
    let template: [String: FirestoreValue]

    /// The slot of a signature in ``CanonicalJSONReader/shapes``.
    @inline(__always)
    static func slot(_ signature: UInt64) -> Int { Int(truncatingIfNeeded: signature >> 57) }

    /// What ``CanonicalJSONReader/shapeKeys`` holds for a signature and key count (never 0).
    @inline(__always)
    static func key(_ signature: UInt64, _ count: Int) -> UInt64 {
        (signature ^ UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15) | 1
    }

    /// The shape of `map`, whose keys came in the order of `keys`.
    init(of map: [String: FirestoreValue], keys: [String]) {
        var template = map
        for index in map.indices { template.values[index] = .null }
        self.keys = keys
        self.indices = keys.map { template.index(forKey: $0)! }
        self.template = template
    }
}

/// A reader of canonical typed JSON (Goldens/FORMAT.md) that keeps its working buffers and its cache
/// of long keys from one document to the next: for JSON Lines and many files read on one thread.
///
/// Reads exactly as ``CanonicalJSON/decode(_:file:form:)-([UInt8],_,_)`` does (one pass on valid input;
/// the typed error otherwise). Not for sharing between threads: give each thread its own.
public final class CanonicalJSONReader {
    var members: UnsafeMutablePointer<(String, FirestoreValue)>
    var memberCapacity = 32
    var scratch: UnsafeMutablePointer<UInt8>
    var scratchCapacity = 256
    let keyCache: UnsafeMutablePointer<SinglePassCanonicalReader.CachedKey>
    /// The signature and key count of the last map of at least ``MapShape/minimumKeys`` keys in each
    /// slot (``MapShape/key(_:_:)``), and its shape once a second map of them came; empty until then.
    var shapeKeys: [UInt64] = []
    var shapes: [MapShape?] = []

    /// A reader with empty buffers.
    public init() {
        members = .allocate(capacity: memberCapacity)
        scratch = .allocate(capacity: scratchCapacity)
        keyCache = .allocate(capacity: SinglePassCanonicalReader.keyCacheSize)
        keyCache.initialize(
            repeating: SinglePassCanonicalReader.CachedKey(first: 0, second: 0, count: -1, key: ""),
            count: SinglePassCanonicalReader.keyCacheSize)
    }

    deinit {
        members.deallocate()
        scratch.deallocate()
        keyCache.deinitialize(count: SinglePassCanonicalReader.keyCacheSize)
        keyCache.deallocate()
    }

    /// Gives back what one very large document made the buffers grow to.
    func shrinkAfterLargeDocument() {
        if memberCapacity > 4096 {
            members.deallocate()
            memberCapacity = 32
            members = .allocate(capacity: memberCapacity)
        }
        if scratchCapacity > 1 << 20 {
            scratch.deallocate()
            scratchCapacity = 256
            scratch = .allocate(capacity: scratchCapacity)
        }
    }

    /// Reads one canonical typed JSON text held in part of a buffer (a line of JSON Lines, a whole
    /// file); line and column in errors count from the slice's first byte.
    /// - Parameters:
    ///   - bytes: UTF-8 text.
    ///   - file: file name for messages.
    ///   - form: `.stored` rejects sentinels; nil or `.write` accepts them outside arrays.
    /// - Throws: `SchemaInputError` with file, line:column, JSON pointer and rule.
    public func decode(_ bytes: ArraySlice<UInt8>, file: String? = nil, form: DocumentForm? = nil) throws
        -> FirestoreValue
    {
        if let value = bytes.withUnsafeBufferPointer({ SinglePassCanonicalReader.read($0, form: form, owner: self) }) {
            return value
        }
        return try CanonicalJSON.decodeNamingTheError(Array(bytes), file: file, form: form)
    }
}
