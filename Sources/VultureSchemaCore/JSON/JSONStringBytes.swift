/// Eight bytes of a JSON string at a time, for the canonical reader and writer: where a string's
/// bytes can be copied as they are and where one needs a closer look (RFC 8259 §7).
enum JSONStringBytes {
    /// Whether any of the eight bytes of `w` is a quote (0x22), a backslash (0x5C) or a control
    /// character (below 0x20). Bytes from 0x80 up (the rest of a UTF-8 sequence) do not count.
    @inline(__always)
    static func hasQuoteBackslashOrControl(_ w: UInt64) -> Bool {
        quoteBackslashOrControl(w) != 0
    }

    /// The high bit of each byte of `w` that may be a quote, a backslash or a control character: the
    /// lowest one set is the first such byte (a borrow can only mark bytes after it); 0 when none is.
    @inline(__always)
    static func quoteBackslashOrControl(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let zeroInQuote = (quote &- ones) & ~quote
        let zeroInBackslash = (backslash &- ones) & ~backslash
        let control = (w &- ones &* 0x20) & ~w
        return (zeroInQuote | zeroInBackslash | control) & highs
    }

    /// The first sixteen bytes of `u` as two words in memory order, zero-padded: overlapping loads
    /// where there are enough bytes, never past the end.
    @inline(__always)
    static func firstSixteenBytes(_ u: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        guard let p = u.baseAddress else { return (0, 0) }
        let n = u.count
        let raw = UnsafeRawPointer(p)
        #if _endian(little)
            if n >= 16 {
                return (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
            if n > 8 {
                let tail = raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) >> UInt64((16 &- n) &* 8)
                return (raw.loadUnaligned(as: UInt64.self), tail)
            }
            if n == 8 { return (raw.loadUnaligned(as: UInt64.self), 0) }
            if n >= 4 {
                let head = UInt64(raw.loadUnaligned(as: UInt32.self))
                let tail = UInt64(raw.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)) >> UInt64((8 &- n) &* 8)
                return (head | tail << 32, 0)
            }
            var w: UInt64 = 0
            for j in 0..<n { w |= UInt64(p[j]) << UInt64(j &* 8) }
            return (w, 0)
        #else
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { $0.baseAddress?.copyMemory(from: p, byteCount: min(16, n)) }
            return words
        #endif
    }
}
