import NIOHTTP2

extension HTTP2ErrorCode {
    /// The code's name in RFC 9113 §7 (`PROTOCOL_ERROR`, `ENHANCE_YOUR_CALM`), or its number
    /// in hexadecimal for one the RFC does not name.
    var rfcName: String {
        switch self {
        case .noError: return "NO_ERROR"
        case .protocolError: return "PROTOCOL_ERROR"
        case .internalError: return "INTERNAL_ERROR"
        case .flowControlError: return "FLOW_CONTROL_ERROR"
        case .settingsTimeout: return "SETTINGS_TIMEOUT"
        case .streamClosed: return "STREAM_CLOSED"
        case .frameSizeError: return "FRAME_SIZE_ERROR"
        case .refusedStream: return "REFUSED_STREAM"
        case .cancel: return "CANCEL"
        case .compressionError: return "COMPRESSION_ERROR"
        case .connectError: return "CONNECT_ERROR"
        case .enhanceYourCalm: return "ENHANCE_YOUR_CALM"
        case .inadequateSecurity: return "INADEQUATE_SECURITY"
        case .http11Required: return "HTTP_1_1_REQUIRED"
        default: return "0x" + String(networkCode, radix: 16)
        }
    }
}
