/// The shortest decimal that reads back as a given double, and of those the closest to it: the digits
/// of ECMAScript's Number::toString and of RFC 8785 (Goldens/FORMAT.md), found in a fixed number of
/// 64-bit multiplications.
///
/// The algorithm is Schubfach (R. Giulietti, "The Schubfach way to render doubles", 2020, as in the
/// OpenJDK's `DoubleToDecimal`): the value's rounding interval is scaled by a 126-bit approximation of a
/// power of ten, rounded to odd, and the one or two candidates of the right length are tested against
/// the interval's ends. The powers of ten are computed once, exactly, with integer arithmetic.
enum ShortestDouble {
    /// The digits of a finite, positive double `v`: `v` = `significand` × 10^`exponent`, `significand`
    /// without trailing zeros (1 ≤ significand < 10^17).
    static func decimal(_ v: Double) -> (significand: UInt64, exponent: Int) {
        let (f, e) = raw(v)
        return stripZeros(f, e)
    }

    private static let significandBits = 52
    private static let minimumExponent = -1074  // Q_MIN: the exponent of the least subnormal bit
    private static let hiddenBit: UInt64 = 1 << 52  // C_MIN
    private static let tinyLimit: UInt64 = 3  // C_TINY

    private static func raw(_ v: Double) -> (UInt64, Int) {
        let bits = v.bitPattern
        let t = bits & (hiddenBit - 1)
        let bq = Int(truncatingIfNeeded: (bits >> 52) & 0x7FF)
        if bq != 0 {
            let mq = -minimumExponent + 1 - bq
            let c = hiddenBit | t
            // An integer below 2^53: its digits directly.
            if mq > 0, mq < 53 {
                let f = c >> UInt64(mq)
                if f << UInt64(mq) == c { return (f, 0) }
            }
            return toDecimal(q: -mq, c: c, dk: 0)
        }
        // The two least subnormals have too few bits for the interval test (the OpenJDK widens them to
        // two digits, 4.9e-324); their shortest forms are 5e-324 and 1e-323.
        if t < tinyLimit { return t == 1 ? (5, -324) : (1, -323) }
        return toDecimal(q: minimumExponent, c: t, dk: 0)
    }

    /// floor(log10(2^e)).
    @inline(__always) static func flog10pow2(_ e: Int) -> Int { (e &* 661_971_961_083) >> 41 }
    /// floor(log10(3/4 · 2^e)).
    @inline(__always) static func flog10threeQuartersPow2(_ e: Int) -> Int {
        (e &* 661_971_961_083 &+ -274_743_187_321) >> 41
    }
    /// floor(log2(10^e)).
    @inline(__always) static func flog2pow10(_ e: Int) -> Int { (e &* 913_124_641_741) >> 38 }

    private static func toDecimal(q: Int, c: UInt64, dk: Int) -> (UInt64, Int) {
        let out: UInt64 = c & 1
        let cb = c << 2
        let cbr = cb + 2
        let cbl: UInt64
        let k: Int
        if c != hiddenBit || q == minimumExponent {
            cbl = cb - 2
            k = flog10pow2(q)
        } else {
            cbl = cb - 1
            k = flog10threeQuartersPow2(q)
        }
        let h = UInt64(q + flog2pow10(-k) + 2)
        let (g1, g0) = PowersOfTen.g(k)
        let vb = rop(g1, g0, cb << h)
        let vbl = rop(g1, g0, cbl << h)
        let vbr = rop(g1, g0, cbr << h)
        let s = vb >> 2
        // The OpenJDK tries one digit fewer from s ≥ 100 on (Java shows at least two digits); the
        // shortest form tries it from s ≥ 10, which matters only for the smallest subnormals.
        if s >= 10 {
            let sp10 = s / 10 * 10
            let tp10 = sp10 + 10
            let upin = vbl + out <= sp10 << 2
            let wpin = (tp10 << 2) + out <= vbr
            if upin != wpin { return (upin ? sp10 : tp10, k) }
        }
        let t = s + 1
        let uin = vbl + out <= s << 2
        let win = (t << 2) + out <= vbr
        if uin != win { return (uin ? s : t, k + dk) }
        let cmp = Int64(bitPattern: vb &- ((s + t) << 1))
        return (cmp < 0 || (cmp == 0 && s & 1 == 0) ? s : t, k + dk)
    }

    /// cp · g · 2^-127 rounded to odd, with g = g1 · 2^63 + g0.
    @inline(__always)
    private static func rop(_ g1: UInt64, _ g0: UInt64, _ cp: UInt64) -> UInt64 {
        let mask63: UInt64 = (1 << 63) - 1
        let x1 = g0.multipliedFullWidth(by: cp).high
        let y = g1.multipliedFullWidth(by: cp)
        let z = (y.low >> 1) &+ x1
        let vbp = y.high &+ (z >> 63)
        return vbp | ((z & mask63) &+ mask63) >> 63
    }

    private static func stripZeros(_ f0: UInt64, _ e0: Int) -> (UInt64, Int) {
        var f = f0
        var e = e0
        if f == 0 { return (0, 0) }
        while f % 10 == 0 {
            f /= 10
            e += 1
        }
        return (f, e)
    }
}

/// The 126-bit approximations g of 10^-k used by ``ShortestDouble``: with 10^-k = β · 2^r and
/// 2^125 ≤ β < 2^126, g = ⌊β⌋ + 1, split as g1 = ⌊g / 2^63⌋ and g0 = g mod 2^63; for k from -324 to 292.
enum PowersOfTen {
    static let minimumK = -324
    static let maximumK = 292

    /// g1 and g0 for `k`.
    @inline(__always)
    static func g(_ k: Int) -> (UInt64, UInt64) {
        if k <= 0 {
            let row = nonPositive[-k]
            return (row.0, row.1)
        }
        let row = positive[k - 1]
        return (row.0, row.1)
    }

    /// Rows for k = 0, -1, …, -324: 10^-k is an integer, so g takes only products and shifts.
    private static let nonPositive: [(UInt64, UInt64)] = (0...(-minimumK)).map { n in
        var power = BigNatural(1)
        for _ in 0..<n { power.multiply(by: 10) }
        let r = ShortestDouble.flog2pow10(n) - 125
        var beta = r >= 0 ? power.shiftedRight(r) : power.shiftedLeft(-r)
        beta.add(1)
        return beta.split63()
    }

    /// Rows for k = 1 … 292: g = ⌊2^-r / 10^k⌋ + 1, a quotient of 126 bits.
    private static let positive: [(UInt64, UInt64)] = (1...maximumK).map { k in
        var power = BigNatural(1)
        for _ in 0..<k { power.multiply(by: 10) }
        let r = ShortestDouble.flog2pow10(-k) - 125
        var beta = BigNatural.quotient(ofPowerOfTwo: -r, by: power)
        beta.add(1)
        return beta.split63()
    }
}

/// A natural number in 64-bit limbs, least significant first: just what ``PowersOfTen`` needs.
struct BigNatural {
    var limbs: [UInt64]

    init(_ value: UInt64) { limbs = [value] }

    private init(limbs: [UInt64]) {
        var l = limbs
        while l.count > 1, l.last == 0 { l.removeLast() }
        self.limbs = l
    }

    var bitWidth: Int {
        guard let top = limbs.last, top != 0 else { return 0 }
        return (limbs.count - 1) * 64 + (64 - top.leadingZeroBitCount)
    }

    mutating func multiply(by m: UInt64) {
        var carry: UInt64 = 0
        for k in limbs.indices {
            let (high, low) = limbs[k].multipliedFullWidth(by: m)
            let (sum, overflow) = low.addingReportingOverflow(carry)
            limbs[k] = sum
            carry = high &+ (overflow ? 1 : 0)
        }
        if carry != 0 { limbs.append(carry) }
    }

    mutating func add(_ a: UInt64) {
        var carry = a
        var k = 0
        while carry != 0 {
            if k == limbs.count { limbs.append(0) }
            let (sum, overflow) = limbs[k].addingReportingOverflow(carry)
            limbs[k] = sum
            carry = overflow ? 1 : 0
            k += 1
        }
    }

    func shiftedLeft(_ n: Int) -> BigNatural {
        let words = n / 64
        let bits = n % 64
        var out = [UInt64](repeating: 0, count: limbs.count + words + 1)
        for (k, limb) in limbs.enumerated() {
            out[k + words] |= limb << UInt64(bits)
            if bits > 0 { out[k + words + 1] |= limb >> UInt64(64 - bits) }
        }
        return BigNatural(limbs: out)
    }

    func shiftedRight(_ n: Int) -> BigNatural {
        let words = n / 64
        let bits = n % 64
        guard words < limbs.count else { return BigNatural(0) }
        var out = [UInt64](repeating: 0, count: limbs.count - words)
        for k in out.indices {
            out[k] = limbs[k + words] >> UInt64(bits)
            if bits > 0, k + words + 1 < limbs.count { out[k] |= limbs[k + words + 1] << UInt64(64 - bits) }
        }
        return BigNatural(limbs: out)
    }

    static func >= (a: BigNatural, b: BigNatural) -> Bool {
        if a.limbs.count != b.limbs.count { return a.limbs.count > b.limbs.count }
        for k in a.limbs.indices.reversed() where a.limbs[k] != b.limbs[k] { return a.limbs[k] > b.limbs[k] }
        return true
    }

    mutating func subtract(_ b: BigNatural) {
        var borrow: UInt64 = 0
        for k in limbs.indices {
            let (d1, o1) = limbs[k].subtractingReportingOverflow(k < b.limbs.count ? b.limbs[k] : 0)
            let (d2, o2) = d1.subtractingReportingOverflow(borrow)
            limbs[k] = d2
            borrow = (o1 || o2) ? 1 : 0
        }
        while limbs.count > 1, limbs.last == 0 { limbs.removeLast() }
    }

    mutating func double() {
        var carry: UInt64 = 0
        for k in limbs.indices {
            let next = limbs[k] >> 63
            limbs[k] = limbs[k] << 1 | carry
            carry = next
        }
        if carry != 0 { limbs.append(carry) }
    }

    /// ⌊2^e / d⌋ (below 2^128) by binary long division, starting from the largest power of two below `d`.
    static func quotient(ofPowerOfTwo e: Int, by d: BigNatural) -> BigNatural {
        let start = d.bitWidth - 1
        var remainder = BigNatural(1).shiftedLeft(start)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for _ in start..<e {
            remainder.double()
            high = high << 1 | low >> 63
            low <<= 1
            if remainder >= d {
                remainder.subtract(d)
                low |= 1
            }
        }
        return BigNatural(limbs: [low, high])
    }

    /// (⌊self / 2^63⌋, self mod 2^63) for a number below 2^126.
    func split63() -> (UInt64, UInt64) {
        let low = limbs[0]
        let high = limbs.count > 1 ? limbs[1] : 0
        return (high << 1 | low >> 63, low & ((1 << 63) - 1))
    }
}
