//! Browser tests of the app: mount components into a fresh element of the
//! wasm-bindgen-test page (headless Chromium) and look at the DOM they render.
//! Run by scripts/test (`wasm-pack test --headless --chrome --mode no-install .`).
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use schedlab_app::App;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh, empty element appended to <body>, to mount one component into.
fn fresh_root() -> web_sys::HtmlElement {
    let doc = document();
    let div = doc.create_element("div").expect("create_element");
    doc.body()
        .expect("body")
        .append_child(&div)
        .expect("append_child");
    div.unchecked_into()
}

fn by_testid(root: &web_sys::Element, id: &str) -> Option<web_sys::Element> {
    root.query_selector(&format!("[data-testid=\"{id}\"]"))
        .expect("valid selector")
}

#[wasm_bindgen_test]
async fn app_mounts_with_root_title_and_note() {
    let root = fresh_root();
    let handle = leptos::mount::mount_to(root.clone(), App);
    leptos::task::tick().await;

    let app = by_testid(&root, "app").expect("element with data-testid=app");
    assert_eq!(app.parent_element().as_ref(), Some(root.as_ref()));

    let title = by_testid(&app, "title").expect("element with data-testid=title");
    assert_eq!(title.tag_name(), "H1");
    assert_eq!(title.text_content().unwrap_or_default().trim(), "schedlab");

    let note = by_testid(&app, "note").expect("element with data-testid=note");
    assert!(
        !note.text_content().unwrap_or_default().trim().is_empty(),
        "the note must say something"
    );

    drop(handle);
    leptos::task::tick().await;
    assert!(
        by_testid(&root, "app").is_none(),
        "unmounting removes the view"
    );
}

#[wasm_bindgen_test]
async fn two_apps_mount_independently() {
    let a = fresh_root();
    let b = fresh_root();
    let _ha = leptos::mount::mount_to(a.clone(), App);
    let _hb = leptos::mount::mount_to(b.clone(), App);
    leptos::task::tick().await;
    assert!(by_testid(&a, "title").is_some());
    assert!(by_testid(&b, "title").is_some());
}
