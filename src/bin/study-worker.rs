//! The study worker: trunk builds this binary as a web worker
//! (`data-type="worker"` in index.html); the study page starts it and
//! sends it runs (protocol and logic in `schedlab_app::worker`), so long
//! studies never block the page.

#[cfg(target_arch = "wasm32")]
fn main() {
    use std::cell::RefCell;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let study = RefCell::new(None);
    let out = scope.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        let msg = ev.data().as_string().unwrap_or_default();
        let reply = schedlab_app::worker::handle(&mut study.borrow_mut(), &msg);
        let _ = out.post_message(&JsValue::from_str(&reply));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    // Messages that arrived while the wasm loaded had no handler and are
    // gone: the page waits for this before it sends any.
    let ready = schedlab_app::worker::encode(&schedlab_app::worker::Reply::Ready);
    let _ = scope.post_message(&JsValue::from_str(&ready));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("study-worker runs in the browser as a web worker (trunk builds it; see index.html)");
}
