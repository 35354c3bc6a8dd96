"""The descriptor pool every webflow _pb2 module registers its .proto file in (tools/build_protos.py).

webflow's messages carry TensorFlow's names (`tensorflow.GraphDef`, `tensorflow.Event` ...) so that their
wire format, text format and `Any` type URLs are TensorFlow's. TensorFlow's own _pb2 modules register the same
names in protobuf's default pool, and one pool cannot hold a name twice: with a pool of its own, webflow and
TensorFlow import side by side in one process (exchange messages between them as serialized bytes).
"""

from google.protobuf import any_pb2, descriptor_pool, wrappers_pb2

POOL = descriptor_pool.DescriptorPool()
# meta_graph.proto imports google/protobuf/any.proto, trackable_object_graph.proto google/protobuf/wrappers.proto:
# a dependency must be in the same pool.
POOL.AddSerializedFile(any_pb2.DESCRIPTOR.serialized_pb)
POOL.AddSerializedFile(wrappers_pb2.DESCRIPTOR.serialized_pb)
