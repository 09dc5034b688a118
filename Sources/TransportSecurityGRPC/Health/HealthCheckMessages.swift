import SwiftProtobuf

// The two messages of gRPC's health-checking protocol (`grpc/health/v1/health.proto`), written
// as protoc-gen-swift writes messages: SwiftProtobuf encodes and decodes them, unknown fields
// included.

/// `grpc.health.v1.HealthCheckRequest`: the service asked about (`""`: the server as a whole).
struct HealthCheckRequest: Sendable {
    var service = ""
    var unknownFields = UnknownStorage()
}

/// `grpc.health.v1.HealthCheckResponse`: the service's serving status.
struct HealthCheckResponse: Sendable {
    var status = ServingStatus()
    var unknownFields = UnknownStorage()

    /// `grpc.health.v1.HealthCheckResponse.ServingStatus`.
    enum ServingStatus: SwiftProtobuf.Enum, CaseIterable {
        case unknown
        case serving
        case notServing
        /// Used only by the `Watch` method.
        case serviceUnknown
        case unrecognized(Int)

        static let allCases: [ServingStatus] = [.unknown, .serving, .notServing, .serviceUnknown]

        init() { self = .unknown }

        init?(rawValue: Int) {
            switch rawValue {
            case 0: self = .unknown
            case 1: self = .serving
            case 2: self = .notServing
            case 3: self = .serviceUnknown
            default: self = .unrecognized(rawValue)
            }
        }

        var rawValue: Int {
            switch self {
            case .unknown: 0
            case .serving: 1
            case .notServing: 2
            case .serviceUnknown: 3
            case .unrecognized(let value): value
            }
        }
    }
}

extension HealthCheckRequest: Message, _MessageImplementationBase, _ProtoNameProviding {
    static let protoMessageName = "grpc.health.v1.HealthCheckRequest"
    static let _protobuf_nameMap = _NameMap(bytecode: "\0\u{1}service\0")

    mutating func decodeMessage<D: Decoder>(decoder: inout D) throws {
        while let fieldNumber = try decoder.nextFieldNumber() {
            if fieldNumber == 1 { try decoder.decodeSingularStringField(value: &service) }
        }
    }

    func traverse<V: Visitor>(visitor: inout V) throws {
        if !service.isEmpty { try visitor.visitSingularStringField(value: service, fieldNumber: 1) }
        try unknownFields.traverse(visitor: &visitor)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.service == rhs.service && lhs.unknownFields == rhs.unknownFields
    }
}

extension HealthCheckResponse: Message, _MessageImplementationBase, _ProtoNameProviding {
    static let protoMessageName = "grpc.health.v1.HealthCheckResponse"
    static let _protobuf_nameMap = _NameMap(bytecode: "\0\u{1}status\0")

    mutating func decodeMessage<D: Decoder>(decoder: inout D) throws {
        while let fieldNumber = try decoder.nextFieldNumber() {
            if fieldNumber == 1 { try decoder.decodeSingularEnumField(value: &status) }
        }
    }

    func traverse<V: Visitor>(visitor: inout V) throws {
        if status != .unknown { try visitor.visitSingularEnumField(value: status, fieldNumber: 1) }
        try unknownFields.traverse(visitor: &visitor)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.status == rhs.status && lhs.unknownFields == rhs.unknownFields
    }
}

extension HealthCheckResponse.ServingStatus: _ProtoNameProviding {
    static let _protobuf_nameMap = _NameMap(bytecode: "\0\u{2}\0UNKNOWN\0\u{1}SERVING\0\u{1}NOT_SERVING\0\u{1}SERVICE_UNKNOWN\0")
}
