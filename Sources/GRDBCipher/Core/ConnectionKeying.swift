/// What the layer that keys connections does when a connection opens and closes (DESIGN
/// decision 14): Core is handed one per connection, calls it at fixed points, and knows nothing
/// of keys, passphrases, key caches or the diagnosis of encrypted files.
protocol ConnectionKeying: AnyObject {
    /// Whether the connection was given a key.
    var isEncrypted: Bool { get }

    /// Whether the connection was keyed with a key its pool shares: a file that refuses it
    /// may just have changed key, and the opening may be retried without it.
    var usedSharedKey: Bool { get }

    /// Before the configuration's preparation functions run.
    func connectionWillPrepare(_ db: Database)

    /// The error to throw when the first read of the file fails: the same result code, with a
    /// message that tells which case it is (never a key).
    func explainOpeningFailure(_ error: DatabaseError, in db: Database) -> DatabaseError

    /// After the first read of the file succeeded.
    func connectionDidOpen(_ db: Database) throws

    /// After the opening, whatever its outcome: what was kept for it is forgotten.
    func connectionDidFinishOpening(_ db: Database)

    /// Before the connection closes.
    func connectionWillClose(_ db: Database)
}

/// Makes the keying of each connection of a queue or a pool: a pool's connections share what
/// one of them learns (the key derived from a passphrase).
protocol ConnectionKeyingSource: AnyObject, Sendable {
    func makeKeying() -> any ConnectionKeying

    /// Forgets what the connections share: a key that no longer opens the file, a pool that
    /// closes, a passphrase that changed.
    func forgetSharedKey()
}
