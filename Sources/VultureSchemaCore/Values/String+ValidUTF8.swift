extension String {
    /// The text of `bytes` when they are well-formed UTF-8 (RFC 3629: no overlong forms, no encoded
    /// surrogates, nothing past U+10FFFF, no cut-off sequence), nil otherwise.
    ///
    /// Works on every OS version this package supports (`String(validating:as:)` needs macOS 15 and
    /// iOS 18): the bytes are decoded with repair, and any repair changes them.
    package init?<Bytes: Collection>(validUTF8 bytes: Bytes) where Bytes.Element == UInt8 {
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }
}
