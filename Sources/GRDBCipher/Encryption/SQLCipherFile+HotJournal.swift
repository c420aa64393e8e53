import Foundation

extension SQLCipherFile {
    /// The first bytes of a rollback journal that holds a transaction not yet committed nor
    /// rolled back. SQLite zeroes or deletes them at commit.
    private static let journalMagic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]

    /// The path of the database's rollback journal when it holds an interrupted transaction (a
    /// "hot journal": the program that wrote the file died in the middle of a transaction), or
    /// nil.
    ///
    /// Until it is rolled back, which SQLite does when it opens the file read-write, a
    /// read-only connection cannot read the file (`SQLITE_READONLY_ROLLBACK`), whatever its key.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/fileformat.html#the_rollback_journal>
    public static func hotJournalPath(ofDatabaseAt path: String) -> String? {
        let journal = path + "-journal"
        let fd = open(journal, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: journalMagic.count)
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count == journalMagic.count && header == journalMagic ? journal : nil
    }

    /// Rolls back the interrupted transaction of a database whose journal is hot, as SQLite
    /// does when it opens the file read-write, and returns whether there was one. The rollback
    /// copies the saved pages back as they are (encrypted pages stay encrypted): it needs no
    /// key. Other connections must not use the file meanwhile.
    ///
    /// ```swift
    /// if SQLCipherFile.hotJournalPath(ofDatabaseAt: path) != nil {
    ///     try SQLCipherFile.rollBackInterruptedTransaction(atPath: path)
    /// }
    /// ```
    @discardableResult
    public static func rollBackInterruptedTransaction(atPath path: String) throws -> Bool {
        guard let journal = hotJournalPath(ofDatabaseAt: path) else { return false }
        let db = try Database.openProbe(path: path, readonly: false)
        defer { try? db.close() }
        // The first read takes the shared lock, which plays the journal back. Without a key, an
        // encrypted file then fails to read its schema: the rollback is done all the same.
        _ = db.schemaReadError()
        guard hotJournalPath(ofDatabaseAt: path) == nil else {
            throw DatabaseError(
                resultCode: .SQLITE_BUSY,
                message: "cannot roll back the interrupted transaction in \(journal): another program may be writing the database")
        }
        return true
    }
}
