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
const machines = [[64, 1024, 400], [256, 8192, 100]];
for (const [cpus, tasks, ms] of machines) {
  for (const full of [true, false]) {
    let best = Infinity, r = [0, 0];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      r = wasm.run_machine(cpus, tasks, ms, full);
      best = Math.min(best, (performance.now() - t) / 1000);
    }
    console.log(`wasm   cpus=${String(cpus).padEnd(4)} tasks=${String(tasks).padEnd(5)} log=${String(full).padEnd(5)} events=${String(r[0]).padEnd(8)} switches=${String(r[1]).padEnd(8)} best ${best.toFixed(3)} s  ${(r[0] / best / 1e6).toFixed(2)} M events/s  ${(r[1] / best / 1e3).toFixed(0)} k switches/s`);
  }
}
