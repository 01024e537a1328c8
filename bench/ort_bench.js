// Latency of an ONNX model on ONNX Runtime's CPU provider (npm
// onnxruntime-node), measured as `duet bench` measures a program: the session
// creation (file read to ready-to-run), then warm-up runs and timed runs.
// Prints one JSON object like `duet bench --json`.
//
// Usage: node bench/ort_bench.js model.onnx --threads N [--iterations N] [--warmup N]
//                                [--input x.npy ...]
// Inputs: with --input, once per model input in the session's input order (as
// `duet bench --input`), read from .npy files (float32, int64, int32 or bool,
// little-endian, C order); the file's dtype and shape must match the model's
// input where the binding reports it. Without --input, seeded random float32
// values, shaped by DUET_BENCH_SHAPES ({"name": [dims]}, what compare.py
// passes) or else by the session's input metadata.
// NODE_PATH must reach onnxruntime-node (compare.py and zoo_compare.py set it
// to bench/ort/node_modules).
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');
const { performance } = require('perf_hooks');

function parseArgs(argv) {
  const args = { model: null, threads: 1, iterations: 100, warmup: 10, inputs: [] };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === '--threads') args.threads = Number(value());
    else if (flag === '--iterations') args.iterations = Number(value());
    else if (flag === '--warmup') args.warmup = Number(value());
    else if (flag === '--input' || flag === '-i') args.inputs.push(value());
    else if (flag.startsWith('-')) throw new Error(`unknown option ${flag}`);
    else if (!args.model) args.model = flag;
    else throw new Error(`unexpected argument ${flag}`);
  }
  if (!args.model) {
    throw new Error('usage: ort_bench.js model.onnx --threads N [--iterations N] '
                    + '[--warmup N] [--input x.npy ...]');
  }
  for (const key of ['threads', 'iterations', 'warmup']) {
    if (!Number.isInteger(args[key]) || args[key] < 0) throw new Error(`bad --${key}`);
  }
  if (args.iterations < 1) throw new Error('--iterations must be at least 1');
  return args;
}

/// A small linear congruential generator, so inputs do not depend on Math.random.
function randomFloats(count, seed) {
  const values = new Float32Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; ++i) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    values[i] = (state / 4294967296) * 2 - 1;
  }
  return values;
}

// .npy descr -> ONNX Runtime tensor type, element size and typed array.
const NPY_TYPES = {
  '<f4': { type: 'float32', size: 4, array: Float32Array },
  '<i8': { type: 'int64', size: 8, array: BigInt64Array },
  '<i4': { type: 'int32', size: 4, array: Int32Array },
  '|b1': { type: 'bool', size: 1, array: Uint8Array },
};

/// Reads a .npy file (format versions 1-3) into an ort.Tensor.
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  const fail = (why) => { throw new Error(`${file}: ${why}`); };
  if (bytes.length < 10 || bytes[0] !== 0x93 || bytes.toString('latin1', 1, 6) !== 'NUMPY') {
    fail('not a .npy file');
  }
  const major = bytes[6];
  let headerLength;
  let headerStart;
  if (major === 1) {
    headerLength = bytes.readUInt16LE(8);
    headerStart = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) fail('truncated header');
    headerLength = bytes.readUInt32LE(8);
    headerStart = 12;
  } else {
    fail(`unsupported .npy version ${major}`);
  }
  const dataStart = headerStart + headerLength;
  if (dataStart > bytes.length) fail('truncated header');
  const header = bytes.toString(major === 3 ? 'utf8' : 'latin1', headerStart, dataStart);
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shapeMatch = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shapeMatch) fail(`cannot parse header ${header.trim()}`);
  // numpy writes bool as '|b1'; accept '<b1' too.
  const key = descr[1] === '<b1' ? '|b1' : descr[1];
  const kind = NPY_TYPES[key];
  if (!kind) {
    fail(`dtype ${descr[1]} is not supported (float32, int64, int32 or bool, little-endian)`);
  }
  if (fortran[1] === 'True') fail('Fortran-order arrays are not supported');
  const shape = shapeMatch[1].split(',').map((s) => s.trim()).filter((s) => s.length)
    .map(Number);
  if (shape.some((d) => !Number.isInteger(d) || d < 0)) fail(`bad shape (${shapeMatch[1]})`);
  const count = shape.reduce((a, b) => a * b, 1);
  const byteLength = count * kind.size;
  if (bytes.length - dataStart < byteLength) {
    fail(`holds ${bytes.length - dataStart} data bytes, shape needs ${byteLength}`);
  }
  // Copy into a fresh, aligned buffer: the data need not start at a multiple of 8.
  const data = new kind.array(count);
  new Uint8Array(data.buffer).set(bytes.subarray(dataStart, dataStart + byteLength));
  if (kind.type === 'bool') {
    for (let i = 0; i < count; ++i) data[i] = data[i] ? 1 : 0;
  }
  return new ort.Tensor(kind.type, data, shape);
}

function inputMetadata(session, index) {
  const metadata = session.inputMetadata;
  return Array.isArray(metadata) ? metadata[index] : undefined;
}

function makeFeeds(session, args) {
  const feeds = {};
  const names = session.inputNames;
  if (args.inputs.length) {
    if (args.inputs.length !== names.length) {
      throw new Error(`the model has ${names.length} inputs (${names.join(', ')}), `
                      + `${args.inputs.length} --input given`);
    }
    names.forEach((name, index) => {
      const tensor = readNpy(args.inputs[index]);
      const meta = inputMetadata(session, index);
      if (meta && meta.isTensor) {
        if (meta.type && meta.type !== tensor.type) {
          throw new Error(`${args.inputs[index]}: ${tensor.type}, input ${name} wants ${meta.type}`);
        }
        const want = meta.shape || [];
        const fixed = want.every((d) => typeof d === 'number' && d >= 0);
        if (fixed && want.join(',') !== tensor.dims.join(',')) {
          throw new Error(`${args.inputs[index]}: shape [${tensor.dims}], `
                          + `input ${name} wants [${want}]`);
        }
      }
      feeds[name] = tensor;
    });
    return feeds;
  }
  // The exporter writes static shapes; compare.py passes them by name (older
  // bindings did not expose the input metadata), else the metadata gives them.
  const shapes = JSON.parse(process.env.DUET_BENCH_SHAPES || '{}');
  names.forEach((name, index) => {
    let shape = shapes[name];
    if (!shape) {
      const meta = inputMetadata(session, index);
      if (meta && meta.shape && meta.shape.every((d) => typeof d === 'number' && d >= 0)) {
        shape = meta.shape;
      }
    }
    if (!shape) throw new Error(`no shape for input ${name}: pass --input or DUET_BENCH_SHAPES`);
    const count = shape.reduce((a, b) => a * b, 1);
    feeds[name] = new ort.Tensor('float32', randomFloats(count, index), shape);
  });
  return feeds;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  const loadStart = performance.now();
  const session = await ort.InferenceSession.create(args.model, options);
  const loadMs = performance.now() - loadStart;
  const feeds = makeFeeds(session, args);
  const times = [];
  for (let i = 0; i < args.warmup + args.iterations; ++i) {
    const start = performance.now();
    await session.run(feeds);
    const ms = performance.now() - start;
    if (i >= args.warmup) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const n = times.length;
  const median = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  console.log(JSON.stringify({
    median_ms: median, min_ms: times[0], max_ms: times[n - 1], load_ms: loadMs,
    iterations: args.iterations, threads: args.threads,
  }));
}

if (require.main === module) {
  main().catch((error) => {
    console.error(`error: ${error.message}`);
    process.exit(1);
  });
}
module.exports = { readNpy };
