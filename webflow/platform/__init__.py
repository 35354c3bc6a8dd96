"""webflow.platform: TensorFlow's process-level helpers (`tf.app`, `tf.flags`, `tf.logging`); see README.md."""
