#if GRPC
import GRPCCore
import SwiftProtobuf

/// A gRPC message serializer and deserializer for a SwiftProtobuf message, in its binary form.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct ProtobufCoding<M: SwiftProtobuf.Message>: MessageSerializer, MessageDeserializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: M) throws -> Bytes {
        do {
            return Bytes(try message.serializedBytes() as [UInt8])
        } catch {
            throw RPCError(code: .invalidArgument, message: "cannot encode \(M.protoMessageName): \(error)")
        }
    }

    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> M {
        do {
            return try serializedMessageBytes.withUnsafeBytes { try M(serializedBytes: Array($0)) }
        } catch {
            throw RPCError(code: .invalidArgument, message: "the message is not a \(M.protoMessageName): \(error)")
        }
    }
}
#endif
