import Foundation
import VultureCommandLine
import VultureGoldens

/// `vulture-goldens write|check [--root DIR]`: the goldens are the reference implementation's
/// answers to the case definitions in this folder. `write` rewrites Goldens/schema, Goldens/vectors and Goldens/scenarios (only files
/// whose bytes change); `check` never writes and exits 1 with a diff when anything would change.
let usage = """
    usage: vulture-goldens write [--root DIR]
           vulture-goldens check [--root DIR]

      --root DIR  the package root (default: the current directory)

    Writes (or checks) Goldens/schema/*.json, Goldens/vectors/*.json and Goldens/scenarios/*.json from the case
    definitions in Tools/VultureGoldens, answered by the reference implementation (a scenario is written only when
    the reference engine meets every expectation of its expect steps). Exit status: 0 current, 1 would change (check),
    2 usage or I/O error, or a definition the reference does not answer as declared.
    """

let tool = CommandLineTool(name: "vulture-goldens", usage: usage)
tool.run { arguments in
    let (mode, rest) = try CommandLineArguments.subcommand(of: arguments, among: ["write", "check"])
    return try tool.subcommand(mode, usage: usage) {
        let args = try CommandLineArguments(rest, valueOptions: ["root"])
        _ = try args.positionals()
        let root = try args.packageRoot(holding: ["Goldens/VERSION"])

        let files = try GoldenWriter.render()
        let drift = GoldenWriter.drift(of: files, under: root)
        for file in drift {
            if mode == "write", file.isStale {
                try FileManager.default.removeItem(at: root.appendingPathComponent(file.path))
                print("deleted \(file.path)")
            } else if mode == "write" {
                let url = root.appendingPathComponent(file.path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.bytes).write(to: url)
                print("wrote \(file.path)")
            } else {
                print(file.diff)
            }
        }
        let changed = drift.map(\.path)
        guard mode == "check" else { return 0 }
        print(
            changed.isEmpty
                ? "goldens are current (\(files.count) files)"
                : "\(changed.count) golden file(s) would change; run `swift run vulture-goldens write` and commit the diff with its reason"
        )
        return changed.isEmpty ? 0 : 1
    }
}
