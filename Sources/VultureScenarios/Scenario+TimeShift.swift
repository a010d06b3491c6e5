import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncSchema

extension Scenario {
    /// The same scenario moved in time by `seconds`: its start and every timestamp value in its
    /// steps (imported and saved fields, another client's writes, expected documents and rows).
    /// Integers that carry times (a settings entry's `t` in epoch milliseconds) are left as they are:
    /// they are compared only with each other. Used where the server's clock is real (the emulator):
    /// moved by whole days, the scenario keeps its times of day, so a quota pause ends when it did.
    package func shifted(bySeconds seconds: Int64) -> Scenario {
        func move(_ value: FirestoreValue) -> FirestoreValue {
            switch value {
            case .timestamp(let t): return .timestamp(t.adding(seconds: seconds))
            case .map(let m): return .map(m.mapValues(move))
            case .array(let a): return .array(a.map(move))
            default: return value
            }
        }
        func moveFields(_ fields: [String: FirestoreValue]) -> [String: FirestoreValue] { fields.mapValues(move) }
        var out = self
        out.start = start.adding(seconds: seconds)
        out.steps = steps.map { step -> ScenarioStep in
            switch step {
            case .importFlight(let d, let igc, let fields):
                return .importFlight(device: d, igc: igc, fields: moveFields(fields))
            case .importMapFile(let d, let content, let fields):
                return .importMapFile(device: d, content: content, fields: moveFields(fields))
            case .save(let d, let c, let id, let changes, let fill):
                return .save(device: d, collection: c, id: id, changes: moveFields(changes), fill: fill)
            case .serverCommit(let writes, let late):
                return .serverCommit(
                    writes: writes.map { w in
                        guard let fields = w.fields,
                            let moved = try? FirestoreWrite(
                                path: w.path, fields: moveFields(fields), mask: w.mask, precondition: w.precondition)
                        else { return w }
                        return moved
                    }, lateBySeconds: late)
            case .expect(var e):
                e.server = e.server.mapValues { $0.map(moveFields) }
                e.rows = e.rows.mapValues { rows in
                    rows.mapValues { row in
                        row.map { RowExpectation(fields: moveFields($0.fields), dirty: $0.dirty, file: $0.file) }
                    }
                }
                return .expect(e)
            default:
                return step
            }
        }
        return out
    }
}
