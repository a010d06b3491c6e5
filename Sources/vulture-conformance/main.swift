import Foundation
import VultureCommandLine
import VultureConformance
import VultureSyncSchema
import VultureTesteeProcess

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

let tool = CommandLineTool(name: "vulture-conformance", usage: generalUsage)
tool.run { arguments in
    TesteeProcess.endTesteesOnSignals()
    guard let first = arguments.first, !first.hasPrefix("-") else {
        if arguments == ["--help"] || arguments == ["-h"] {
            print(generalUsage)
            for usage in [SuiteCommand.usage, CheckCommand.usage, ValidateCommand.usage, IdCommand.usage] {
                print("")
                print(usage)
            }
            return 0
        }
        if arguments.contains("--version") {
            let args = try CommandLineArguments(arguments, valueOptions: ["goldens"], flags: ["version"])
            _ = try args.positionals()
            print("vulture-conformance suite \(try SuiteCommand.loadSuite(args.option("goldens")).version)")
            return 0
        }
        return try tool.subcommand(nil, usage: SuiteCommand.usage) { try SuiteCommand.run(arguments, testee: false) }
    }
    let (command, rest) = try CommandLineArguments.subcommand(
        of: arguments, among: ["run", "check", "validate", "id", "help"])
    switch command {
    case "run":
        return try tool.subcommand(command, usage: SuiteCommand.usage) { try SuiteCommand.run(rest, testee: true) }
    case "check":
        return try tool.subcommand(command, usage: CheckCommand.usage) { try CheckCommand.run(rest) }
    case "validate":
        return try tool.subcommand(command, usage: ValidateCommand.usage) { try ValidateCommand.run(rest) }
    case "id":
        return try tool.subcommand(command, usage: IdCommand.usage) {
            print(try IdCommand.run(rest))
            return 0
        }
    default:
        _ = try CommandLineArguments(rest, valueOptions: []).positionals()
        print(generalUsage)
        return 0
    }
}
