import CZlib
import Foundation
import Testing

#if canImport(CCrypto)
    import CCrypto  // Linux only: Apple platforms hash with CryptoKit (Package.swift)
#endif

/// The system libraries are wired: zlib answers its version, libcrypto computes SHA-256("abc")
/// where SHA256Stream uses it (Linux).
@Suite struct SystemLibraryTests {
    @Test func zlibIsLinked() {
        let version = String(cString: zlibVersion())
        #expect(version.hasPrefix("1."), "zlib version \(version)")
        // crc32 of "123456789" is the standard check value 0xCBF43926.
        let crc = Array("123456789".utf8).withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        #expect(crc == 0xCBF4_3926)
    }

    #if canImport(CCrypto)
        @Test func libcryptoComputesSHA256() throws {
            let ctx = try #require(EVP_MD_CTX_new())
            defer { EVP_MD_CTX_free(ctx) }
            #expect(EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1)
            let input = Array("abc".utf8)
            #expect(input.withUnsafeBytes { EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) } == 1)
            var digest = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 0
            #expect(EVP_DigestFinal_ex(ctx, &digest, &length) == 1)
            let hex = digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
            #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        }
    #endif
}
