import VultureSyncSchema

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes `text` and a newline to stderr.
func printError(_ text: String) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

let generalUsage = """
    usage: vulture-conformance [--help]
           vulture-conformance id KIND …   (see: vulture-conformance id --help)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "id":
    do {
        print(try IdCommand.run(Array(arguments.dropFirst())))
        exit(0)
    } catch let error as UsageError {
        printError("vulture-conformance id: \(error.message)")
        printError(IdCommand.usage)
        exit(2)
    } catch {
        printError("vulture-conformance id: \(error)")
        exit(2)
    }
case "--help", "-h", "help":
    print(generalUsage)
    print("")
    print(IdCommand.usage)
case nil:
    // The conformance suite itself is added here later.
    print("vulture-conformance: schema version \(VultureSyncSchema.documentSchemaVersion)")
default:
    printError("vulture-conformance: unknown command '\(arguments[0])'")
    printError(generalUsage)
    exit(2)
}
