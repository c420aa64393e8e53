import GRDBCipher
import Metrics

/// The metrics of a ``DatabaseService`` (docs/Service.md lists them). Labels follow
/// swift-metrics' conventions: lowercase, `_`-separated, a unit suffix; dimensions are
/// low-cardinality.
struct DatabaseMetrics: Sendable {
    /// Accesses run through ``DatabaseService/read(_:)`` and ``DatabaseService/write(_:)``,
    /// by kind (`read`, `write`) and outcome (`success`, `error`).
    let factory: (any MetricsFactory)?
    let readWait: Metrics.Timer
    let writeWait: Metrics.Timer
    let readDuration: Metrics.Timer
    let writeDuration: Metrics.Timer
    let checkpointDuration: Metrics.Timer
    let walSize: Gauge

    init(factory: (any MetricsFactory)?) {
        self.factory = factory
        func timer(_ label: String, _ dimensions: [(String, String)] = []) -> Metrics.Timer {
            if let factory { return Metrics.Timer(label: label, dimensions: dimensions, preferredDisplayUnit: .milliseconds, factory: factory) }
            return Metrics.Timer(label: label, dimensions: dimensions, preferredDisplayUnit: .milliseconds)
        }
        readWait = timer("grdbcipher_access_wait_seconds", [("kind", "read")])
        writeWait = timer("grdbcipher_access_wait_seconds", [("kind", "write")])
        readDuration = timer("grdbcipher_transaction_duration_seconds", [("kind", "read")])
        writeDuration = timer("grdbcipher_transaction_duration_seconds", [("kind", "write")])
        checkpointDuration = timer("grdbcipher_checkpoint_duration_seconds")
        if let factory {
            walSize = Gauge(label: "grdbcipher_wal_size_bytes", factory: factory)
        } else {
            walSize = Gauge(label: "grdbcipher_wal_size_bytes")
        }
    }

    func countTransaction(kind: String, outcome: String) {
        let dimensions = [("kind", kind), ("outcome", outcome)]
        if let factory {
            Counter(label: "grdbcipher_transactions_total", dimensions: dimensions, factory: factory).increment()
        } else {
            Counter(label: "grdbcipher_transactions_total", dimensions: dimensions).increment()
        }
    }

    /// Counts an error by its primary result code (`SQLITE_BUSY`, `SQLITE_IOERR`…).
    func recordError(_ error: DatabaseError) {
        let dimensions = [("code", Self.codeName(error.resultCode))]
        if let factory {
            Counter(label: "grdbcipher_errors_total", dimensions: dimensions, factory: factory).increment()
        } else {
            Counter(label: "grdbcipher_errors_total", dimensions: dimensions).increment()
        }
    }

    static func codeName(_ code: ResultCode) -> String {
        let names: [Int32: String] = [
            1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT", 5: "SQLITE_BUSY",
            6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR",
            11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL",
            17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE",
            23: "SQLITE_AUTH", 25: "SQLITE_RANGE", 26: "SQLITE_NOTADB",
        ]
        return names[code.primaryResultCode.rawValue] ?? "SQLITE_\(code.primaryResultCode.rawValue)"
    }
}
