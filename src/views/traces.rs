//! Traces in and out of the page: "open in Perfetto" and a download of a
//! run as ftrace text (engine `lab::perfetto`), and a trace dropped or
//! chosen to replay (engine `lab::import`, run in the study worker).
//!
//! Perfetto UI is opened in a new window and sent the trace with its
//! postMessage protocol: PING every 50 ms until the UI answers PONG (its
//! listener is up), then `{perfetto: {buffer, title, fileName}}`.

use gloo::events::EventListener;
use gloo::timers::callback::Interval;
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use crate::state::{use_ctx, Ctx, Keep};

const PERFETTO: &str = "https://ui.perfetto.dev";

/// Asks a worker for the trace of `ctx`'s whole run (the writer is not in
/// the page's .wasm); `done` gets it and a file name. Problems go to the
/// notices.
fn trace_of(ctx: Ctx, label: &str, done: impl FnOnce(String, String) + 'static) {
    use crate::worker::{ask, Reply, Request};
    let say = move |m: String| ctx.ui.notice.update(|n| n.push(m));
    let Some((text, ov)) = ctx.with_lab(|l| (l.text.clone(), l.overrides.clone())) else {
        return say("no run".into());
    };
    let req = Request::Export { text, kernel: ov.kernel, patches: ov.patches, features: ov.features, seed: ov.seed, duration: ov.duration };
    let t0 = crate::perf::now();
    let label = label.to_string();
    ask(
        &req,
        Box::new(move |reply| match reply {
            Ok(Reply::Trace { trace }) => {
                let ms = crate::perf::now() - t0;
                say(format!("Trace of the {label} run: {} lines, {:.0} ms.", trace.lines().count(), ms));
                done(trace, format!("schedlab-{label}.trace.txt"));
            }
            Ok(Reply::Failed { message, .. }) => say(message),
            Ok(other) => say(format!("trace: unexpected answer from the worker: {other:?}")),
            Err(e) => say(format!("trace: {e}")),
        }),
    );
}

/// What an "open in Perfetto" waits for: the UI's PONG and the trace,
/// which come in either order.
#[derive(Default)]
struct Handoff {
    ui: Option<web_sys::Window>,
    pong: bool,
    trace: Option<(String, String)>,
    ping: Option<Interval>,
    listener: Option<EventListener>,
}

impl Handoff {
    /// Posts the trace once both are there, and stops pinging and listening.
    fn post_if_ready(&mut self) {
        if !self.pong || self.ui.is_none() || self.trace.is_none() {
            return;
        }
        let (Some(ui), Some((trace, name))) = (self.ui.take(), self.trace.take()) else { return };
        self.ping = None;
        self.listener = None;
        let buf = js_sys::Uint8Array::from(trace.as_bytes()).buffer();
        let inner = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&inner, &"buffer".into(), &buf);
        let _ = js_sys::Reflect::set(&inner, &"title".into(), &JsValue::from_str(&name));
        let _ = js_sys::Reflect::set(&inner, &"fileName".into(), &JsValue::from_str(&name));
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"perfetto".into(), &inner);
        let _ = ui.post_message(&msg, PERFETTO);
    }
}

/// Opens Perfetto UI at once (a pop-up must open within the click) and
/// hands it `ctx`'s trace when both the UI and the trace are ready.
fn open_in_perfetto(ctx: Ctx, label: &str) -> Result<(), String> {
    use std::cell::RefCell;
    use std::rc::Rc;
    let w = web_sys::window().ok_or("no window")?;
    let ui = w.open_with_url_and_target(PERFETTO, "_blank").ok().flatten().ok_or("the browser blocked the Perfetto window (allow pop-ups, or use the download)")?;
    let handoff: Rc<RefCell<Handoff>> = Rc::new(RefCell::new(Handoff { ui: Some(ui.clone()), ..Default::default() }));
    let ping = Interval::new(50, move || {
        let _ = ui.post_message(&JsValue::from_str("PING"), PERFETTO);
    });
    let h = handoff.clone();
    let listener = EventListener::new(&w, "message", move |ev| {
        let Some(ev) = ev.dyn_ref::<web_sys::MessageEvent>() else { return };
        if ev.data().as_string().as_deref() == Some("PONG") {
            let mut h = h.borrow_mut();
            h.pong = true;
            h.ping = None;
            h.post_if_ready();
        }
    });
    {
        let mut h = handoff.borrow_mut();
        h.ping = Some(ping);
        h.listener = Some(listener);
    }
    // The listener's closure and the worker's reply hold the only other
    // references; the cycle through the listener keeps the hand-off alive
    // until it posts (a window closed before answering leaks one).
    trace_of(ctx, label, move |trace, name| {
        let mut h = handoff.borrow_mut();
        h.trace = Some((trace, name));
        h.post_if_ready();
    });
    Ok(())
}

/// Saves `text` as a file through an object URL.
fn download(text: &str, name: &str) -> Result<(), String> {
    let blob = gloo::file::Blob::new_with_options(text, Some("text/plain"));
    let url = gloo::file::ObjectUrl::from(blob);
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a = doc.create_element("a").map_err(|_| "no anchor")?;
    let _ = a.set_attribute("href", &url);
    let _ = a.set_attribute("download", name);
    a.dyn_ref::<web_sys::HtmlElement>().ok_or("no anchor")?.click();
    Ok(())
}

/// "open in Perfetto" and "download trace" for the run of `ctx`.
#[component]
pub fn TraceButtons(ctx: Ctx, #[prop(into)] label: String) -> impl IntoView {
    let say = move |r: Result<(), String>| {
        if let Err(e) = r {
            ctx.ui.notice.update(|n| n.push(e));
        }
    };
    let l1 = label.clone();
    let l2 = label.clone();
    view! {
        <span class="trace-buttons">
            <button data-testid=format!("btn-perfetto-{label}") title="open this run in Perfetto UI (CPU tracks, wake-ups, V, lag, nr_running, util_avg)"
                on:click=move |_| say(open_in_perfetto(ctx, &l1))>"open in Perfetto"</button>
            <button data-testid=format!("btn-trace-{label}") title="download this run as ftrace text (Perfetto, trace-cmd users, schedlab import)"
                on:click=move |_| trace_of(ctx, &l2, move |t, n| say(download(&t, &n)))>"download trace"</button>
        </span>
    }
}

/// Replays a trace file in the lecture view: a worker imports it (the
/// importer lives in the worker's .wasm, and a large trace does not block
/// the page), then the scenario goes into the editor and runs.
fn replay(ctx: Ctx, name: &str, text: String) {
    use crate::worker::{ask, Reply, Request};
    let say = move |m: String| ctx.ui.notice.update(|n| n.push(m));
    say(format!("importing {name}…"));
    let req = Request::Import { name: name.to_string(), text };
    let name = name.to_string();
    ask(
        &req,
        Box::new(move |reply| match reply {
            Ok(Reply::Imported { scenario }) => {
                ctx.ui.editor.set(scenario.clone());
                if ctx.load(&scenario, Default::default(), Keep::Start).is_ok() {
                    say(format!("{name} imported: its threads replay as tasks (see the editor)."));
                }
            }
            Ok(Reply::Failed { message, .. }) => say(message),
            Ok(other) => say(format!("{name}: unexpected answer from the worker: {other:?}")),
            Err(e) => say(format!("{name}: {e}")),
        }),
    );
}

fn read_file(ctx: Ctx, f: web_sys::File) {
    let name = f.name();
    let file = gloo::file::File::from(f);
    let reader = gloo::file::callbacks::read_as_text(&file, move |r| match r {
        Ok(text) => replay(ctx, &name, text),
        Err(e) => ctx.ui.notice.update(|n| n.push(format!("{name}: {e}"))),
    });
    std::mem::forget(reader);
}

/// The lecture page's trace panel: export the run, or drop a trace
/// (`perf sched script`, `trace-cmd report`, rt-app JSON) to replay it.
#[component]
pub fn TracePanel() -> impl IntoView {
    let ctx = use_ctx();
    let over = RwSignal::new(false);
    view! {
        <section class="panel trace-panel" data-testid="trace-panel"
            class:drop-over=move || over.get()
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); over.set(true); }
            on:dragleave=move |_| over.set(false)
            on:drop=move |ev: web_sys::DragEvent| {
                ev.prevent_default();
                over.set(false);
                if let Some(f) = ev.data_transfer().and_then(|d| d.files()).and_then(|l| l.get(0)) {
                    read_file(ctx, f);
                }
            }>
            <h2>"Traces"</h2>
            <TraceButtons ctx=ctx label="lecture" />
            <label class="trace-drop">
                "drop a trace here, or choose one: "
                <input type="file" data-testid="trace-file" accept=".txt,.json,.trace,text/plain,application/json"
                    on:change=move |ev| {
                        let f = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).and_then(|i| i.files()).and_then(|l| l.get(0));
                        if let Some(f) = f {
                            read_file(ctx, f);
                        }
                    } />
            </label>
            <p class="muted">"perf sched script or trace-cmd report text, or rt-app JSON: each thread becomes a task replaying its observed bursts and sleeps."</p>
        </section>
    }
}
