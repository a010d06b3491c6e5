// VultureCommandLine: the argument grammar, help, usage errors and exit statuses every Vulture executable shares.
import Foundation
import VultureSchemaCore

/// One executable as its user meets it: its name in messages and its usage text.
///
/// ```swift
/// let tool = CommandLineTool(name: "vulture-goldens", usage: usage)
/// tool.run { arguments in
///     let (mode, rest) = try CommandLineArguments.subcommand(of: arguments, among: ["write", "check"])
///     return try tool.subcommand(mode, usage: usage) {
///         let args = try CommandLineArguments(rest, valueOptions: ["root"])
///         …
///     }
/// }
/// ```
public struct CommandLineTool: Sendable {
    /// The executable's name, the first word of every message (`vulture-goldens`).
    public var name: String
    /// The usage text printed for `--help` (stdout); after a usage error, its synopsis (stderr).
    public var usage: String

    public init(name: String, usage: String) {
        self.name = name
        self.usage = usage
    }

    /// Runs `body` as the whole process: calls it with the arguments after the program name and
    /// exits with the status it returns (each tool documents its statuses; 2 is always a usage or
    /// I/O error). Never returns.
    ///
    /// An argument that is not UTF-8 is a usage error before `body` runs: Swift repairs it with
    /// U+FFFD, and a file name or id computed from the repaired text would be silently wrong.
    /// When `body` throws, the error is reported under the tool's name, followed by the name of the
    /// subcommand it came from (see `subcommand(_:usage:_:)`), with that subcommand's usage:
    /// - `HelpRequest`: the usage text on stdout, exit status 0;
    /// - `UsageError`: `TOOL[ SUBCOMMAND]: message`, the usage's synopsis (its lines up to the
    ///   first empty one) and where the whole usage is, on stderr, exit status 2;
    /// - any other error: `TOOL[ SUBCOMMAND]: error` on stderr, exit status 2.
    public func run(_ body: ([String]) throws -> Int32) -> Never {
        do {
            if let index = Self.firstNonUTF8Argument() {
                throw UsageError(message: "argument \(index) is not UTF-8")
            }
            exit(try body(Array(CommandLine.arguments.dropFirst())))
        } catch let failure as SubcommandFailure {
            report(failure.error, subcommand: failure.subcommand, usage: failure.usage)
        } catch {
            report(error, subcommand: nil, usage: usage)
        }
    }

    /// Runs one subcommand of this tool: help and errors `body` throws are reported by `run` with
    /// `subcommand` after the tool's name and with `usage`. Nested calls: the innermost wins.
    ///
    /// - Parameters:
    ///   - subcommand: the subcommand as typed (`check`), or nil for a tool's default command
    ///     (messages then carry the tool's name alone).
    ///   - usage: the subcommand's usage text.
    ///   - body: the subcommand; returns the exit status.
    /// - Throws: whatever `body` throws, wrapped so that `run` can tell which subcommand it came from.
    public func subcommand(_ subcommand: String?, usage: String, _ body: () throws -> Int32) throws -> Int32 {
        do {
            return try body()
        } catch let failure as SubcommandFailure {
            throw failure
        } catch {
            throw SubcommandFailure(subcommand: subcommand, usage: usage, error: error)
        }
    }

    private func report(_ error: any Error, subcommand: String?, usage: String) -> Never {
        let prefix = name + (subcommand.map { " " + $0 } ?? "")
        switch error {
        case is HelpRequest:
            print(usage)
            exit(0)
        case let usageError as UsageError:
            printError("\(prefix): \(usageError.message)")
            printError(Self.synopsis(of: usage))
            printError("(`\(prefix) --help` prints the whole usage)")
            exit(2)
        default:
            printError("\(prefix): \(Self.describe(error))")
            exit(2)
        }
    }

    /// The synopsis of a usage text: its lines up to the first empty one (the `usage:` lines), so
    /// that a usage error's message is not buried under the whole help.
    static func synopsis(of usage: String) -> String {
        usage.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }
            .prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.joined(separator: "\n")
    }

    /// An error as its line says it: a Foundation file error as `PATH: reason`, not the `NSError`
    /// dump (the reason from the path itself where Foundation's words are vague: a missing path
    /// in the system's words, a folder where a file is wanted or the reverse); any other error as
    /// it describes itself.
    static func describe(_ error: any Error) -> String {
        let ns = error as NSError
        guard ns.domain == NSCocoaErrorDomain,
            let path = ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path
        else { return "\(error)" }
        var st = stat()
        if stat(path, &st) != 0 { return "\(path.shownArgument): \(String(cString: strerror(errno)))" }
        let isFolder = st.st_mode & S_IFMT == S_IFDIR
        switch CocoaError.Code(rawValue: ns.code) {
        case .fileReadUnknown where isFolder: return "\(path.shownArgument): a folder, not a file"
        case .fileWriteFileExists where !isFolder: return "\(path.shownArgument): a file, not a folder"
        default: return "\(path.shownArgument): \(systemReason(of: error))"
        }
    }

    /// The index (1 = first argument after the program name) of the first argument whose bytes
    /// are not UTF-8, or nil.
    static func firstNonUTF8Argument() -> Int? {
        for i in 1..<max(1, Int(CommandLine.argc)) {
            guard let raw = CommandLine.unsafeArgv[i], String(validatingCString: raw) == nil else { continue }
            return i
        }
        return nil
    }
}

/// An error thrown inside `CommandLineTool.subcommand`, with the subcommand it came from.
struct SubcommandFailure: Error {
    var subcommand: String?
    var usage: String
    var error: any Error
}

/// Writes `text` and a newline to stderr, unbuffered.
public func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
