// Latency of an ONNX model on ONNX Runtime's CPU provider (npm
// onnxruntime-node), measured as `duet bench` measures a program: the session
// creation (file read to ready-to-run), then warm-up runs and timed runs on
// seeded random inputs. Prints one JSON object like `duet bench --json`.
//
// Usage: node bench/ort_bench.js model.onnx --threads N [--iterations N] [--warmup N]
// NODE_PATH must reach onnxruntime-node (compare.py sets it to bench/ort).
'use strict';
const ort = require('onnxruntime-node');
const { performance } = require('perf_hooks');

function parseArgs(argv) {
  const args = { model: null, threads: 1, iterations: 100, warmup: 10 };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    if (flag === '--threads') args.threads = Number(argv[++i]);
    else if (flag === '--iterations') args.iterations = Number(argv[++i]);
    else if (flag === '--warmup') args.warmup = Number(argv[++i]);
    else if (!args.model) args.model = flag;
    else throw new Error(`unexpected argument ${flag}`);
  }
  if (!args.model) throw new Error('usage: ort_bench.js model.onnx --threads N');
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
  // The exporter writes static shapes; the input metadata is not exposed by
  // every version of the binding, so compare.py passes shapes by name.
  const shapes = JSON.parse(process.env.DUET_BENCH_SHAPES || '{}');
  const feeds = {};
  session.inputNames.forEach((name, index) => {
    const shape = shapes[name];
    if (!shape) throw new Error(`no shape for input ${name} in DUET_BENCH_SHAPES`);
    const count = shape.reduce((a, b) => a * b, 1);
    feeds[name] = new ort.Tensor('float32', randomFloats(count, index), shape);
  });
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

main().catch((error) => {
  console.error(`error: ${error.message}`);
  process.exit(1);
});
