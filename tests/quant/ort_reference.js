// Runs an ONNX model on onnxruntime (onnxruntime-node) for tests/quant/ort_reference.py:
//   node ort_reference.js MODEL.onnx REQUEST.json RESULT.json
// REQUEST: {"inputs": {name: {"dtype": "int8", "dims": [...], "data": base64}}}
// RESULT:  {"outputs": {name: {"dtype": ..., "dims": [...], "data": base64}}}
const fs = require('fs');
const ort = require('onnxruntime-node');

const arrays = {
  int8: Int8Array, uint8: Uint8Array, int32: Int32Array, float32: Float32Array, int64: BigInt64Array,
};

async function main() {
  const [model, requestPath, resultPath] = process.argv.slice(2);
  const request = JSON.parse(fs.readFileSync(requestPath, 'utf8'));
  const feeds = {};
  for (const [name, t] of Object.entries(request.inputs)) {
    const bytes = Buffer.from(t.data, 'base64');
    const copy = new Uint8Array(bytes).buffer;  // aligned
    feeds[name] = new ort.Tensor(t.dtype, new arrays[t.dtype](copy), t.dims);
  }
  const session = await ort.InferenceSession.create(model);
  const results = await session.run(feeds);
  const outputs = {};
  for (const [name, t] of Object.entries(results)) {
    const data = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64');
    outputs[name] = {dtype: t.type, dims: t.dims, data};
  }
  fs.writeFileSync(resultPath, JSON.stringify({outputs}));
}

main().catch((e) => { console.error(e); process.exit(1); });
