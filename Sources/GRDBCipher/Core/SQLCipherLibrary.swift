import CSQLCipher

/// Checks, once per process, that the linked library is SQLCipher 4.5 or newer.
///
/// A plain SQLite library would silently store data unencrypted (`sqlite3_key` would be a no-op
/// or missing), and SQLCipher 3.x lacks the v4 format and the pragmas this package relies on:
/// both are refused with an error that says so.
enum SQLCipherLibrary {
    static let minimumMajor = 4
    static let minimumMinor = 5

    /// The SQLCipher version string, such as "4.6.1 community", or the error.
    static let status: Result<String, DatabaseError> = {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            return .failure(DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "SQLCipher check: cannot open an in-memory database"))
        }
        let version = singleText(handle, "PRAGMA cipher_version") ?? ""
        let sqliteVersion = String(cString: sqlite3_libversion())
        guard !version.isEmpty else {
            return .failure(DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "the linked SQLite library (\(sqliteVersion)) is not SQLCipher: "
                    + "databases would not be encrypted. Link SQLCipher 4.5 or newer."))
        }
        guard isSupported(version) else {
            return .failure(DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "SQLCipher \(version) (SQLite \(sqliteVersion)) is too old: GRDBCipher needs SQLCipher "
                    + "\(minimumMajor).\(minimumMinor) or newer (on Debian 12, install libsqlcipher-dev from bookworm-backports)."))
        }
        return .success(version)
    }()

    static func check() throws {
        _ = try status.get()
    }

    /// Whether the application took control of SQLCipher's logging with
    /// `Database.enableCipherLogging(level:target:)` or `disableCipherLogging()`.
    static let applicationControlsLogging = LockedValue(false)

    static func isSupported(_ version: String) -> Bool {
        let numbers = version.split(separator: " ").first?.split(separator: ".").compactMap { Int($0) } ?? []
        guard numbers.count >= 2 else { return false }
        return (numbers[0], numbers[1]) >= (minimumMajor, minimumMinor)
    }

    private static func singleText(_ handle: OpaquePointer?, _ sql: String) -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }
}
