import CJansson
import VultureFuzzTargets

// libFuzzer's entry points for the fuzz target json-differential (Tools/fuzz/run.sh builds this with
// -sanitize=fuzzer): the project's readers against each other and against jansson.

/// Writes the seeds when run.sh asks for them (`VULTURE_FUZZ_WRITE_SEEDS`).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    LibFuzzerEntry.initialize(.jsonDifferential)
}

/// Reads one input with every reader and jansson.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    LibFuzzerEntry.testOneInput(FuzzTarget.jsonDifferential.rawValue, data, size) { input throws(FuzzViolation) in
        try JSONDifferential.run(input, reference: Jansson.read(input))
    }
}

/// jansson 2.14 as a strict RFC 8259 parser: any value at the top level, duplicate keys refused,
/// `\u0000` allowed in strings, nothing after the value.
enum Jansson {
    static func read(_ input: UnsafeBufferPointer<UInt8>) -> ReferenceOutcome {
        guard let base = input.baseAddress, input.count > 0 else { return .rejected("empty input") }
        var error = json_error_t()
        let flags = Int(JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL)
        let root = UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: input.count) {
            json_loadb($0, input.count, flags, &error)
        }
        guard let root else {
            let text = withUnsafeBytes(of: error.text) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            return .rejected("\(text) at line \(error.line), column \(error.column)")
        }
        defer { json_decref(root) }
        return .accepted(value(root))
    }

    static func value(_ json: UnsafeMutablePointer<json_t>) -> ReferenceJSON {
        switch json.pointee.type {
        case JSON_NULL: return .null
        case JSON_TRUE: return .bool(true)
        case JSON_FALSE: return .bool(false)
        case JSON_INTEGER: return .integer(Int64(json_integer_value(json)))
        case JSON_REAL: return .real(json_real_value(json))
        case JSON_STRING:
            let count = json_string_length(json)
            let bytes = UnsafeRawBufferPointer(start: json_string_value(json), count: count)
            return .string(Array(bytes))
        case JSON_ARRAY:
            return .array((0..<json_array_size(json)).map { value(json_array_get(json, $0)) })
        default:
            var members: [(key: [UInt8], value: ReferenceJSON)] = []
            var iterator = json_object_iter(json)
            while let current = iterator {
                let key = UnsafeRawBufferPointer(
                    start: json_object_iter_key(current), count: json_object_iter_key_len(current))
                members.append((Array(key), value(json_object_iter_value(current))))
                iterator = json_object_iter_next(json, current)
            }
            return .object(members)
        }
    }
}
