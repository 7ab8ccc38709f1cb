// Runs the throughput example compiled to wasm (wasm-bindgen --target nodejs)
// over the same cases as the native harness, printing the same lines.
// Usage: node scripts/wasm-bench.mjs target/wasm-bench/throughput.js [FILTER]
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import path from "node:path";

const require = createRequire(import.meta.url);
const wasm = require(path.resolve(process.argv[2]));
const filter = process.argv[3] || "";
for (let i = 0; i < wasm.case_count(); i++) {
  if (!wasm.case_label(i).includes(filter)) continue;
  let best = Infinity, r = null;
  for (let k = 0; k < wasm.case_reps(i); k++) {
    const t = performance.now();
    r = wasm.run_case(i);
    best = Math.min(best, (performance.now() - t) / 1000);
  }
  console.log(wasm.report("wasm", i, r, best));
}
