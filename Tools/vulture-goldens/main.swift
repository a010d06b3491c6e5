import Foundation
import VultureCommandLine
import VultureConformance
import VultureSyncSchema

/// `vulture-goldens write|check [--root DIR]`: the goldens are the reference implementation's
/// answers to the case definitions in this folder. `write` rewrites Goldens/schema and Goldens/vectors (only files
/// whose bytes change); `check` never writes and exits 1 with a diff when anything would change.
let usage = """
    usage: vulture-goldens write [--root DIR]
           vulture-goldens check [--root DIR]

      --root DIR  the package root (default: the current directory)

    Writes (or checks) Goldens/schema/*.json and Goldens/vectors/*.json from the case definitions in Tools/vulture-goldens,
    answered by the reference implementation. Exit status: 0 current, 1 would change (check),
    2 usage or I/O error, or a definition the reference does not answer as declared.
    """

let tool = CommandLineTool(name: "vulture-goldens", usage: usage)
tool.run { arguments in
    let (mode, rest) = try CommandLineArguments.subcommand(of: arguments, among: ["write", "check"])
    return try tool.subcommand(mode, usage: usage) {
        let args = try CommandLineArguments(rest, valueOptions: ["root"])
        _ = try args.positionals()
        let root = URL(fileURLWithPath: args.option("root") ?? FileManager.default.currentDirectoryPath)
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path),
            FileManager.default.fileExists(atPath: root.appendingPathComponent("Goldens/VERSION").path)
        else {
            printError(
                "vulture-goldens \(mode): \(root.path) is not the package root (no Package.swift and Goldens/VERSION); run it there or give --root"
            )
            return 2
        }

        let files = GoldenFiles.all()
        var reference = ReferenceImplementation(schema: .vulture)
        var rendered: [(path: String, bytes: [UInt8])] = []
        for golden in files.documents {
            rendered.append(("Goldens/schema/\(golden.name).json", try GoldenFiles.render(golden, with: &reference)))
        }
        for file in files.vectors {
            rendered.append(("Goldens/vectors/\(file.area).json", try GoldenFiles.render(file, with: &reference)))
        }

        var changed: [String] = []
        for (path, bytes) in rendered {
            let url = root.appendingPathComponent(path)
            let old = FileManager.default.contents(atPath: url.path).map { [UInt8]($0) }
            guard old != bytes else { continue }
            changed.append(path)
            if mode == "write" {
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
                print("wrote \(path)")
            } else {
                print(GoldenFiles.diff(old: old ?? [], new: bytes, path: path))
            }
        }
        guard mode == "check" else { return 0 }
        print(
            changed.isEmpty
                ? "goldens are current (\(rendered.count) files)"
                : "\(changed.count) golden file(s) would change; run `swift run vulture-goldens write` and commit the diff with its reason"
        )
        return changed.isEmpty ? 0 : 1
    }
}
