import Testing
import VultureSchemaCore
import VultureSyncSchema

/// `String(validUTF8:)`, the validating decoder that works before macOS 15 and iOS 18.
@Suite struct ValidUTF8Tests {
    @Test(arguments: [
        ([UInt8](), ""),
        (Array("aé€😀".utf8), "aé€😀"),
        ([0xEF, 0xBF, 0xBD], "\u{FFFD}"),  // the replacement character itself is valid
        ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}"),
    ])
    func wellFormedBytesAreText(bytes: [UInt8], text: String) {
        #expect(String(validUTF8: bytes) == text)
    }

    @Test(
        arguments: [
            [0xFF],  // never a UTF-8 byte
            [0xC0, 0x80],  // overlong NUL
            [0xE0, 0x80, 0xAF],  // overlong "/"
            [0xED, 0xA0, 0x80],  // an encoded surrogate
            [0xF4, 0x90, 0x80, 0x80],  // past U+10FFFF
            [0x61, 0xE2, 0x82],  // cut off
            [0x80],  // a lone continuation byte
        ] as [[UInt8]])
    func malformedBytesAreNil(bytes: [UInt8]) {
        #expect(String(validUTF8: bytes) == nil)
        #expect(String(validUTF8: [0x61] + bytes + [0x62]) == nil)
    }
}
