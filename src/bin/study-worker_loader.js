// The study worker's entry (src/bin/study-worker.rs, built by trunk as a
// no-modules worker): load its bindings, then its wasm. Trunk's own loader
// shim (data-loader-shim, trunk 0.21.14) passes the wasm's path as a bare
// string, which wasm-bindgen 0.2.130 still accepts but answers with a
// console warning at every worker start; the object form is its current API.
importScripts("./study-worker.js");
wasm_bindgen({ module_or_path: "./study-worker_bg.wasm" });
