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
}
