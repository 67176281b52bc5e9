// Runs a .tflite file under LiteRT (TensorFlow Lite compiled to WebAssembly, npm
// @litertjs/core, XNNPACK on the CPU) in Node, for a second opinion on reference
// outputs that were computed another way. Run by hand (it needs the npm package):
//   npm install @litertjs/core     (in this folder; node_modules is not committed)
//   node litert_run.mjs MODEL.tflite IN.bin float32|int8 D0,D1,... OUTDIR
// writes OUTDIR/out_K.bin, the raw bytes of output K. litert_check.py drives it.
import {loadLiteRt, loadAndCompile, Tensor} from '@litertjs/core';
import fs from 'fs';
import path from 'path';
import vm from 'vm';
import {fileURLToPath} from 'url';
import {createRequire} from 'module';
globalThis.require = createRequire(import.meta.url);
globalThis.__dirname = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules/@litertjs/core/wasm');
globalThis.__filename = globalThis.__dirname + '/x.js';
// LiteRT.js loads its wasm glue as a browser script; in Node it runs in this context.
globalThis.self = globalThis;
globalThis.importScripts = (url) => {
  const p = url.startsWith('file:') ? fileURLToPath(url) : url;
  vm.runInThisContext(fs.readFileSync(p, 'utf8'), {filename: p});
};
const [model, inFile, dtype, shapeStr, outDir] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const wasmDir = path.join(here, 'node_modules/@litertjs/core/wasm') + '/';
await loadLiteRt(wasmDir);
const bytes = new Uint8Array(fs.readFileSync(model));
const m = await loadAndCompile(bytes, {accelerator: 'wasm'});
const raw = fs.readFileSync(inFile);
const arr = dtype === 'int8' ? new Int8Array(raw.buffer, raw.byteOffset, raw.length) : new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
const t = new Tensor(arr, shapeStr.split(',').map(Number));
const outs = await m.run([t]);
fs.mkdirSync(outDir, {recursive: true});
for (let i = 0; i < outs.length; ++i) {
  const o = outs[i];
  const data = o.toTypedArray ? o.toTypedArray() : await o.data();
  fs.writeFileSync(path.join(outDir, `out_${i}.bin`), Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  console.log(i, o.type ? JSON.stringify(o.type) : '', data.constructor.name, data.length);
}
