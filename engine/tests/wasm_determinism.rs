//! wasm half of the determinism check: run in headless Chromium by
//! `wasm-pack test --headless --chrome engine` (see scripts/test). The same
//! scenarios must give the same event-log hashes as on the host.

#![cfg(target_arch = "wasm32")]

mod common;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn wasm_hashes_equal_host_hashes() {
    assert_eq!(common::hashes(), common::golden());
}

#[wasm_bindgen_test]
fn wasm_schedules_equal_host_schedules() {
    assert_eq!(common::schedules(), common::schedules_golden());
}

#[wasm_bindgen_test]
fn wasm_study_table_equals_host_table() {
    assert_eq!(common::study_table(), common::STUDY_GOLDEN);
}
