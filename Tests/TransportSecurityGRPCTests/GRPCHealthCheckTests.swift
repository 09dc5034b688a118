#if GRPC
import Foundation
import GRPCCore
import SwiftProtobuf
import Testing

@testable import TransportSecurityGRPC

@Suite("gRPC health-check messages")
struct GRPCHealthCheckTests {
    @Test("the messages read and write grpc.health.v1's wire form: the service as field 1, the status as field 1 (0–3 named, another value kept as unrecognized), fields not in the protocol kept; the statuses print as the protocol names them")
    func wireForm() throws {
        var request = HealthCheckRequest()
        request.service = "payments.v1.Payments"
        let requestBytes: [UInt8] = try request.serializedBytes()
        #expect(requestBytes == [0x0A, 20] + Array("payments.v1.Payments".utf8))
        #expect(try HealthCheckRequest(serializedBytes: requestBytes) == request)
        #expect(try HealthCheckRequest().serializedBytes() == [UInt8](), "the server as a whole: an empty message")

        for (value, status) in [(0, GRPCHealthCheck.ServingStatus.unknown), (1, .serving), (2, .notServing), (3, .serviceUnknown), (7, .unrecognized(7))] {
            let response = try HealthCheckResponse(serializedBytes: [0x08, UInt8(value)])
            #expect(GRPCHealthCheck.ServingStatus(number: response.status) == status)
            #expect(status.number == Int32(value))
        }
        #expect(try HealthCheckResponse(serializedBytes: [0x08, 0x01, 0x12, 0x01, 0x41]).serializedBytes() == [0x08, 0x01, 0x12, 0x01, 0x41] as [UInt8])
        #expect(throws: (any Error).self) { try HealthCheckResponse(serializedBytes: [0x08]) }

        #expect(GRPCHealthCheck.ServingStatus.allDescriptions == ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN", "unrecognized status 9"])
        #expect(GRPCHealthCheck.method.fullyQualifiedMethod == "grpc.health.v1.Health/Check")
    }

    @Test("bytes that are no HealthCheckResponse fail the call INVALID_ARGUMENT, naming the message")
    func undecodable() throws {
        #expect {
            let _: HealthCheckResponse = try ProtobufCoding<HealthCheckResponse>().deserialize([UInt8]([0x0A, 0x05, 0x41]))
        } throws: { error in
            (error as? RPCError)?.code == .invalidArgument && (error as? RPCError)?.message.hasPrefix("the message is not a grpc.health.v1.HealthCheckResponse") == true
        }
    }
}

extension GRPCHealthCheck.ServingStatus {
    static var allDescriptions: [String] {
        [Self.unknown, .serving, .notServing, .serviceUnknown, .unrecognized(9)].map(\.description)
    }
}
#endif
