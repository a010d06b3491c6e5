import Foundation
import VultureSchemaCore

#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCrypto
#endif

/// Streaming SHA-256 (schema §4: every id and hash is SHA-256): CryptoKit on Apple platforms,
/// libcrypto's EVP interface elsewhere.
///
/// Feed any number of byte chunks with ``update(_:)-(UnsafeRawBufferPointer)``, then call
/// ``finalize()`` once for the 32-byte digest (or ``finalizeHex()`` for the 64 lowercase hex
/// characters the schema writes). Memory stays constant whatever the input size. Not thread-safe;
/// use one instance per stream.
public final class SHA256Stream {
    private var finished = false
    #if canImport(CryptoKit)
        private var hasher = CryptoKit.SHA256()
    #else
        private let context: OpaquePointer
    #endif

    /// Creates a fresh SHA-256 state. With libcrypto, traps only if it cannot allocate a context
    /// (out of memory).
    public init() {
        #if !canImport(CryptoKit)
            guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed: out of memory") }
            guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else {
                EVP_MD_CTX_free(ctx)
                fatalError("EVP_DigestInit_ex(SHA-256) failed")
            }
            context = ctx
        #endif
    }

    #if !canImport(CryptoKit)
        deinit { EVP_MD_CTX_free(context) }
    #endif

    /// Hashes `bytes` (any length, zero included). Calling after ``finalize()`` is a programming error and traps.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256Stream.update after finalize")
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        #if canImport(CryptoKit)
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[...]))
        #else
            _ = EVP_DigestUpdate(context, base, bytes.count)
        #endif
    }

    /// Hashes the bytes of `data`.
    public func update<D: DataProtocol>(_ data: D) {
        for region in data.regions {
            region.withUnsafeBytes { update($0) }
        }
    }

    /// Ends the stream and returns the 32-byte digest. Call at most once.
    public func finalize() -> [UInt8] {
        precondition(!finished, "SHA256Stream.finalize called twice")
        finished = true
        #if canImport(CryptoKit)
            return Array(hasher.finalize())
        #else
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            _ = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
            return Array(digest.prefix(Int(length)))
        #endif
    }

    /// Ends the stream and returns the digest as 64 lowercase hex characters (schema §4).
    public func finalizeHex() -> String { SHA256Stream.hex(finalize()) }

    /// SHA-256 of `data` as 64 lowercase hex characters (schema §4).
    public static func hexDigest<D: DataProtocol>(of data: D) -> String {
        let stream = SHA256Stream()
        stream.update(data)
        return stream.finalizeHex()
    }

    /// SHA-256 of the file at `path`, read in 64 KiB chunks (memory stays flat).
    /// - Parameters:
    ///   - path: the file's path.
    ///   - maximumBytes: stop with `EFBIG` ("File too large") past this many bytes; nil reads it all.
    /// - Throws: ``FileAccessError`` when the file cannot be opened or read, or is too large.
    public static func hexDigest(ofFileAt path: String, maximumBytes: Int64? = nil) throws(FileAccessError) -> String {
        let stream = SHA256Stream()
        var count: Int64 = 0
        struct TooLarge: Error {}
        do {
            try ChunkedFile.forEachChunk(ofFileAt: path) { chunk in
                count += Int64(chunk.count)
                if let maximumBytes, count > maximumBytes { throw TooLarge() }
                stream.update(chunk)
            }
        } catch is TooLarge {
            throw FileAccessError(operation: "read", path: path, errno: EFBIG)
        } catch let e as FileAccessError {
            throw e
        } catch {
            throw FileAccessError(operation: "read", path: path, errno: EIO)
        }
        return stream.finalizeHex()
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A file could not be opened, read or written (the streaming id and gzip file functions).
public struct FileAccessError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done: "open", "read", "write" or "create".
    public let operation: String
    /// The file's path.
    public let path: String
    /// The POSIX `errno` value reported by the system.
    public let errno: Int32

    /// The system's words for ``errno`` (`strerror`): "No such file or directory".
    public var reason: String { String(cString: strerror(errno)) }

    /// "cannot <operation> <path>: <reason>", a path longer than `String.shownScalars` Unicode
    /// scalars as an excerpt.
    public var description: String { "cannot \(operation) \(path.shownArgument): \(reason)" }
}

/// `write(2)` from the C library of the platform, named apart from the `write` methods here.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
        Darwin.write(fd, buffer, count)
    #elseif canImport(Glibc)
        Glibc.write(fd, buffer, count)
    #elseif canImport(Musl)
        Musl.write(fd, buffer, count)
    #endif
}

/// POSIX-level chunked file reading and writing with one reused 64 KiB buffer.
enum ChunkedFile {
    static let chunkSize = 64 * 1024

    /// Calls `body` with successive chunks of at most 64 KiB. Throws ``FileAccessError`` for I/O,
    /// or whatever `body` throws.
    static func forEachChunk(
        ofFileAt path: String,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileAccessError(operation: "open", path: path, errno: errno) }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileAccessError(operation: "read", path: path, errno: errno)
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }
}

/// A file opened for writing (created or truncated), written with `write(2)`.
final class OutputFile {
    let path: String
    private let fd: Int32

    init(path: String) throws(FileAccessError) {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileAccessError(operation: "create", path: path, errno: errno) }
        self.fd = fd
    }

    deinit { close(fd) }

    func write(_ bytes: UnsafeRawBufferPointer) throws(FileAccessError) {
        var offset = 0
        while offset < bytes.count {
            let n = systemWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileAccessError(operation: "write", path: path, errno: errno)
            }
            offset += n
        }
    }
}

/// Whole-file reads and writes with the system's reason on failure ("Is a directory", "No such
/// file or directory"), for the command-line tools.
public enum FileContents {
    /// The most bytes the command-line tools read from one file: the IGC import cap
    /// (`limits.igcImportMaxRawBytes`, `Spec/limits.tsv`), the largest file the schema knows and far
    /// above Firestore's 1 MiB document limit, so an endless input (`/dev/zero`) stops with an error.
    public static let maximumToolInputBytes = Int(SchemaLimits.igcImportMaxRawBytes)

    /// The file's bytes.
    /// - Parameters:
    ///   - path: the file's path.
    ///   - maximumBytes: stop with `EFBIG` ("File too large") past this many bytes.
    /// - Throws: ``FileAccessError`` naming the operation, the path and `errno`.
    public static func bytes(atPath path: String, maximumBytes: Int = maximumToolInputBytes) throws(FileAccessError)
        -> [UInt8]
    {
        var out: [UInt8] = []
        struct TooLarge: Error {}
        do {
            try ChunkedFile.forEachChunk(ofFileAt: path) {
                out.append(contentsOf: $0)
                if out.count > maximumBytes { throw TooLarge() }
            }
        } catch is TooLarge {
            throw FileAccessError(operation: "read", path: path, errno: EFBIG)
        } catch let e as FileAccessError {
            throw e
        } catch {
            throw FileAccessError(operation: "read", path: path, errno: EIO)
        }
        return out
    }

    /// Writes `bytes` to `path`, creating or truncating it.
    /// - Throws: ``FileAccessError`` naming the operation, the path and `errno`.
    public static func write(_ bytes: [UInt8], toPath path: String) throws(FileAccessError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileAccessError(operation: "write", path: path, errno: errno) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileAccessError(operation: "write", path: path, errno: errno)
            }
            offset += n
        }
    }
}
