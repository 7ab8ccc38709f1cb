//! Browser tests of the app: mount components into a fresh element of the
//! wasm-bindgen-test page (headless Chromium) and look at the DOM they render.
//! Run by scripts/test (`wasm-pack test --headless --chrome --mode no-install .`).
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;

use leptos::prelude::*;
use schedlab_app::fragment;
use schedlab_app::presets;
use schedlab_app::state::{use_ctx, Ctx, Jump};
use schedlab_app::views::*;
use schedlab_app::{App, LabProvider};
use schedlab_engine::lab::player::Direction;
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

fn all_testid(root: &web_sys::Element, id: &str) -> Vec<web_sys::Element> {
    let list = root
        .query_selector_all(&format!("[data-testid=\"{id}\"]"))
        .expect("valid selector");
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into().ok())
        .collect()
}

fn text(el: &web_sys::Element) -> String {
    el.text_content().unwrap_or_default()
}

fn attr(el: &web_sys::Element, name: &str) -> String {
    el.get_attribute(name).unwrap_or_default()
}

async fn next_frame() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .request_animation_frame(&resolve)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

async fn settle() {
    leptos::task::tick().await;
    next_frame().await;
    next_frame().await;
    leptos::task::tick().await;
}

thread_local! {
    static GRABBED: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// Hands the context to the test.
#[component]
fn Grab() -> impl IntoView {
    let c = use_ctx();
    GRABBED.with(|g| *g.borrow_mut() = Some(c));
}

fn grabbed() -> Ctx {
    GRABBED
        .with(|g| g.borrow_mut().take())
        .expect("Grab was mounted")
}

const THREE: &str = r#"
[sim]
duration = "30ms"
hz = 1000
[topology]
preset = "1cpu"
[[task]]
name = "A"
program = "run"
[[task]]
name = "B"
program = "run"
[[task]]
name = "C"
program = "run"
"#;

/// Many tasks on one CPU, arriving over time and sleeping: a tree with red
/// nodes and rotations.
const MANY: &str = r#"
[sim]
duration = "60ms"
hz = 1000
[topology]
preset = "1cpu"
[[task]]
name = "hog"
count = 9
program = "run"
[[task]]
name = "s"
count = 6
program = "loop { run exp(300us); sleep exp(1ms) }"
"#;

#[wasm_bindgen_test]
async fn app_mounts_with_title_and_explainer() {
    let root = fresh_root();
    let handle = leptos::mount::mount_to(root.clone(), App);
    settle().await;
    let app = by_testid(&root, "app").expect("element with data-testid=app");
    assert_eq!(app.parent_element().as_ref(), Some(root.as_ref()));
    let title = by_testid(&app, "title").expect("title");
    assert_eq!(title.tag_name(), "H1");
    assert_eq!(text(&title).trim(), "schedlab");
    let head = by_testid(&app, "explain-headline").expect("explainer");
    assert!(!text(&head).trim().is_empty());
    // The default scenario is the "three equal tasks" preset.
    let preset = by_testid(&app, "preset")
        .unwrap()
        .dyn_into::<web_sys::HtmlSelectElement>()
        .unwrap();
    assert_eq!(preset.value(), presets::DEFAULT_ID);
    for id in [
        "tree",
        "elig",
        "lag",
        "timeline",
        "topology",
        "controls",
        "editor",
        "features-panel",
    ] {
        assert!(by_testid(&app, id).is_some(), "no {id}");
    }
    drop(handle);
    leptos::task::tick().await;
    assert!(
        by_testid(&root, "app").is_none(),
        "unmounting removes the view"
    );
}

#[wasm_bindgen_test]
async fn tree_has_one_node_per_queued_entity_but_curr() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(
        root.clone(),
        || view! { <LabProvider scenario=THREE><Grab /><TreeView /></LabProvider> },
    );
    settle().await;
    let ctx = grabbed();
    for _ in 0..12 {
        ctx.step();
        settle().await;
        let (queued, curr_queued, tree_len) = ctx.ui.frame.with_untracked(|f| {
            (
                f.view.nr_queued as usize,
                f.view.entities.iter().any(|e| e.curr) as usize,
                f.view.tree.len(),
            )
        });
        let nodes = all_testid(&root, "tree-node");
        assert_eq!(
            nodes.len(),
            queued - curr_queued,
            "nodes = queued minus curr"
        );
        assert_eq!(nodes.len(), tree_len);
        let svg = by_testid(&root, "tree").unwrap();
        assert_eq!(attr(&svg, "data-nodes"), tree_len.to_string());
        // The running task is drawn apart, once the CPU runs something.
        if curr_queued == 1 {
            assert!(by_testid(&root, "tree-curr").is_some());
        }
    }
    // With three tasks queued and one running, the leftmost is marked.
    assert!(by_testid(&root, "tree-leftmost").is_some());
}

#[wasm_bindgen_test]
async fn red_nodes_never_have_red_children() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(
        root.clone(),
        || view! { <LabProvider scenario=MANY><Grab /><TreeView /></LabProvider> },
    );
    settle().await;
    let ctx = grabbed();
    let mut reds_seen = 0;
    let mut checked = 0;
    for _ in 0..60 {
        for _ in 0..5 {
            ctx.step();
        }
        settle().await;
        let nodes = all_testid(&root, "tree-node");
        let red: std::collections::HashMap<String, bool> = nodes
            .iter()
            .map(|n| (attr(n, "data-entity"), attr(n, "data-red") == "true"))
            .collect();
        for n in &nodes {
            let parent = attr(n, "data-parent");
            if attr(n, "data-red") == "true" {
                reds_seen += 1;
                if !parent.is_empty() {
                    assert_ne!(
                        red.get(&parent),
                        Some(&true),
                        "red node {} has a red parent {parent}",
                        attr(n, "data-entity")
                    );
                }
            } else if parent.is_empty() {
                // fine: a black root
            }
            if parent.is_empty() {
                assert_eq!(attr(n, "data-red"), "false", "the root is black");
            }
        }
        checked += nodes.len();
    }
    assert!(
        reds_seen > 0,
        "no red node was ever drawn ({checked} nodes checked)"
    );
}

#[wasm_bindgen_test]
async fn v_line_lies_between_min_and_max_vruntime() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(
        root.clone(),
        || view! { <LabProvider scenario=MANY><Grab /><EligibilityView /></LabProvider> },
    );
    settle().await;
    let ctx = grabbed();
    let mut checked = 0;
    for _ in 0..30 {
        for _ in 0..7 {
            ctx.step();
        }
        settle().await;
        let bars = all_testid(&root, "elig-bar");
        if bars.is_empty() {
            continue;
        }
        let xs: Vec<f64> = bars
            .iter()
            .map(|b| attr(b, "data-x0").parse().unwrap())
            .collect();
        let v: f64 = attr(&by_testid(&root, "v-line").unwrap(), "data-x")
            .parse()
            .unwrap();
        let (lo, hi) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        assert!(
            lo - 0.01 <= v && v <= hi + 0.01,
            "V at {v} outside [{lo}, {hi}]"
        );
        // Eligible bars start left of V, the others right of it.
        for (b, x) in bars.iter().zip(&xs) {
            if attr(b, "data-eligible") == "true" {
                assert!(*x <= v + 0.01, "eligible bar at {x} right of V {v}");
            } else {
                assert!(*x >= v - 0.01, "ineligible bar at {x} left of V {v}");
            }
        }
        checked += 1;
    }
    assert!(checked > 20);
}

#[wasm_bindgen_test]
async fn explainer_names_the_picked_task() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(
        root.clone(),
        || view! { <LabProvider scenario=THREE><Grab /><Explainer /></LabProvider> },
    );
    settle().await;
    let ctx = grabbed();
    ctx.ui.jump.set(Jump::Pick);
    for _ in 0..5 {
        ctx.jump(Direction::Forward);
        settle().await;
        let (event, pick) = ctx
            .ui
            .frame
            .with_untracked(|f| (f.event, f.pick.clone().expect("a pick")));
        assert_eq!(pick.event, event, "jumped to a pick");
        let name = ctx
            .ui
            .setup
            .with_untracked(|s| s.name(pick.task.unwrap()).to_string());
        let panel = by_testid(&root, "explainer").unwrap();
        let all = text(&panel);
        assert!(
            all.contains(&format!("pick_eevdf() on CPU 0 chose {name}")),
            "{all}"
        );
        assert!(!all.contains("18446744"), "raw vruntimes: {all}");
    }
}

#[wasm_bindgen_test]
async fn bad_scenario_shows_the_error_and_keeps_the_old_run() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(root.clone(), || {
        view! { <LabProvider scenario=THREE><Grab /><ScenarioPanel /><Controls /></LabProvider> }
    });
    settle().await;
    let ctx = grabbed();
    ctx.step();
    ctx.step();
    settle().await;
    let before = ctx.ui.frame.with_untracked(|f| (f.gen, f.event));
    let area = by_testid(&root, "editor")
        .unwrap()
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .unwrap();
    let bad = THREE.replace("hz = 1000", "hz = 1000\nseed = \"x\"");
    area.set_value(&bad);
    area.dispatch_event(&web_sys::Event::new("input").unwrap())
        .unwrap();
    by_testid(&root, "btn-run")
        .unwrap()
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    settle().await;
    let want = bad.lines().position(|l| l.starts_with("seed")).unwrap() + 1;
    let err = by_testid(&root, "scenario-error").expect("the error is shown");
    assert_eq!(attr(&err, "data-line"), want.to_string(), "{}", text(&err));
    assert!(
        text(&err).contains(&format!("line {want}, column")),
        "{}",
        text(&err)
    );
    assert!(text(&err).contains("seed"), "{}", text(&err));
    let band = by_testid(&root, "error-band").expect("the line is highlighted");
    assert_eq!(attr(&band, "data-line"), want.to_string());
    // The old run is untouched and still steps.
    assert_eq!(ctx.ui.frame.with_untracked(|f| (f.gen, f.event)), before);
    ctx.step();
    settle().await;
    assert_eq!(ctx.ui.frame.with_untracked(|f| f.event), before.1 + 1);
    // Fixing it runs the new scenario and clears the error.
    area.set_value(&THREE.replace("30ms", "40ms"));
    area.dispatch_event(&web_sys::Event::new("input").unwrap())
        .unwrap();
    by_testid(&root, "btn-run")
        .unwrap()
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    settle().await;
    assert!(by_testid(&root, "scenario-error").is_none());
    assert_eq!(ctx.ui.frame.with_untracked(|f| f.gen), before.0 + 1);
}

#[wasm_bindgen_test]
async fn stepping_changes_the_current_event() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(
        root.clone(),
        || view! { <LabProvider scenario=THREE><Grab /><Controls /><Explainer /></LabProvider> },
    );
    settle().await;
    let ctx = grabbed();
    let label = by_testid(&root, "event-label").unwrap();
    assert!(text(&label).starts_with("event 0 /"), "{}", text(&label));
    let step = by_testid(&root, "btn-step")
        .unwrap()
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap();
    let mut heads = Vec::new();
    for i in 1..=5u64 {
        step.click();
        settle().await;
        assert!(
            text(&label).starts_with(&format!("event {i} /")),
            "{}",
            text(&label)
        );
        assert_eq!(ctx.ui.frame.with_untracked(|f| f.event), i);
        heads.push(text(&by_testid(&root, "explain-headline").unwrap()));
    }
    heads.dedup();
    assert!(
        heads.len() > 1,
        "the explainer follows the event: {heads:?}"
    );
    by_testid(&root, "btn-back")
        .unwrap()
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    settle().await;
    assert_eq!(ctx.ui.frame.with_untracked(|f| f.event), 4);
    by_testid(&root, "btn-rewind")
        .unwrap()
        .dyn_into::<web_sys::HtmlElement>()
        .unwrap()
        .click();
    settle().await;
    assert_eq!(ctx.ui.frame.with_untracked(|f| f.event), 0);
    // The keyboard steps too.
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("ArrowRight");
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    web_sys::window().unwrap().dispatch_event(&ev).unwrap();
    settle().await;
    assert_eq!(ctx.ui.frame.with_untracked(|f| f.event), 1);
}

/// The lecture view keeps a window of the newest records: stepping back
/// before it shows the exact state and says the explanation is gone; a
/// compare pane keeps every record (its first divergence needs them).
#[wasm_bindgen_test]
async fn the_lecture_view_keeps_a_window_and_says_what_it_dropped() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(
        root.clone(),
        || view! { <LabProvider scenario=MANY><Grab /><Controls /></LabProvider> },
    );
    settle().await;
    let ctx = grabbed();
    ctx.try_with(|l| {
        // MANY writes ~640 records in ~290 events: keep at most 200.
        l.player.set_window(200);
        while l.player.compute(1 << 14) > 0 {}
    });
    let (k0, _) = ctx.with_lab(|l| l.player.kept_from()).unwrap();
    assert!(k0 > 50, "the window dropped records: {k0}");
    assert!(ctx.with_lab(|l| l.player.log().records.len()).unwrap() <= 200);
    ctx.seek(5);
    settle().await;
    assert!(text(&by_testid(&root, "event-label").unwrap()).starts_with("event 5 /"));
    let note = text(&by_testid(&root, "progress").unwrap());
    assert!(note.contains(&format!("records before event {k0}")) && note.contains("exact"), "{note}");
    ctx.seek(k0 + 1);
    settle().await;
    let note = text(&by_testid(&root, "progress").unwrap());
    assert!(!note.contains("dropped"), "{note}");
    let pane = Ctx::new_pane(MANY, Default::default()).unwrap();
    pane.try_with(|l| while l.player.compute(1 << 14) > 0 {});
    assert_eq!(pane.with_lab(|l| l.player.kept_from()), Some((0, 0)));
}

#[wasm_bindgen_test]
async fn url_fragment_round_trips() {
    // What the page writes, it reads back.
    let root = fresh_root();
    let _h = leptos::mount::mount_to(
        root.clone(),
        || view! { <LabProvider scenario=MANY><Grab /></LabProvider> },
    );
    settle().await;
    let ctx = grabbed();
    ctx.toggle_feature("PLACE_LAG", false);
    ctx.seek(37);
    ctx.ui.big.set(true);
    ctx.ui.window.set(Some((1e6, 5e6)));
    settle().await;
    let link = schedlab_app::current_link(ctx);
    assert_eq!(link.event, Some(37));
    assert_eq!(link.features, vec![("PLACE_LAG".to_string(), false)]);
    let frag = fragment::encode(&link);
    let (back, problems) = fragment::decode(&frag);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(back, link);

    // Opening the page with that fragment restores the view.
    let w = web_sys::window().unwrap();
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("#{frag}")))
        .unwrap();
    let root2 = fresh_root();
    let _h2 = leptos::mount::mount_to(root2.clone(), App);
    settle().await;
    let app = by_testid(&root2, "app").unwrap();
    assert!(app.class_list().contains("big"), "large fonts restored");
    assert!(text(&by_testid(&app, "event-label").unwrap()).starts_with("event 37 /"));
    let editor = by_testid(&app, "editor")
        .unwrap()
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .unwrap();
    assert_eq!(editor.value(), MANY);
    let flag = by_testid(&app, "feature-PLACE_LAG").unwrap();
    assert!(flag.class_list().contains("overridden"));
    let cb = flag
        .query_selector("input")
        .unwrap()
        .unwrap()
        .dyn_into::<web_sys::HtmlInputElement>()
        .unwrap();
    assert!(!cb.checked());
    // Give the page time to write the fragment back: unchanged.
    sleep(400).await;
    let again = w.location().hash().unwrap();
    assert_eq!(fragment::decode(&again).0, link);
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#"))
        .unwrap();
}

/// A pipe across two CPUs: the writer on CPU 0 sends into a channel the
/// reader on CPU 1 drains four messages at a time, so most sends wake
/// nobody, and such an event names no CPU (the last one that did is the
/// reader's, on CPU 1).
const PIPE: &str = r#"
[sim]
duration = "20ms"
[topology]
preset = "2cpu-vm"
[[task]]
name = "w"
affinity = "0"
program = "loop { send c 1; run 200us }"
[[task]]
name = "r"
affinity = "1"
program = "loop { recv c 4; run 1ms }"
"#;

/// The CPU the views follow when none is chosen is carried by a link
/// (issue 13: "links carry the whole view (followed CPU, …)"): at an
/// event that names no CPU the views stay on the CPU of the last one
/// that did, and a link to that event reopens on that CPU.
#[wasm_bindgen_test]
async fn a_link_reopens_on_the_followed_cpu() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(root.clone(), || view! { <LabProvider scenario=PIPE><Grab /></LabProvider> });
    settle().await;
    let ctx = grabbed();
    // Step to an event that names no CPU, shown on CPU 1.
    let mut found = None;
    for _ in 0..2000 {
        ctx.step();
        let (k, cpu) = ctx.ui.frame.with_untracked(|f| (f.event, f.cpu));
        if cpu == 1 && ctx.with_lab(|l| l.player.event_cpu(k)).flatten().is_none() {
            found = Some(k);
            break;
        }
    }
    let k = found.expect("a send that names no CPU, after an event on CPU 1");
    let link = schedlab_app::current_link(ctx);
    assert_eq!((link.event, link.cpu), (Some(k), None), "the link is of that event, with no CPU chosen");
    let w = web_sys::window().unwrap();
    w.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("#{}", fragment::encode(&link)))).unwrap();
    let root2 = fresh_root();
    let _h2 = leptos::mount::mount_to(root2.clone(), App);
    settle().await;
    let head = text(&by_testid(&root2, "tree-panel").unwrap().query_selector("h2").unwrap().unwrap());
    assert!(text(&by_testid(&root2, "event-label").unwrap()).starts_with(&format!("event {k} /")));
    assert!(head.contains("CPU 1 ("), "event {k}: the reopened page shows another CPU: {head}");
    w.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#")).unwrap();
}

/// A link carries the group queue the tree shows (issue 13: links carry
/// the whole view): on reweight-lag, a link to a group's queue on CPU 0
/// reopens it; one whose second group is not inside the first gets a
/// notice, and the deepest queue that exists is shown.
#[wasm_bindgen_test]
async fn a_link_reopens_the_group_queue_shown() {
    let scenario = presets::by_id("reweight-lag").unwrap().text;
    let root = fresh_root();
    let _h = leptos::mount::mount_to(root.clone(), move || view! { <LabProvider scenario=scenario><Grab /><TreeView /></LabProvider> });
    settle().await;
    let ctx = grabbed();
    ctx.pin_cpu(Some(0));
    ctx.seek(40);
    settle().await;
    by_testid(&root, "open-group").expect("a group entity on CPU 0 at event 40").dyn_into::<web_sys::HtmlElement>().unwrap().click();
    settle().await;
    let head = |r: &web_sys::Element| text(&by_testid(r, "tree-panel").unwrap().query_selector("h2").unwrap().unwrap());
    let shown = head(&root);
    let group = shown.split(" · ").find(|p| p.starts_with("group ")).unwrap_or_else(|| panic!("no group queue shown: {shown}")).to_string();
    let link = schedlab_app::current_link(ctx);
    let g = link.queue.clone().expect("the link carries the group queue");
    let w = web_sys::window().unwrap();
    let open = |l: &fragment::Link| {
        w.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("#{}", fragment::encode(l)))).unwrap();
        let r = fresh_root();
        let h = leptos::mount::mount_to(r.clone(), App);
        (r, h)
    };
    let (r2, _h2) = open(&link);
    settle().await;
    assert!(head(&r2).contains(&group), "reopened: {} (want {group})", head(&r2));
    assert!(by_testid(&r2, "notice").is_none(), "a link that applies whole has no notice");
    let bad = fragment::Link { queue: Some(vec![g[0], g[0]]), ..link };
    let (r3, _h3) = open(&bad);
    settle().await;
    let notice = text(&by_testid(&r3, "notice").expect("a notice for the group queue that is not there"));
    assert!(notice.contains("group queues") && notice.contains("the deepest one found is shown"), "{notice}");
    assert!(head(&r3).contains(&group), "{}", head(&r3));
    w.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#")).unwrap();
}

/// Quiz mode on every lecture preset (issue 13), from the first event
/// on, six questions in a row, each revealed and stepped past: every
/// question has an answer in the run (a CPU that picks no one else, a
/// hog's alone on it, hands the question to the CPU that picks next,
/// which is then shown), the reveal shows that task running there, and
/// the buttons offer the CPU's tasks (in its group queues too), the
/// answer among them at least once.
#[wasm_bindgen_test]
async fn quiz_mode_asks_answerable_questions_on_every_preset() {
    for p in presets::lecture_presets() {
        let root = fresh_root();
        let text = p.text;
        let _h = leptos::mount::mount_to(root.clone(), move || view! { <LabProvider scenario=text><Grab /><Explainer /></LabProvider> });
        settle().await;
        let ctx = grabbed();
        ctx.set_quiz(true);
        settle().await;
        let mut offered = 0;
        for i in 0..6 {
            let q = ctx.ui.quiz.get_untracked().expect("quiz mode is on");
            let (_, task) = q.answer.unwrap_or_else(|| panic!("{}: question {i} (event {}, CPU {}) has no answer", p.id, q.asked_at, q.cpu));
            assert_eq!(ctx.ui.frame.with_untracked(|f| f.cpu), q.cpu, "{}: question {i}: its CPU is shown", p.id);
            let choices: Vec<String> = all_testid(&root, "quiz-choice").iter().map(|c| attr(c, "data-task")).collect();
            offered += choices.contains(&task.to_string()) as u32;
            ctx.reveal();
            settle().await;
            let shown = ctx.ui.frame.with_untracked(|f| f.cpus[q.cpu as usize].curr);
            assert!(ctx.ui.quiz.get_untracked().is_some_and(|q| q.revealed), "{}: question {i} revealed", p.id);
            assert_eq!(shown, Some(task), "{}: question {i}: the answer runs on CPU {} once revealed", p.id, q.cpu);
            ctx.step();
            settle().await;
        }
        assert!(offered > 0, "{}: no question offered its answer among the buttons", p.id);
    }
}

#[wasm_bindgen_test]
async fn untrusted_fragments_get_a_message_not_a_blank_page() {
    let w = web_sys::window().unwrap();
    for frag in [
        "#z=@@@&e=zz",
        "#s=_w",
        "#z=AAAA",
        "#s=W3NpbV0KZHVyYXRpb24gPSAieCIK&e=3",
        "#k=9.9&f=NOPE:1",
        "#p=nope&cpu=999",
    ] {
        w.history()
            .unwrap()
            .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(frag))
            .unwrap();
        let root = fresh_root();
        let _h = leptos::mount::mount_to(root.clone(), App);
        settle().await;
        assert!(
            by_testid(&root, "title").is_some(),
            "{frag}: page not mounted"
        );
        let notice = by_testid(&root, "notice").unwrap_or_else(|| panic!("{frag}: no message"));
        assert!(text(&notice).len() > 20, "{frag}: {}", text(&notice));
        assert!(
            by_testid(&root, "explain-headline").is_some(),
            "{frag}: the default run is shown"
        );
    }
    // A scenario with an error from a link lands in the editor with the error.
    w.history()
        .unwrap()
        .replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some("#s=W3NpbV0KZHVyYXRpb24gPSAieCIK"),
        )
        .unwrap();
    let root = fresh_root();
    let _h = leptos::mount::mount_to(root.clone(), App);
    settle().await;
    assert!(by_testid(&root, "scenario-error").is_some());
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#"))
        .unwrap();
}

#[wasm_bindgen_test]
async fn lag_view_sums_to_zero_and_keeps_history() {
    let root = fresh_root();
    let _h = leptos::mount::mount_to(
        root.clone(),
        || view! { <LabProvider scenario=MANY><Grab /><LagView /></LabProvider> },
    );
    settle().await;
    let ctx = grabbed();
    for _ in 0..80 {
        ctx.step();
    }
    settle().await;
    let sum: i64 = attr(&by_testid(&root, "lag-sum").unwrap(), "data-value")
        .parse()
        .unwrap();
    let load = ctx.ui.frame.with_untracked(|f| f.view.load as i64);
    assert!(sum.abs() <= load, "Σ w·lag = {sum} > Σw = {load}");
    let rows = all_testid(&root, "lag-row");
    assert_eq!(
        rows.len(),
        ctx.ui.frame.with_untracked(|f| f.view.entities.len())
    );
    let sparks = all_testid(&root, "lag-spark");
    assert!(
        sparks
            .iter()
            .any(|s| attr(s, "points").split(' ').count() > 10),
        "sparklines have history"
    );
}

#[wasm_bindgen_test]
async fn timeline_draws_and_topology_shows_a_placement() {
    let root = fresh_root();
    let text8 = presets::by_id("wakeup-placement").unwrap().text;
    let _h = leptos::mount::mount_to(root.clone(), move || {
        view! { <LabProvider scenario=text8><Grab /><TopologyView /><TimelineView /></LabProvider> }
    });
    settle().await;
    let ctx = grabbed();
    ctx.ui.jump.set(Jump::Wakeup);
    for _ in 0..4 {
        ctx.jump(Direction::Forward);
    }
    settle().await;
    let cells = all_testid(&root, "cpu-cell");
    assert_eq!(cells.len(), 8);
    let p = by_testid(&root, "placement").expect("a placement is drawn");
    assert!(!attr(&p, "data-how").is_empty());
    let chosen = by_testid(&root, "placement-chosen").expect("the chosen CPU is marked");
    let cpu: u32 = attr(&chosen, "data-cpu").parse().unwrap();
    assert!(cpu < 8);
    assert!(text(&by_testid(&root, "placement-caption").unwrap()).contains(&format!("→ CPU {cpu}")));
    // The timeline drew something.
    next_frame().await;
    next_frame().await;
    let drawn: usize = attr(&by_testid(&root, "timeline").unwrap(), "data-drawn")
        .parse()
        .unwrap_or(0);
    assert!(drawn > 8, "timeline drew {drawn} items");
}
