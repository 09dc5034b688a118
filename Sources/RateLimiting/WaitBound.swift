/// What bounds a wait for a turn or a slot: a request's deadline (the session's), or any other
/// limit that can end a wait early and say why.
package protocol WaitBound: Sendable {
    /// Runs `operation`, calling `interrupt` when the bound ends first (so that the wait gives
    /// up); throws the bound's reason if it has already ended.
    func interrupting<T>(with interrupt: @escaping @Sendable () -> Void, _ operation: () async throws -> T) async throws -> T
    /// Why the bound ended (a timeout, a cancellation), or `nil` while it holds.
    var endingReason: (any Error)? { get }
}
