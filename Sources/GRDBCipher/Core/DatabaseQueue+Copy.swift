extension DatabaseQueue {
    /// Returns a connection to an in-memory copy of the database at `path`. Changes to the copy
    /// do not reach the file.
    ///
    /// ```swift
    /// var config = Configuration()
    /// config.prepareDatabase { db in try db.usePassphrase(passphrase) }
    /// let dbQueue = try DatabaseQueue.inMemoryCopy(fromPath: "/path/to/db.sqlite", configuration: config)
    /// ```
    ///
    /// `configuration` opens the file (read-only) and the copy: its `prepareDatabase` gives an
    /// encrypted file its key. The content of the copy stays in memory. With
    /// `configuration.readonly`, the copy refuses writes.
    public static func inMemoryCopy(fromPath path: String, configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try copy(fromPath: path, configuration: configuration, onDisk: false) { copyConfiguration in
            try DatabaseQueue(configuration: copyConfiguration)
        }
    }

    /// Returns a connection to a private, temporary, on-disk copy of the database at `path`:
    /// SQLite deletes the copy when the connection closes. Changes to the copy do not reach the
    /// original file.
    ///
    /// ```swift
    /// let dbQueue = try DatabaseQueue.temporaryCopy(fromPath: "/path/to/db.sqlite", configuration: config)
    /// ```
    ///
    /// `configuration` opens the file (read-only) and the copy. When it gives the file a key,
    /// the copy is keyed by the same `prepareDatabase`, so the pages SQLite writes to the
    /// temporary file are encrypted with the same key and settings; a copy that would be
    /// plaintext (a configuration that keys the copy differently, say) is refused.
    public static func temporaryCopy(fromPath path: String, configuration: Configuration = Configuration()) throws -> DatabaseQueue {
        try copy(fromPath: path, configuration: configuration, onDisk: true) { copyConfiguration in
            // SQLite's private temporary database: an empty path.
            try DatabaseQueue(path: "", configuration: copyConfiguration)
        }
    }

    private static func copy(
        fromPath path: String,
        configuration: Configuration,
        onDisk: Bool,
        makeCopy: (Configuration) throws -> DatabaseQueue) throws -> DatabaseQueue
    {
        var sourceConfiguration = configuration
        sourceConfiguration.readonly = true
        let source = try DatabaseQueue(path: path, configuration: sourceConfiguration)
        defer { try? source.close() }
        // The copy is written by the backup: it cannot be read-only while it is made.
        var copyConfiguration = configuration
        copyConfiguration.readonly = false
        let copy = try makeCopy(copyConfiguration)
        let sourceIsEncrypted = try source.read { $0.isEncrypted }
        let copyIsEncrypted = copy.writer.reentrantSync { $0.isEncrypted }
        if onDisk && sourceIsEncrypted && !copyIsEncrypted {
            try? copy.close()
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "temporaryCopy: the configuration keys the original file but not the copy: "
                    + "a temporary copy of an encrypted database must be encrypted too")
        }
        try source.backup(to: copy)
        if configuration.readonly {
            // As GRDB (COPY-1): a read-only configuration gives a copy that refuses writes,
            // once the backup has written it.
            try copy.writer.reentrantSync { try $0.becomeReadOnly() }
        }
        return copy
    }
}
