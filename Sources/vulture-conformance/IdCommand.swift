import VultureCommandLine
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// `vulture-conformance id …`: prints a deterministic document id (schema §4; README "The conformance runner").
enum IdCommand {
    static let usage = """
        usage: vulture-conformance id flight FILE
               vulture-conformance id homebase NAME
               vulture-conformance id task [--external-url URL]
               vulture-conformance id map-file --source XCSOAR|OPENAIP --type WAYPOINTS|AIRSPACE --filename NAME
               vulture-conformance id map-file --source USER --type WAYPOINTS|AIRSPACE --content-hash SHA256
               vulture-conformance id recent-competition ID

        Prints the document id on stdout (schema §4): flight = SHA-256 of the file's bytes;
        homebase = SHA-256 of name.trim().lowercase() as Kotlin on the JVM computes it;
        task = SHA-256 of the external URL, or a fresh random UUID without one;
        map-file = SHA-256 of "\(DocumentIdRule.mapFileDownloaded.inputTemplate ?? "")" or \
        "\(DocumentIdRule.mapFileUser.inputTemplate ?? "")" (pinned, Spec/ids.tsv);
        recent-competition = the Soaring Spot id, checked against Firestore's document-id rules.
        A NAME, FILE or ID that starts with - comes after -- (id homebase -- -Lasham).
        An input that breaks an id rule is named with the rule (id.contains-slash: …, Spec/rules.tsv).
        Exit status: 0 printed, 2 usage or I/O error, or an input that breaks an id rule.
        """

    /// A broken id rule, shown as `rule-id: message` like every other finding of the runner.
    struct RuleBroken: Error, CustomStringConvertible {
        var error: DocumentIdError
        var description: String { "\(error.errorCode.rawValue): \(error)" }
    }

    /// Runs the subcommand on `arguments` (after `id`); returns the id to print.
    /// - Throws: `UsageError`, an I/O error, or ``RuleBroken``.
    static func run(_ arguments: [String]) throws -> String {
        do {
            return try id(arguments)
        } catch let error as DocumentIdError {
            throw RuleBroken(error: error)
        }
    }

    static func id(_ arguments: [String]) throws -> String {
        guard let kind = arguments.first else { throw UsageError(message: "missing id kind") }
        if kind == "--help" || kind == "-h" { throw HelpRequest() }
        let rest = Array(arguments.dropFirst())
        switch kind {
        case "flight":
            let args = try CommandLineArguments(rest, valueOptions: [])
            let file = try args.positionals("FILE")[0]
            return try DocumentIds.flightId(igcFileAt: file)
        case "homebase":
            let args = try CommandLineArguments(rest, valueOptions: [])
            return DocumentIds.homebaseId(name: try args.positionals("NAME")[0])
        case "task":
            let args = try CommandLineArguments(rest, valueOptions: ["external-url"])
            _ = try args.positionals()
            return DocumentIds.taskId(externalUrl: args.option("external-url"))
        case "map-file":
            let args = try CommandLineArguments(rest, valueOptions: ["source", "type", "filename", "content-hash"])
            _ = try args.positionals()
            let sourceName = try args.requiredOption("source")
            let typeName = try args.requiredOption("type")
            guard let source = MapFileSource(rawValue: sourceName) else {
                throw UsageError(message: "--source must be USER, XCSOAR or OPENAIP, not \(sourceName.shownArgument)")
            }
            guard let type = MapFileType(rawValue: typeName) else {
                throw UsageError(message: "--type must be WAYPOINTS or AIRSPACE, not \(typeName.shownArgument)")
            }
            if source == .user {
                guard args.option("filename") == nil else {
                    throw UsageError(message: "--source USER takes --content-hash, not --filename")
                }
                return try DocumentIds.mapFileId(
                    userImportedType: type, contentHash: try args.requiredOption("content-hash"))
            }
            guard args.option("content-hash") == nil else {
                throw UsageError(message: "--source \(sourceName.shownArgument) takes --filename, not --content-hash")
            }
            return try DocumentIds.mapFileId(source: source, type: type, filename: try args.requiredOption("filename"))
        case "recent-competition":
            let args = try CommandLineArguments(rest, valueOptions: [])
            return try DocumentIds.recentCompetitionId(competitionId: try args.positionals("ID")[0])
        default:
            throw UsageError(message: "unknown id kind '\(kind.shownArgument)'")
        }
    }
}
