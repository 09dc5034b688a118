extension Result where Failure == any Error {
    /// The outcome of an async throwing body: its value, or the error it threw.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }

    /// The error thrown, if any.
    var error: (any Error)? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
