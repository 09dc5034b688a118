#if GRPC
import SwiftProtobuf

// The two messages of gRPC's health-checking protocol (`grpc/health/v1/health.proto`), written
// as protoc-gen-swift writes messages: SwiftProtobuf encodes and decodes them, unknown fields
// included.

/// `grpc.health.v1.HealthCheckRequest`: the service asked about (`""`: the server as a whole).
struct HealthCheckRequest: Sendable {
    var service = ""
    var unknownFields = UnknownStorage()
}

/// `grpc.health.v1.HealthCheckResponse`: the service's serving status, as the number of its
/// `ServingStatus` (``GRPCHealthCheck/ServingStatus`` names it). An enum field is an `int32` on
/// the wire, so the number is read and written as one, unknown values included.
struct HealthCheckResponse: Sendable {
    var status: Int32 = 0
    var unknownFields = UnknownStorage()
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
            if fieldNumber == 1 { try decoder.decodeSingularInt32Field(value: &status) }
        }
    }

    func traverse<V: Visitor>(visitor: inout V) throws {
        if status != 0 { try visitor.visitSingularInt32Field(value: status, fieldNumber: 1) }
        try unknownFields.traverse(visitor: &visitor)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.status == rhs.status && lhs.unknownFields == rhs.unknownFields
    }
}
#endif
