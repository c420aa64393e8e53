import Foundation

extension Database {
    /// The notification that suspends the databases opened with
    /// ``Configuration/observesSuspensionNotifications``, in GRDB on Apple platforms.
    ///
    /// ```swift
    /// NotificationCenter.default.post(name: Database.suspendNotification, object: self)
    /// ```
    ///
    /// On Linux there is no application suspension, and no `0xDEAD10CC` exception to avoid:
    /// GRDBCipher's connections do not suspend, and posting it has no effect. The name exists
    /// so that GRDB code that posts it compiles and runs unchanged.
    public static let suspendNotification = Notification.Name("GRDB.Database.Suspended")

    /// The notification that resumes the databases suspended by ``suspendNotification``.
    ///
    /// ```swift
    /// NotificationCenter.default.post(name: Database.resumeNotification, object: self)
    /// ```
    ///
    /// On Linux, GRDBCipher's connections never suspend: posting it has no effect.
    public static let resumeNotification = Notification.Name("GRDB.Database.Resumed")
}
