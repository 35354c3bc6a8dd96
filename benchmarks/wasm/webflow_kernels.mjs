// webflow's C kernels (webflow/wasm/webflow_kernels.wasm) in Node, and the MLP training step built from them.
//
// The side module imports only env.memory, __stack_pointer, __memory_base and __table_base (no libc), so it
// is instantiated by hand as tests/kernels/wasm_runner.js does: data segments at 1 MB, stack below 8 MB,
// our buffers from 16 MB up (a bump allocator: benchmarks never free).
import fs from "node:fs";

const DATA_BASE = 1 << 20, STACK_TOP = 8 << 20, HEAP_START = 16 << 20;

export function loadKernels(wasmPath) {
  const memory = new WebAssembly.Memory({ initial: 4096 });  // 256 MB, grown on demand
  const global = (value, mutable) => new WebAssembly.Global({ value: "i32", mutable }, value);
  const module = new WebAssembly.Module(fs.readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, { env: {
    memory, __stack_pointer: global(STACK_TOP, true), __memory_base: global(DATA_BASE, false),
    __table_base: global(0, false) } });
  const k = instance.exports;
  if (k.__wasm_apply_data_relocs) k.__wasm_apply_data_relocs();
  let next = HEAP_START;
  // Address of `count` fresh 4-byte elements, 64-byte aligned (as NumPy's allocator would give).
  const alloc = (count) => {
    const address = next;
    next += Math.ceil((4 * count) / 64) * 64;
    if (next > memory.buffer.byteLength) memory.grow(Math.ceil((next - memory.buffer.byteLength) / 65536));
    return address;
  };
  // Typed views are re-made on every use: memory.grow detaches the old ArrayBuffer.
  const f32 = (address, count) => new Float32Array(memory.buffer, address, count);
  const i32 = (address, count) => new Int32Array(memory.buffer, address, count);
  const floats = (values) => { const a = alloc(values.length); f32(a, values.length).set(values); return a; };
  const ints = (values) => { const a = alloc(values.length); i32(a, values.length).set(values); return a; };
  return { k, memory, alloc, f32, i32, floats, ints };
}

// wf_conv2d_shape (webflow_kernels.h): 15 wf_size fields, i32 on wasm32. SAME padding, stride 1.
export function conv2dShape(lib, [batch, height, width, channels], [fh, fw, , outChannels]) {
  const padTop = Math.floor((fh - 1) / 2), padLeft = Math.floor((fw - 1) / 2);
  return lib.ints([batch, height, width, channels, fh, fw, outChannels, 1, 1, 1, 1, padTop, padLeft, height, width]);
}

// The Adam hyper-parameters of both timed MLP steps (TF1's defaults). TF (and webflow) add epsilon to sqrt(v)
// before the bias correction, tfjs to sqrt(v_hat) after it: the updates differ for gradients near epsilon, so
// the cross-check of the two steps uses a far smaller epsilon.
export const ADAM = { lr: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };

// One training step of a ReLU MLP with softmax cross-entropy (mean over the batch) and Adam, as the sequence
// of C kernel calls webflow's graph makes for the TF1 program (MatMul, AddV2 broadcast, Relu; softmax xent
// with its fused backprop, Mean; Mean's and xent's gradients as a broadcast Mul; bias gradient = Sum over the
// batch axis; MatMul gradients as transposed GEMMs; ReluGrad; ApplyAdam per variable).
// `weights` = [W1, b1, W2, b2, ...] as Float32Arrays; returns {step(x, labels) -> loss, read() -> weights}.
export function mlpStep(lib, sizes, batch, weights, adam = ADAM) {
  const { k, alloc, f32, ints } = lib;
  const layers = sizes.length - 1;
  const W = [], b = [], mW = [], vW = [], mb = [], vb = [], dW = [], db = [];
  for (let l = 0; l < layers; l++) {
    const fanIn = sizes[l], fanOut = sizes[l + 1];
    W.push(lib.floats(weights[2 * l])); b.push(lib.floats(weights[2 * l + 1]));
    for (const [list, count] of [[mW, fanIn * fanOut], [vW, fanIn * fanOut], [dW, fanIn * fanOut],
      [mb, fanOut], [vb, fanOut], [db, fanOut]]) { const a = alloc(count); f32(a, count).fill(0); list.push(a); }
  }
  // Activations: z[l] = pre-activation of layer l + 1 (bias added), h[l] = relu(z[l]) (h[-1] is x).
  const z = [], h = [], dh = [];
  for (let l = 0; l < layers; l++) { z.push(alloc(batch * sizes[l + 1])); h.push(alloc(batch * sizes[l + 1])); dh.push(alloc(batch * sizes[l + 1])); }
  const classes = sizes[layers];
  const x = alloc(batch * sizes[0]), labels = alloc(batch * classes);
  const loss = alloc(batch), meanLoss = alloc(1), backprop = alloc(batch * classes), scale = alloc(1);
  // Shapes and strides for the broadcast add / mul and the reductions (wf_size = i32 on wasm32).
  const biasShape = [], rowStrides = [], biasStrides = ints([0, 1]), batchShape = ints([batch]), unit = ints([1]);
  for (let l = 0; l < layers; l++) { biasShape.push(ints([batch, sizes[l + 1]])); rowStrides.push(ints([sizes[l + 1], 1])); }
  const scalarStrides = ints([0, 0]);
  let beta1Power = 1, beta2Power = 1;
  const { lr, beta1, beta2, epsilon } = adam;

  function step(xValues, labelValues) {
    f32(x, batch * sizes[0]).set(xValues);
    f32(labels, batch * classes).set(labelValues);
    // forward
    for (let l = 0; l < layers; l++) {
      const input = l === 0 ? x : h[l - 1], m = batch, n = sizes[l + 1], depth = sizes[l];
      k.wf_gemm_f32(0, 0, m, n, depth, 1, input, depth, W[l], n, 0, z[l], n);  // MatMul
      k.wf_add_f32(z[l], b[l], z[l], 2, biasShape[l], rowStrides[l], biasStrides);  // AddV2 (bias broadcast)
      if (l < layers - 1) k.wf_relu_f32(z[l], h[l], m * n);  // Relu
    }
    const logits = z[layers - 1];
    k.wf_softmax_xent_f32(logits, labels, classes, loss, backprop, batch, classes);
    k.wf_reduce_mean_f32(loss, meanLoss, 1, batchShape, unit, 1);  // Mean
    // backward: d(mean)/d(loss_i) = 1/batch, times xent's backprop (one broadcast Mul)
    f32(scale, 1)[0] = 1 / batch;
    const last = layers - 1;
    k.wf_mul_f32(backprop, scale, dh[last], 2, biasShape[last], rowStrides[last], scalarStrides);
    for (let l = last; l >= 0; l--) {
      const input = l === 0 ? x : h[l - 1], m = batch, n = sizes[l + 1], depth = sizes[l];
      const dz = dh[l];  // already the pre-activation gradient (ReluGrad applied below for hidden layers)
      k.wf_reduce_sum_f32(dz, db[l], 2, biasShape[l], rowStrides[l], 1);  // bias grad: Sum over batch
      k.wf_gemm_f32(1, 0, depth, n, m, 1, input, depth, dz, n, 0, dW[l], n);  // dW = input^T . dz
      if (l > 0) {
        k.wf_gemm_f32(0, 1, m, depth, n, 1, dz, n, W[l], n, 0, dh[l - 1], depth);  // d input = dz . W^T
        k.wf_relu_grad_f32(dh[l - 1], h[l - 1], dh[l - 1], m * depth);  // ReluGrad
      }
    }
    // beta powers are beta^t at step t (TF1 keeps them in variables, updated after the ApplyAdams)
    beta1Power *= beta1; beta2Power *= beta2;
    for (let l = 0; l < layers; l++) {
      const nW = sizes[l] * sizes[l + 1], nb = sizes[l + 1];
      k.wf_apply_adam_f32(W[l], mW[l], vW[l], beta1Power, beta2Power, lr, beta1, beta2, epsilon, dW[l], 0,
        W[l], mW[l], vW[l], nW);
      k.wf_apply_adam_f32(b[l], mb[l], vb[l], beta1Power, beta2Power, lr, beta1, beta2, epsilon, db[l], 0,
        b[l], mb[l], vb[l], nb);
    }
    return f32(meanLoss, 1)[0];
  }
  const read = () => {
    const out = [];
    for (let l = 0; l < layers; l++) {
      out.push(f32(W[l], sizes[l] * sizes[l + 1]).slice(), f32(b[l], sizes[l + 1]).slice());
    }
    return out;
  };
  return { step, read };
}
