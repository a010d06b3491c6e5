import Foundation
import VultureSyncSchema

/// gunzip-sha256: a downloaded IGC object is gunzipped (at most the 64 MiB raw-import cap) and its
/// SHA-256 checked against the flight id. The one-shot and the chunked decompressor agree; the
/// verification returns exactly the gunzipped bytes for the right id and refuses any other id.
enum GunzipHarness {
    static let cap = StorageLimits.maximumRawIGCBytes

    static func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let data =
            input.baseAddress.map {
                Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: input.count, deallocator: .none)
            } ?? Data()
        let whole: Result<Data, GzipError>
        do throws(GzipError) { whole = .success(try Gzip.decompress(data, maximumOutputBytes: cap)) } catch {
            whole = .failure(error)
        }

        // The same stream in chunks: byte by byte (small inputs) and in uneven pieces.
        var chunkSizes = [4093 + input.count % 61]
        if input.count <= 4096 { chunkSizes.append(1) }
        for size in chunkSizes {
            let chunked = decompress(input, chunk: size)
            switch (whole, chunked) {
            case (.success(let a), .success(let b)):
                try require(a == b, "in chunks of \(size) the output differs (\(b.count) bytes, not \(a.count))")
            case (.failure(let a), .failure(let b)):
                try require(
                    sameKind(a, b), "in chunks of \(size) the error is \(b), in one piece \(a)")
            default:
                throw FuzzViolation("in chunks of \(size): \(chunked), in one piece: \(whole)")
            }
        }

        switch whole {
        case .success(let raw):
            try require(raw.count <= cap, "gunzip produced \(raw.count) bytes, over the cap")
            let id = SHA256Stream.hexDigest(of: raw)
            switch verify(data, id) {
            case .success(let verified):
                try require(verified == raw, "IGCDownload.verify returned other bytes than gunzip")
            case .failure(let error):
                throw FuzzViolation("IGCDownload.verify refused the right flight id: \(error)")
            }
            let wrong = String(id.dropLast()) + (id.last == "0" ? "1" : "0")
            let refused = verify(data, wrong)
            try require(
                refused == .failure(.flightIdMismatch(expected: wrong, actual: id)), "a wrong flight id gave \(refused)"
            )
        case .failure(let gzipError):
            let refused = verify(data, String(repeating: "0f", count: 32))
            try require(
                refused == .failure(.gzip(gzipError)), "IGCDownload.verify gave \(refused), gunzip \(gzipError)")
        }
    }

    static func verify(_ data: Data, _ flightId: String) -> Result<Data, BlobError> {
        do throws(BlobError) { return .success(try IGCDownload.verify(gzipped: data, flightId: flightId)) } catch {
            return .failure(error)
        }
    }

    static func decompress(_ input: UnsafeBufferPointer<UInt8>, chunk: Int) -> Result<Data, GzipError> {
        do throws(GzipError) {
            let decompressor = try GzipDecompressor(maximumOutputBytes: cap)
            var out = Data()
            var start = 0
            while start < input.count {
                let end = min(start + chunk, input.count)
                do {
                    try decompressor.decompress(
                        UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[start..<end]))
                    ) {
                        out.append(contentsOf: $0)
                    }
                } catch {
                    return .failure(error as! GzipError)
                }
                start = end
            }
            try decompressor.finish()
            return .success(out)
        } catch {
            return .failure(error)
        }
    }

    /// The same error apart from offsets, which depend on how far zlib read ahead in each chunk.
    static func sameKind(_ a: GzipError, _ b: GzipError) -> Bool {
        switch (a, b) {
        case (.truncated, .truncated), (.crcMismatch, .crcMismatch), (.lengthMismatch, .lengthMismatch),
            (.invalidHeader, .invalidHeader), (.corruptData, .corruptData), (.trailingGarbage, .trailingGarbage),
            (.outputLimitExceeded, .outputLimitExceeded), (.zlibFailure, .zlibFailure), (.file, .file):
            return true
        default: return false
        }
    }
}
