// TensorFlow.js in Node (the full @tensorflow/tfjs bundle, cpu backend, offline) loads a layers-format model
// directory with tf.loadLayersModel and prints its predictions, for tests/keras/test_tfjs_export.py.
//
//   node predict.mjs <dir with model.json> <inputs.json>   inputs.json = [{"dtype": "float32", "shape": [...],
//                                                                          "values": [...flat...]}, ...]
// prints {"outputs": [{"shape": [...], "values": [...flat...]}, ...], "weights": [names in tfjs's order]}
//
// The IO handler does what tfjs-node's file:// handler and the browser's http handler do: read model.json, then
// fetch the shards its weightsManifest lists (tf.io.getModelArtifactsForJSON) - so the manifest itself is tested.
import { readFile } from "node:fs/promises";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";

function fileHandler(modelJsonPath) {
  const dir = path.dirname(modelJsonPath);
  return {
    async load() {
      const modelJSON = JSON.parse(await readFile(modelJsonPath, "utf8"));
      return tf.io.getModelArtifactsForJSON(modelJSON, async (manifest) => {
        const specs = [];
        const buffers = [];
        for (const group of manifest) {
          specs.push(...group.weights);
          for (const shard of group.paths) {
            const bytes = await readFile(path.join(dir, shard));
            buffers.push(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
          }
        }
        return [specs, tf.io.concatenateArrayBuffers(buffers)];
      });
    },
  };
}

async function main() {
  const [modelDir, inputsPath] = process.argv.slice(2);
  await tf.setBackend("cpu");
  const model = await tf.loadLayersModel(fileHandler(path.join(modelDir, "model.json")));
  const specs = JSON.parse(await readFile(inputsPath, "utf8"));
  const inputs = specs.map((spec) => tf.tensor(spec.values, spec.shape, spec.dtype));
  let outputs = model.predict(inputs.length === 1 ? inputs[0] : inputs);
  if (!Array.isArray(outputs)) outputs = [outputs];
  const result = {
    outputs: outputs.map((t) => ({ shape: t.shape, values: Array.from(t.dataSync()) })),
    weights: model.weights.map((w) => w.originalName),
  };
  process.stdout.write(JSON.stringify(result));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error));
  process.exit(1);
});
