import Foundation
import VultureConformance
import VultureSyncSchema

/// Writes `text` and a newline to stderr.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

let generalUsage = """
    usage: vulture-conformance [OPTIONS]                 run the suite against the reference implementation
           vulture-conformance run --testee 'COMMAND' …  run the suite against another implementation
           vulture-conformance check DIR …               compare output files with the goldens
           vulture-conformance validate [OPTIONS] FILE…  check documents against the schema
           vulture-conformance id KIND …                 print a deterministic document id
           vulture-conformance --version

    `vulture-conformance COMMAND --help` tells more. Exit status: 0 conformant, 1 conformance
    failures, 2 usage or I/O error.
    """

// Swift repairs arguments that are not UTF-8 with U+FFFD; an id computed from a repaired name
// would be silently wrong, so such an argument is a usage error.
for i in 1..<Int(CommandLine.argc) {
    guard let raw = CommandLine.unsafeArgv[i], String(validatingCString: raw) == nil else { continue }
    printError("vulture-conformance: argument \(i) is not UTF-8")
    exit(2)
}

TesteeProcess.endTesteesOnSignals()

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 }
let rest = command == nil ? arguments : Array(arguments.dropFirst())
/// The usage text printed with a usage error of each command.
let commandUsage: [String: String] = [
    "run": SuiteCommand.usage, "check": CheckCommand.usage, "validate": ValidateCommand.usage, "id": IdCommand.usage,
]
do {
    switch command {
    case nil where arguments.contains("--version"):
        let args = try CommandLineArguments(arguments, valueOptions: ["goldens"], flags: ["version"])
        print("vulture-conformance suite \(try SuiteCommand.loadSuite(args.option("goldens")).version)")
    case nil where arguments == ["--help"] || arguments == ["-h"]:
        print(generalUsage)
        for usage in [SuiteCommand.usage, CheckCommand.usage, ValidateCommand.usage, IdCommand.usage] {
            print("")
            print(usage)
        }
    case nil:
        exit(try SuiteCommand.run(rest, testee: false))
    case "run":
        exit(try SuiteCommand.run(rest, testee: true))
    case "check":
        exit(try CheckCommand.run(rest))
    case "validate":
        exit(try ValidateCommand.run(rest))
    case "id":
        print(try IdCommand.run(rest))
    case "help":
        print(generalUsage)
    default:
        throw UsageError(message: "unknown command '\(command!)'")
    }
} catch let error as UsageError {
    let name = command.map { " " + $0 } ?? ""
    printError("vulture-conformance\(name): \(error.message)")
    printError(command.flatMap { commandUsage[$0] } ?? generalUsage)
    exit(2)
} catch {
    let name = command.map { " " + $0 } ?? ""
    printError("vulture-conformance\(name): \(error)")
    exit(2)
}
