import Foundation

/// The Python peers (`Tools/benchmark/peers.py`): json, orjson, jsonschema-rs and fastjsonschema,
/// pinned and installed from PyPI into a virtual environment under `.build/bench-venv` (never
/// committed), created on first use.
enum PythonPeers {
    static let pins = ["orjson==3.13.0", "jsonschema-rs==0.61.2", "fastjsonschema==2.22.3"]
    static let venv = packageRoot.appendingPathComponent(".build/bench-venv")
    static let script = packageRoot.appendingPathComponent("Tools/benchmark/peers.py").path

    /// The virtual environment's python, installing the pins first when they do not import at their
    /// versions; nil (after printing why) when python3, venv or pip cannot provide them.
    static let python: String? = {
        let python = venv.appendingPathComponent("bin/python").path
        let check =
            "import sys; from importlib.metadata import version as v; import orjson, jsonschema_rs, fastjsonschema; "
            + "sys.exit(0 if [v('orjson'), v('jsonschema-rs'), v('fastjsonschema')] == "
            + "[" + pins.map { "'\($0.split(separator: "=").last ?? "")'" }.joined(separator: ", ") + "] else 1)"
        if FileManager.default.isExecutableFile(atPath: python),
            (try? ChildProcess.run([python, "-c", check]))?.status == 0
        {
            return python
        }
        guard let python3 = ChildProcess.which("python3") else {
            print("  skipped: the Python peers (python3 is not on PATH)")
            return nil
        }
        print("  installing \(pins.joined(separator: ", ")) from PyPI into \(venv.path)")
        do {
            if !FileManager.default.isExecutableFile(atPath: python) {
                _ = try ChildProcess.runChecked([python3, "-m", "venv", venv.path])
            }
            _ = try ChildProcess.runChecked(
                [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + pins)
            guard try ChildProcess.run([python, "-c", check]).status == 0 else {
                print("  skipped: the Python peers (the pinned versions do not import after pip install)")
                return nil
            }
            return python
        } catch {
            print("  skipped: the Python peers (\(error))")
            return nil
        }
    }()

    /// The versions line: Python and the three libraries.
    static func versions() throws -> String {
        guard let python else { return "" }
        let r = try ChildProcess.runChecked([python, script, "versions"])
        let v = try JSONDecoder().decode([String: String].self, from: Data(r.stdout.utf8))
        return
            "Python \(v["python"] ?? "?"), orjson \(v["orjson"] ?? "?"), jsonschema-rs \(v["jsonschema-rs"] ?? "?"), "
            + "fastjsonschema \(v["fastjsonschema"] ?? "?") (Python's cyclic GC off while timed)"
    }

    /// Runs a `peers.py` command and decodes its JSON object of numbers and flags.
    static func measure(_ arguments: [String]) throws -> [String: Double] {
        guard let python else { throw BenchmarkError.setup("no Python peers") }
        let r = try ChildProcess.runChecked([python, script] + arguments)
        guard let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
            throw BenchmarkError.setup("peers.py \(arguments.first ?? "") printed \(r.stdout.prefix(200))")
        }
        var out: [String: Double] = [:]
        for (k, v) in object {
            if let n = v as? NSNumber { out[k] = n.doubleValue }
        }
        return out
    }

    /// The argv of a whole-process peer run (`files`, `stream`, `load`).
    static func argv(_ arguments: [String]) throws -> [String] {
        guard let python else { throw BenchmarkError.setup("no Python peers") }
        return [python, script] + arguments
    }
}
