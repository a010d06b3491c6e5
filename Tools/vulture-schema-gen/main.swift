import Foundation
import VultureCommandLine
import VultureSchemaCore
import VultureSchemaGenerator

// vulture-schema-gen: regenerate or check the files generated from Spec/ (README "Editing the schema").
// Exit status: 0 done / current, 1 check found drift (the diff is printed), 2 usage, I/O or Spec/ errors.

let usage = """
    usage: vulture-schema-gen generate [--root DIR]
           vulture-schema-gen check [--root DIR]

      generate  read Spec/, write the generated files whose bytes change, list them
      check     read Spec/, compare with the checked-in files, never write; print a
                golden→new diff and exit 1 when anything would change

      --root DIR  the package root (default: the current directory)

    exit status: 0 current, 1 drift found by check, 2 usage, I/O or Spec/ errors
    """

let tool = CommandLineTool(name: "vulture-schema-gen", usage: usage)
tool.run { arguments in
    let (command, rest) = try CommandLineArguments.subcommand(of: arguments, among: ["generate", "check"])
    return try tool.subcommand(command, usage: usage) {
        let args = try CommandLineArguments(rest, valueOptions: ["root"])
        _ = try args.positionals()
        let root = try args.packageRoot(holding: ["Spec/"])

        let spec: SchemaSpec
        do {
            spec = try SchemaSpec.load(from: root.appendingPathComponent("Spec"))
        } catch let errors as SpecErrors {
            printError(errors.description)
            return 2
        } catch {
            printError("cannot read \(root.appendingPathComponent("Spec").path.shownArgument): \(error)")
            return 2
        }
        let files = SchemaGenerator.generate(spec: spec)

        if command == "generate" {
            do {
                let changed = try SchemaGenerator.write(files: files, to: root)
                for path in changed { print("wrote \(path)") }
                print("\(changed.count) of \(files.count) generated files changed")
            } catch {
                printError("cannot write: \(error)")
                return 2
            }
            return 0
        }
        let reports = SchemaGenerator.check(files: files, against: root)
        if reports.isEmpty {
            print("\(files.count) generated files are current")
            return 0
        }
        for report in reports { print(report) }
        print("\(reports.count) generated file(s) out of date: run `swift run vulture-schema-gen generate`")
        return 1
    }
}
