/// Bounds on chain building, so that no chain, however hostile, costs more than a few
/// milliseconds to reject.
public struct PathBuildingLimits: Sendable, Hashable {
    /// The most certificates a path may hold, leaf and anchor included.
    public var maximumPathLength: Int
    /// The most issuer look-ups plus candidate issuers the builder may examine before it gives up
    /// (each candidate costs a signature check).
    public var maximumWork: Int

    /// Creates limits.
    public init(maximumPathLength: Int = 10, maximumWork: Int = 512) {
        self.maximumPathLength = maximumPathLength
        self.maximumWork = maximumWork
    }

    /// The defaults: paths of at most 10 certificates, 512 units of work.
    public static let `default` = PathBuildingLimits()
}
