"""TensorFlow's protocol buffers, with TensorFlow's message names and field numbers (README.md).

Import a module when you need it (`from webflow.protos import event_pb2`): they need the `protobuf` package,
which `import webflow` itself never loads.
"""
