//! Timing hooks for measurement: `performance.now()`, and named durations
//! appended to `window.__schedlabPerf[name]` (arrays of milliseconds) when
//! a test or a curious user created that object (`window.__schedlabPerf =
//! {}` in the console); otherwise recording costs one property lookup.

use wasm_bindgen::{JsCast, JsValue};

/// `performance.now()` in ms (0 where there is no window).
pub fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Appends `ms` to `window.__schedlabPerf[name]`, if that object exists.
pub fn record(name: &str, ms: f64) {
    let Some(w) = web_sys::window() else { return };
    let Ok(obj) = js_sys::Reflect::get(&w, &JsValue::from_str("__schedlabPerf")) else {
        return;
    };
    if !obj.is_object() {
        return;
    }
    let key = JsValue::from_str(name);
    let arr = match js_sys::Reflect::get(&obj, &key)
        .ok()
        .and_then(|a| a.dyn_into::<js_sys::Array>().ok())
    {
        Some(a) => a,
        None => {
            let a = js_sys::Array::new();
            let _ = js_sys::Reflect::set(&obj, &key, &a);
            a
        }
    };
    if arr.length() < 100_000 {
        arr.push(&JsValue::from_f64(ms));
    }
}
