//! End-to-end test of the built page (`trunk build --release` output) in
//! headless Chromium, driven through chromedriver.
//!
//! Skipped unless `SCHEDLAB_E2E_DIST` names the dist/ directory to test;
//! scripts/test always sets it. When it is set, every problem is a failure:
//! a missing browser or driver, a page that does not mount, a resource that
//! does not load, an error in the browser console.
//!
//! Everything is std + serde_json, `base64` (the screenshot) and
//! `percent-encoding` (request paths): a static file server on a random
//! 127.0.0.1 port, chromedriver on another, and a small WebDriver (W3C,
//! JSON over HTTP/1.1) client. The screenshot goes to target/e2e/app.png.
//!
//! Why not a WebDriver client crate (issue 16): measured on this machine
//! (CPU seconds of a clean `cargo build` of a test crate with just that
//! dependency; wall time is meaningless on the shared 2 cores): serde_json
//! alone (what this file needs) 6.2 s over 12 crates; with `tiny_http`
//! (a static server) 9.6 s over 17 crates; `fantoccini` 0.21 (rustls,
//! tokio) and `thirtyfour` 0.35 pull 131 and 155 crates (tokio, hyper,
//! rustls with aws-lc-sys or ring, which compile C), far more build time
//! on every CI run's e2e stage, for what is here ~150 lines of blocking
//! HTTP that only speaks to 127.0.0.1. The tests drive the page mostly
//! through `execute` scripts, which a client crate would not shorten.
//! So the hand-written client and server stay.
//!
//! Environment: SCHEDLAB_E2E_DIST (required to run), CHROMEDRIVER (default
//! /usr/bin/chromedriver), SCHEDLAB_CHROME (default /usr/bin/chromium).
#![cfg(not(target_arch = "wasm32"))]

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use percent_encoding::percent_decode_str;
use serde_json::{json, Value};
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const DIST_VAR: &str = "SCHEDLAB_E2E_DIST";
const MOUNT_TIMEOUT: Duration = Duration::from_secs(60);

#[test]
fn built_page_mounts_the_app_in_headless_chromium() {
    let Some(dist) = std::env::var_os(DIST_VAR) else {
        eprintln!("e2e skipped: set {DIST_VAR}=path/to/dist (scripts/test does)");
        return;
    };
    let dist = fs::canonicalize(&dist)
        .unwrap_or_else(|e| panic!("{DIST_VAR}={dist:?} is not a directory: {e}"));
    assert!(
        dist.join("index.html").is_file(),
        "{} has no index.html: run `trunk build --release` first",
        dist.display()
    );

    let out_dir = target_dir().join("e2e");
    fs::create_dir_all(&out_dir).expect("create target/e2e");

    let server = StaticServer::start(dist.clone());
    let driver = ChromeDriver::start(&out_dir);
    let profile = TempDir::new(&out_dir, "chrome-profile");
    let session = Session::new(&driver, &profile.0);

    let url = format!("http://{}/", server.addr);
    session.navigate(&url);

    // Wait for the wasm app to mount.
    let app = session
        .wait_for_css("[data-testid=\"app\"]", MOUNT_TIMEOUT)
        .unwrap_or_else(|last_error| {
            let shot = out_dir.join("app-not-mounted.png");
            let shot_result = session.try_screenshot(&shot);
            let console = session.try_browser_log();
            panic!(
                "app did not mount at {url} (no [data-testid=app], timeout {MOUNT_TIMEOUT:?}): {last_error}\n\
                 screenshot: {} ({shot_result:?})\nrequests: {:#?}\nconsole: {console:#?}",
                shot.display(),
                server.requests(),
            )
        });

    let shot = out_dir.join("app.png");
    session.screenshot(&shot);
    eprintln!("e2e screenshot: {}", shot.display());

    // The title element says what the app is.
    let title = session
        .find_css("[data-testid=\"title\"]")
        .unwrap_or_else(|e| panic!("[data-testid=title] not found: {e}"));
    assert_eq!(session.element_text(&title), "schedlab");
    assert_eq!(session.title(), "schedlab", "document.title");
    assert!(
        !session.element_text(&app).trim().is_empty(),
        "the app root renders text"
    );

    // Not a blank page: the title is laid out, visible at its own position,
    // and the stylesheet from assets/style.css is applied.
    let probe = session.execute(
        r#"
        const t = document.querySelector('[data-testid="title"]');
        const r = t.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return {
          width: r.width,
          height: r.height,
          hit_is_title: hit !== null && (hit === t || t.contains(hit)),
          accent: getComputedStyle(document.documentElement).getPropertyValue('--accent').trim(),
          body_text: document.body.innerText.length,
        };
        "#,
    );
    eprintln!("e2e layout probe: {probe}");
    assert!(
        probe["width"].as_f64().unwrap_or(0.0) > 10.0,
        "title has no width: {probe}"
    );
    assert!(
        probe["height"].as_f64().unwrap_or(0.0) > 5.0,
        "title has no height: {probe}"
    );
    assert_eq!(
        probe["hit_is_title"],
        json!(true),
        "title is covered or off-screen: {probe}"
    );
    assert_ne!(
        probe["accent"],
        json!(""),
        "assets/style.css not applied: {probe}"
    );

    // The PNG is real and of the window size.
    let png = fs::read(&shot).expect("read screenshot");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "screenshot is not a PNG"
    );
    let (w, h) = png_size(&png);
    assert!(w >= 800 && h >= 600, "screenshot is {w}x{h}");

    // Every request the page made was served, including the wasm module.
    let requests = server.requests();
    let failed: Vec<_> = requests.iter().filter(|(_, s)| *s != 200).collect();
    assert!(
        failed.is_empty(),
        "requests that failed: {failed:?} (all: {requests:?})"
    );
    assert!(
        requests.iter().any(|(p, _)| p.ends_with(".wasm")),
        "the page never fetched its .wasm: {requests:?}"
    );

    // No errors in the browser console (panics, failed loads, exceptions),
    // including any logged shortly after mounting.
    thread::sleep(Duration::from_millis(500));
    let log = session.browser_log();
    for entry in &log {
        eprintln!("console {}: {}", entry["level"], entry["message"]);
    }
    let severe: Vec<_> = log.iter().filter(|e| e["level"] == "SEVERE").collect();
    assert!(severe.is_empty(), "browser console errors: {severe:#?}");

    session.close();
}

/// The lecture view, end to end: the default scenario, stepping, the
/// pick_eevdf() walk under 6.6, kernel 5.15 drawn as CFS and 6.18 as EEVDF
/// (check_cfs_view), a multi-CPU preset with its wakeup placement, the projector mode, a bad
/// scenario, an untrusted link, and the performance numbers (frame times
/// while playing, panning 96 lanes over a million events, step latency,
/// .wasm size), written to target/e2e/perf.json. Screenshots: target/e2e/lecture-*.png.
#[test]
fn lecture_view_in_headless_chromium() {
    let Some((dist, out_dir)) = dist_and_out_dir() else { return };

    // The release .wasm (after wasm-opt) stays small.
    let wasm_bytes = fs::read_dir(&dist)
        .expect("read dist")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "wasm"))
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .max()
        .expect("a .wasm in dist");
    eprintln!(
        "e2e: .wasm is {wasm_bytes} bytes ({:.2} MB)",
        wasm_bytes as f64 / 1e6
    );

    let server = StaticServer::start(dist.clone());
    let driver = ChromeDriver::start(&out_dir);
    let profile = TempDir::new(&out_dir, "chrome-profile-lecture");
    let session = Session::new_sized(&driver, &profile.0, (1400, 1500));
    session.set_script_timeout(240_000);
    let base = format!("http://{}/", server.addr);
    session.navigate(&base);
    session
        .wait_for_css("[data-testid=\"app\"]", MOUNT_TIMEOUT)
        .unwrap_or_else(|e| {
            let _ = session.try_screenshot(&out_dir.join("lecture-not-mounted.png"));
            panic!(
                "app did not mount: {e}; console: {:#?}",
                session.try_browser_log()
            )
        });
    let js = |script: &str| session.execute(script);
    let wait = |what: &str, script: &str, timeout: Duration| session.wait_true(what, script, timeout, &out_dir.join("lecture-timeout.png"));
    let text_of = |id: &str| {
        js(&format!("const e = document.querySelector('[data-testid=\"{id}\"]'); return e ? e.textContent : null;"))
    };

    // 1. The default scenario: three equal tasks at event 0.
    assert_eq!(
        js("return document.querySelector('[data-testid=\"preset\"]').value;"),
        json!("three-equal-tasks")
    );
    wait("event 0", "return document.querySelector('[data-testid=\"event-label\"]').textContent.startsWith('event 0 /');", Duration::from_secs(10));
    thread::sleep(Duration::from_millis(300));
    let tree0 = js("return document.querySelector('[data-testid=\"tree\"]').outerHTML;");
    let tl0 = js("return document.querySelector('[data-testid=\"timeline\"]').toDataURL();");
    session.screenshot(&out_dir.join("lecture-start.png"));

    // 2. Step five times (real clicks): the event, the tree and the timeline change.
    let step = session
        .find_css("[data-testid=\"btn-step\"]")
        .expect("step button");
    for _ in 0..5 {
        session.click(&step);
    }
    wait("event 5", "return document.querySelector('[data-testid=\"event-label\"]').textContent.startsWith('event 5 /');", Duration::from_secs(10));
    thread::sleep(Duration::from_millis(300));
    let tree5 = js("return document.querySelector('[data-testid=\"tree\"]').outerHTML;");
    let tl5 = js("return document.querySelector('[data-testid=\"timeline\"]').toDataURL();");
    assert_ne!(tree0, tree5, "the tree did not change after five steps");
    assert_ne!(tl0, tl5, "the timeline did not change after five steps");
    let headline = text_of("explain-headline");
    eprintln!("e2e: event 5 explained: {headline}");
    assert!(
        headline.as_str().is_some_and(|h| h.len() > 20),
        "{headline}"
    );
    session.screenshot(&out_dir.join("lecture-step5.png"));

    // 2b. Kernel 6.6 (no O(1) fast path): a pick walks the tree; the
    //     walk is numbered on the tree's nodes.
    js(
        r#"const s = document.querySelector('[data-testid="preset"]'); s.value = 'nice-weights';
          s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#,
    );
    wait(
        "the nice preset",
        "return document.querySelector('[data-testid=\"preset\"]').value === 'nice-weights';",
        Duration::from_secs(10),
    );
    js(
        r#"const s = document.querySelector('[data-testid="kernel"]'); s.value = '6.6';
          s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#,
    );
    wait("kernel 6.6", "return document.querySelector('[data-testid=\"kernel-badge\"]').textContent.includes('kernel 6.6');", Duration::from_secs(10));
    let walked = session.execute_async(
        r#"
        const done = arguments[arguments.length - 1];
        const btn = document.querySelector('[data-testid="btn-jump"]');
        const raf = () => new Promise(r => requestAnimationFrame(() => r()));
        (async () => {
          for (let i = 0; i < 100; i++) {
            btn.click();
            await raf();
            if (document.querySelectorAll('[data-testid="tree-path-step"]').length >= 1 && document.querySelectorAll('[data-testid="tree-node"]').length >= 2) { done(i); return; }
          }
          done(-1);
        })();
        "#,
    );
    eprintln!("e2e: picks until a walk shows on the tree (6.6): {walked}");
    thread::sleep(Duration::from_millis(300));
    session.screenshot(&out_dir.join("lecture-walk-6.6.png"));

    // 2c. Kernel 5.15 is drawn as CFS (issue 13 item 3), and 6.18 as
    //     EEVDF: the run-to-parity preset (a hog and four tasks that run
    //     2 ms and sleep 50 µs, one CPU, HZ=1000) under each kernel,
    //     through twelve preemptions. See check_cfs_view.
    js(
        r#"const s = document.querySelector('[data-testid="preset"]'); s.value = 'run-to-parity';
          s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#,
    );
    let t_cfs = Instant::now();
    wait("the run-to-parity preset", "return document.querySelector('[data-testid=\"preset\"]').value === 'run-to-parity';", Duration::from_secs(10));
    for (kernel, cfs) in [("5.15", true), ("6.18", false)] {
        js(&format!(
            r#"const s = document.querySelector('[data-testid="kernel"]'); s.value = '{kernel}';
              s.dispatchEvent(new Event('change', {{ bubbles: true }})); return true;"#
        ));
        wait(&format!("kernel {kernel}"), &format!("return document.querySelector('[data-testid=\"kernel-badge\"]').textContent.includes('kernel {kernel} ');"), Duration::from_secs(10));
        let seen = session.execute_async(&CFS_PROBE_JS.replace("VIEWS_FN", VIEWS_FN_JS));
        check_cfs_view(&seen, kernel, cfs);
        session.screenshot(&out_dir.join(format!("lecture-kernel-{kernel}.png")));
    }
    eprintln!("e2e: the CFS and EEVDF views took {:.1} s", t_cfs.elapsed().as_secs_f64());
    js(
        r#"const s = document.querySelector('[data-testid="preset"]'); s.value = 'three-equal-tasks';
          s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#,
    );
    wait("back to the default", "return document.querySelector('[data-testid=\"kernel-badge\"]').textContent.includes('kernel 6.18');", Duration::from_secs(10));

    // 3. Step latency (issue 13: "step click to redraw ≤ 1 frame"): 40
    //    clicks at phases spread over the frame; per click, how many
    //    frames began from the click up to the one the timeline redraws
    //    in, and whether a vsync went by between the end of the click's
    //    work and that frame (STEP_FRAMES_JS).
    let lat = session.execute_async_with(STEP_FRAMES_JS, json!([40]));
    let summary: serde_json::Map<String, Value> = lat.as_object().map(|o| o.iter().filter(|(k, _)| *k != "clicks").map(|(k, v)| (k.clone(), v.clone())).collect()).unwrap_or_default();
    eprintln!("e2e: step latency: {}", Value::Object(summary));

    // 4. Play the default scenario for 3 s: frame intervals and the work per frame.
    js("document.querySelector('[data-testid=\"btn-rewind\"]').click(); return true;");
    let play = session.execute_async(
        r#"
        const done = arguments[arguments.length - 1];
        window.__schedlabPerf = {};
        const speed = document.querySelector('[data-testid="speed"]');
        speed.value = '3.3'; speed.dispatchEvent(new Event('input', { bubbles: true }));
        const ivals = [];
        let last = null, running = true;
        const loop = t => { if (last !== null) ivals.push(t - last); last = t; if (running) requestAnimationFrame(loop); };
        requestAnimationFrame(loop);
        document.querySelector('[data-testid="btn-play"]').click();
        setTimeout(() => {
          running = false;
          document.querySelector('[data-testid="btn-play"]').click();
          const p = window.__schedlabPerf;
          const med = a => a && a.length ? a.slice().sort((x, y) => x - y)[a.length >> 1] : null;
          const p95 = a => a && a.length ? a.slice().sort((x, y) => x - y)[Math.floor(a.length * 0.95)] : null;
          const label = document.querySelector('[data-testid="event-label"]').textContent;
          done({ frame_interval_median: med(ivals), frame_interval_p95: p95(ivals), frames: ivals.length,
                 tick_median: med(p.tick), publish_median: med(p.publish), timeline_median: med(p.timeline),
                 timeline_p95: p95(p.timeline), at: label });
        }, 3000);
        "#,
    );
    eprintln!("e2e: playing the default scenario: {play}");
    session.screenshot(&out_dir.join("lecture-playing.png"));

    // 5. A multi-CPU preset: the topology map shows a placement.
    js(
        r#"const s = document.querySelector('[data-testid="preset"]'); s.value = 'wakeup-placement';
          s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#,
    );
    wait(
        "the i7 preset",
        "return document.querySelectorAll('[data-testid=\"cpu-cell\"]').length === 8;",
        Duration::from_secs(20),
    );
    js(
        r#"const s = document.querySelector('[data-testid="jump-kind"]'); s.value = 'wakeup';
          s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#,
    );
    let jump = session
        .find_css("[data-testid=\"btn-jump\"]")
        .expect("jump button");
    for _ in 0..6 {
        session.click(&jump);
    }
    wait(
        "a placement on the map",
        "return !!document.querySelector('[data-testid=\"placement-chosen\"]');",
        Duration::from_secs(10),
    );
    // Walk on to a wakeup that scanned the LLC (the preset has them).
    let scanned = session.execute_async(
        r#"
        const done = arguments[arguments.length - 1];
        const btn = document.querySelector('[data-testid="btn-jump"]');
        const raf = () => new Promise(r => requestAnimationFrame(() => r()));
        (async () => {
          for (let i = 0; i < 600; i++) {
            const p = document.querySelector('[data-testid="placement"]');
            if (p && +p.getAttribute('data-scanned') > 1) { done(i); return; }
            btn.click();
            await raf();
          }
          done(-1);
        })();
        "#,
    );
    eprintln!("e2e: jumps to a scanning wakeup: {scanned}");
    thread::sleep(Duration::from_millis(300));
    let caption = text_of("placement-caption");
    eprintln!("e2e: placement: {caption}");
    assert!(
        caption.as_str().is_some_and(|c| c.contains("→ CPU")),
        "{caption}"
    );
    session.screenshot(&out_dir.join("lecture-placement.png"));

    // 6. Projector mode: large fonts, kept in the link.
    session.click(&session.find_css("[data-testid=\"btn-big\"]").unwrap());
    wait(
        "big=1 in the link",
        "return location.hash.includes('big=1');",
        Duration::from_secs(5),
    );
    thread::sleep(Duration::from_millis(300));
    session.screenshot(&out_dir.join("lecture-big.png"));
    session.click(&session.find_css("[data-testid=\"btn-big\"]").unwrap());

    // 7. A bad edit: the error with its line, the old run keeps going.
    js(
        r#"const a = document.querySelector('[data-testid="editor"]');
          a.value = a.value.replace('count = 3', 'count = "three"');
          a.dispatchEvent(new Event('input', { bubbles: true }));
          document.querySelector('[data-testid="btn-run"]').click(); return true;"#,
    );
    wait(
        "the scenario error",
        "return !!document.querySelector('[data-testid=\"scenario-error\"]');",
        Duration::from_secs(5),
    );
    let err = text_of("scenario-error");
    eprintln!("e2e: scenario error: {err}");
    assert!(
        err.as_str()
            .is_some_and(|e| e.contains("line ") && e.contains("column")),
        "{err}"
    );
    session.screenshot(&out_dir.join("lecture-error.png"));

    // 8. An untrusted link: a message, not a blank page; both when it is
    // opened in the running page (a hashchange) and when it is loaded.
    let bad_link = format!("{base}#z=%%%&e=banana");
    for loaded in [false, true] {
        if loaded {
            session.open_fresh(&bad_link);
        } else {
            session.navigate(&bad_link);
        }
        session
            .wait_for_css("[data-testid=\"notice\"]", MOUNT_TIMEOUT)
            .unwrap_or_else(|e| panic!("a message about the bad link (loaded: {loaded}): {e}"));
        assert!(
            text_of("notice")
                .as_str()
                .is_some_and(|t| t.contains("could not be read")),
            "{}",
            text_of("notice")
        );
    }
    assert!(text_of("explain-headline").is_string());

    // 9. 96 lanes over a million events: compute the run, then zoom and pan.
    session.open_fresh(&format!("{base}#p=xeon-96-busy"));
    session
        .wait_for_css("[data-testid=\"app\"]", MOUNT_TIMEOUT)
        .unwrap();
    // The reloaded page is the xeon preset, not the state before the reload.
    wait(
        "the xeon preset after the reload",
        "const s = document.querySelector('[data-testid=\"preset\"]'); return !!s && s.value === 'xeon-96-busy';",
        Duration::from_secs(30),
    );
    let t_compute = Instant::now();
    wait(
        "the xeon run to be computed",
        "const l = document.querySelector('[data-testid=\"event-label\"]'); return !!l && !l.textContent.includes('+') && document.querySelector('[data-testid=\"progress\"]').textContent === '';",
        Duration::from_secs(300),
    );
    let compute_s = t_compute.elapsed().as_secs_f64();
    let events = text_of("event-label");
    eprintln!("e2e: xeon run computed in {compute_s:.1} s: {events}");
    let pan = session.execute_async(
        r#"
        const done = arguments[arguments.length - 1];
        const c = document.querySelector('[data-testid="timeline"]');
        const r = c.getBoundingClientRect();
        const raf = () => new Promise(res => requestAnimationFrame(() => res()));
        const task = () => new Promise(res => { const ch = new MessageChannel(); ch.port1.onmessage = () => res(); ch.port2.postMessage(0); });
        const mouse = (type, x, y) => c.dispatchEvent(new MouseEvent(type, { clientX: r.left + x, clientY: r.top + y, bubbles: true, button: 0 }));
        const med = a => a && a.length ? a.slice().sort((x, y) => x - y)[a.length >> 1] : null;
        const p95 = a => a && a.length ? a.slice().sort((x, y) => x - y)[Math.floor(a.length * 0.95)] : null;
        (async () => {
          // The whole run, zoomed out.
          window.__schedlabPerf = {};
          c.dispatchEvent(new MouseEvent('dblclick', { clientX: r.left + 300, clientY: r.top + 100, bubbles: true }));
          for (let i = 0; i < 20; i++) { await raf(); window.dispatchEvent(new Event('resize')); }
          const wp = window.__schedlabPerf;
          const whole = wp.timeline || [];
          const whole_phases = { reduce: med(wp.tl_reduce), fill: med(wp.tl_fill), arrows: med(wp.tl_arrows) };
          // Zoom in to about a tenth of the run, then pan for 150 frames.
          for (let i = 0; i < 5; i++) { c.dispatchEvent(new WheelEvent('wheel', { deltaY: -300, clientX: r.left + 200, clientY: r.top + 80, bubbles: true, cancelable: true })); await raf(); }
          window.__schedlabPerf = {};
          const ivals = []; let last = performance.now();
          mouse('mousedown', 900, 120);
          for (let i = 0; i < 150; i++) {
            // As real input: the move arrives as a task between frames.
            await task();
            mouse('mousemove', 900 - 5 * (i + 1), 120);
            await raf();
            const t = performance.now(); ivals.push(t - last); last = t;
          }
          mouse('mouseup', 900 - 750, 120);
          const p = window.__schedlabPerf;
          done({ lanes: c.height / (window.devicePixelRatio || 1), drawn_items_last: +c.getAttribute('data-drawn'),
                 whole_run_draw_median: med(whole), whole_run_draw_max: whole.length ? Math.max(...whole) : null, whole_phases,
                 pan_phases: { reduce: med(p.tl_reduce), fill: med(p.tl_fill), arrows: med(p.tl_arrows) },
                 pan_draw_median: med(p.timeline), pan_draw_p95: p95(p.timeline), pan_draws: (p.timeline || []).length,
                 pan_frame_interval_median: med(ivals), pan_frame_interval_p95: p95(ivals) });
        })();
        "#,
    );
    eprintln!("e2e: panning 96 lanes: {pan}");
    session.screenshot(&out_dir.join("lecture-xeon.png"));
    let n_events: u64 = events
        .as_str()
        .and_then(|t| t.split_whitespace().nth(3))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let perf = json!({
        "wasm_bytes": wasm_bytes,
        "step_latency": lat,
        "play_default": play,
        "xeon_events": n_events,
        "xeon_compute_s": compute_s,
        "pan_96_lanes": pan,
    });
    fs::write(
        out_dir.join("perf.json"),
        serde_json::to_string_pretty(&perf).unwrap(),
    )
    .expect("write perf.json");
    eprintln!(
        "e2e: perf written to {}",
        out_dir.join("perf.json").display()
    );

    // Budgets (generous: the machine is shared; perf.json has the numbers).
    // Issue 3's budget. The UI crates are built for size (Cargo.toml:
    // profile.release.package), the engine for speed.
    assert!(
        wasm_bytes <= 1_500_000,
        ".wasm is {wasm_bytes} bytes > 1.5 MB"
    );
    assert!(
        n_events > 1_000_000,
        "the xeon preset ran {n_events} events"
    );
    let num = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::MAX);
    // Frames are counted, not timed: a redraw put off to a later frame
    // fails here however fast the machine is; the time is only guarded.
    assert_eq!(lat["frames_median"], json!(1), "the step is drawn in the first frame after the click: {lat}");
    assert!(num(&lat, "drawn_median") <= 50.0, "step latency {lat}");
    assert!(num(&pan, "pan_draw_median") <= 16.0, "pan draw {pan}");
    assert!(
        num(&play, "timeline_median") + num(&play, "tick_median") <= 16.0,
        "play frame work {play}"
    );

    // 10. Dark mode (prefers-color-scheme), on the delayed-dequeue preset.
    let dark = session.try_cmd(
        "POST",
        "/goog/cdp/execute",
        Some(json!({ "cmd": "Emulation.setEmulatedMedia", "params": { "features": [{ "name": "prefers-color-scheme", "value": "dark" }] } })),
    );
    session.open_fresh(&format!("{base}#p=delay-dequeue&e=40"));
    session
        .wait_for_css("[data-testid=\"app\"]", MOUNT_TIMEOUT)
        .unwrap();
    wait("event 40", "const l = document.querySelector('[data-testid=\"event-label\"]'); return !!l && l.textContent.startsWith('event 40 /');", Duration::from_secs(20));
    thread::sleep(Duration::from_millis(500));
    session.screenshot(&out_dir.join("lecture-dark.png"));
    eprintln!(
        "e2e: dark mode emulation: {}",
        if dark.is_ok() { "on" } else { "unavailable" }
    );

    // 10b. Figures are exported in the light theme whatever the page's
    //      (issue 13): on the dark page, the timeline's PNG and the
    //      picture in its SVG, and the tree's SVG, are light with dark ink.
    assert_eq!(js("return matchMedia('(prefers-color-scheme: dark)').matches;"), json!(true), "dark mode emulation: {dark:?}");
    let exported = session.execute_async(DARK_PAGE_EXPORTS_JS);
    eprintln!("e2e: figures exported from the dark page: {exported}");
    for (fig, v) in exported.as_object().into_iter().flatten() {
        assert!(v["bg"].as_f64().unwrap_or(0.0) > 240.0 && v["ink"].as_u64().unwrap_or(0) > 40, "{fig}: not light with dark ink: {exported}");
    }
    assert!(exported["timeline_png"].is_object() && exported["timeline_svg"].is_object() && exported["tree_svg"].is_object(), "{exported}");

    let log = session.browser_log();
    let severe: Vec<_> = log.iter().filter(|e| e["level"] == "SEVERE").collect();
    assert!(severe.is_empty(), "browser console errors: {severe:#?}");
    session.close();
}

/// The step button's latency, in frames (issue 13: "step click to redraw
/// ≤ 1 frame"). A frame loop logs every frame's begin (its callbacks'
/// timestamp, on the vsync grid) and when its callback ran; the timeline's
/// redraw is seen at its putImageData. `arguments[0]` clicks, each at a
/// phase of the frame (0-14 ms after a frame began); per click: `frames`,
/// how many frames began from the click up to and including the one the
/// timeline redrew in (1: the first frame after the click shows the new
/// state); `skipped`, vsyncs that went by between the end of the click's
/// work and that frame (0: none was lost); `overran`, whether that frame
/// made the next one late; `work`, the click's handler and effects;
/// `drawn`, click to the redraw (so phase-dependent: it includes the
/// wait for the next vsync). The page's own timings (move, publish, tick,
/// timeline draw) come from window.__schedlabPerf.
const STEP_FRAMES_JS: &str = r#"
const done = arguments[arguments.length - 1];
const N = arguments.length > 1 ? arguments[0] : 40;
const btn = document.querySelector('[data-testid="btn-step"]');
const raf = () => new Promise(r => requestAnimationFrame(r));
const task = () => new Promise(r => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
const sleep = ms => new Promise(r => setTimeout(r, ms));
// Every frame: its begin time (the callbacks' timestamp, on the vsync grid)
// and when this loop's callback ran in it (before the callbacks the click
// registers: the page's redraw of the same frame runs after it).
const frames = []; let on = true;
const loop = ts => { frames.push({ ts, at: performance.now() }); if (on) requestAnimationFrame(loop); };
requestAnimationFrame(loop);
// The timeline's redraw: the moment it puts its pixels.
const draws = [];
const put = CanvasRenderingContext2D.prototype.putImageData;
CanvasRenderingContext2D.prototype.putImageData = function (...a) { if (this.canvas.dataset.testid === 'timeline') draws.push(performance.now()); return put.apply(this, a); };
window.__schedlabPerf = {};
(async () => {
  for (let i = 0; i < 30; i++) await raf();
  const idle = frames.slice(1).map((f, i) => f.ts - frames[i].ts).sort((a, b) => a - b);
  const P = idle[idle.length >> 1];
  const out = [];
  for (let i = 0; i < N; i++) {
    await raf();
    // Clicks at phases spread over the frame.
    await sleep((i * 7) % 15);
    const nd = draws.length;
    const t0 = performance.now();
    btn.click();
    const handler = performance.now() - t0;
    await task();
    const t1 = performance.now();
    for (let k = 0; k < 20 && draws.length === nd; k++) await raf();
    await raf(); await raf();
    const d = draws[nd];
    const prev = frames.filter(f => f.at <= t0).pop();
    const upto = frames.filter(f => f.at > t0 && f.at <= d);
    const df = upto[upto.length - 1];
    const next = frames.find(f => f.at > d);
    // The click's work ends at t1, or at the first frame after the click if one ran before t1.
    const workEnd = Math.min(t1, upto.length ? upto[0].at : t1);
    // The first vsync after the work: k periods after the frame before the click.
    const want = Math.ceil((workEnd - prev.ts) / P);
    const got = Math.round((df.ts - prev.ts) / P);
    out.push({ phase: +(t0 - prev.ts).toFixed(2), handler: +handler.toFixed(2), work: +(workEnd - t0).toFixed(2), drawn: +(d - t0).toFixed(2),
               frames: upto.length, skipped: got - want, overran: next.ts - df.ts > 1.5 * P, draw_in_frame: +(d - df.at).toFixed(2) });
  }
  on = false;
  CanvasRenderingContext2D.prototype.putImageData = put;
  const p = window.__schedlabPerf;
  const med = a => a.slice().sort((x, y) => x - y)[a.length >> 1];
  const col = k => out.map(o => o[k]);
  done({ period: P, n: N, frames_median: med(col('frames')), frames_max: Math.max(...col('frames')),
         on_time: out.filter(o => o.frames === 1 && o.skipped <= 0 && !o.overran).length,
         skipped_median: med(col('skipped')), overran: out.filter(o => o.overran).length,
         handler_median: med(col('handler')), work_median: med(col('work')), drawn_median: med(col('drawn')), drawn_max: Math.max(...col('drawn')),
         move_median: med(p.move || [0]), publish_median: med(p.publish || [0]), timeline_median: med(p.timeline || [0]), tick_median: med(p.tick || [0]),
         clicks: out });
})();
"#;

/// Exports the lecture page's timeline (PNG and SVG) and tree (SVG) as a
/// user does and renders each file: per figure the luma of its
/// background (a corner pixel) and how many pixels are dark ink (luma <
/// 100), and the live timeline canvas's corner beside them.
const DARK_PAGE_EXPORTS_JS: &str = r#"
    const done = arguments[arguments.length - 1];
    const luma = d => 0.299 * d[0] + 0.587 * d[1] + 0.114 * d[2];
    const look = async url => {
      const img = new Image(); img.src = url; await img.decode();
      const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
      const g = c.getContext('2d'); g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data; let ink = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 200 && luma(d.slice(i, i + 3)) < 100) ink++;
      return { bg: d[3] === 0 ? 0 : luma(d.slice(0, 3)), ink, size: [c.width, c.height] };
    };
    (async () => {
      window.__schedlabExports = {};
      const b = id => document.querySelector(`[data-testid="export-${id}"]`);
      b('timeline').querySelector('[data-testid="export-png"]').click();
      b('timeline').querySelector('[data-testid="export-svg"]').click();
      b('tree').querySelector('[data-testid="export-svg"]').click();
      const e = window.__schedlabExports;
      const tree = () => Object.keys(e).find(k => k.startsWith('schedlab-tree-cpu') && k.endsWith('.svg'));
      for (let i = 0; i < 100 && !(e['schedlab-timeline.png'] && e['schedlab-timeline.svg'] && tree()); i++) await new Promise(r => setTimeout(r, 50));
      const svgUrl = t => 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(t);
      const inner = /href="(data:image\/png[^"]+)"/.exec(e['schedlab-timeline.svg'] || '');
      done({ timeline_png: await look(e['schedlab-timeline.png']), timeline_svg: inner ? await look(inner[1]) : null,
             tree_svg: tree() ? await look(svgUrl(e[tree()])) : null });
    })();"#;

/// The study and comparison pages, end to end: seed 002's SIS_FILTER
/// hackbench study (shrunk through the page's own seed/load/case
/// controls) run to completion in the pool of web workers (one per core),
/// its table and charts;
/// the page answering clicks while a study runs; Cancel; a cell opening
/// its run in the lecture view; the comparison page with its divergence
/// marker. Performance (issue 6), written to target/e2e/perf-study.json:
/// one hackbench run (4 groups, process-pipe, xeon-8260-2s, 1 simulated
/// second) in the worker, and a study of 4 loads × 5 seeds × 2
/// configurations of that workload through the pool, at 1/20 of the
/// simulated time (the full size with SCHEDLAB_E2E_FULL_STUDY=1).
/// Screenshots: target/e2e/study-*.png.
#[test]
fn study_and_compare_pages_in_headless_chromium() {
    let Some((dist, out_dir)) = dist_and_out_dir() else { return };
    assert!(
        dist.join("study-worker_loader.js").is_file() && dist.join("study-worker_bg.wasm").is_file(),
        "trunk did not build the study worker into {}",
        dist.display()
    );
    let server = StaticServer::start(dist.clone());
    let driver = ChromeDriver::start(&out_dir);
    let profile = TempDir::new(&out_dir, "chrome-profile-study");
    let session = Session::new_sized(&driver, &profile.0, (1400, 1800));
    session.set_script_timeout(900_000);
    let base = format!("http://{}/", server.addr);
    session.navigate(&format!("{base}#page=study"));
    session
        .wait_for_css("[data-testid=\"study-page\"]", MOUNT_TIMEOUT)
        .unwrap_or_else(|e| panic!("study page did not mount: {e}; console: {:#?}", session.try_browser_log()));
    let js = |script: &str| session.execute(script);
    let wait = |what: &str, script: &str, timeout: Duration| session.wait_true(what, script, timeout, &out_dir.join("study-timeout.png"));
    let progress = || js(r#"const p = document.querySelector('[data-testid="study-progress"]'); return { done: +p.dataset.done, total: +p.dataset.total, running: p.dataset.running === 'true', workers: +p.dataset.workers, text: p.textContent };"#);

    // 1. Pick "seed 002: SIS_FILTER — hackbench" and shrink it: 2 seeds,
    //    loads 1 and 2 groups, the process-pipe case: 2 × 2 × 2 = 8 runs.
    js(r#"const s = document.querySelector('[data-testid="study-preset"]');
          const o = [...s.options].find(o => o.textContent.startsWith('seed 002: SIS_FILTER') && o.textContent.includes('hackbench'));
          s.value = o.value; s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#);
    wait("the preset in the editor", "return document.querySelector('[data-testid=\"study-editor\"]').value.includes('sis-filter');", Duration::from_secs(5));
    js(r#"const n = document.querySelector('[data-testid="study-seeds"]'); n.value = '2'; n.dispatchEvent(new Event('change', { bubbles: true }));
          for (const c of document.querySelectorAll('[data-testid="load-choice"]')) if (+c.dataset.index >= 2) c.click();
          for (const c of document.querySelectorAll('[data-testid="case-choice"]')) if (+c.dataset.index >= 1) c.click();
          document.querySelector('[data-testid="study-run"]').click(); return true;"#);
    let t_small = Instant::now();
    wait("the shrunk study", "const p = document.querySelector('[data-testid=\"study-progress\"]'); return +p.dataset.total === 8 && +p.dataset.done === 8;", Duration::from_secs(120));
    let small_s = t_small.elapsed().as_secs_f64();
    let p = progress();
    eprintln!("e2e: shrunk study (8 runs) in {small_s:.1} s: {p}");
    assert!(p["text"].as_str().unwrap_or("").contains("(100 %)"), "{p}");
    assert!(!p["text"].as_str().unwrap_or("").contains("running on the page"), "the worker did not run it: {p}");
    // The worker started without a word on the console: trunk's loader shim
    // made wasm-bindgen warn at every start (src/bin/study-worker_loader.js).
    let worker_said: Vec<Value> = session.browser_log().into_iter().filter(|e| e["source"] == "worker").collect();
    assert!(worker_said.is_empty(), "the study worker wrote to the console: {worker_said:#?}");
    let table = js(r#"return { rows: document.querySelectorAll('[data-testid="study-row"]').length,
                              complete: document.querySelector('[data-testid="study-table"]').dataset.complete,
                              text: document.querySelector('[data-testid="study-text"]').textContent,
                              metric: document.querySelector('[data-testid="study-metric"]').textContent };"#);
    eprintln!("e2e: study table:\n{}", table["text"].as_str().unwrap_or(""));
    assert_eq!(table["rows"], json!(2), "{table}");
    assert_eq!(table["complete"], json!("true"));
    let text = table["text"].as_str().unwrap_or("");
    assert!(text.starts_with("hackbench\n=========\nmetric: time (s, lower is better); 2 seeds"), "{text}");
    assert!(text.contains("process-pipe    \t1 group \t 1.00 (") && text.contains("process-pipe    \t2 groups\t 1.00 ("), "{text}");
    assert!(text.contains("[baseline] 6.5 [compare 1] 6.5+sis-filter"), "{text}");
    assert!(table["metric"].as_str().unwrap_or("").contains("lower is better"), "{table}");
    // The charts drew something: non-background pixels on every canvas.
    thread::sleep(Duration::from_millis(300));
    let ink = js(r#"return [...document.querySelectorAll('[data-testid^="plot-"]')].map(c => {
          const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
          for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 235 || d[i + 1] < 235 || d[i + 2] < 235)) n++;
          return { id: c.dataset.testid, w: c.width, h: c.height, ink: n }; });"#);
    eprintln!("e2e: chart pixels: {ink}");
    let charts = ink.as_array().cloned().unwrap_or_default();
    assert!(charts.len() >= 3, "{ink}");
    for c in &charts {
        assert!(c["ink"].as_u64().unwrap_or(0) > 500, "a blank chart: {c}");
    }
    session.screenshot(&out_dir.join("study-table.png"));

    // 2. A cell opens its run in the lecture view, and back.
    // Row 0 (1 group: 3.0 M events in 60 ms) fits the viewer's 4 M-event
    // limit, so its schedule hash can be computed and shown (2 groups, 6 M,
    // would be cut and say so).
    js(r#"document.querySelector('[data-testid="study-cell"][data-row="0"][data-config="1"] button').click(); return true;"#);
    wait("the lecture view", "return document.querySelector('[data-testid=\"app\"]').dataset.page === 'lecture' && !!document.querySelector('[data-testid=\"back-to-study\"]');", Duration::from_secs(10));
    wait("the run's schedule hash", "const h = document.querySelector('[data-testid=\"opened-hash\"]'); return !!h && h.dataset.hash.length === 16;", Duration::from_secs(120));
    session.screenshot(&out_dir.join("study-cell-run.png"));
    js(r#"document.querySelector('[data-testid="back-to-study"]').click(); return true;"#);
    wait("the study again", "return !!document.querySelector('[data-testid=\"study-table\"]') && document.querySelectorAll('[data-testid=\"study-row\"]').length === 2;", Duration::from_secs(10));

    // 3. The whole study (16 rows × its seeds × 2 configurations): the page
    //    answers clicks while the worker runs, then Cancel stops it. The
    //    seed count shown is the study file's.
    let seeds = include_str!("../assets/studies/seed-002-hackbench.toml").lines().find_map(|l| l.strip_prefix("seeds = ")).expect("seeds in the study").trim();
    js(r#"const s = document.querySelector('[data-testid="study-preset"]'); s.value = ''; s.dispatchEvent(new Event('change', { bubbles: true }));
          s.value = 'seed-002-hackbench'; s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#);
    wait(
        "the full preset",
        &format!("return !!document.querySelector('[data-testid=\"study-seeds\"]') && document.querySelector('[data-testid=\"study-seeds\"]').value === '{seeds}';"),
        Duration::from_secs(5),
    );
    js(r#"document.querySelector('[data-testid="study-run"]').click(); return true;"#);
    wait("some runs", "return +document.querySelector('[data-testid=\"study-progress\"]').dataset.done >= 3;", Duration::from_secs(120));
    let responsive = session.execute_async(
        r#"
        const done = arguments[arguments.length - 1];
        const box = document.querySelector('[data-testid="study-sorted"]');
        const raf = () => new Promise(r => requestAnimationFrame(() => r()));
        (async () => {
          const lat = [];
          for (let i = 0; i < 10; i++) {
            const before = box.checked;
            const t0 = performance.now();
            box.click();
            while (document.querySelector('[data-testid="study-sorted"]').checked === before) await raf();
            await raf();
            lat.push(performance.now() - t0);
            await new Promise(r => setTimeout(r, 50));
          }
          const p = document.querySelector('[data-testid="study-progress"]');
          done({ click_to_frame_ms: lat, max: Math.max(...lat), running: p.dataset.running, done: +p.dataset.done });
        })();
        "#,
    );
    eprintln!("e2e: clicks while the study runs: {responsive}");
    assert_eq!(responsive["running"], json!("true"), "the study ended before the probe: {responsive}");
    assert!(responsive["max"].as_f64().unwrap_or(f64::MAX) <= 100.0, "a click took over 100 ms: {responsive}");
    js(r#"document.querySelector('[data-testid="study-cancel"]').click(); return true;"#);
    wait("cancelled", "return document.querySelector('[data-testid=\"study-progress\"]').dataset.running === 'false';", Duration::from_secs(5));
    let at_cancel = progress();
    thread::sleep(Duration::from_millis(1500));
    let later = progress();
    eprintln!("e2e: cancelled: {at_cancel}");
    assert_eq!(at_cancel["done"], later["done"], "runs kept arriving after Cancel");
    assert!(at_cancel["done"].as_u64().unwrap_or(0) < at_cancel["total"].as_u64().unwrap_or(0));
    assert!(later["text"].as_str().unwrap_or("").contains("cancelled"), "{later}");
    session.screenshot(&out_dir.join("study-cancelled.png"));

    // 4. Performance: one hackbench run of 1 simulated second in the worker.
    let one = |groups: u32| format!(
        "[sim]\nkernel = \"6.6\"\nduration = \"1s\"\n[topology]\npreset = \"xeon-8260-2s\"\n[[workload]]\nkind = \"hackbench\"\nmode = \"process\"\nipc = \"pipe\"\ngroups = {groups}\nloops = 1000000\n"
    );
    let study = format!("{}[study]\nbase = \"6.6\"\ncompare = \"6.6+sis-filter\"\nseeds = [1]\n", one(4));
    let single = session.execute_async(&format!(
        r#"
        const done = arguments[arguments.length - 1];
        const w = new Worker('./study-worker_loader.js');
        const text = {text};
        let t0 = 0;
        w.onmessage = e => {{
          const m = JSON.parse(e.data);
          if (m.kind === 'ready') {{ w.postMessage(JSON.stringify({{ kind: 'plan', text }})); }}
          else if (m.kind === 'planned') {{ t0 = performance.now(); w.postMessage(JSON.stringify({{ kind: 'run', index: 0 }})); }}
          else {{ const ms = performance.now() - t0; w.terminate(); done({{ ms, reply: m.kind, events: m.value ? m.value.events : null, value: m.value ? m.value.value : null, message: m.message || null }}); }}
        }};
        w.onerror = e => done({{ error: String(e.message) }});
        "#,
        text = serde_json::to_string(&study).unwrap()
    ));
    eprintln!("e2e: one hackbench run (4 groups, process-pipe, xeon-8260-2s, 1 s simulated) in the worker: {single}");
    assert_eq!(single["reply"], json!("done"), "{single}");

    // 5. Performance: 4 loads × 5 seeds × 2 configurations of that workload
    //    through the page (1/20 of the simulated time unless asked for all).
    let full = std::env::var_os("SCHEDLAB_E2E_FULL_STUDY").is_some();
    let duration = if full { "1s" } else { "50ms" };
    let perf_study = format!(
        "# perf: hackbench on xeon-8260-2s\n[sim]\nkernel = \"6.6\"\nduration = \"{duration}\"\n[topology]\npreset = \"xeon-8260-2s\"\n[[workload]]\nkind = \"hackbench\"\nmode = \"process\"\nipc = \"pipe\"\nloops = 1000000\n\
         [study]\nbase = \"6.6\"\ncompare = \"6.6+sis-filter\"\nseeds = 5\nload = \"groups\"\nloads = [1, 2, 4, 8]\n"
    );
    js(&format!(
        r#"const a = document.querySelector('[data-testid="study-editor"]'); a.value = {t}; a.dispatchEvent(new Event('input', {{ bubbles: true }}));
           window.__schedlabPerf = {{}}; document.querySelector('[data-testid="study-run"]').click(); return true;"#,
        t = serde_json::to_string(&perf_study).unwrap()
    ));
    let t_study = Instant::now();
    let mut probes = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(if full { 3600 } else { 600 });
    loop {
        let p = progress();
        if p["total"] == json!(40) && p["done"] == json!(40) {
            break;
        }
        if Instant::now() > deadline {
            panic!("the perf study did not finish: {p}");
        }
        // While it runs: a click handled and painted within a frame or two?
        let probe = session.execute_async(
            r#"const done = arguments[arguments.length - 1];
               const t0 = performance.now(); const b = document.querySelector('[data-testid="study-sorted"]'); b.click();
               requestAnimationFrame(() => { done(performance.now() - t0); b.click(); });"#,
        );
        probes.push(probe.as_f64().unwrap_or(f64::MAX));
        thread::sleep(Duration::from_millis(1000));
    }
    let study_s = t_study.elapsed().as_secs_f64();
    let runs = js("return window.__schedlabPerf.study_run_ms || [];");
    let page_elapsed = progress();
    // The pool: one worker per core the browser reports, at most 8.
    let cores = js("return navigator.hardwareConcurrency || 1;").as_u64().unwrap_or(1);
    let workers = page_elapsed["workers"].as_u64().unwrap_or(0);
    assert_eq!(workers, cores.clamp(1, 8), "the study ran on {workers} workers with {cores} cores: {page_elapsed}");
    eprintln!("e2e: perf study ({duration} per run, 40 runs) in {study_s:.1} s; page says {page_elapsed}");
    session.screenshot(&out_dir.join("study-perf.png"));
    let probe_max = probes.iter().cloned().fold(0.0, f64::max);
    let scale = if full { 1.0 } else { 20.0 };
    let perf = json!({
        "single_run_1s_hackbench_4g_xeon_ms": single["ms"],
        "single_run_events": single["events"],
        "study_4x5x2_duration": duration,
        "study_4x5x2_wall_s": study_s,
        "study_4x5x2_wall_s_extrapolated_to_1s": study_s * scale,
        "study_workers": workers,
        "hardware_concurrency": cores,
        "study_run_ms": runs,
        "shrunk_study_8_runs_s": small_s,
        "click_latency_while_running_ms": responsive["click_to_frame_ms"],
        "click_probe_during_perf_study_ms": probes,
        "click_probe_max_ms": probe_max,
    });
    fs::write(out_dir.join("perf-study.json"), serde_json::to_string_pretty(&perf).unwrap()).expect("write perf-study.json");
    eprintln!("e2e: study perf: {perf}");
    assert!(probe_max <= 100.0, "the page froze while the study ran: {probes:?}");

    // 6. The comparison page: a preset that diverges, its marker, the jump.
    session.open_fresh(&format!("{base}#page=compare&cp=no-same-prio-preempt"));
    session.wait_for_css("[data-testid=\"compare-page\"]", MOUNT_TIMEOUT).expect("the comparison page");
    wait("the first difference", "const d = document.querySelector('[data-testid=\"divergence\"]'); return !!d && d.dataset.state === 'found';", Duration::from_secs(60));
    let marks = js(r#"return [...document.querySelectorAll('[data-testid="timeline"]')].map(c => c.dataset.markerEvent);"#);
    let sides = js(r#"return [...document.querySelectorAll('.div-side')].map(d => d.dataset.event);"#);
    eprintln!("e2e: compare markers {marks}, divergence events {sides}");
    assert_eq!(marks, sides);
    js(r#"document.querySelector('[data-testid="btn-jump-diff"]').click(); return true;"#);
    thread::sleep(Duration::from_millis(500));
    let at = js(r#"return [...document.querySelectorAll('.pane-when')].map(w => w.dataset.event);"#);
    eprintln!("e2e: after the jump the panes show events {at}");
    session.screenshot(&out_dir.join("compare.png"));
    wait("the delta table", "const d = document.querySelector('[data-testid=\"deltas\"]'); return !!d && d.dataset.state === 'ready';", Duration::from_secs(60));
    session.screenshot(&out_dir.join("compare-table.png"));

    let log = session.browser_log();
    let severe: Vec<_> = log.iter().filter(|e| e["level"] == "SEVERE").collect();
    assert!(severe.is_empty(), "browser console errors: {severe:#?}");
    session.close();
}

// ---------------------------------------------------------------- helpers ---

fn target_dir() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => manifest.join(dir), // join keeps absolute paths as they are
        None => manifest.join("target"),
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind 127.0.0.1:0")
        .port()
}

fn unique(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{name}-{}-{nanos}", std::process::id())
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(
        png.len() > 24 && &png[12..16] == b"IHDR",
        "PNG without IHDR"
    );
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&png[16..20]), be(&png[20..24]))
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(parent: &Path, name: &str) -> Self {
        let dir = parent.join(unique(name));
        fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------- static server ---

/// Serves a directory over HTTP/1.1 on 127.0.0.1 (random port), GET/HEAD
/// only, one thread per connection, `Connection: close`. Records every
/// request's path and status.
struct StaticServer {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<(String, u16)>>>,
}

impl StaticServer {
    fn start(root: PathBuf) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind static server");
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let root = Arc::new(root);
        let log2 = Arc::clone(&log);
        // The accept loop lives as long as the test process.
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (root, log) = (Arc::clone(&root), Arc::clone(&log2));
                thread::spawn(move || {
                    if let Some(entry) = serve_one(stream, &root) {
                        log.lock().unwrap().push(entry);
                    }
                });
            }
        });
        StaticServer { addr, log }
    }

    fn requests(&self) -> Vec<(String, u16)> {
        self.log.lock().unwrap().clone()
    }
}

fn serve_one(mut stream: TcpStream, root: &Path) -> Option<(String, u16)> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();

    let (status, body, ctype) = match resolve(root, &path) {
        _ if method != "GET" && method != "HEAD" => (405, Vec::new(), "text/plain"),
        Some(file) => match fs::read(&file) {
            Ok(bytes) => (200, bytes, content_type(&file)),
            Err(_) => (404, b"not found".to_vec(), "text/plain"),
        },
        None => (404, b"not found".to_vec(), "text/plain"),
    };
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    if method == "GET" {
        let _ = stream.write_all(&body);
    }
    let _ = stream.flush();
    Some((path, status))
}

/// Maps a URL path to a file under root; None if it escapes root or is absent.
fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_decode_str(url_path).decode_utf8().ok()?;
    let rel = Path::new(decoded.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let mut file = root.join(rel);
    if file.is_dir() {
        file = file.join("index.html");
    }
    file.is_file().then_some(file)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "toml" | "txt" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

// ---------------------------------------------------------- chromedriver ---

struct ChromeDriver {
    addr: SocketAddr,
    child: Child,
    log_path: PathBuf,
}

impl ChromeDriver {
    fn start(out_dir: &Path) -> Self {
        let bin =
            std::env::var_os("CHROMEDRIVER").unwrap_or_else(|| "/usr/bin/chromedriver".into());
        let port = free_port();
        let log_path = out_dir.join("chromedriver.log");
        let log = fs::File::create(&log_path).expect("create chromedriver.log");
        let child = Command::new(&bin)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start chromedriver {bin:?}: {e} (scripts/install-tools installs it)")
            });
        let mut driver = ChromeDriver {
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            child,
            log_path,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok((200, body)) = http(driver.addr, "GET", "/status", None) {
                if body["value"]["ready"] == json!(true) {
                    return driver;
                }
            }
            if let Ok(Some(status)) = driver.child.try_wait() {
                panic!(
                    "chromedriver exited with {status}; log: {}",
                    driver.log_path.display()
                );
            }
            if Instant::now() > deadline {
                panic!(
                    "chromedriver not ready on {} after 30s; log: {}",
                    driver.addr,
                    driver.log_path.display()
                );
            }
            thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request with a JSON body; returns status and JSON body.
/// Reads exactly the response's Content-Length (or its chunks): chromedriver
/// keeps connections open, so reading to EOF would hang.
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> io::Result<(u16, Value)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    // An async script answers when it calls back: allow it the session's
    // script timeout (900 s) rather than cutting it at the socket.
    let wait = if path.ends_with("/execute/async") { 900 } else { 120 };
    stream.set_read_timeout(Some(Duration::from_secs(wait)))?;
    let payload = body.map(|b| b.to_string()).unwrap_or_default();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if body.is_some() {
        req.push_str("Content-Type: application/json; charset=utf-8\r\n");
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n", payload.len()));
    stream.write_all(req.as_bytes())?;
    stream.write_all(payload.as_bytes())?;

    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other(format!("bad status line: {status_line:?}")))?;
    let (mut length, mut chunked) = (None, false);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or((&line, ""));
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        if name == "content-length" {
            length = value.parse::<usize>().ok();
        } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size_line = String::new();
            reader.read_line(&mut size_line)?;
            let size = usize::from_str_radix(size_line.split(';').next().unwrap().trim(), 16)
                .map_err(|_| io::Error::other(format!("bad chunk size {size_line:?}")))?;
            if size == 0 {
                break;
            }
            let mut chunk = vec![0; size + 2]; // data + CRLF
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        reader.read_exact(&mut body)?;
    } else {
        reader.read_to_end(&mut body)?;
    }
    let json = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body).map_err(|e| {
            io::Error::other(format!(
                "bad JSON ({e}): {}",
                String::from_utf8_lossy(&body)
            ))
        })?
    };
    Ok((status, json))
}

/// The dist/ to test and target/e2e, or None (the test is skipped) when
/// SCHEDLAB_E2E_DIST is not set.
fn dist_and_out_dir() -> Option<(PathBuf, PathBuf)> {
    let Some(dist) = std::env::var_os(DIST_VAR) else {
        eprintln!("e2e skipped: set {DIST_VAR}=path/to/dist (scripts/test does)");
        return None;
    };
    let dist = fs::canonicalize(&dist).unwrap_or_else(|e| panic!("{DIST_VAR}={dist:?}: {e}"));
    let out_dir = target_dir().join("e2e");
    fs::create_dir_all(&out_dir).expect("create target/e2e");
    Some((dist, out_dir))
}

/// Console errors (SEVERE entries) seen so far, as text.
fn console_errors(session: &Session) -> Vec<String> {
    session
        .browser_log()
        .iter()
        .filter(|e| e["level"] == "SEVERE")
        .map(|e| e["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Fails when the console shows any error, saying what was being done.
fn assert_no_console_errors(session: &Session, doing: &str) {
    let errors = console_errors(session);
    assert!(errors.is_empty(), "console errors after {doing}: {errors:#?}");
}

/// A study small enough to run in a second (10c): a sleeper beside three
/// hogs on two CPUs, 20 ms, 2 seeds, kernel 5.15 against 6.18.
const TINY_STUDY: &str = "# e2e: a sleeper beside hogs under CFS and EEVDF\n[sim]\nduration = \"20ms\"\nhz = 1000\n[topology]\npreset = \"2cpu-vm\"\n\
    [[task]]\nname = \"sleeper\"\nprogram = \"loop { run 300us; sleep 1ms }\"\n[[workload]]\nkind = \"hogs\"\n\
    [study]\nbase = \"5.15\"\ncompare = \"6.18\"\nseeds = 2\nload = \"count\"\nloads = [3]\n";

/// The comparison's table as shown: per task row its task, figure and the
/// texts of its base, patch, change and p cells; per workload total its
/// workload, figure text and the same four cells.
const DELTA_TABLE_JS: &str = r#"const cells = r => [...r.querySelectorAll('th, td')].map(c => c.textContent);
    return { rows: [...document.querySelectorAll('[data-testid="delta-row"]')].map(r => [r.dataset.task, r.dataset.metric, ...cells(r).slice(2)]),
             totals: [...document.querySelectorAll('[data-testid="total-row"]')].map(r => [r.dataset.workload, ...cells(r).slice(1)]),
             text: document.querySelector('[data-testid="deltas"] .buttons').textContent };"#;

/// Each exported SVG of a comparison pane (`arguments[0]`: the caught
/// files) parsed as XML (DOMParser, image/svg+xml) beside the pane's live
/// figure: parse errors, root element and namespace, viewBox, data-cfs,
/// the items' texts (tree nodes, eligibility bars, lag rows), the
/// vertical line's label, how many elements carry a resolved fill style,
/// how many still have a class, the background rectangle; for the
/// timeline the embedded image's size beside the canvas's.
const PANE_EXPORTS_JS: &str = r#"
    const files = arguments[0], out = {};
    const parse = t => new DOMParser().parseFromString(t, 'image/svg+xml');
    for (const side of ['base', 'patch']) {
      const pane = document.querySelector(`[data-testid="pane-${side}"]`);
      for (const [fig, id, item] of [['tree', 'tree', 'tree-node'], ['eligibility', 'elig', 'elig-bar'], ['lag', 'lag', 'lag-row']]) {
        const live = pane.querySelector(`svg[data-testid="${id}"]`);
        const f = files.find(f => f[0].startsWith(`schedlab-${side}-${fig}-cpu`) && f[0].endsWith('.svg'));
        if (!f) continue;
        const doc = parse(f[1]), root = doc.documentElement, err = doc.querySelector('parsererror');
        const items = r => [...r.querySelectorAll(`[data-testid="${item}"]`)].map(g => g.textContent);
        const vl = r => { const l = r.querySelector('[data-testid="v-line"]'); return l && l.nextElementSibling ? l.nextElementSibling.textContent : null; };
        const bg = root.firstElementChild;
        out[`${side}-${fig}`] = { name: f[0], error: err ? err.textContent.slice(0, 200) : null, root: root.localName, ns: root.namespaceURI,
          view_box: root.getAttribute('viewBox'), live_view_box: live.getAttribute('viewBox'),
          cfs: root.getAttribute('data-cfs'), live_cfs: live.getAttribute('data-cfs'),
          items: items(root), live_items: items(live), v_label: vl(root), live_v_label: vl(live),
          styled: root.querySelectorAll('[style*="fill:"]').length, classes: root.querySelectorAll('[class]').length,
          bg: bg ? [bg.localName, bg.getAttribute('width'), bg.getAttribute('fill')] : null };
      }
      const c = pane.querySelector('canvas[data-testid="timeline"]');
      const f = files.find(f => f[0] === `schedlab-${side}-timeline.svg`);
      const doc = parse(f ? f[1] : ''), img = doc.documentElement.querySelector('image');
      out[`${side}-timeline`] = { error: doc.querySelector('parsererror') ? 'parse error' : null, canvas: [String(c.width), String(c.height)],
        image: img ? [img.getAttribute('width'), img.getAttribute('height'), (img.getAttribute('href') || '').slice(0, 22)] : null };
    }
    return out;"#;

/// The sixteen files of both comparison panes' SVG and PNG buttons:
/// named `schedlab-{base,patch}-{tree,eligibility,lag}-cpuN.{svg,png}` and
/// `schedlab-{base,patch}-timeline.{svg,png}` (the two panes' files
/// apart), N the CPU both panes show. Each SVG is well-formed XML in the
/// SVG namespace with the pane's figure in it (PANE_EXPORTS_JS: the same
/// viewBox, data-cfs, items and line label as the live figure: CFS's
/// min_vruntime in the 5.15 pane, V in the 6.18 one), its styles
/// resolved (fill styles, no class left) on a background rectangle; a
/// figure's PNG is a slide 1920 px wide with the SVG's aspect ratio; the
/// timeline's SVG holds the canvas as a PNG image of its size, and its
/// PNG is that size.
fn check_pane_exports(session: &Session, files: &[(String, String)]) {
    let names: std::collections::BTreeSet<&str> = files.iter().map(|f| f.0.as_str()).collect();
    let cpu = files.iter().find_map(|f| f.0.strip_prefix("schedlab-base-tree-cpu")).and_then(|r| r.split('.').next()).unwrap_or_else(|| panic!("no tree file: {names:?}"));
    let mut want = std::collections::BTreeSet::new();
    for side in ["base", "patch"] {
        for fig in ["tree", "eligibility", "lag"] {
            for ext in ["svg", "png"] {
                want.insert(format!("schedlab-{side}-{fig}-cpu{cpu}.{ext}"));
            }
        }
        want.insert(format!("schedlab-{side}-timeline.svg"));
        want.insert(format!("schedlab-{side}-timeline.png"));
    }
    assert_eq!(names, want.iter().map(String::as_str).collect(), "the sixteen files, the panes' apart");
    let files_json: Vec<Value> = files.iter().map(|(n, c)| json!([n, c])).collect();
    let got = session.execute_with(PANE_EXPORTS_JS, json!([files_json]));
    let png_of = |name: &str| {
        let data = &files.iter().find(|f| f.0 == name).unwrap().1;
        let b64 = data.strip_prefix("data:image/png;base64,").unwrap_or_else(|| panic!("{name} is not a PNG data URL: {}", &data[..data.len().min(40)]));
        let png = BASE64.decode(b64).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{name} is not a PNG");
        png_size(&png)
    };
    for side in ["base", "patch"] {
        for fig in ["tree", "eligibility", "lag"] {
            let g = &got[format!("{side}-{fig}")];
            let what = format!("{side} {fig} SVG");
            assert_eq!((&g["error"], g["root"].as_str(), g["ns"].as_str()), (&Value::Null, Some("svg"), Some("http://www.w3.org/2000/svg")), "{what}: {g}");
            assert_eq!((&g["view_box"], &g["cfs"], &g["items"], &g["v_label"]), (&g["live_view_box"], &g["live_cfs"], &g["live_items"], &g["live_v_label"]), "{what} is the pane's figure: {g}");
            assert!(g["items"].as_array().is_some_and(|i| !i.is_empty()), "{what}: nothing drawn: {g}");
            assert!(g["styled"].as_u64().unwrap_or(0) > 3 && g["classes"] == json!(0), "{what}: styles resolved: {g}");
            assert_eq!((g["bg"][0].as_str(), g["bg"][1].as_str()), (Some("rect"), Some("20000")), "{what}: background: {g}");
            if fig == "eligibility" {
                assert_eq!(g["v_label"].as_str(), Some(if side == "base" { "min_vruntime" } else { "V" }), "{what}");
            }
            let vb: Vec<f64> = g["view_box"].as_str().unwrap_or_default().split_whitespace().filter_map(|x| x.parse().ok()).collect();
            let (w, h) = png_of(&format!("schedlab-{side}-{fig}-cpu{cpu}.png"));
            assert!(w == 1920 && (h as f64 - 1920.0 * vb[3] / vb[2]).abs() <= 1.0, "{side} {fig} PNG {w}×{h}, SVG viewBox {vb:?}");
        }
        let t = &got[format!("{side}-timeline")];
        let (w, h) = png_of(&format!("schedlab-{side}-timeline.png"));
        assert_eq!(&t["error"], &Value::Null, "{side} timeline SVG: {t}");
        assert_eq!((t["image"][0].as_str(), t["image"][1].as_str(), t["image"][2].as_str()), (t["canvas"][0].as_str(), t["canvas"][1].as_str(), Some("data:image/png;base64,")), "{side} timeline SVG: {t}");
        assert_eq!((w.to_string(), h.to_string()), (t["canvas"][0].as_str().unwrap_or_default().to_string(), t["canvas"][1].as_str().unwrap_or_default().to_string()), "{side} timeline PNG");
    }
    eprintln!("e2e: both panes' figures exported: {} files on CPU {cpu}, e.g. {}", files.len(), got["base-tree"]);
}

/// One line of CSV as the app writes it (engine `csv_field`: a field with
/// a comma, quote or line break is quoted, its quotes doubled).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A number as the table shows it and how far the shown digits may be
/// from the true value: half a unit of the last digit ("0" is exactly 0).
fn shown_number(s: &str) -> Option<(f64, f64)> {
    let s = s.trim().replace('−', "-");
    let v: f64 = s.parse().ok()?;
    let decimals = s.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    Some((v, if s == "0" { 1e-12 } else { 0.5 * 10f64.powi(-decimals) + 1e-9 }))
}

/// The comparison's CSV against its table as shown (`shown`: per task row
/// its task, figure and the texts of its base, patch, change and p cells;
/// per workload total the same after the workload's name): the header;
/// `runs` on every row; one `task` row per table row and one `workload
/// total` row per total row, no more; each mean and std (shown as `m ± s`),
/// change % (`▲ +1.2 %`) and Welch p (`p = 0.123 *`) equal to the table's
/// to its rounding, or empty where the table shows `–`.
fn check_compare_csv(csv: &str, shown: &Value, runs: u32) {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("scope,name,figure,unit,runs,base_mean,base_std,patch_mean,patch_std,change_pct,welch_p"), "the CSV's header");
    let rows: Vec<Vec<String>> = lines.map(csv_fields).collect();
    assert!(rows.iter().all(|r| r.len() == 11 && r[4] == runs.to_string()), "11 fields and {runs} runs on every row");
    let close = |csv_value: &str, cell: &str, what: &str| {
        if cell.trim() == "–" {
            assert_eq!(csv_value, "", "{what}: the table shows – , the CSV {csv_value:?}");
            return;
        }
        let (v, tol) = shown_number(cell).unwrap_or_else(|| panic!("{what}: not a number in the table: {cell:?}"));
        let x: f64 = csv_value.parse().unwrap_or_else(|_| panic!("{what}: not a number in the CSV: {csv_value:?}"));
        assert!((x - v).abs() <= tol, "{what}: CSV {x}, table {cell:?}");
    };
    let check_row = |csv_row: &[String], cells: &[Value], what: &str| {
        let cell = |i: usize| cells[i].as_str().unwrap_or_default().to_string();
        let (base, patch) = (cell(0), cell(1));
        let (bm, bs) = base.split_once(" ± ").unwrap_or_else(|| panic!("{what}: mean ± std over {runs} runs: {base:?}"));
        let (pm, ps) = patch.split_once(" ± ").unwrap_or_else(|| panic!("{what}: mean ± std over {runs} runs: {patch:?}"));
        close(&csv_row[5], bm, &format!("{what} base mean"));
        close(&csv_row[6], bs, &format!("{what} base std"));
        close(&csv_row[7], pm, &format!("{what} patch mean"));
        close(&csv_row[8], ps, &format!("{what} patch std"));
        close(&csv_row[9], cell(2).trim_start_matches(['▲', '▼', ' ']).trim_end_matches(" %"), &format!("{what} change %"));
        let p = cell(3);
        close(&csv_row[10], p.strip_prefix("p = ").map_or(p.as_str(), |r| r.split_whitespace().next().unwrap_or("")), &format!("{what} p"));
    };
    let table = shown["rows"].as_array().cloned().unwrap_or_default();
    let tasks: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == "task").collect();
    assert_eq!(tasks.len(), table.len(), "a CSV row per table row");
    for t in &table {
        let (task, figure) = (t[0].as_str().unwrap_or_default(), t[1].as_str().unwrap_or_default());
        let matching: Vec<&&Vec<String>> = tasks.iter().filter(|r| r[1] == task && r[2] == figure).collect();
        assert_eq!(matching.len(), 1, "one CSV row for {task} / {figure}");
        check_row(matching[0], &t.as_array().unwrap()[2..], &format!("{task} / {figure}"));
    }
    let totals = shown["totals"].as_array().cloned().unwrap_or_default();
    let csv_totals: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == "workload total").collect();
    assert_eq!(csv_totals.len(), totals.len(), "a CSV row per workload total");
    for (c, t) in csv_totals.iter().zip(&totals) {
        let t = t.as_array().unwrap();
        assert_eq!((t[0].as_str(), t[1].as_str().map(|f| f.starts_with(&format!("Σ {}", c[2])))), (Some(c[1].as_str()), Some(true)), "the totals in the table's order");
        check_row(c, &t[2..], &format!("total {} / {}", c[1], c[2]));
    }
    eprintln!("e2e: the comparison's CSV: {} task rows and {} totals, each as the table shows it ({})", tasks.len(), csv_totals.len(), shown["text"]);
}

/// What a student sees at the next twelve preemptions of the lecture
/// page's run (jumps of kind "preemption" from the start): the explainer,
/// the tree's nodes (x, key and name) and the eligibility panel's bars
/// (name, hover text, side text), both SVGs' data-cfs, the label of the
/// vertical line, the three panels' text (hover texts included).
const CFS_PROBE_JS: &str = r#"
    const done = arguments[arguments.length - 1];
    VIEWS_FN
    const raf = () => new Promise(r => requestAnimationFrame(() => r()));
    const q = (s, r = document) => r.querySelector(s);
    (async () => {
      q('[data-testid="btn-rewind"]').click(); await raf();
      const k = q('[data-testid="jump-kind"]'); k.value = 'preemption'; k.dispatchEvent(new Event('change', { bubbles: true }));
      const out = [];
      for (let i = 0; i < 12; i++) {
        q('[data-testid="btn-jump"]').click(); await raf(); await raf();
        out.push(Object.assign(views(document), {
          event: q('[data-testid="event-label"]').textContent,
          headline: q('[data-testid="explain-headline"]').textContent,
          lines: q('[data-testid="explain-lines"]').textContent,
          explainer: q('[data-testid="explainer"]').textContent,
        }));
      }
      done(out);
    })();"#;

/// A function `views(root)`: the tree and eligibility views inside root
/// (the lecture page or a comparison pane) as CFS_PROBE_JS describes.
const VIEWS_FN_JS: &str = r#"
    const views = root => {
      const q = s => root.querySelector(s);
      const tree = q('[data-testid="tree"]'), elig = q('[data-testid="elig"]');
      return {
        tree_cfs: tree.dataset.cfs, elig_cfs: elig.dataset.cfs,
        v_label: q('[data-testid="v-line"]').nextElementSibling.textContent,
        nodes: [...tree.querySelectorAll('[data-testid="tree-node"]')].map(g => ({ x: +g.querySelector('circle.node').getAttribute('cx'), key: g.querySelector('.node-key').textContent, key_w: g.querySelector('.node-key').getBBox().width, r: +g.querySelector('circle.node').getAttribute('r'), name: g.querySelector('.node-name').textContent })),
        bars: [...elig.querySelectorAll('[data-testid="elig-bar"]')].map(g => ({ name: g.dataset.name, title: g.querySelector('title').textContent, texts: [...g.querySelectorAll('text')].map(t => t.textContent) })),
        panels: ['tree-panel', 'elig-panel'].map(id => q(`[data-testid="${id}"]`).textContent),
        tree_head: q('[data-testid="tree-panel"] h2').textContent,
        elig_head: q('[data-testid="elig-panel"] h2').textContent,
      };
    };"#;

/// Checks CFS_PROBE_JS's findings on the run-to-parity preset under
/// `kernel`: CFS (v5.15) when `cfs`, else EEVDF (v6.18). Each half fails
/// on the other kernel's page.
///
/// CFS: both SVGs say data-cfs; the vertical line is min_vruntime; the
/// tree is "sorted by vruntime" and its nodes, left to right, carry
/// non-decreasing keys, each its entity's vruntime (the bar's hover
/// text); the panels hold no EEVDF word (deadline, eligible, request,
/// pick_eevdf, "V ="); each preemption's headline names check_preempt_tick()
/// or check_preempt_wakeup() (both occur) and the event's pick is
/// pick_next_entity(). The header's tunables are v5.15's defaults on one
/// CPU (factor 1 + ilog2(1) = 1): sched_latency 6 ms, min_granularity
/// 0.75 ms, wakeup_granularity 1 ms; with n entities of equal weight
/// queued (n ≤ sched_nr_latency = 6 / 0.75 = 8, so the period is
/// sched_latency) each bar's sched_slice() is 6 ms / n.
///
/// EEVDF: data-cfs false; the line is V; the panels speak of deadlines
/// and eligibility; the tree is sorted by deadline, each node's key its
/// entity's deadline; the headlines never name check_preempt_*() and the
/// pick is pick_eevdf().
fn check_cfs_view(seen: &Value, kernel: &str, cfs: bool) {
    let events = seen.as_array().cloned().unwrap_or_default();
    assert_eq!(events.len(), 12, "kernel {kernel}: {seen}");
    let (mut tick, mut wakeup, mut deep) = (0, 0, 0);
    for e in &events {
        let at = format!("kernel {kernel}, {}", e["event"].as_str().unwrap_or_default());
        deep += (check_views(e, cfs, &at, 1) >= 3) as u32;
        let text = |k: &str| e[k].as_str().unwrap_or_default().to_string();
        let (headline, lines) = (text("headline"), text("lines"));
        if cfs {
            let found: Vec<&&str> = EEVDF_WORDS.iter().filter(|w| text("explainer").contains(*w)).collect();
            assert!(found.is_empty(), "{at}: EEVDF words {found:?} in the explainer: {}", text("explainer"));
            let t = headline.contains("check_preempt_tick()");
            let w = headline.contains("check_preempt_wakeup()");
            assert!(t || w, "{at}: the preemption's headline names CFS's check: {headline}");
            tick += t as u32;
            wakeup += w as u32;
            assert!(lines.contains("pick_next_entity() (CFS)"), "{at}: the pick: {lines}");
        } else {
            assert!(headline.contains("deadline") && !headline.contains("check_preempt"), "{at}: {headline}");
            assert!(lines.contains("pick_eevdf()"), "{at}: the pick: {lines}");
        }
    }
    eprintln!("e2e: kernel {kernel} over 12 preemptions: {deep} with 3+ nodes in the tree; check_preempt_tick {tick}, check_preempt_wakeup {wakeup}; e.g. {}", events[0]["headline"]);
    assert!(deep >= 1, "kernel {kernel}: never 3 nodes in the tree");
    if cfs {
        assert!(tick >= 1 && wakeup >= 1, "kernel {kernel}: both CFS preemption checks occur (tick {tick}, wakeup {wakeup})");
    }
}

/// Words that are EEVDF's and wrong on a CFS page.
const EEVDF_WORDS: [&str; 5] = ["deadline", "eligib", "request", "pick_eevdf", "V ="];

/// The tree and eligibility views of VIEWS_FN_JS (`e`) of a run on
/// `cpus` CPUs, as check_cfs_view describes for CFS (`cfs`) or EEVDF;
/// returns the number of tree nodes. v5.15 scales its tunables by
/// 1 + ilog2(min(cpus, 8)) (SCHED_TUNABLESCALING_LOG): on 2 CPUs
/// sched_latency 12 ms, min_granularity 1.5 ms, wakeup_granularity 2 ms.
fn check_views(e: &Value, cfs: bool, at: &str, cpus: u32) -> usize {
    let factor = 1.0 + cpus.clamp(1, 8).ilog2() as f64;
    let text = |k: &str| e[k].as_str().unwrap_or_default().to_string();
    let flag = if cfs { "true" } else { "false" };
    assert_eq!((e["tree_cfs"].as_str(), e["elig_cfs"].as_str()), (Some(flag), Some(flag)), "{at}: data-cfs");
    assert_eq!(e["v_label"].as_str(), Some(if cfs { "min_vruntime" } else { "V" }), "{at}: the vertical line's label");
    let panels: Vec<String> = e["panels"].as_array().cloned().unwrap_or_default().iter().map(|p| p.as_str().unwrap_or_default().to_string()).collect();
    if cfs {
        for (p, name) in panels.iter().zip(["tree panel", "eligibility panel"]) {
            let found: Vec<&&str> = EEVDF_WORDS.iter().filter(|w| p.contains(*w)).collect();
            assert!(found.is_empty(), "{at}: EEVDF words {found:?} in the {name}: {p}");
        }
        assert!(text("tree_head").contains("sorted by vruntime (CFS"), "{at}: {}", text("tree_head"));
        let head = text("elig_head");
        let tunables = format!("sched_latency {:.2} ms, min_granularity {:.2} ms", 6.0 * factor, 0.75 * factor);
        assert!(head.starts_with("vruntime (CFS)") && head.contains(&tunables) && head.contains(&format!("wakeup_gran {:.2} ms", factor)), "{at}: {head}");
    } else {
        assert!(text("tree_head").contains("sorted by deadline"), "{at}: {}", text("tree_head"));
        assert!(text("elig_head").starts_with("Eligibility") && text("elig_head").contains("V = "), "{at}: {}", text("elig_head"));
        assert!(panels[1].contains("eligible: vruntime ≤ V") && panels[1].contains("deadline"), "{at}: {}", panels[1]);
    }
    // The tree's order and keys against the bars' hover texts.
    let after = |s: &str, key: &str| s.split(key).nth(1).and_then(|r| r.split(" ms").next()).map(|v| v.trim().to_string());
    let bars = e["bars"].as_array().cloned().unwrap_or_default();
    let mut nodes = e["nodes"].as_array().cloned().unwrap_or_default();
    nodes.sort_by(|a, b| a["x"].as_f64().unwrap_or(0.0).total_cmp(&b["x"].as_f64().unwrap_or(0.0)));
    let keys: Vec<f64> = nodes.iter().map(|n| n["key"].as_str().and_then(|k| k.replace('−', "-").parse().ok()).unwrap_or(f64::NAN)).collect();
    // Every key stays inside its node's circle (long keys are squeezed).
    for n in &nodes {
        let (w, r) = (n["key_w"].as_f64().unwrap_or(f64::NAN), n["r"].as_f64().unwrap_or(0.0));
        assert!(w <= 2.0 * r, "{at}: key {} is {w} wide in a circle of radius {r}", n["key"]);
    }
    assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{at}: the tree's keys left to right: {keys:?}");
    for n in &nodes {
        let name = n["name"].as_str().unwrap_or_default();
        let bar = bars.iter().find(|b| b["name"].as_str() == Some(name)).unwrap_or_else(|| panic!("{at}: no bar for node {name}: {bars:?}"));
        let title = bar["title"].as_str().unwrap_or_default();
        let want = after(title, if cfs { "vruntime " } else { "deadline " });
        assert_eq!(n["key"].as_str().map(str::to_string), want, "{at}: node {name}'s key is its {} ({title:?})", if cfs { "vruntime" } else { "deadline" });
    }
    if cfs {
        let slice = format!("{:.2}", 6.0 * factor / bars.len() as f64);
        for b in &bars {
            let side = b["texts"].as_array().and_then(|t| t.last()).and_then(|t| t.as_str()).unwrap_or_default();
            assert!(side.ends_with(&format!("slice {slice} ms")), "{at}: {n} bars of equal weight: sched_slice = sched_latency / {n} = {slice} ms, shown {side:?}", n = bars.len());
        }
    }
    nodes.len()
}


/// Stubs for the browser's ends of a download and of "open in Perfetto",
/// in `window.__e2eOut`: every Blob given an object URL (`blobs`), every
/// click on a download anchor (`saved`: its file name and href; nothing is
/// saved), and every window.open (`windows`): a fake window whose
/// postMessage records each message and answers the third PING with a
/// PONG from Perfetto UI's origin (as a UI still loading would).
const DOWNLOAD_STUBS_JS: &str = r#"
    if (window.__e2eOut) return true;
    const t = window.__e2eOut = { blobs: [], saved: [], windows: [] };
    const create = URL.createObjectURL;
    URL.createObjectURL = function (b) { const u = create.call(URL, b); if (b instanceof Blob) t.blobs.push({ url: u, blob: b }); return u; };
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function () {
      if (this.hasAttribute('download')) { t.saved.push({ name: this.getAttribute('download'), href: this.href }); return; }
      return click.call(this);
    };
    window.open = function (url, target) {
      const w = { url: String(url), target: String(target), posts: [], pings: 0 };
      t.windows.push(w);
      return { closed: false, postMessage(msg, origin) {
        w.posts.push({ msg, origin });
        if (msg === 'PING' && ++w.pings === 3)
          setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data: 'PONG', origin: 'https://ui.perfetto.dev' })), 0);
      } };
    };
    return true;"#;

/// The downloads caught by DOWNLOAD_STUBS_JS from index `arguments[0]`
/// on: `[name, content]`, the content a Blob's text or a data URL.
const SAVED_JS: &str = r#"
    const done = arguments[arguments.length - 1];
    const t = window.__e2eOut;
    (async () => {
      const out = [];
      for (const s of t.saved.slice(arguments[0])) {
        const b = t.blobs.find(b => b.url === s.href);
        out.push([s.name, s.href.startsWith('data:') ? s.href : b ? await b.blob.text() : null]);
      }
      done(out);
    })();"#;

/// The downloads caught since the `from`-th one.
fn saved_downloads(session: &Session, from: usize) -> Vec<(String, String)> {
    let v = session.cmd("POST", "/execute/async", Some(json!({ "script": SAVED_JS, "args": [from] })));
    v.as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| (d[0].as_str().unwrap_or_default().to_string(), d[1].as_str().unwrap_or_default().to_string()))
        .collect()
}

/// A run's two trace buttons, clicked as a user does (DOWNLOAD_STUBS_JS
/// installed): `btn-trace-{label}`, then `btn-perfetto-{label}`. Returns
/// the downloaded file's name and text, and what the Perfetto window got:
/// its URL and target, the messages before the buffer, how many after,
/// and the buffer with its title and file name.
fn trace_buttons(session: &Session, label: &str, shot: &Path) -> (String, String, Value) {
    let counts = session.execute("const t = window.__e2eOut; return [t.saved.length, t.windows.length];");
    let (saved, windows) = (counts[0].as_u64().unwrap_or(0), counts[1].as_u64().unwrap_or(0));
    session.click_css(&format!("[data-testid=\"btn-trace-{label}\"]"));
    session.wait_true(&format!("{label}'s trace download"), &format!("const t = window.__e2eOut; return t.saved.length === {} && t.blobs.some(b => b.url === t.saved[{saved}].href);", saved + 1), Duration::from_secs(20), shot);
    session.click_css(&format!("[data-testid=\"btn-perfetto-{label}\"]"));
    session.wait_true(&format!("{label}'s buffer posted to Perfetto"), &format!("const w = window.__e2eOut.windows[{windows}]; return !!w && w.posts.some(p => typeof p.msg === 'object');"), Duration::from_secs(20), shot);
    // Past the post: no PING after it (the page stopped its interval).
    thread::sleep(Duration::from_millis(300));
    let (name, text) = saved_downloads(session, saved as usize).remove(0);
    let got = session.execute_with(
        r#"const w = window.__e2eOut.windows[arguments[0]];
           const at = w.posts.findIndex(p => typeof p.msg === 'object');
           const p = w.posts[at].msg.perfetto || {};
           return { opened: [w.url, w.target], opened_after: window.__e2eOut.windows.length - arguments[0] - 1,
                    before: w.posts.slice(0, at).map(x => [x.msg, x.origin]), after: w.posts.length - at - 1, origin: w.posts[at].origin,
                    is_buffer: p.buffer instanceof ArrayBuffer, buffer: p.buffer instanceof ArrayBuffer ? new TextDecoder().decode(p.buffer) : null,
                    title: p.title, file: p.fileName };"#,
        json!([windows]),
    );
    (name, text, got)
}

/// Perfetto UI's postMessage protocol as the page must speak it: one
/// window, on Perfetto UI's origin, in a new tab; PING (to that origin)
/// until the PONG, which came at the third; then the trace once, as an
/// ArrayBuffer holding the bytes of the download, titled with its file
/// name; no PING after it.
fn check_perfetto_handoff(got: &Value, name: &str, trace: &str) {
    assert_eq!((&got["opened"], &got["opened_after"]), (&json!(["https://ui.perfetto.dev", "_blank"]), &json!(0)), "one window, Perfetto UI's: {got}");
    let before = got["before"].as_array().cloned().unwrap_or_default();
    assert!(before.len() >= 3 && before.iter().all(|m| *m == json!(["PING", "https://ui.perfetto.dev"])), "PING (to Perfetto's origin) until PONG, which came at the third: {before:?}");
    assert_eq!((got["origin"].as_str(), got["after"].as_u64()), (Some("https://ui.perfetto.dev"), Some(0)), "the buffer goes once to Perfetto's origin, and the pings stop: {got}");
    assert_eq!(got["is_buffer"], json!(true), "perfetto.buffer is an ArrayBuffer");
    assert!(got["buffer"].as_str() == Some(trace), "Perfetto gets the bytes of the download ({name})");
    assert_eq!((got["title"].as_str(), got["file"].as_str()), (Some(name), Some(name)));
}

/// Font sizes in projector mode, over the whole page shown: every visible
/// HTML element with text of its own, and every SVG label at its size on
/// the screen (font size × the SVG's scale), the machine map's corner
/// badges (W, P, the scan order, F) too; `badges` counts those. Not
/// counted: the key help. With `arguments[0]` = 'record' each element
/// keeps its size (data-e2e-fs); with 'compare' the sizes are compared to
/// the recorded ones.
const PROJECTOR_LABELS_JS: &str = r#"
    const mode = arguments[0];
    const out = { big: document.querySelector('[data-testid="app"]').classList.contains('big'), html: 0, svg: 0, badges: {}, small: [], nsmall: 0, same: 0, changed: 0 };
    for (const e of document.querySelectorAll('.app *')) {
      if (e.closest('svg') || e.closest('[data-testid="key-help"]')) continue;
      if (![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim().length > 0)) continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const fs = parseFloat(getComputedStyle(e).fontSize);
      out.html++;
      if (fs < 17.99) { out.nsmall++; if (out.small.length < 20) out.small.push(`${e.tagName}.${e.className} ${fs}px: ${e.textContent.trim().slice(0, 40)}`); }
      if (mode === 'record') e.dataset.e2eFs = fs;
      else if (mode === 'compare' && e.dataset.e2eFs !== undefined) { if (+e.dataset.e2eFs === fs) out.same++; else out.changed++; }
    }
    for (const svg of document.querySelectorAll('.app svg[viewBox]')) {
      const w = svg.getBoundingClientRect().width, vb = svg.viewBox.baseVal;
      if (w === 0 || !vb.width) continue;
      for (const t of svg.querySelectorAll('text')) {
        if (!t.textContent.trim()) continue;
        const px = parseFloat(getComputedStyle(t).fontSize) * w / vb.width;
        out.svg++;
        const badge = t.closest('.scan-badge, .waker-badge, .prev-badge, .filtered-mark');
        if (badge) { const k = badge.getAttribute('class'); out.badges[k] = (out.badges[k] || 0) + 1; }
        if (px < 17.99) { out.nsmall++; if (out.small.length < 20) out.small.push(`svg ${svg.dataset.testid} ${px.toFixed(1)}px: ${t.textContent.trim().slice(0, 30)}`); }
      }
    }
    return out;"#;

/// Records the CSS px size of every canvas text drawn from now on
/// (fillText's font size × the context's scale × shown width / bitmap
/// width) in `window.__e2eText`, by the canvas's data-testid.
const CANVAS_TEXT_JS: &str = r#"
    window.__e2eText = [];
    if (!window.__e2eTextWrapped) {
      window.__e2eTextWrapped = true;
      const orig = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (t, x, y, ...rest) {
        const c = this.canvas, m = this.getTransform();
        if (c.dataset && c.dataset.testid && c.clientWidth > 0)
          window.__e2eText.push({ id: c.dataset.testid, px: parseFloat(/([0-9.]+)px/.exec(this.font)[1]) * Math.hypot(m.a, m.b) * c.clientWidth / c.width });
        return orig.call(this, t, x, y, ...rest);
      };
    }
    return true;"#;

/// `b` on the page shown (issue 13: "`b` works on every page"), pressed as
/// a key: projector mode comes on (the app root's class `big`) with every
/// label at least 18 px (PROJECTOR_LABELS_JS, and the text of every
/// canvas, drawn again in projector mode), where before some were smaller;
/// `b` again turns it off and every element has its font size of before,
/// the canvases' text too.
fn check_projector_key(session: &Session, page: &str, shot: &Path) {
    let labels = |mode: &str| session.execute_with(PROJECTOR_LABELS_JS, json!([mode]));
    let canvases = "return [...new Set([...document.querySelectorAll('.app canvas[data-testid]')].filter(c => c.clientWidth > 0).map(c => c.dataset.testid))];";
    let drawn = |what: &str| {
        let ids = session.execute(canvases);
        session.wait_true(
            &format!("{page}: every canvas drawn again {what}"),
            &format!("const ids = {ids}; return ids.every(id => window.__e2eText.some(t => t.id === id));"),
            Duration::from_secs(10),
            shot,
        );
        thread::sleep(Duration::from_millis(200));
        session.execute("const p = window.__e2eText.map(t => t.px); return { n: p.length, min: Math.min(...p), max: Math.max(...p) };")
    };
    let before = labels("record");
    assert_eq!(before["big"], json!(false), "{page}: projector mode is off to begin with: {before}");
    assert!(before["nsmall"].as_u64().unwrap_or(0) > 0, "{page}: without projector mode some labels are under 18 px (else this check proves nothing): {before}");
    // Press b; once the page has changed mode and drawn its canvases
    // again, their text sizes and PROJECTOR_LABELS_JS's findings.
    let toggle = |on: bool| {
        session.execute(CANVAS_TEXT_JS);
        session.press_key("b");
        let what = if on { "b turns projector mode on" } else { "b again turns it off" };
        session.wait_true(&format!("{page}: {what}"), &format!("return document.querySelector('[data-testid=\"app\"]').classList.contains('big') === {on};"), Duration::from_secs(5), shot);
        let canvas = drawn(if on { "in projector mode" } else { "after projector mode" });
        thread::sleep(Duration::from_millis(300));
        (canvas, labels(if on { "" } else { "compare" }))
    };
    let (canvas_on, on) = toggle(true);
    eprintln!("e2e: {page} in projector mode (b): {} HTML and {} SVG labels, {} under 18 px; canvas text {canvas_on}", on["html"], on["svg"], on["nsmall"]);
    assert_eq!(on["nsmall"], json!(0), "{page}: labels under 18 px in projector mode: {on}");
    assert!(on["html"].as_u64().unwrap_or(0) > 20, "{page}: {on}");
    if canvas_on["n"].as_u64().unwrap_or(0) > 0 {
        assert!(canvas_on["min"].as_f64().unwrap_or(0.0) >= 17.99, "{page}: canvas text under 18 px in projector mode: {canvas_on}");
    }
    let (canvas_off, off) = toggle(false);
    eprintln!("e2e: {page} after b again: {} elements at their size of before, {} not; canvas text {canvas_off}", off["same"], off["changed"]);
    assert!(off["changed"] == json!(0) && off["same"].as_u64().unwrap_or(0) > 20, "{page}: b again restores every font size: {off}");
    assert_eq!(off["nsmall"], before["nsmall"], "{page}: as many small labels as before: {off} vs {before}");
    if canvas_off["n"].as_u64().unwrap_or(0) > 0 {
        assert!(canvas_off["max"].as_f64().unwrap_or(99.0) < 17.99, "{page}: the canvases' text is small again: {canvas_off}");
    }
}

/// Which page's root element is shown.
const PAGE_ROOTS: [(&str, &str); 3] = [("lecture", "controls"), ("compare", "compare-page"), ("study", "study-page")];

/// The page walk (issue 13): from a fresh load of each page, every ordered
/// pair of pages by the header's buttons, and the cross-page actions (a
/// study cell and a comparison pane open their run in the lecture view);
/// any console error fails. Then, at 1280 × 720: the projector layout
/// (headline, tree and V line on screen, labels of 18 px) and `b` on the
/// Lecture, Compare and Studies pages (check_projector_key), quiz mode from
/// a link, the figure and table exports (the lecture's figures, the study
/// table and charts, both comparison panes' figures and the comparison's
/// CSV against the table shown), the comparison's panes drawn as CFS and
/// EEVDF, links that carry the comparison's
/// CPU and seeds and the study's shrink, a link cut short, the copy
/// feedback, the trace buttons of the lecture run, both comparison panes
/// and a study cell (download, open in Perfetto against a stub
/// window) and a recorded trace chosen to import, and a seeded monkey (random clicks and keys for
/// SCHEDLAB_E2E_MONKEY_SECS seconds, default 30; 600 for the issue's ten
/// minutes). Screenshots: target/e2e/walk-*.png.
#[test]
fn page_walk_quiz_exports_links_and_monkey_in_headless_chromium() {
    let Some((dist, out_dir)) = dist_and_out_dir() else { return };
    let server = StaticServer::start(dist.clone());
    let driver = ChromeDriver::start(&out_dir);
    let profile = TempDir::new(&out_dir, "chrome-profile-walk");
    let session = Session::new_sized(&driver, &profile.0, (1280, 720));
    session.set_script_timeout(900_000);
    let base = format!("http://{}/", server.addr);
    let js = |script: &str| session.execute(script);
    let shot = out_dir.join("walk-timeout.png");
    let wait = |what: &str, script: &str, timeout: Duration| session.wait_true(what, script, timeout, &shot);
    let open = |frag: &str| {
        session.open_fresh(&format!("{base}#{frag}"));
        session
            .wait_for_css("[data-testid=\"app\"]", MOUNT_TIMEOUT)
            .unwrap_or_else(|e| panic!("#{frag}: app did not mount: {e}"));
    };
    let t_walk = Instant::now();

    // 1. Every ordered pair of pages, from a fresh load of each: the walk
    //    L C L S C S L (and its rotations) takes each of the six pairs once.
    let shown = |page: &str| {
        let (_, root) = PAGE_ROOTS.iter().find(|p| p.0 == page).unwrap();
        let others: Vec<String> = PAGE_ROOTS.iter().filter(|p| p.0 != page).map(|p| format!("!document.querySelector('[data-testid=\"{}\"]')", p.1)).collect();
        format!(
            "return document.querySelector('[data-testid=\"app\"]').dataset.page === '{page}' && !!document.querySelector('[data-testid=\"{root}\"]') && {};",
            others.join(" && ")
        )
    };
    for (start, walk) in [
        ("lecture", ["compare", "lecture", "study", "compare", "study", "lecture"]),
        ("compare", ["lecture", "compare", "study", "lecture", "study", "compare"]),
        ("study", ["compare", "study", "lecture", "compare", "lecture", "study"]),
    ] {
        open(&format!("page={start}"));
        wait(&format!("fresh {start}"), &shown(start), Duration::from_secs(30));
        let mut from = start;
        for to in walk {
            js(&format!("document.querySelector('[data-testid=\"nav-{to}\"]').click(); return true;"));
            wait(&format!("{from} → {to}"), &shown(to), Duration::from_secs(30));
            // Let effects, timers and animation frames of both pages run.
            thread::sleep(Duration::from_millis(400));
            assert_no_console_errors(&session, &format!("{from} → {to} (fresh load at {start})"));
            from = to;
        }
    }
    session.screenshot(&out_dir.join("walk-pages.png"));

    // 2. Cross-page actions after the comparison was opened: a comparison
    //    pane's run, then a study cell's run, in the lecture view.
    open("page=compare&cp=reweight-fix");
    wait("the comparison", &shown("compare"), Duration::from_secs(30));
    js("document.querySelector('[data-testid=\"open-lecture-patch\"]').click(); return true;");
    wait("the pane's run in the lecture view", &shown("lecture"), Duration::from_secs(30));
    assert_no_console_errors(&session, "compare → lecture (open the patch pane's run)");
    js("document.querySelector('[data-testid=\"nav-study\"]').click(); return true;");
    wait("the study page", &shown("study"), Duration::from_secs(30));
    js(r#"const s = document.querySelector('[data-testid="study-preset"]'); s.value = 'seed-002-hackbench'; s.dispatchEvent(new Event('change', { bubbles: true }));
          const n = document.querySelector('[data-testid="study-seeds"]'); n.value = '1'; n.dispatchEvent(new Event('change', { bubbles: true }));
          for (const c of document.querySelectorAll('[data-testid="load-choice"]')) if (+c.dataset.index >= 1) c.click();
          for (const c of document.querySelectorAll('[data-testid="case-choice"]')) if (+c.dataset.index >= 1) c.click();
          return true;"#);
    wait("the shrunk study's link", "return location.hash.includes('ss=1') && location.hash.includes('sl=0') && location.hash.includes('sc=0');", Duration::from_secs(5));
    js("document.querySelector('[data-testid=\"study-run\"]').click(); return true;");
    wait("the study (2 runs)", "const p = document.querySelector('[data-testid=\"study-progress\"]'); return +p.dataset.total === 2 && +p.dataset.done === 2;", Duration::from_secs(120));
    js(r#"document.querySelector('[data-testid="study-cell"][data-row="0"][data-config="1"] button').click(); return true;"#);
    wait("the cell's run in the lecture view", &shown("lecture"), Duration::from_secs(30));
    thread::sleep(Duration::from_millis(400));
    assert_no_console_errors(&session, "study cell → lecture after the comparison was opened");
    js("document.querySelector('[data-testid=\"back-to-study\"]').click(); return true;");
    wait("back to the study", &shown("study"), Duration::from_secs(10));

    // 3. Exports: the study table (CSV, mail text), a chart as SVG.
    js("window.__schedlabExports = {}; return true;");
    js("document.querySelector('[data-testid=\"study-csv\"]').click(); document.querySelector('[data-testid=\"study-mail\"]').click(); document.querySelector('[data-testid=\"chart-svg\"][data-chart=\"cdf\"]').click(); return true;");
    wait("the study exports", "const e = window.__schedlabExports; return !!e['schedlab-study.csv'] && !!e['schedlab-study.txt'] && !!e['schedlab-study-cdf.svg'];", Duration::from_secs(10));
    let ex = js("return window.__schedlabExports;");
    let csv = ex["schedlab-study.csv"].as_str().unwrap_or("");
    assert!(csv.starts_with("case,load,config,role,runs,mean,std_pct,change_pct,same_schedules,seed "), "{csv}");
    assert_eq!(csv.lines().count(), 1 + 2, "one row × two configurations: {csv}");
    assert!(ex["schedlab-study.txt"].as_str().unwrap_or("").starts_with("hackbench\n=========\n"), "{ex}");
    assert!(ex["schedlab-study-cdf.svg"].as_str().unwrap_or("").contains("<polyline"), "{ex}");

    // 3b. The study charts (issue 13: drawn at 844 × 240, shown at
    //     427 × 123, 5 px text; white in dark mode): at a device pixel
    //     ratio of 2 each canvas's bitmap is its shown size × 2 and every
    //     label is at least 12 CSS px (fillText's font size × the context's
    //     scale × shown width / bitmap width, recorded by a wrapped fillText); in dark mode the charts are
    //     dark with light text, and the exported SVG stays light.
    let cdp = |cmd: &str, params: Value| session.cmd("POST", "/goog/cdp/execute", Some(json!({ "cmd": cmd, "params": params })));
    cdp("Emulation.setDeviceMetricsOverride", json!({ "width": 1280, "height": 720, "deviceScaleFactor": 2, "mobile": false }));
    js(r#"window.__schedlabText = [];
          const orig = CanvasRenderingContext2D.prototype.fillText;
          CanvasRenderingContext2D.prototype.fillText = function (t, x, y, ...rest) {
            // The context's scale (of a rotated label too: |(a, b)|).
            const c = this.canvas, m = this.getTransform();
            if (c.classList.contains('plot')) window.__schedlabText.push({ id: c.dataset.testid, text: String(t), css_px: parseFloat(/([0-9.]+)px/.exec(this.font)[1]) * Math.hypot(m.a, m.b) * c.clientWidth / c.width });
            return orig.call(this, t, x, y, ...rest);
          };
          window.dispatchEvent(new Event('resize')); return true;"#);
    wait("the charts redrawn at ratio 2", "return devicePixelRatio === 2 && [...document.querySelectorAll('canvas.plot')].every(c => Math.abs(c.width - c.clientWidth * 2) <= 1) && window.__schedlabText.length > 20;", Duration::from_secs(10));
    let sizes = js(r#"return { dpr: devicePixelRatio, canvases: [...document.querySelectorAll('canvas.plot')].map(c => ({ id: c.dataset.testid, w: c.width, h: c.height, cw: c.clientWidth, ch: c.clientHeight })),
                              min_label: Math.min(...window.__schedlabText.map(t => t.css_px)), labels: window.__schedlabText.length,
                              small: window.__schedlabText.filter(t => t.css_px < 12).slice(0, 5) };"#);
    eprintln!("e2e: study charts at ratio 2: {sizes}");
    for c in sizes["canvases"].as_array().cloned().unwrap_or_default() {
        let f = |k: &str| c[k].as_f64().unwrap_or(0.0);
        assert!(f("cw") >= 300.0 && f("ch") >= 200.0, "a chart shown too small: {c}");
        assert!((f("w") - 2.0 * f("cw")).abs() <= 1.0 && (f("h") - 2.0 * f("ch")).abs() <= 1.0, "bitmap is not the shown size × 2: {c}");
    }
    assert!(sizes["min_label"].as_f64().unwrap_or(0.0) >= 11.99, "chart labels under 12 CSS px: {sizes}");
    // Dark mode: the canvas's corner is the dark panel; its title is light.
    let chart_colours = r#"return [...document.querySelectorAll('canvas.plot')].map(c => {
          const g = c.getContext('2d'), k = c.width / c.clientWidth;
          const luma = d => 0.299 * d[0] + 0.587 * d[1] + 0.114 * d[2];
          const bg = luma(g.getImageData(2 * k, 2 * k, 1, 1).data);
          const t = g.getImageData(8 * k, 4 * k, 200 * k, 14 * k).data; let light = 0, dark = 0;
          for (let i = 0; i < t.length; i += 4) { const l = luma(t.slice(i, i + 3)); if (l > 150) light++; if (l < 100) dark++; }
          return { id: c.dataset.testid, bg, light, dark };
        });"#;
    let light_mode = js(chart_colours);
    cdp("Emulation.setEmulatedMedia", json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] }));
    wait("the charts redrawn dark", "return [...document.querySelectorAll('canvas.plot')].every(c => { const d = c.getContext('2d').getImageData(4, 4, 1, 1).data; return d[0] < 60 && d[1] < 60 && d[2] < 60; });", Duration::from_secs(10));
    let dark_mode = js(chart_colours);
    eprintln!("e2e: study chart colours, light: {light_mode}; dark: {dark_mode}");
    for (l, d) in light_mode.as_array().cloned().unwrap_or_default().iter().zip(dark_mode.as_array().cloned().unwrap_or_default()) {
        assert!(l["bg"].as_f64().unwrap_or(0.0) > 240.0 && l["dark"].as_u64().unwrap_or(0) > 40, "light chart: {l}");
        // Text at least 100 luma levels from the background, as much ink as in light mode.
        assert!(d["bg"].as_f64().unwrap_or(255.0) < 60.0 && d["light"].as_u64().unwrap_or(0) > 40, "dark chart: {d}");
    }
    js("window.__schedlabExports = {}; document.querySelector('[data-testid=\"chart-svg\"][data-chart=\"cdf\"]').click(); return true;");
    wait("the chart exported in dark mode", "return !!(window.__schedlabExports || {})['schedlab-study-cdf.svg'];", Duration::from_secs(5));
    let svg = js("return window.__schedlabExports['schedlab-study-cdf.svg'];");
    assert!(svg.as_str().unwrap_or("").contains(r##"opacity="1" fill="#FFFFFF" stroke="none"/>"##), "the exported chart is not light: {svg}");
    session.screenshot(&out_dir.join("walk-study-dark.png"));
    cdp("Emulation.setEmulatedMedia", json!({ "features": [] }));
    cdp("Emulation.clearDeviceMetricsOverride", json!({}));
    assert_no_console_errors(&session, "the study charts at ratio 2 and in dark mode");

    // 3c. `b` on the Studies page (its charts drawn again at 18 px).
    check_projector_key(&session, "Studies", &shot);

    // 4. A comparison link with its CPU and seeds; its table exported.
    open("page=compare&cp=sis-filter&cpu=3&n=2");
    wait("the comparison on CPU 3 over 2 seeds", "const r = document.querySelector('[data-testid=\"runs\"]'); const h = document.querySelector('[data-testid=\"pane-base\"] [data-testid=\"tree-panel\"] h2'); return !!r && r.value === '2' && !!h && h.textContent.includes('CPU 3 (chosen)');", Duration::from_secs(30));
    wait("the table over 2 seeds", "const d = document.querySelector('[data-testid=\"deltas\"]'); return !!d && d.dataset.state === 'ready' && d.dataset.runs === '2';", Duration::from_secs(240));
    wait("the behavioural difference", "const d = document.querySelector('[data-testid=\"divergence\"]'); return !!d && d.dataset.state !== 'computing';", Duration::from_secs(120));
    let div = js("const d = document.querySelector('[data-testid=\"divergence\"]'); return { state: d.dataset.state, fields: d.dataset.fields || '', rows: document.querySelectorAll('[data-testid=\"div-field\"]').length, diff: document.querySelectorAll('[data-testid=\"log-diff-base\"] tr').length, p: document.querySelectorAll('[data-testid=\"delta-p\"]').length, totals: document.querySelectorAll('[data-testid=\"total-row\"]').length, elig: document.querySelectorAll('[data-testid=\"pane-patch\"] [data-testid=\"elig-panel\"]').length, links: document.querySelectorAll('[data-testid=\"patch-source\"]').length };");
    eprintln!("e2e: comparison: {div}");
    assert_eq!(div["state"], json!("found"), "{div}");
    assert!(div["rows"].as_u64().unwrap_or(0) >= 1 && div["diff"].as_u64().unwrap_or(0) >= 2, "{div}");
    assert!(div["p"].as_u64().unwrap_or(0) > 0 && div["totals"].as_u64().unwrap_or(0) > 0 && div["elig"] == json!(1) && div["links"].as_u64().unwrap_or(0) >= 1, "{div}");
    js("document.querySelector('[data-testid=\"sort-change\"]').click(); const f = document.querySelector('[data-testid=\"delta-filter\"]'); f.value = 'p99'; f.dispatchEvent(new Event('input', { bubbles: true })); return true;");
    wait("the filtered table", "const r = [...document.querySelectorAll('[data-testid=\"delta-row\"]')]; return r.length > 0 && r.every(x => x.dataset.metric.includes('p99'));", Duration::from_secs(5));
    // The CSV as a user gets it: a click on "download CSV", the file
    // caught at the download anchor. Then the table unfiltered: the CSV
    // has its header, a row per task and figure of the table and one per
    // workload total, with the numbers the table shows (to their rounding).
    js(DOWNLOAD_STUBS_JS);
    session.click_css("[data-testid=\"delta-csv\"]");
    wait("the comparison's CSV", "return window.__e2eOut.saved.length === 1;", Duration::from_secs(5));
    let (csv_name, csv) = saved_downloads(&session, 0).remove(0);
    assert_eq!(csv_name, "schedlab-compare.csv");
    js("const f = document.querySelector('[data-testid=\"delta-filter\"]'); f.value = ''; f.dispatchEvent(new Event('input', { bubbles: true })); return true;");
    wait("the whole table", "const d = document.querySelector('[data-testid=\"deltas\"]'); return document.querySelectorAll('[data-testid=\"delta-row\"]').length === +d.dataset.shown && !document.querySelector('[data-testid=\"delta-filter\"]').value;", Duration::from_secs(5));
    let table_shown = js(DELTA_TABLE_JS);
    check_compare_csv(&csv, &table_shown, 2);
    wait("the link keeps CPU and seeds", "return location.hash.includes('cpu=3') && location.hash.includes('n=2');", Duration::from_secs(5));
    assert_no_console_errors(&session, "the comparison link");
    session.screenshot(&out_dir.join("walk-compare.png"));

    // 4b. Both panes choose their configuration with the same control (a
    //     text box with the same suggestions); a CPU chosen on a lane of
    //     the timeline (found by its hover text) is dropped for CPU 0 when
    //     another comparison preset is chosen.
    // Opened by a link while the comparison over 2 seeds is shown (a hash
    // change, as a link followed in the page): a link without n= is of one
    // seed, whatever was shown before.
    session.navigate(&format!("{base}#page=compare&cp=eevdf-vs-cfs"));
    wait("one seed again", "const r = document.querySelector('[data-testid=\"runs\"]'); return location.hash.includes('cp=eevdf-vs-cfs') && !!r && r.value === '1';", Duration::from_secs(30));
    thread::sleep(Duration::from_millis(400));
    assert!(!js("return location.hash;").as_str().unwrap_or_default().contains("n="), "the link written back has no n=");
    wait("the comparison's panes", "return document.querySelectorAll('[data-testid=\"tree-panel\"] h2').length === 2 && !!document.querySelector('[data-testid=\"pane-base\"] [data-testid=\"timeline\"]');", Duration::from_secs(30));
    let t_panes = Instant::now();

    // 4c. The panes at their first difference: kernel 5.15's pane drawn
    //     as CFS, 6.18's as EEVDF (check_views, 2 CPUs).
    wait("the first difference", "const d = document.querySelector('[data-testid=\"divergence\"]'); return !!d && d.dataset.state === 'found';", Duration::from_secs(60));
    session.click_css("[data-testid=\"btn-jump-diff\"]");
    wait("both panes at the difference", "const t = Math.min(...[...document.querySelectorAll('.div-side')].map(d => +d.dataset.time)), w = [...document.querySelectorAll('.pane-when')].map(w => +w.dataset.time); return w.length === 2 && t > 0 && w.every(x => x === t);", Duration::from_secs(10));
    let panes = js(&format!("{VIEWS_FN_JS} return ['base', 'patch'].map(s => views(document.querySelector(`[data-testid=\"pane-${{s}}\"]`)));"));
    check_views(&panes[0], true, "the comparison's kernel 5.15 pane", 2);
    check_views(&panes[1], false, "the comparison's kernel 6.18 pane", 2);

    // 4d. Both panes' figures exported as a user does: a click on each
    //     SVG and PNG button, the files caught at the download anchor.
    js(DOWNLOAD_STUBS_JS);
    let n0 = js("return window.__e2eOut.saved.length;").as_u64().unwrap_or(0);
    for side in ["base", "patch"] {
        for fig in ["tree", "elig", "lag", "timeline"] {
            for kind in ["svg", "png"] {
                session.click_css(&format!("[data-testid=\"pane-{side}\"] [data-testid=\"export-{fig}\"] [data-testid=\"export-{kind}\"]"));
            }
        }
    }
    wait("sixteen figure files", &format!("return window.__e2eOut.saved.length === {};", n0 + 16), Duration::from_secs(20));
    check_pane_exports(&session, &saved_downloads(&session, n0 as usize));

    // 4e. Both panes' traces (issue 14 item 2): the download and Perfetto,
    //     each the run of its pane: its kernel and seed (the preset's 7),
    //     its five tasks on two CPUs for 200 ms, both CPUs busy all along
    //     (each has a hog that never sleeps: 2 × 200 ms of CPU time), and
    //     per task the CPU time and the voluntary and involuntary switches
    //     of the pane's column in the table (one seed: the run itself).
    wait("the table", "const d = document.querySelector('[data-testid=\"deltas\"]'); return !!d && d.dataset.state === 'ready';", Duration::from_secs(60));
    let table = js(DELTA_TABLE_JS);
    let tasks = ["sleeper.0", "sleeper.1", "sleeper.2", "hog.0", "hog.1"];
    let mut bodies = Vec::new();
    for (col, side, kernel) in [(2, "base", "5.15"), (3, "patch", "6.18")] {
        let (name, trace, got) = trace_buttons(&session, side, &shot);
        assert_eq!(name, format!("schedlab-{side}.trace.txt"));
        check_perfetto_handoff(&got, &name, &trace);
        let title = format!("kernel {kernel} seed 7");
        let sum = check_ftrace(&trace, &TraceExpect { title: &title, tasks: &tasks, cpus: 2, duration_s: 0.2 });
        eprintln!("e2e: {name}: {} lines, {:?}", trace.lines().count(), sum.events);
        assert_eq!(sum.runtime_ns.iter().sum::<u64>(), 400_000_000, "{side}: two CPUs busy for 200 ms: {sum:?}");
        for (i, task) in tasks.iter().enumerate() {
            let cell = |figure: &str| {
                let row = table["rows"].as_array().and_then(|r| r.iter().find(|r| r[0] == json!(task) && r[1] == json!(figure))).unwrap_or_else(|| panic!("no table row {task} / {figure}"));
                shown_number(row[col].as_str().unwrap_or_default()).unwrap_or_else(|| panic!("{task} / {figure}: {row}"))
            };
            for (figure, value) in [("CPU time", sum.runtime_ns[i] as f64 / 1e6), ("voluntary switches", sum.voluntary[i] as f64), ("involuntary switches", sum.involuntary[i] as f64)] {
                let (v, tol) = cell(figure);
                assert!((value - v).abs() <= tol, "{side} {task}: {figure} {value} in the trace, {v} in the table");
            }
        }
        bodies.push(trace.lines().skip(6).map(str::to_string).collect::<Vec<_>>());
    }
    assert_ne!(bodies[0], bodies[1], "the two panes' traces are of different runs");
    assert_no_console_errors(&session, "the comparison's exports and traces");

    // 4f. `b` on the Compare page.
    check_projector_key(&session, "Compare", &shot);
    eprintln!("e2e: the comparison's views, exports, traces and b took {:.1} s", t_panes.elapsed().as_secs_f64());
    let choosers = js(r#"return ['base', 'patch'].map(n => { const e = document.querySelector(`[data-testid="config-${n}"]`); const l = e.list;
          return { tag: e.tagName, type: e.type, list: l ? l.tagName : null, options: l ? [...l.options].map(o => o.value).join(' ') : null }; });"#);
    eprintln!("e2e: configuration choosers: {}", json!([&choosers[0]["tag"], &choosers[0]["type"], &choosers[0]["list"], &choosers[1]["tag"], &choosers[1]["type"], &choosers[1]["list"]]));
    assert_eq!(choosers[0], choosers[1], "the two panes' choosers differ");
    assert_eq!((choosers[0]["tag"].as_str(), choosers[0]["type"].as_str(), choosers[0]["list"].as_str()), (Some("INPUT"), Some("text"), Some("DATALIST")), "{choosers}");
    let chosen = session.execute_async(
        r#"const done = arguments[arguments.length - 1];
        const c = document.querySelector('[data-testid="pane-base"] [data-testid="timeline"]'), b = c.getBoundingClientRect();
        const raf = () => new Promise(r => requestAnimationFrame(() => r()));
        (async () => {
          for (let y = 1; y < b.height; y += 2) {
            c.dispatchEvent(new MouseEvent('mousemove', { clientX: b.left + b.width / 2, clientY: b.top + y, bubbles: true }));
            await raf();
            const tip = c.parentElement.querySelector('.tl-tip');
            if (tip && tip.textContent.startsWith('CPU 1 ')) {
              for (const t of ['mousedown', 'mouseup']) c.dispatchEvent(new MouseEvent(t, { clientX: b.left + b.width / 2, clientY: b.top + y, bubbles: true, button: 0 }));
              return done(y);
            }
          }
          done(null);
        })();"#,
    );
    assert!(chosen.is_number(), "no lane of CPU 1 on the timeline");
    let trees = "return [...document.querySelectorAll('[data-testid=\"tree-panel\"] h2')].map(h => h.textContent);";
    wait("CPU 1 chosen in both panes", "return [...document.querySelectorAll('[data-testid=\"tree-panel\"] h2')].every(h => h.textContent.includes('CPU 1 (chosen)'));", Duration::from_secs(10));
    js(r#"const s = document.querySelector('[data-testid="compare-preset"]'); s.value = 'reweight-fix'; s.dispatchEvent(new Event('change', { bubbles: true })); return true;"#);
    wait("another preset", "return location.hash.includes('cp=reweight-fix');", Duration::from_secs(30));
    wait("CPU 0 again in both panes", "return [...document.querySelectorAll('[data-testid=\"tree-panel\"] h2')].every(h => h.textContent.includes('CPU 0 (chosen)')) && location.hash.includes('cpu=0');", Duration::from_secs(30));
    eprintln!("e2e: after the preset change the trees show {}", js(trees));
    assert_no_console_errors(&session, "choosing a CPU, then another comparison preset");

    // 5. Projector mode at 1280 × 720: headline, tree and the V line on
    //    the screen without scrolling, and every label at least 18 px.
    // The viewport (not the window) at 1280 × 720: the window is made
    // taller by what its frame takes.
    let inner = js("return [window.innerWidth, window.innerHeight, window.outerWidth, window.outerHeight];");
    let (iw, ih, ow, oh) = (inner[0].as_i64().unwrap_or(1280), inner[1].as_i64().unwrap_or(720), inner[2].as_i64().unwrap_or(1280), inner[3].as_i64().unwrap_or(720));
    session.cmd("POST", "/window/rect", Some(json!({ "width": 1280 + (ow - iw), "height": 720 + (oh - ih) })));
    open("p=three-equal-tasks&e=5&big=1");
    wait("projector mode at event 5", "const l = document.querySelector('[data-testid=\"event-label\"]'); return !!l && l.textContent.startsWith('event 5 /') && document.querySelector('[data-testid=\"app\"]').classList.contains('big');", Duration::from_secs(30));
    thread::sleep(Duration::from_millis(500));
    let fit = js(r#"
        const vw = window.innerWidth, vh = window.innerHeight;
        const rect = sel => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
        const inside = r => !!r && r.top >= 0 && r.left >= 0 && r.bottom <= vh && r.right <= vw;
        const parts = { headline: rect('[data-testid="explain-headline"]'), tree: rect('[data-testid="tree"]'), vline: rect('[data-testid="v-line"]') };
        // Text: every visible HTML element with text of its own, and the
        // SVG labels of the tree and the eligibility line (their size on
        // the screen: font size × the SVG's scale).
        const small = [];
        for (const e of document.querySelectorAll('.app *')) {
          if (e.closest('svg') || e.closest('[data-testid="key-help"]')) continue;
          const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim().length > 0);
          if (!own) continue;
          const r = e.getBoundingClientRect();
          if (r.width === 0 || r.height === 0 || r.bottom < 0 || r.top > vh) continue;
          const fs = parseFloat(getComputedStyle(e).fontSize);
          if (fs < 17.99) small.push(`${e.tagName}.${e.className} ${fs}px: ${e.textContent.trim().slice(0, 40)}`);
        }
        for (const svg of document.querySelectorAll('[data-testid="tree"], [data-testid="elig"]')) {
          const vb = svg.viewBox.baseVal, k = svg.getBoundingClientRect().width / vb.width;
          for (const t of svg.querySelectorAll('text')) {
            if (!t.textContent.trim()) continue;
            const px = parseFloat(getComputedStyle(t).fontSize) * k;
            if (px < 17.99) small.push(`svg text ${px.toFixed(1)}px: ${t.textContent.trim().slice(0, 30)}`);
          }
        }
        if (vw !== 1280 || vh !== 720) return { vw, vh, fits: false, why: 'the viewport is not 1280 x 720' };
        return { vw, vh, parts, fits: inside(parts.headline) && inside(parts.tree) && inside(parts.vline), scroll: window.scrollY, small: small.slice(0, 20), nsmall: small.length };
    "#);
    eprintln!("e2e: projector mode at 1280x720: {fit}");
    session.screenshot(&out_dir.join("walk-projector.png"));
    assert_eq!(fit["fits"], json!(true), "headline, tree or V line not fully on screen: {fit}");
    assert_eq!(fit["nsmall"], json!(0), "labels under 18 px in projector mode: {fit}");
    // `b` (a key press) leaves projector mode, and the link says so; then
    // check_projector_key: b on, every label of the whole page at 18 px
    // or more, b off, every size as before.
    session.press_key("b");
    wait("b leaves projector mode", "return !document.querySelector('[data-testid=\"app\"]').classList.contains('big');", Duration::from_secs(5));
    wait("the link without big=1", "return !location.hash.includes('big=1');", Duration::from_secs(5));
    check_projector_key(&session, "Lecture", &shot);

    // 5b. The machine map in projector mode (issue 13: every label at
    //     least 18 px): on the i7 with SIS_FILTER on, at a wakeup that
    //     scanned CPUs while the LLC had filtered ones, every badge (W, P,
    //     the scan order, F) is on the map and counted.
    open("p=wakeup-placement&f=SIS_FILTER:1&big=1");
    wait("the i7 in projector mode", "return document.querySelectorAll('[data-testid=\"cpu-cell\"]').length === 8 && document.querySelector('[data-testid=\"app\"]').classList.contains('big');", Duration::from_secs(30));
    let found = session.execute_async(
        r#"const done = arguments[arguments.length - 1];
        const k = document.querySelector('[data-testid="jump-kind"]'); k.value = 'wakeup'; k.dispatchEvent(new Event('change', { bubbles: true }));
        const raf = () => new Promise(r => requestAnimationFrame(() => r()));
        (async () => {
          for (let i = 0; i < 2000; i++) {
            const p = document.querySelector('[data-testid="placement"]');
            if (p && +p.dataset.scanned > 1 && p.querySelector('.filtered-mark')) return done(i);
            document.querySelector('[data-testid="btn-jump"]').click();
            await raf();
          }
          done(null);
        })();"#,
    );
    assert!(found.is_number(), "no wakeup with a scan and filtered CPUs on the i7 with SIS_FILTER");
    thread::sleep(Duration::from_millis(300));
    let map = session.execute_with(PROJECTOR_LABELS_JS, json!([""]));
    eprintln!("e2e: the machine map in projector mode after {found} jumps: badges {}, {} labels under 18 px", map["badges"], map["nsmall"]);
    session.screenshot(&out_dir.join("walk-projector-map.png"));
    for class in ["scan-badge", "waker-badge", "prev-badge", "filtered-mark"] {
        assert!(map["badges"][class].as_u64().unwrap_or(0) >= 1, "no {class} on the map: {map}");
    }
    assert_eq!(map["nsmall"], json!(0), "labels under 18 px in projector mode: {map}");

    // 5c. Projector mode is in every page's link (issue 13: links carry
    //     the whole view): b on the Compare and Studies pages, "copy
    //     link", and the copied link, opened afresh, is in projector mode
    //     on that page.
    for (page, frag) in [("compare", "page=compare&cp=eevdf-vs-cfs"), ("study", "page=study")] {
        open(frag);
        wait(&format!("the {page} page"), &shown(page), Duration::from_secs(30));
        session.press_key("b");
        wait(&format!("{page}: b turns projector mode on"), "return document.querySelector('[data-testid=\"app\"]').classList.contains('big');", Duration::from_secs(5));
        js("document.querySelector('[data-testid=\"btn-share\"]').click(); return true;");
        wait(&format!("{page}: copy feedback"), "return !!document.querySelector('[data-testid=\"copy-text\"]') || [...document.querySelectorAll('[data-testid=\"notice\"] li')].some(l => l.textContent === 'Link copied to the clipboard.');", Duration::from_secs(10));
        let copied = js("const b = document.querySelector('[data-testid=\"copy-text\"]'); return b ? b.value : location.href;");
        let copied = copied.as_str().unwrap_or_default().to_string();
        let frag = copied.split_once('#').map_or("", |(_, f)| f);
        eprintln!("e2e: the {page} page's link in projector mode: #{frag}");
        open(frag);
        wait(&format!("{page}: the copied link reopens in projector mode"), &format!("return document.querySelector('[data-testid=\"app\"]').classList.contains('big') && (() => {{ {} }})();", shown(page)), Duration::from_secs(30));
    }
    assert_no_console_errors(&session, "the machine map and the links of every page in projector mode");

    // 6. Quiz mode from a link: the explainer and the future are hidden;
    //    a guess, the reveal, the answer is the task that runs.
    open("p=three-equal-tasks&e=3&q=1");
    wait("the quiz", "const q = document.querySelector('[data-testid=\"quiz\"]'); return !!q && q.dataset.state === 'asking' && !document.querySelector('[data-testid=\"explain-headline\"]');", Duration::from_secs(30));
    // The timeline hides the future, its hover text too (every lane,
    // near the right end of the run).
    let tips = session.execute_async(
        r#"const done = arguments[arguments.length - 1];
        const c = document.querySelector('[data-testid="timeline"]'), b = c.getBoundingClientRect();
        const raf = () => new Promise(r => requestAnimationFrame(() => r()));
        (async () => {
          const seen = new Set();
          for (let y = 1; y < b.height; y += 2) {
            c.dispatchEvent(new MouseEvent('mousemove', { clientX: b.right - 5, clientY: b.top + y, bubbles: true }));
            await raf();
            const tip = c.parentElement.querySelector('.tl-tip');
            if (tip) seen.add(tip.textContent);
          }
          c.dispatchEvent(new MouseEvent('mouseleave', { bubbles: true }));
          done([...seen]);
        })();"#,
    );
    assert_eq!(tips, json!(["quiz: the future is hidden"]), "the timeline's hover text in the hidden future");
    let asked = js("const c = [...document.querySelectorAll('[data-testid=\"quiz-choice\"]')]; c[c.length - 1].click(); return c.map(x => x.dataset.task);");
    wait("the guess", "return document.querySelector('[data-testid=\"quiz-guess\"]').textContent.startsWith('guess:');", Duration::from_secs(5));
    js("document.querySelector('[data-testid=\"quiz-reveal\"]').click(); return true;");
    wait("the answer", "const q = document.querySelector('[data-testid=\"quiz\"]'); return !!q && q.dataset.state === 'revealed' && !!document.querySelector('[data-testid=\"explain-headline\"]');", Duration::from_secs(10));
    let quiz = js("const q = document.querySelector('[data-testid=\"quiz\"]'); return { answer: q.dataset.answer, result: document.querySelector('[data-testid=\"quiz-result\"]').textContent, curr: (document.querySelector('[data-testid=\"tree-curr\"] .curr-title') || {}).textContent, headline: document.querySelector('[data-testid=\"explain-headline\"]').textContent, hash: location.hash };");
    eprintln!("e2e: quiz: asked {asked}, {quiz}");
    let names = ["A", "B", "C"];
    let answer: usize = quiz["answer"].as_str().and_then(|a| a.parse().ok()).expect("an answer");
    assert!(quiz["curr"].as_str().unwrap_or("").ends_with(names[answer]), "the answer runs after the reveal: {quiz}");
    assert!(quiz["result"].as_str().unwrap_or("").starts_with(&format!("Answer: {} runs next on CPU 0", names[answer])), "{quiz}");
    assert!(quiz["hash"].as_str().unwrap_or("").contains("q=1"), "{quiz}");
    // Step on: a new question.
    js("document.querySelector('[data-testid=\"btn-step\"]').click(); return true;");
    wait("the next question", "const q = document.querySelector('[data-testid=\"quiz\"]'); return !!q && q.dataset.state === 'asking';", Duration::from_secs(10));
    session.screenshot(&out_dir.join("walk-quiz.png"));
    js("document.querySelector('[data-testid=\"quiz-off\"]').click(); return true;");

    // 7. Figure exports: SVG and PNG of the tree, eligibility line, lag
    //    chart and timeline.
    js("window.__schedlabExports = {}; for (const id of ['tree', 'elig', 'lag', 'timeline']) { const b = document.querySelector(`[data-testid=\"export-${id}\"]`); b.querySelector('[data-testid=\"export-svg\"]').click(); b.querySelector('[data-testid=\"export-png\"]').click(); } return true;");
    wait("eight figure files", "return Object.keys(window.__schedlabExports || {}).length >= 8;", Duration::from_secs(20));
    let files = js("const e = window.__schedlabExports; return Object.keys(e).map(k => [k, e[k].slice(0, 40), e[k].length]);");
    eprintln!("e2e: figure exports: {files}");
    for f in files.as_array().cloned().unwrap_or_default() {
        let (name, head) = (f[0].as_str().unwrap_or(""), f[1].as_str().unwrap_or(""));
        if name.ends_with(".svg") {
            assert!(head.starts_with("<?xml"), "{f}");
        } else {
            assert!(head.starts_with("data:image/png;base64,") && f[2].as_u64().unwrap_or(0) > 2000, "{f}");
        }
    }
    let tree_svg = js("return window.__schedlabExports['schedlab-tree-cpu0.svg'];");
    assert!(tree_svg.as_str().unwrap_or("").contains("fill:"), "styles resolved into the SVG: {tree_svg}");

    // 8. Keys: ? shows the help; jumps by kind and by task.
    js("window.dispatchEvent(new KeyboardEvent('keydown', { key: '?', bubbles: true })); return true;");
    wait("the keys help", "return !!document.querySelector('[data-testid=\"key-help\"]');", Duration::from_secs(5));
    js("window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })); return true;");
    js(r#"const s = document.querySelector('[data-testid="jump-task"]'); s.value = '1'; s.dispatchEvent(new Event('change', { bubbles: true }));
          const k = document.querySelector('[data-testid="jump-kind"]'); k.value = 'pick'; k.dispatchEvent(new Event('change', { bubbles: true }));
          document.querySelector('[data-testid="btn-jump"]').click(); return true;"#);
    wait("a pick of B", "return document.querySelector('[data-testid=\"pick-line\"]').textContent.includes('(this event): B');", Duration::from_secs(10));

    // 9. A link cut short inside z=: a notice, the default runs.
    let full = js("return location.hash;");
    let full = full.as_str().unwrap_or("").trim_start_matches('#').to_string();
    let z = full.find("z=").expect("z= in the link");
    open(&full[..z + 30]);
    wait("the notice", "const n = document.querySelector('[data-testid=\"notice\"]'); return !!n && n.textContent.includes('cut short');", Duration::from_secs(20));

    // 10. Copy feedback: only "copied" once the browser said so, else the
    //     link in a selected field.
    js("document.querySelector('[data-testid=\"btn-share\"]').click(); return true;");
    wait("copy feedback", "return !!document.querySelector('[data-testid=\"copy-box\"]') || [...document.querySelectorAll('[data-testid=\"notice\"] li')].some(l => l.textContent === 'Link copied to the clipboard.');", Duration::from_secs(10));
    let copy = js("const b = document.querySelector('[data-testid=\"copy-text\"]'); return { box: !!b, text: b ? b.value : null, href: location.href };");
    eprintln!("e2e: copy feedback: {copy}");
    if copy["box"] == json!(true) {
        assert_eq!(copy["text"], copy["href"], "{copy}");
    }
    assert_no_console_errors(&session, "quiz, exports, keys and links");

    // 10b. Traces (issue 14) on the lecture page, with the browser's ends
    //      stubbed: the download is caught at URL.createObjectURL and the
    //      anchor's click (nothing is saved), "open in Perfetto" gets a fake
    //      window whose postMessage answers PING with PONG (from the third
    //      PING on, as a UI still loading would) and records the buffer.
    //      The monkey below keeps away from these buttons: a real new window
    //      would put this tab in the background.
    let t_traces = Instant::now();
    open("p=three-equal-tasks");
    wait("the default run", "const l = document.querySelector('[data-testid=\"event-label\"]'); return !!l && l.textContent.startsWith('event 0 /') && !!document.querySelector('[data-testid=\"btn-trace-lecture\"]');", Duration::from_secs(30));
    js(DOWNLOAD_STUBS_JS);
    let handles_before = session.cmd("GET", "/window/handles", None);
    let (name, trace, got) = trace_buttons(&session, "lecture", &shot);
    let handles_after = session.cmd("GET", "/window/handles", None);
    eprintln!("e2e: trace download {name} ({} lines), Perfetto: opened {}, {} messages before the buffer, title {}", trace.lines().count(), got["opened"], got["before"].as_array().map_or(0, |b| b.len()), got["title"]);
    assert_eq!(name, "schedlab-lecture.trace.txt");
    check_ftrace_of_three_equal_tasks(&trace);
    check_perfetto_handoff(&got, &name, &trace);
    // Each button said what it made: one notice per export, of this many lines.
    let said = format!("Trace of the lecture run: {} lines, ", trace.lines().count());
    let notices = js("return [...document.querySelectorAll('[data-testid=\"notice\"] li')].map(l => l.textContent);");
    let notices: Vec<&str> = notices.as_array().map(|a| a.iter().filter_map(|v| v.as_str()).collect()).unwrap_or_default();
    assert_eq!(notices.iter().filter(|n| n.starts_with(&said)).count(), 2, "{said:?} twice in {notices:?}");
    assert_eq!(handles_after, handles_before, "no real window was opened");

    // Choosing a recorded trace in the panel's file input: the study worker
    // imports it and its threads run as tasks named comm-pid.
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/tests/data/traces/nice.perf.txt");
    let recorded_text = fs::read_to_string(&recorded).expect("read nice.perf.txt");
    let input = session.find_css("[data-testid=\"trace-file\"]").expect("the trace file input");
    session.cmd("POST", &format!("/element/{}/value", input.0), Some(json!({ "text": recorded.to_str().expect("a UTF-8 path") })));
    wait("the imported trace's run", "const n = document.querySelector('[data-testid=\"notice\"]'); return !!n && n.textContent.includes('nice.perf.txt imported') && [...document.querySelectorAll('[data-testid=\"jump-task\"] option')].some(o => o.textContent.startsWith('python3-'));", Duration::from_secs(120));
    let imported = js("return { names: [...document.querySelectorAll('[data-testid=\"jump-task\"] option')].slice(1).map(o => o.textContent), editor: document.querySelector('[data-testid=\"editor\"]').value, notice: document.querySelector('[data-testid=\"notice\"]').textContent };");
    let names: Vec<&str> = imported["names"].as_array().map(|a| a.iter().filter_map(|v| v.as_str()).collect()).unwrap_or_default();
    eprintln!("e2e: nice.perf.txt imported as {} tasks: {names:?}", names.len());
    // The two python3 hogs of the recording (scripts/record-traces: nice 0
    // and nice 5 on CPU 0) are among them; every task is a thread of the
    // trace: its pid is one the trace names.
    let python_pids: std::collections::BTreeSet<&str> = recorded_text.split("next_comm=python3 next_pid=").skip(1).filter_map(|s| s.split_whitespace().next()).collect();
    let py: Vec<&&str> = names.iter().filter(|n| n.starts_with("python3-")).collect();
    assert!(py.len() >= 2 && py.iter().all(|n| python_pids.contains(&n["python3-".len()..])), "python3 tasks {py:?}, python3 pids in the trace {python_pids:?}");
    for n in &names {
        let pid = n.rsplit('-').next().unwrap_or_default();
        assert!(recorded_text.contains(&format!("pid={pid} ")), "task {n}: pid {pid} is not in the trace");
        assert!(imported["editor"].as_str().unwrap_or_default().contains(&format!("name = \"{n}\"")), "task {n} is not in the editor");
    }
    assert_no_console_errors(&session, "the trace download, open in Perfetto and a trace import");
    session.screenshot(&out_dir.join("walk-traces.png"));

    // 10c. A study cell's run (issue 14 item 2), through the trace buttons
    //      of the lecture view the cell opens it in. The study (TINY_STUDY):
    //      a sleeper beside three hogs on two CPUs for 20 ms, 2 seeds under
    //      5.15 and 6.18; the hogs' metric is the CPU time they got, in
    //      CPUs. The trace of the 6.18 cell's run is of its configuration
    //      and seed (the seed the cell's title names), of its four tasks on
    //      two CPUs for 20 ms, both CPUs busy all along (three hogs for two
    //      CPUs: 2 × 20 ms of CPU time), and its hogs' CPU time over the
    //      20 ms is the study's value for that seed (the "seed N" column of
    //      the study's CSV, downloaded as a user does).
    open("page=study");
    wait("the study page", &shown("study"), Duration::from_secs(30));
    js(DOWNLOAD_STUBS_JS);
    js(&format!(
        r#"const a = document.querySelector('[data-testid="study-editor"]'); a.value = {}; a.dispatchEvent(new Event('input', {{ bubbles: true }}));
           document.querySelector('[data-testid="study-run"]').click(); return true;"#,
        serde_json::to_string(TINY_STUDY).unwrap()
    ));
    wait("the tiny study", "const p = document.querySelector('[data-testid=\"study-progress\"]'); return +p.dataset.total === 4 && +p.dataset.done === 4;", Duration::from_secs(60));
    session.click_css("[data-testid=\"study-csv\"]");
    wait("the study's CSV", "return window.__e2eOut.saved.length === 1;", Duration::from_secs(10));
    let (csv_name, csv) = saved_downloads(&session, 0).remove(0);
    assert_eq!(csv_name, "schedlab-study.csv");
    let cell = "[data-testid=\"study-cell\"][data-row=\"0\"][data-config=\"1\"] button";
    let title = js(&format!("return document.querySelector('{cell}').title;"));
    let seed: u64 = title.as_str().and_then(|t| t.split("open seed ").nth(1)).and_then(|r| r.split_whitespace().next()).and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("the cell's title names its seed: {title}"));
    let header = csv_fields(csv.lines().next().unwrap_or_default());
    let column = header.iter().position(|h| *h == format!("seed {seed}")).unwrap_or_else(|| panic!("no seed {seed} column: {header:?}"));
    let row = csv.lines().skip(1).map(csv_fields).find(|r| r.get(2).map(String::as_str) == Some("6.18")).unwrap_or_else(|| panic!("no 6.18 row: {csv}"));
    let study_value: f64 = row[column].parse().unwrap_or_else(|_| panic!("seed {seed}'s value: {row:?}"));
    session.click_css(cell);
    wait("the cell's run in the lecture view", "const h = document.querySelector('[data-testid=\"opened-hash\"]'); return document.querySelector('[data-testid=\"app\"]').dataset.page === 'lecture' && !!h && h.dataset.hash.length === 16;", Duration::from_secs(30));
    let names = js("return [...document.querySelectorAll('[data-testid=\"jump-task\"] option')].slice(1).map(o => [+o.value, o.textContent]);");
    let names: Vec<String> = names.as_array().cloned().unwrap_or_default().iter().enumerate().map(|(i, o)| {
        assert_eq!(o[0].as_u64(), Some(i as u64), "tasks in the scenario's order: {o}");
        o[1].as_str().unwrap_or_default().to_string()
    }).collect();
    let (name, trace, got) = trace_buttons(&session, "lecture", &shot);
    check_perfetto_handoff(&got, &name, &trace);
    let title = format!("kernel 6.18 seed {seed}");
    let tasks: Vec<&str> = names.iter().map(String::as_str).collect();
    let sum = check_ftrace(&trace, &TraceExpect { title: &title, tasks: &tasks, cpus: 2, duration_s: 0.020 });
    let hogs_ns: u64 = tasks.iter().zip(&sum.runtime_ns).filter(|(n, _)| n.starts_with("hogs.")).map(|(_, ns)| ns).sum();
    eprintln!("e2e: the study cell's trace ({title}, tasks {tasks:?}): {:?}; hogs {} ms of 20 ms, study {study_value} CPUs", sum.events, hogs_ns as f64 / 1e6);
    assert_eq!(tasks.iter().filter(|n| n.starts_with("hogs.")).count(), 3, "three hogs: {tasks:?}");
    assert_eq!(sum.runtime_ns.iter().sum::<u64>(), 40_000_000, "two CPUs busy for 20 ms: {sum:?}");
    assert!((hogs_ns as f64 / 20e6 - study_value).abs() < 1e-9, "the hogs' CPU time in the trace, {} CPUs, is the study's {study_value} for seed {seed}", hogs_ns as f64 / 20e6);
    assert_no_console_errors(&session, "a study cell's trace");
    eprintln!("e2e: traces (download, Perfetto, import, a comparison's panes and a study cell) took {:.1} s", t_traces.elapsed().as_secs_f64());
    let walk_s = t_walk.elapsed().as_secs_f64();

    // 11. The monkey: random clicks, choices and keys on every page, from
    //     a seeded generator; no console error.
    let secs: u64 = std::env::var("SCHEDLAB_E2E_MONKEY_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    open("");
    let monkey = session.execute_async(&format!(
        r#"
        const done = arguments[arguments.length - 1];
        let seed = 13;
        const rand = () => {{ seed |= 0; seed = seed + 0x6D2B79F5 | 0; let t = Math.imul(seed ^ seed >>> 15, 1 | seed); t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t; return ((t ^ t >>> 14) >>> 0) / 4294967296; }};
        const pick = a => a[Math.floor(rand() * a.length)];
        const raf = () => new Promise(r => requestAnimationFrame(() => r()));
        const keys = [' ', 'ArrowRight', 'ArrowLeft', 'ArrowRight', 'Home', 'b', '?', 'Escape', 'k', 't', 'q', 'r', '1', '2'];
        const end = performance.now() + {secs} * 1000;
        const counts = {{ click: 0, select: 0, key: 0, canvas: 0, nav: 0 }};
        (async () => {{
          while (performance.now() < end) {{
            const r = rand();
            const app = document.querySelector('[data-testid="app"]');
            if (r < 0.06) {{
              pick([...document.querySelectorAll('[data-testid^="nav-"]')]).click(); counts.nav++;
            }} else if (r < 0.5) {{
              // Buttons and checkboxes, but not the ones that leave the page
              // (links, "open in Perfetto": a new window puts this tab in
              // the background, where animation frames stop) or download.
              const b = [...app.querySelectorAll('button:not([disabled]), input[type=checkbox], .tree-node, [data-testid="elig-bar"]')]
                .filter(e => !e.closest('[data-testid^="export-"]') && !/^btn-(perfetto|trace)-/.test(e.dataset.testid || '') && !['delta-csv', 'study-csv', 'study-mail', 'chart-svg', 'btn-share', 'delta-copy', 'study-copy'].includes(e.dataset.testid));
              if (b.length) {{ const e = pick(b); if (e.dispatchEvent) e.dispatchEvent(new MouseEvent('click', {{ bubbles: true }})); counts.click++; }}
            }} else if (r < 0.65) {{
              const s = [...app.querySelectorAll('select')];
              if (s.length) {{ const e = pick(s); if (e.options.length) {{ e.selectedIndex = Math.floor(rand() * e.options.length); e.dispatchEvent(new Event('change', {{ bubbles: true }})); counts.select++; }} }}
            }} else if (r < 0.9) {{
              window.dispatchEvent(new KeyboardEvent('keydown', {{ key: pick(keys), shiftKey: rand() < 0.2, bubbles: true }})); counts.key++;
            }} else {{
              const c = pick([...document.querySelectorAll('[data-testid="timeline"]')]);
              if (c) {{ const b = c.getBoundingClientRect(); const x = b.left + rand() * b.width, y = b.top + rand() * b.height;
                for (const t of ['mousedown', 'mouseup']) c.dispatchEvent(new MouseEvent(t, {{ clientX: x, clientY: y, bubbles: true, button: 0 }}));
                c.dispatchEvent(new WheelEvent('wheel', {{ deltaY: (rand() - 0.5) * 600, clientX: x, clientY: y, bubbles: true, cancelable: true }})); counts.canvas++; }}
            }}
            await raf();
          }}
          done(counts);
        }})();
        "#
    ));
    eprintln!("e2e: monkey ({secs} s, seed 13): {monkey}");
    session.screenshot(&out_dir.join("walk-monkey.png"));
    assert_no_console_errors(&session, &format!("{secs} s of random clicks and keys (seed 13; counts {monkey})"));
    eprintln!("e2e: page walk and checks took {walk_s:.1} s");
    session.close();
}

/// What a run's ftrace text must show: its header title, its tasks in the
/// scenario's order (task `i` is pid 1000 + i, the exporter's PID_BASE +
/// task index), its number of CPUs and its simulated duration.
struct TraceExpect<'a> {
    title: &'a str,
    tasks: &'a [&'a str],
    cpus: u32,
    duration_s: f64,
}

/// What a checked trace held: per task (scenario order) how often it was
/// switched in, its CPU time (ns, from its `sched_switch` intervals, the
/// last one closed at the end of the run), how often it left the CPU
/// asleep (prev_state S or D: voluntary) or preempted (R+: involuntary);
/// per event name the count.
#[derive(Debug)]
struct TraceSummary {
    switched_in: Vec<u32>,
    runtime_ns: Vec<u64>,
    voluntary: Vec<u32>,
    involuntary: Vec<u32>,
    events: std::collections::BTreeMap<String, usize>,
}

/// Checks that `trace` is ftrace text of the run `want` describes, in the
/// form Perfetto's systrace importer reads: the `# tracer: nop` header
/// with `# schedlab TITLE (N CPUs, M tasks)`, then event lines `TASK-PID
/// (TGID) [CPU] FLAGS SECONDS.FRACTION: EVENT: ARGS` in time order, within
/// the run, on its CPUs. A `sched_switch` is logged by the task it switches
/// out (`<idle>-0`, comm `swapper/N`, for the idle task), names tasks of
/// the run with their pids and prios, has a valid prev_state, and on each
/// CPU its prev is the previous switch's next (the first one leaves the
/// idle task). `sched_waking`/`sched_wakeup`/`sched_wakeup_new` name a
/// task of the run and a CPU of the machine (`sched_wakeup_new` once per
/// task), `sched_migrate_task` two different CPUs of it.
fn check_ftrace(trace: &str, want: &TraceExpect) -> TraceSummary {
    let head: Vec<&str> = trace.lines().take(3).collect();
    assert_eq!(head.first().copied(), Some("# tracer: nop"), "no ftrace header: {}", &trace[..trace.len().min(300)]);
    let title = format!("# schedlab {} ({} CPUs, {} tasks)", want.title, want.cpus, want.tasks.len());
    assert_eq!(head.get(2).copied(), Some(title.as_str()), "the header names the run");
    let n = want.tasks.len();
    let task_of = |comm: &str, pid: &str| -> Option<Option<usize>> {
        let pid: u32 = pid.parse().ok()?;
        if pid == 0 {
            return comm.starts_with("swapper/").then_some(None);
        }
        let i = (pid as usize).checked_sub(1000).filter(|&i| i < n)?;
        (want.tasks[i] == comm).then_some(Some(i))
    };
    let cpu_ok = |c: &str| c.len() == 3 && c.parse::<u32>().is_ok_and(|c| c < want.cpus);
    let mut last_ts = 0.0f64;
    let mut summary = TraceSummary { switched_in: vec![0; n], runtime_ns: vec![0; n], voluntary: vec![0; n], involuntary: vec![0; n], events: Default::default() };
    // Per CPU: who runs, and since when (ns).
    let mut on_cpu: Vec<(Option<usize>, u64)> = vec![(None, 0); want.cpus as usize];
    let mut forked = vec![0u32; n];
    let end_ns = (want.duration_s * 1e9).round() as u64;
    for line in trace.lines().filter(|l| !l.starts_with('#')) {
        let bad = || format!("not an ftrace event line: {line:?}");
        let (head, rest) = line.split_once(") [").unwrap_or_else(|| panic!("{}", bad()));
        let (task, tgid) = head.rsplit_once(" (").unwrap_or_else(|| panic!("{}", bad()));
        let (comm, pid) = task.trim().rsplit_once('-').unwrap_or_else(|| panic!("{}", bad()));
        assert!(pid.parse::<u32>().is_ok() && tgid.trim().parse::<u32>().is_ok(), "{}", bad());
        let (cpu, rest) = rest.split_once("] ").unwrap_or_else(|| panic!("{}", bad()));
        assert!(cpu_ok(cpu), "a CPU of the machine: {line}");
        let (flags, rest) = rest.split_once(' ').unwrap_or_else(|| panic!("{}", bad()));
        assert_eq!(flags.len(), 4, "{}", bad());
        let (ts, rest) = rest.split_once(": ").unwrap_or_else(|| panic!("{}", bad()));
        let (secs, frac) = ts.split_once('.').unwrap_or_else(|| panic!("{}", bad()));
        assert!(!secs.is_empty() && frac.len() == 9 && ts.bytes().all(|b| b.is_ascii_digit() || b == b'.'), "{}", bad());
        let ts_ns = secs.parse::<u64>().unwrap() * 1_000_000_000 + frac.parse::<u64>().unwrap();
        let ts: f64 = ts.parse().unwrap();
        assert!(ts >= last_ts && ts_ns <= end_ns, "time order, within the {} s run: {line}", want.duration_s);
        last_ts = ts;
        let (event, args) = rest.split_once(": ").unwrap_or_else(|| panic!("{}", bad()));
        *summary.events.entry(event.to_string()).or_default() += 1;
        let arg = |k: &str| {
            args.split(' ').find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('='))).unwrap_or_else(|| panic!("no {k} in {line}"))
        };
        match event {
            "sched_switch" => {
                let (prev, next) = (arg("prev_comm"), arg("next_comm"));
                // The idle task's lines are `<idle>-0`, its comm `swapper/N`, as the kernel's.
                let logger = if pid == "0" { format!("swapper/{}", cpu.parse::<u32>().unwrap()) } else { comm.to_string() };
                assert_eq!((logger.as_str(), pid), (prev, arg("prev_pid")), "logged by the task switched out: {line}");
                let p = task_of(prev, arg("prev_pid")).unwrap_or_else(|| panic!("prev is a task of the run with its pid: {line}"));
                let q = task_of(next, arg("next_pid")).unwrap_or_else(|| panic!("next is a task of the run with its pid: {line}"));
                assert!(arg("prev_prio").parse::<u32>().is_ok_and(|p| p < 140) && arg("next_prio").parse::<u32>().is_ok_and(|p| p < 140), "prios: {line}");
                assert!(["R", "R+", "S", "D", "X"].contains(&arg("prev_state")), "prev_state: {line}");
                assert!(args.contains(" ==> "), "{}", bad());
                let c = &mut on_cpu[cpu.parse::<usize>().unwrap()];
                assert_eq!(c.0, p, "the task switched out is the one the CPU's last switch put on it: {line}");
                if let Some(p) = p {
                    summary.runtime_ns[p] += ts_ns - c.1;
                    match arg("prev_state") {
                        "S" | "D" => summary.voluntary[p] += 1,
                        "R+" => summary.involuntary[p] += 1,
                        _ => {}
                    }
                }
                if let Some(q) = q {
                    summary.switched_in[q] += 1;
                }
                *c = (q, ts_ns);
            }
            "sched_waking" | "sched_wakeup" | "sched_wakeup_new" => {
                let t = task_of(arg("comm"), arg("pid")).flatten().unwrap_or_else(|| panic!("a task of the run wakes: {line}"));
                assert!(cpu_ok(arg("target_cpu")), "target_cpu: {line}");
                if event == "sched_wakeup_new" {
                    forked[t] += 1;
                }
            }
            "sched_migrate_task" => {
                task_of(arg("comm"), arg("pid")).flatten().unwrap_or_else(|| panic!("a task of the run moves: {line}"));
                let (a, b) = (arg("orig_cpu").parse::<u32>().unwrap(), arg("dest_cpu").parse::<u32>().unwrap());
                assert!(a != b && a < want.cpus && b < want.cpus, "{line}");
            }
            _ => {}
        }
    }
    assert!(forked.iter().all(|&f| f == 1), "sched_wakeup_new once per task: {forked:?}");
    for (t, since) in on_cpu.into_iter().filter_map(|(t, s)| Some((t?, s))) {
        summary.runtime_ns[t] += end_ns - since;
    }
    summary
}

/// [`check_ftrace`] for a run of the default preset
/// (assets/presets/01-three-equal-tasks.toml: hogs A, B, C on one CPU for
/// 30 ms at HZ=1000, kernel 6.18, seed 1). Each hog is switched in at least
/// 5 times: with a 0.7 ms slice a switch comes at every 1 ms tick, about
/// 30 switches in turn, about 10 per task; and each gets its third of
/// the CPU: 30 ms / 3 = 10 ms, give or take the tick (1 ms) at which the
/// rotation stands when the run ends.
fn check_ftrace_of_three_equal_tasks(trace: &str) {
    let s = check_ftrace(trace, &TraceExpect { title: "kernel 6.18 seed 1", tasks: &["A", "B", "C"], cpus: 1, duration_s: 0.030 });
    assert!(s.switched_in.iter().all(|&n| n >= 5), "switches to A, B, C: {s:?}");
    assert!(s.runtime_ns.iter().all(|&ns| ns.abs_diff(10_000_000) <= 1_000_000), "each hog's third of 30 ms: {s:?}");
}

// -------------------------------------------------------------- webdriver ---

struct Session {
    addr: SocketAddr,
    id: String,
    /// Every browser console entry seen so far (chromedriver hands each out once).
    console: std::cell::RefCell<Vec<Value>>,
}

/// A W3C web element reference.
struct Element(String);

const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Session {
    fn new(driver: &ChromeDriver, profile: &Path) -> Self {
        Self::new_sized(driver, profile, (1280, 800))
    }

    /// A session whose window is `size` (CSS px): a tall window lets a
    /// screenshot show the whole page.
    fn new_sized(driver: &ChromeDriver, profile: &Path, size: (u32, u32)) -> Self {
        let chrome =
            std::env::var("SCHEDLAB_CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let caps = json!({
            "capabilities": { "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": chrome,
                    "args": [
                        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--disable-background-networking", "--disable-component-update",
                        "--disable-sync", "--no-first-run", format!("--window-size={},{}", size.0, size.1),
                        format!("--user-data-dir={}", profile.display()),
                    ],
                },
                "goog:loggingPrefs": { "browser": "ALL" },
            }}
        });
        let (status, body) = http(driver.addr, "POST", "/session", Some(&caps))
            .unwrap_or_else(|e| panic!("POST /session: {e}"));
        let id = body["value"]["sessionId"].as_str().unwrap_or_else(|| {
            panic!(
                "could not start Chromium ({chrome}) via chromedriver: HTTP {status} {body}\n\
                 log: {}",
                driver.log_path.display()
            )
        });
        Session {
            addr: driver.addr,
            id: id.to_string(),
            console: Default::default(),
        }
    }

    /// A WebDriver command; panics on a transport error or a WebDriver error.
    fn cmd(&self, method: &str, suffix: &str, body: Option<Value>) -> Value {
        self.try_cmd(method, suffix, body)
            .unwrap_or_else(|e| panic!("WebDriver {method} {suffix}: {e}"))
    }

    fn try_cmd(&self, method: &str, suffix: &str, body: Option<Value>) -> Result<Value, String> {
        let path = format!("/session/{}{suffix}", self.id);
        let (status, json) =
            http(self.addr, method, &path, body.as_ref()).map_err(|e| e.to_string())?;
        if status == 200 {
            Ok(json["value"].clone())
        } else {
            let v = &json["value"];
            match (v["error"].as_str(), v["message"].as_str()) {
                (Some(error), Some(message)) => Err(format!("HTTP {status} {error}: {message}")),
                _ => Err(format!("HTTP {status}: {json}")),
            }
        }
    }

    fn navigate(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    /// Loads `url` as a new document. Navigating to a URL that differs only
    /// in its fragment is a same-document navigation (a hashchange), and a
    /// `location.reload()` after it races the page's debounced fragment
    /// writer (250 ms), which may put the previous state's link back before
    /// the reload reads it. Going through about:blank makes it a full load;
    /// WebDriver's navigate returns once that load has finished.
    fn open_fresh(&self, url: &str) {
        self.navigate("about:blank");
        self.navigate(url);
    }

    fn title(&self) -> String {
        self.cmd("GET", "/title", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn find_css(&self, css: &str) -> Result<Element, String> {
        let v = self.try_cmd(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        )?;
        match v[ELEMENT_KEY].as_str() {
            Some(id) => Ok(Element(id.to_string())),
            None => Err(format!("no element reference in {v}")),
        }
    }

    /// Polls for an element; on timeout returns the last error. Gives up
    /// early once the console shows an error (e.g. the wasm failed to load).
    /// Polls `script` until it returns `true`; on timeout saves a
    /// screenshot to `shot` and fails with the last value and the console.
    fn wait_true(&self, what: &str, script: &str, timeout: Duration, shot: &Path) {
        let deadline = Instant::now() + timeout;
        loop {
            let v = self.execute(script);
            if v == json!(true) {
                return;
            }
            if Instant::now() > deadline {
                let _ = self.try_screenshot(shot);
                panic!("timed out waiting for {what} (last: {v}); console: {:#?}", self.try_browser_log());
            }
            thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_for_css(&self, css: &str, timeout: Duration) -> Result<Element, String> {
        let deadline = Instant::now() + timeout;
        let mut polls = 0u32;
        loop {
            match self.find_css(css) {
                Ok(el) => return Ok(el),
                Err(e) if Instant::now() > deadline => return Err(e),
                Err(e) => {
                    polls += 1;
                    if polls.is_multiple_of(10) {
                        let log = self.try_browser_log()?;
                        if let Some(err) = log.iter().find(|e| e["level"] == "SEVERE") {
                            return Err(format!("{e}; console error while waiting: {err}"));
                        }
                    }
                    thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }

    fn element_text(&self, el: &Element) -> String {
        self.cmd("GET", &format!("/element/{}/text", el.0), None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn execute(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// A script called with `args` (its `arguments`).
    fn execute_with(&self, script: &str, args: Value) -> Value {
        self.cmd("POST", "/execute/sync", Some(json!({ "script": script, "args": args })))
    }

    /// Presses and releases `key` as a keyboard does (W3C actions: the
    /// browser sends keydown/keyup to the focused element), after moving
    /// the focus out of any text field.
    fn press_key(&self, key: &str) {
        self.execute("if (document.activeElement && document.activeElement.blur) document.activeElement.blur(); return true;");
        let keys = json!([{ "type": "keyDown", "value": key }, { "type": "keyUp", "value": key }]);
        self.cmd("POST", "/actions", Some(json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": keys }] })));
        self.cmd("DELETE", "/actions", None);
    }

    /// Clicks the element `css` finds, scrolled to the middle of the
    /// window first (a sticky bar at the top would take a click on an
    /// element WebDriver scrolls to the top edge).
    fn click_css(&self, css: &str) {
        let el = self.find_css(css).unwrap_or_else(|e| panic!("{css}: {e}"));
        self.execute_with("arguments[0].scrollIntoView({ block: 'center' }); return true;", json!([{ ELEMENT_KEY: el.0 }]));
        self.click(&el);
    }

    fn click(&self, el: &Element) {
        self.cmd("POST", &format!("/element/{}/click", el.0), Some(json!({})));
    }

    /// Runs an async script: its last argument is the callback to call with
    /// the result.
    fn execute_async(&self, script: &str) -> Value {
        self.execute_async_with(script, json!([]))
    }

    /// An async script with arguments (before its callback, the last).
    fn execute_async_with(&self, script: &str, args: Value) -> Value {
        self.cmd("POST", "/execute/async", Some(json!({ "script": script, "args": args })))
    }

    fn set_script_timeout(&self, ms: u64) {
        self.cmd("POST", "/timeouts", Some(json!({ "script": ms })));
    }

    fn screenshot(&self, path: &Path) {
        self.try_screenshot(path)
            .unwrap_or_else(|e| panic!("screenshot: {e}"));
    }

    fn try_screenshot(&self, path: &Path) -> Result<(), String> {
        let b64 = self.try_cmd("GET", "/screenshot", None)?;
        let b64 = b64.as_str().ok_or("screenshot is not a string")?;
        let png = BASE64
            .decode(b64)
            .map_err(|e| format!("screenshot is not base64: {e}"))?;
        fs::write(path, png).map_err(|e| e.to_string())
    }

    /// All browser console entries so far (chromedriver's log API).
    fn browser_log(&self) -> Vec<Value> {
        self.try_browser_log()
            .unwrap_or_else(|e| panic!("browser log: {e}"))
    }

    fn try_browser_log(&self) -> Result<Vec<Value>, String> {
        match self.try_cmd("POST", "/se/log", Some(json!({ "type": "browser" })))? {
            Value::Array(new) => {
                let mut all = self.console.borrow_mut();
                all.extend(new);
                Ok(all.clone())
            }
            other => Err(format!("unexpected browser log: {other}")),
        }
    }

    fn close(self) {
        // Drop does it.
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = http(self.addr, "DELETE", &format!("/session/{}", self.id), None);
    }
}

/// The static server's path mapping, without a browser: percent escapes
/// are decoded (trunk names no file with one, but a hand-typed URL may
/// have them), and nothing outside dist/ is served.
#[test]
fn server_paths_are_decoded_and_stay_in_the_root() {
    let root = TempDir::new(&target_dir(), "e2e-resolve");
    fs::write(root.0.join("index.html"), "<p>").unwrap();
    fs::write(root.0.join("a b.js"), "").unwrap();
    fs::create_dir(root.0.join("sub")).unwrap();
    fs::write(root.0.join("sub").join("index.html"), "").unwrap();
    let at = |p: &str| resolve(&root.0, p).map(|f| f.strip_prefix(&root.0).unwrap().to_path_buf());
    assert_eq!(at("/"), Some(PathBuf::from("index.html")));
    assert_eq!(at("/a%20b.js"), Some(PathBuf::from("a b.js")));
    assert_eq!(at("/sub/"), Some(PathBuf::from("sub/index.html")));
    assert_eq!(at("/missing.js"), None);
    // ".." decoded from %2e%2e is still refused.
    assert_eq!(at("/sub/../index.html"), None);
    assert_eq!(at("/sub/%2e%2e/index.html"), None);
    // %FF is not UTF-8: no file name.
    assert_eq!(at("/%FF"), None);
}
