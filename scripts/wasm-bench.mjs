// Runs the throughput example compiled to wasm (wasm-bindgen --target nodejs)
// and prints events per second in the same format as the native harness.
// Usage: node scripts/wasm-bench.mjs target/wasm-bench/throughput.js
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import path from "node:path";

const require = createRequire(import.meta.url);
const wasm = require(path.resolve(process.argv[2]));
const runs = [[2, 27000], [16, 27000], [256, 27000], [4096, 27000]];
for (const [tasks, ms] of runs) {
  for (const full of [true, false]) {
    let best = Infinity, events = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      events = wasm.run_scenario(tasks, ms, full);
      best = Math.min(best, (performance.now() - t) / 1000);
    }
    console.log(`wasm   tasks=${String(tasks).padEnd(5)} log=${String(full).padEnd(5)} events=${String(events).padEnd(8)} best ${best.toFixed(3)} s  ${(events / best / 1e6).toFixed(2)} M events/s`);
  }
}
