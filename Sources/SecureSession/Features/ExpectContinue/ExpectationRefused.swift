/// A server answered `417 Expectation Failed` to a request that waited for `100 Continue`: the
/// request goes again without the expectation, on a new connection (RFC 9110 §10.1.1).
struct ExpectationRefused: Error {}
