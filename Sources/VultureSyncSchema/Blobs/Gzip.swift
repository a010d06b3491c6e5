import CZlib
import Foundation

/// Why a gzip stream was refused (schema §2, Storage objects: every object is a gzip stream).
///
/// Offsets count bytes of the compressed input consumed before the failure was detected
/// (zlib reads ahead inside its window, so the true position is at or before the offset).
public enum GzipError: Error, Equatable, Sendable {
    /// The input ended inside a gzip member (header, deflate data or the 8-byte trailer),
    /// or was empty. `offset` is the input length.
    case truncated(offset: Int64)
    /// The member's CRC-32 trailer does not match the decompressed bytes.
    case crcMismatch(offset: Int64)
    /// The member's ISIZE trailer does not match the decompressed length (mod 2^32).
    case lengthMismatch(offset: Int64)
    /// The first member does not start with a valid gzip header (magic 1f 8b, method 8, flags).
    case invalidHeader(offset: Int64, reason: String)
    /// The deflate data is invalid (`reason` is zlib's message).
    case corruptData(offset: Int64, reason: String)
    /// Bytes after a complete member that do not start another gzip member.
    case trailingGarbage(offset: Int64)
    /// Decompressing would produce more than `limit` bytes; decompression stopped there
    /// (the 64 MiB raw-import cap keeps a gzip bomb from exhausting memory).
    case outputLimitExceeded(limit: Int64, offset: Int64)
    /// zlib could not be initialised or failed internally (`code` is zlib's return code).
    case zlibFailure(code: Int32, reason: String)
    /// Reading the input file or writing the output file failed.
    case file(FileAccessError)
}

/// Streaming gzip compression (RFC 1952) through zlib's deflate (schema §2, Storage objects).
///
/// The `z_stream` lives on the heap and never moves. Feed input chunks with
/// `compress(_:output:)` and end with ``finish(output:)``; compressed bytes are handed to the
/// `output` closure in chunks of at most 64 KiB, so memory stays flat whatever the input size.
/// The header carries no file name and mtime 0, so equal input gives equal output.
public final class GzipCompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let bufferSize = 64 * 1024
    private var finished = false

    /// - Parameter level: zlib compression level 0…9 (6 is `gzip -6`, the default).
    /// - Throws: ``GzipError/zlibFailure(code:reason:)`` when zlib cannot be initialised or the level is out of range.
    public init(level: Int32 = 6) throws(GzipError) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bufferSize)
        let rc = deflateInit2_(
            stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            buffer.deallocate()
            throw .zlibFailure(code: rc, reason: "deflateInit2 failed")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        buffer.deallocate()
    }

    /// Compresses one input chunk; produced bytes go to `output`.
    public func compress(
        _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        precondition(!finished, "GzipCompressor used after finish")
        guard input.count > 0 else { return }
        try run(input, flush: Z_NO_FLUSH, output: output)
    }

    /// Compresses the bytes of `data`.
    public func compress<D: DataProtocol>(
        _ data: D, output: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        for region in data.regions {
            try region.withUnsafeBytes { try compress($0, output: output) }
        }
    }

    /// Ends the stream: writes the last deflate block and the CRC-32 / ISIZE trailer to `output`.
    public func finish(output: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        precondition(!finished, "GzipCompressor finished twice")
        finished = true
        try run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, output: output)
    }

    private func run(
        _ input: UnsafeRawBufferPointer, flush: Int32, output: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        stream.pointee.next_in = UnsafeMutablePointer(
            mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = UInt32(input.count)
        while true {
            stream.pointee.next_out = buffer
            stream.pointee.avail_out = UInt32(bufferSize)
            let rc = deflate(stream, flush)
            let produced = bufferSize - Int(stream.pointee.avail_out)
            if produced > 0 { try output(UnsafeRawBufferPointer(start: buffer, count: produced)) }
            if flush == Z_FINISH {
                if rc == Z_STREAM_END { break }
                // Z_OK or Z_BUF_ERROR: more output pending; loop again.
                precondition(rc == Z_OK || rc == Z_BUF_ERROR, "deflate failed: \(rc)")
            } else {
                precondition(rc == Z_OK || rc == Z_BUF_ERROR, "deflate failed: \(rc)")
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 { break }
            }
        }
        stream.pointee.next_in = nil
    }
}

/// Streaming gunzip through zlib's inflate, reading multi-member input the way `gzip -dc` does
/// (schema §2, Storage objects).
///
/// After a member ends, further input must begin another gzip member (inflate is reset and
/// continues); anything else is ``GzipError/trailingGarbage(offset:)``. The `z_stream` lives on
/// the heap and never moves; output goes to the `output` closure in chunks of at most 64 KiB.
/// With `maximumOutputBytes` set, decompression stops with
/// ``GzipError/outputLimitExceeded(limit:offset:)`` before more than that many bytes are produced.
public final class GzipDecompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let bufferSize = 64 * 1024
    private let limit: Int64?
    /// Compressed bytes consumed so far.
    public private(set) var inputOffset: Int64 = 0
    /// Decompressed bytes produced so far.
    public private(set) var outputCount: Int64 = 0
    /// Completed gzip members so far.
    public private(set) var membersCompleted = 0
    private var atMemberBoundary = false  // a member just ended; the next byte must start a new one
    private var bytesInCurrentMember: Int64 = 0
    private var failure: GzipError?

    /// - Parameter maximumOutputBytes: the most decompressed bytes accepted (nil: no cap).
    /// - Throws: ``GzipError/zlibFailure(code:reason:)`` when zlib cannot be initialised.
    public init(maximumOutputBytes: Int64? = nil) throws(GzipError) {
        limit = maximumOutputBytes
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bufferSize)
        let rc = inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            buffer.deallocate()
            throw .zlibFailure(code: rc, reason: "inflateInit2 failed")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        buffer.deallocate()
    }

    /// Decompresses one chunk of gzip input; produced bytes go to `output`.
    /// - Throws: ``GzipError`` for a broken stream or the output cap; after an error the
    ///   decompressor keeps failing with the same error.
    public func decompress(
        _ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        if let failure { throw failure }
        do { try run(input, output: output) } catch let error as GzipError {
            failure = error
            throw error
        }
    }

    /// Decompresses the bytes of `data`.
    public func decompress<D: DataProtocol>(
        _ data: D, output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        for region in data.regions {
            try region.withUnsafeBytes { try decompress($0, output: output) }
        }
    }

    /// Checks that the input ended cleanly after a complete member.
    /// - Throws: ``GzipError/truncated(offset:)`` when the input ended inside a member or was empty.
    public func finish() throws(GzipError) {
        if let failure { throw failure }
        if membersCompleted == 0 || !atMemberBoundary {
            failure = .truncated(offset: inputOffset)
            throw .truncated(offset: inputOffset)
        }
    }

    private func run(_ input: UnsafeRawBufferPointer, output: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
        stream.pointee.avail_in = UInt32(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        // Loop while input remains, and once more after a call that filled the output buffer
        // (inflate may hold decoded bytes it could not write yet).
        var outputWasFull = false
        while true {
            if atMemberBoundary {
                if stream.pointee.avail_in == 0 { break }
                // Only a new gzip member may follow a complete one (`gzip -dc` semantics).
                let next = stream.pointee.next_in!
                let available = Int(stream.pointee.avail_in)
                if next[0] != 0x1f || (available >= 2 && next[1] != 0x8b) {
                    throw GzipError.trailingGarbage(offset: inputOffset)
                }
                let rc = inflateReset(stream)
                guard rc == Z_OK else { throw GzipError.zlibFailure(code: rc, reason: "inflateReset failed") }
                atMemberBoundary = false
                bytesInCurrentMember = 0
            } else if stream.pointee.avail_in == 0 && !outputWasFull {
                break
            }
            var room = bufferSize
            if let limit {
                // Ask for at most one byte past the cap, so the cap is detected without producing more.
                let remaining = limit - outputCount
                room = Int(min(Int64(bufferSize), remaining + 1))
            }
            stream.pointee.next_out = buffer
            stream.pointee.avail_out = UInt32(room)
            let availBefore = stream.pointee.avail_in
            let rc = inflate(stream, Z_NO_FLUSH)
            let consumed = Int64(availBefore - stream.pointee.avail_in)
            inputOffset += consumed
            bytesInCurrentMember += consumed
            let produced = room - Int(stream.pointee.avail_out)
            outputWasFull = stream.pointee.avail_out == 0
            if let limit, outputCount + Int64(produced) > limit {
                throw GzipError.outputLimitExceeded(limit: limit, offset: inputOffset)
            }
            outputCount += Int64(produced)
            if produced > 0 { try output(UnsafeRawBufferPointer(start: buffer, count: produced)) }
            switch rc {
            case Z_OK:
                continue
            case Z_STREAM_END:
                membersCompleted += 1
                atMemberBoundary = true
            case Z_BUF_ERROR:
                // No progress possible without more input.
                if consumed == 0 && produced == 0 {
                    if stream.pointee.avail_in > 0 {
                        throw GzipError.zlibFailure(code: rc, reason: "inflate made no progress")
                    }
                    outputWasFull = false
                }
            case Z_DATA_ERROR:
                throw dataError()
            case Z_MEM_ERROR:
                throw GzipError.zlibFailure(code: rc, reason: "out of memory")
            default:
                throw GzipError.zlibFailure(code: rc, reason: message() ?? "inflate failed")
            }
        }
    }

    private func message() -> String? {
        stream.pointee.msg.map { String(cString: $0) }
    }

    private func dataError() -> GzipError {
        let reason = message() ?? "invalid data"
        switch reason {
        case "incorrect data check":
            return .crcMismatch(offset: inputOffset)
        case "incorrect length check":
            return .lengthMismatch(offset: inputOffset)
        case "incorrect header check", "unknown compression method", "unknown header flags set",
            "header crc mismatch":
            if membersCompleted > 0 && reason == "incorrect header check" {
                return .trailingGarbage(offset: inputOffset - bytesInCurrentMember)
            }
            return .invalidHeader(offset: inputOffset, reason: reason)
        default:
            return .corruptData(offset: inputOffset, reason: reason)
        }
    }
}

/// Whole-buffer and file-to-file gzip (schema §2, Storage objects). Files stream in 64 KiB chunks.
public enum Gzip {
    /// The gzip stream of `data` at `level` (default 6, as `gzip -6`).
    public static func compress<D: DataProtocol>(_ data: D, level: Int32 = 6) throws(GzipError) -> Data {
        let compressor = try GzipCompressor(level: level)
        var out = Data()
        compressor.compress(data) { out.append(contentsOf: $0) }
        compressor.finish { out.append(contentsOf: $0) }
        return out
    }

    /// The decompressed bytes of the gzip stream `data` (all members, as `gzip -dc`).
    /// - Parameters:
    ///   - data: the gzip stream.
    ///   - maximumOutputBytes: cap on the decompressed size (nil: none).
    /// - Throws: ``GzipError`` for a truncated or corrupt stream, bad CRC or length, trailing garbage or the cap.
    public static func decompress<D: DataProtocol>(
        _ data: D, maximumOutputBytes: Int64? = nil
    ) throws(GzipError) -> Data {
        let decompressor = try GzipDecompressor(maximumOutputBytes: maximumOutputBytes)
        var out = Data()
        do {
            try decompressor.decompress(data) { out.append(contentsOf: $0) }
        } catch {
            throw error as! GzipError  // the output closure cannot throw
        }
        try decompressor.finish()
        return out
    }

    /// Compresses the file at `source` into `destination` (created or replaced). Returns the
    /// number of gzip bytes written.
    /// - Throws: ``GzipError/file(_:)`` on an I/O failure.
    @discardableResult
    public static func compressFile(at source: String, to destination: String, level: Int32 = 6) throws(GzipError)
        -> Int64
    {
        let compressor = try GzipCompressor(level: level)
        let out: OutputFile
        do { out = try OutputFile(path: destination) } catch { throw .file(error) }
        var written: Int64 = 0
        do {
            let sink = { (chunk: UnsafeRawBufferPointer) throws in
                try out.write(chunk)
                written += Int64(chunk.count)
            }
            try ChunkedFile.forEachChunk(ofFileAt: source) { try compressor.compress($0, output: sink) }
            try compressor.finish(output: sink)
        } catch {
            throw .file(error as! FileAccessError)
        }
        return written
    }

    /// Decompresses the gzip file at `source` into `destination` (created or replaced). Returns the
    /// number of decompressed bytes. On any error the partial `destination` is removed.
    /// - Throws: ``GzipError`` as ``decompress(_:maximumOutputBytes:)``, or ``GzipError/file(_:)``.
    @discardableResult
    public static func decompressFile(
        at source: String, to destination: String, maximumOutputBytes: Int64? = nil
    ) throws(GzipError) -> Int64 {
        let decompressor = try GzipDecompressor(maximumOutputBytes: maximumOutputBytes)
        do {
            let out: OutputFile
            do { out = try OutputFile(path: destination) } catch { throw GzipError.file(error) }
            do {
                try ChunkedFile.forEachChunk(ofFileAt: source) { chunk in
                    try decompressor.decompress(chunk) { try out.write($0) }
                }
            } catch let error as FileAccessError {
                throw GzipError.file(error)
            }
            try decompressor.finish()
            return decompressor.outputCount
        } catch {
            unlink(destination)
            throw error as! GzipError
        }
    }
}

extension GzipError: CustomStringConvertible {
    /// A one-line message naming the rule broken and the byte offset.
    public var description: String {
        switch self {
        case .truncated(let o): return "gzip stream truncated at byte \(o)"
        case .crcMismatch(let o): return "gzip CRC-32 mismatch (trailer ending near byte \(o))"
        case .lengthMismatch(let o): return "gzip ISIZE mismatch (trailer ending near byte \(o))"
        case .invalidHeader(let o, let r): return "invalid gzip header near byte \(o): \(r)"
        case .corruptData(let o, let r): return "corrupt deflate data near byte \(o): \(r)"
        case .trailingGarbage(let o): return "trailing bytes at \(o) do not start a gzip member"
        case .outputLimitExceeded(let l, let o): return "gunzipped output exceeds \(l) bytes (input byte \(o))"
        case .zlibFailure(let c, let r): return "zlib error \(c): \(r)"
        case .file(let e): return e.description
        }
    }
}
