"""Data sets for lessons and the demo: MNIST (`mnist.load_data`, `mnist.load_sample`) and the TF1 tutorial reader.

Nothing here is imported by `import webflow`: it needs NumPy and the file system, and only the demo,
lessons and tests use it.
"""
