"""grpc/health/v1/health.proto's two messages, made by Python's protobuf (python3-protobuf) from
a descriptor built here: the independent peer's encoding of them."""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

Field = descriptor_pb2.FieldDescriptorProto


def health_messages():
    file = descriptor_pb2.FileDescriptorProto(name='tsec/health.proto', package='grpc.health.v1', syntax='proto3')
    request = file.message_type.add(name='HealthCheckRequest')
    request.field.add(name='service', number=1, type=Field.TYPE_STRING, label=Field.LABEL_OPTIONAL)
    response = file.message_type.add(name='HealthCheckResponse')
    status = response.enum_type.add(name='ServingStatus')
    for number, name in enumerate(['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN']):
        status.value.add(name=name, number=number)
    response.field.add(name='status', number=1, type=Field.TYPE_ENUM, label=Field.LABEL_OPTIONAL,
                       type_name='.grpc.health.v1.HealthCheckResponse.ServingStatus')
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    factory = message_factory.MessageFactory(pool)
    return tuple(factory.GetPrototype(pool.FindMessageTypeByName('grpc.health.v1.' + name))
                 for name in ('HealthCheckRequest', 'HealthCheckResponse'))


Request, Response = health_messages()


def status_name(status):
    """The protocol's name of a ServingStatus number."""
    return Response.DESCRIPTOR.fields_by_name['status'].enum_type.values_by_number[status].name
