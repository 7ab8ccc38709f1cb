//! The `schedlab` command line: expand, study, explain, workloads, and
//! errors that name the offending key.

#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use std::process::{Command, Output};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name).to_string_lossy().into_owned()
}

fn schedlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).output().expect("run schedlab")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn expand_prints_scenario_toml_that_runs_like_the_macro() {
    let src = temp("pipe.toml", "[sim]\nseed = 3\n[[workload]]\nkind = \"pipe-test\"\nloops = 200\n");
    let toml = stdout(&schedlab(&["expand", &src]));
    assert!(toml.contains("[[task]]\nname = \"pipe-test-a\""), "{toml}");
    assert!(toml.contains("program = \"loop 200 { run uniform(630ns, 770ns); send pipe-test-ab; recv pipe-test-ba }\""), "{toml}");
    // The printed tasks (with the same [sim]) give the same run.
    let expanded = temp("pipe-expanded.toml", &format!("[sim]\nseed = 3\n{toml}"));
    let hash = |p: &str| {
        let out = stdout(&schedlab(&["run", p, "--json"]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (v["log_hash"].as_str().unwrap().to_string(), v["events"].as_u64().unwrap())
    };
    assert_eq!(hash(&src), hash(&expanded));
}

#[test]
fn study_prints_the_mail_table() {
    let out = stdout(&schedlab(&["study", &data("study.toml"), "--runs", "2", "--sorted"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "hackbench");
    assert!(lines.contains(&"case            \tload    \tbaseline(std%)\tcompare%( std%)"), "{out}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("process-pipe    \t1 group \t 1.00 (")).count(), 2, "{out}");
    assert!(out.contains("sorted, worst first:"));
    let json = stdout(&schedlab(&["study", &data("study.toml"), "--runs", "2", "--json", "--threads", "1"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 4);
    assert_eq!(v["configs"][1], "6.6+sis-filter");
    assert_eq!(v["rows"][0]["cells"][0]["runs"], 2);
}

#[test]
fn explain_tells_the_first_events() {
    let src = temp("explain.toml", "[[task]]\nname = \"a\"\nprogram = \"run\"\n");
    let out = stdout(&schedlab(&["explain", &src, "--events", "1"]));
    assert!(out.starts_with("#1 0s: pick_eevdf() on CPU 0 chose a"), "{out}");
}

#[test]
fn workloads_lists_every_kind_with_parameters() {
    let out = stdout(&schedlab(&["workloads"]));
    for kind in ["hackbench", "schbench", "netperf-rr", "netperf-stream", "tbench", "pipe-test", "stress-futex", "stress-sigsuspend", "hogs"] {
        assert!(out.lines().any(|l| l == kind), "{kind} missing:\n{out}");
    }
    assert!(out.contains("message_threads"));
}

#[test]
fn bad_input_names_the_key_and_fails() {
    let src = temp("bad.toml", "[[workload]]\nkind = \"hackbench\"\ngruops = 2\n");
    let o = schedlab(&["run", &src]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("workload[0].gruops") && err.contains("did you mean `groups`"), "{err}");
    let o = schedlab(&["study", &src]);
    assert!(!o.status.success());
}

/// A trace recorded on this machine (scripts/record-traces: two processes
/// pinned to CPU 0 ping-ponging through pipes, beside whatever else ran)
/// imports, replays, and compares under two configurations; the replay's
/// own trace exports for Perfetto.
#[test]
fn import_replay_compare_and_export() {
    let trace = data("traces/pingpong.perf.txt");
    let sc = temp("pingpong.toml", "");
    assert_eq!(stdout(&schedlab(&["import", &trace, "--pin", "--kernel", "6.6", "-o", &sc])), "");
    let text = std::fs::read_to_string(&sc).unwrap();
    assert!(text.starts_with("# Imported by `schedlab import` from") && text.contains("(perf sched script)"), "{}", &text[..300]);
    let cmp = stdout(&schedlab(&["compare", &sc, "--base", "6.6", "--patch", "6.6+place-bonus"]));
    assert!(cmp.contains("base: 6.6   patch: 6.6+place-bonus"), "{cmp}");
    let out = temp("replay.trace", "");
    let run = stdout(&schedlab(&["run", &sc, "--duration", "200ms", "--trace", &out]));
    assert!(run.contains("events"), "{run}");
    let exported = std::fs::read_to_string(&out).unwrap();
    assert!(exported.starts_with("# tracer: nop\n") && exported.contains(": sched_switch: prev_comm="));
    // The export imports again.
    assert!(stdout(&schedlab(&["import", &out])).contains("[[task]]"));
    // validate --trace prints the comparison table.
    let v = stdout(&schedlab(&["validate", "--trace", &trace, "--pin", "--reps", "1", "--min-share", "10"]));
    assert!(v.contains("cpu_share") && v.contains("within tolerance."), "{v}");
}

#[test]
fn bad_traces_name_the_line() {
    let bad = temp("bad.txt", "# tracer: nop\n  a-1 [000] 1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=x next_prio=120\n");
    let o = schedlab(&["import", &bad]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("bad.txt: line 2: sched_switch: `next_pid=x`: expected a number"), "{e}");
    let o = schedlab(&["import", &data("traces/nope.txt")]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("nope.txt"));
}
