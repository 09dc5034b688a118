import Foundation

/// What a ``SecureRequest`` sends as its body: one kind of content, so that a request never holds
/// two bodies of which one would be sent and the other silently not.
public enum RequestBody: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// A file sent as the body, read part by part as it is sent and never held in memory (a
    /// large upload); its length, measured when the request is sent, is the `Content-Length`.
    /// Sent again from its start when a retry, a 307/308 redirect or an answered challenge
    /// needs it.
    case file(path: String)
    /// Parts sent in order (``RequestBodyPart``): bytes in memory and files read part by part as
    /// they are sent, never held whole (what ``SecureRequest/multipart(_:url:form:)`` makes of a
    /// form with files). Its length, the files measured when the request is sent, is the
    /// `Content-Length`; every sending reads the files from their start.
    case parts([RequestBodyPart])
    /// Written by a producer as it is sent (``RequestBodyStream``): chunked over HTTP/1.1 when its
    /// length is not known.
    case stream(RequestBodyStream)
}

extension SecureRequest {
    /// The body as bytes in memory (``RequestBody/data(_:)``); `nil` when the request has none or
    /// another kind. Setting it replaces the request's content; setting `nil` removes bytes only.
    public var body: Data? {
        get { if case .data(let data)? = content { data } else { nil } }
        set {
            if let newValue { content = .data(newValue) } else if case .data? = content { content = nil }
        }
    }

    /// The file sent as the body (``RequestBody/file(path:)``); `nil` when the request has none
    /// or another kind. Setting it replaces the request's content; setting `nil` removes a file only.
    public var bodyFile: String? {
        get { if case .file(let path)? = content { path } else { nil } }
        set {
            if let newValue { content = .file(path: newValue) } else if case .file? = content { content = nil }
        }
    }

    /// The parts sent as the body (``RequestBody/parts(_:)``); `nil` when the request has none or
    /// another kind. Setting it replaces the request's content; setting `nil` removes parts only.
    public var bodyParts: [RequestBodyPart]? {
        get { if case .parts(let parts)? = content { parts } else { nil } }
        set {
            if let newValue { content = .parts(newValue) } else if case .parts? = content { content = nil }
        }
    }

    /// The producer writing the body (``RequestBody/stream(_:)``); `nil` when the request has none
    /// or another kind. Setting it replaces the request's content; setting `nil` removes a stream only.
    public var bodyStream: RequestBodyStream? {
        get { if case .stream(let stream)? = content { stream } else { nil } }
        set {
            if let newValue { content = .stream(newValue) } else if case .stream? = content { content = nil }
        }
    }

    /// Whether the request has a body of any kind.
    public var hasBody: Bool { content != nil }
}
