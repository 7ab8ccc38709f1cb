//! End-to-end test of the built page (`trunk build --release` output) in
//! headless Chromium, driven through chromedriver.
//!
//! Skipped unless `SCHEDLAB_E2E_DIST` names the dist/ directory to test;
//! scripts/test always sets it. When it is set, every problem is a failure:
//! a missing browser or driver, a page that does not mount, a resource that
//! does not load, an error in the browser console.
//!
//! Everything is std + serde_json: a static file server on a random
//! 127.0.0.1 port, chromedriver on another, and a small WebDriver (W3C,
//! JSON over HTTP/1.1) client. The screenshot goes to target/e2e/app.png.
//!
//! Environment: SCHEDLAB_E2E_DIST (required to run), CHROMEDRIVER (default
//! /usr/bin/chromedriver), SCHEDLAB_CHROME (default /usr/bin/chromium).
#![cfg(not(target_arch = "wasm32"))]

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

fn base64_decode(text: &str) -> Vec<u8> {
    fn val(c: u8) -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => panic!("invalid base64 byte {c:#x}"),
        }
    }
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= val(c) << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
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
    let decoded = percent_decode(url_path)?;
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

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
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
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
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
                        "--disable-sync", "--no-first-run", "--window-size=1280,800",
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

    fn screenshot(&self, path: &Path) {
        self.try_screenshot(path)
            .unwrap_or_else(|e| panic!("screenshot: {e}"));
    }

    fn try_screenshot(&self, path: &Path) -> Result<(), String> {
        let b64 = self.try_cmd("GET", "/screenshot", None)?;
        let png = base64_decode(b64.as_str().ok_or("screenshot is not a string")?);
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

#[test]
fn base64_round_trip_of_known_values() {
    assert_eq!(base64_decode("aGVsbG8="), b"hello");
    assert_eq!(base64_decode("aGVsbG8h"), b"hello!");
    assert_eq!(base64_decode("aGk="), b"hi");
    assert_eq!(base64_decode(""), b"");
}
