# shellcheck shell=bash
# Sourced by scripts/*: puts the project's tools on PATH and points the browser
# test tooling at the system chromium/chromedriver. Exports nothing else.
# Safe to source more than once.

SCHEDLAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SCHEDLAB_ROOT

# Pinned tool versions (wasm-bindgen-cli is read from Cargo.lock instead).
export SCHEDLAB_TRUNK_VERSION=0.21.14      # 0.22.x needs a newer rustc than 1.95
export SCHEDLAB_WASM_PACK_VERSION=0.13.1   # only used with --mode no-install
export SCHEDLAB_BINARYEN_VERSION=132       # npm `binaryen`; never Debian's binaryen 108

_cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
_tools_bin="$SCHEDLAB_ROOT/.tools/node_modules/.bin"
# wasm-opt from .tools must come first (a system wasm-opt may be too old).
case ":$PATH:" in *":$_cargo_bin:"*) ;; *) PATH="$_cargo_bin:$PATH" ;; esac
PATH="$_tools_bin:${PATH#"$_tools_bin:"}"
export PATH
unset _cargo_bin _tools_bin

# Browser tests: system chromium + chromedriver (Debian packages).
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export SCHEDLAB_CHROME="${SCHEDLAB_CHROME:-/usr/bin/chromium}"
# wasm-bindgen-test-runner: extra chrome args (headless flags for this machine).
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="${WASM_BINDGEN_TEST_WEBDRIVER_JSON:-$SCHEDLAB_ROOT/webdriver.json}"
# Generous timeouts: 2 cores, debug wasm, cold chromium start.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-300}"
export WASM_BINDGEN_TEST_DRIVER_TIMEOUT="${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-30}"
# Test binaries that forgot wasm_bindgen_test_configure!(run_in_browser) run in
# the browser too, instead of being skipped as "node-only" by wasm-pack --chrome.
export WASM_BINDGEN_USE_BROWSER="${WASM_BINDGEN_USE_BROWSER:-1}"
