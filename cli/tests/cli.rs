//! The `schedlab` command line: expand, study, explain, workloads, errors
//! that name the offending key, help, typo suggestions and completions.

#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use std::process::{Command, Output};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/data").join(name).to_string_lossy().into_owned()
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
    // A signal queue stays one when printed (its wakes carry no WF_SYNC).
    let src = temp("sigfd.toml", "[sim]\nseed = 3\nduration = \"5ms\"\n[[workload]]\nkind = \"stress-sigfd\"\ninstances = 2\n");
    let toml = stdout(&schedlab(&["expand", &src]));
    assert!(toml.contains("[[channel]]\nname = \"stress-sigfd-1-q\"\ncapacity = 65536\nsync = false\n"), "{toml}");
    let expanded = temp("sigfd-expanded.toml", &format!("[sim]\nseed = 3\nduration = \"5ms\"\n{toml}"));
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
    // SIS_FILTER filters nothing in this study (engine/tests/data/study.table:
    // every compare run has its baseline's schedule hash), so each compare
    // cell is marked, in the JSON and with `=` in the table; a baseline never.
    assert_eq!(v["rows"][0]["cells"][1]["same_schedules"], true);
    assert_eq!(v["rows"][0]["cells"][0]["same_schedules"], false);
    assert!(out.contains("\n= the same schedule as the baseline on every seed"), "{out}");
}

#[test]
fn study_feature_sets_a_flag_in_every_configuration() {
    let study = data("study.toml");
    let values = |extra: &[&str]| -> Vec<f64> {
        let mut args = vec!["study", study.as_str(), "--runs", "1", "--json", "--threads", "1"];
        args.extend(extra);
        let v: serde_json::Value = serde_json::from_str(&stdout(&schedlab(&args))).unwrap();
        v["rows"][0]["cells"].as_array().unwrap().iter().map(|c| c["values"][0].as_f64().unwrap()).collect()
    };
    let plain = values(&[]);
    // Off is every preset's default: nothing changes.
    assert_eq!(values(&["--feature", "CPUIDLE_MENU=off"]), plain);
    // The menu governor picks other idle states on the i7-4790, so both
    // configurations' runs change.
    let menu = values(&["--feature", "CPUIDLE_MENU=on"]);
    assert_eq!(menu.len(), 2);
    assert!(menu.iter().zip(&plain).all(|(a, b)| a != b), "{menu:?} {plain:?}");
    let err = fails(&schedlab(&["study", &study, "--feature", "NOPE=on"]));
    assert!(err.contains("--feature: unknown feature flag `NOPE`"), "{err}");
}

#[test]
fn explain_tells_the_first_events() {
    let src = temp("explain.toml", "[[task]]\nname = \"a\"\nprogram = \"run\"\n");
    let out = stdout(&schedlab(&["explain", &src, "--events", "1"]));
    // The headline is the event's cause (a wake-up onto an idle CPU comes
    // before the pick it leads to); the pick follows with its reason.
    assert!(out.starts_with("#1 0s: a arrived on idle CPU 0: the idle task gives way."), "{out}");
    assert!(out.contains("pick_eevdf() on CPU 0 chose a: it is the only runnable entity"), "{out}");
}

#[test]
fn workloads_lists_every_kind_with_parameters() {
    let out = stdout(&schedlab(&["workloads"]));
    for kind in ["hackbench", "schbench", "netperf-rr", "netperf-stream", "tbench", "pipe-test", "stress-futex", "stress-sigsuspend", "stress-sigrt", "stress-sigfd", "hogs"] {
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

fn fails(o: &Output) -> String {
    assert!(!o.status.success(), "stdout: {}", String::from_utf8_lossy(&o.stdout));
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn every_command_has_its_own_help() {
    let top = stdout(&schedlab(&["--help"]));
    for cmd in ["run", "compare", "study", "reproduce", "expand", "explain", "validate", "workloads", "patches", "presets", "features", "completions"] {
        assert!(top.lines().any(|l| l.trim_start().starts_with(cmd)), "{cmd} missing:\n{top}");
        let help = stdout(&schedlab(&[cmd, "--help"]));
        assert!(help.contains(&format!("Usage: schedlab {cmd}")), "{cmd}:\n{help}");
        assert_eq!(help, stdout(&schedlab(&["help", cmd])), "{cmd}");
    }
    // Options are explained where they belong, and only there.
    let study = stdout(&schedlab(&["study", "--help"]));
    assert!(study.contains("--threads <N>") && study.contains("--sorted") && !study.contains("--kernel"), "{study}");
    assert!(stdout(&schedlab(&["validate", "--help"])).contains("SCHEDLAB_VALIDATE_INJECT"));
    // No command at all prints the overview and succeeds, as before.
    assert_eq!(stdout(&schedlab(&[])), top);
}

#[test]
fn typos_get_a_suggestion_and_only_the_relevant_usage() {
    let err = fails(&schedlab(&["stduy", "x.toml"]));
    assert!(err.contains("unrecognized subcommand 'stduy'") && err.contains("a similar subcommand exists: 'study'"), "{err}");
    let err = fails(&schedlab(&["run", &data("study.toml"), "--jsno"]));
    assert!(err.contains("a similar argument exists: '--json'"), "{err}");
    // The usage of `run`, not the list of every command.
    assert!(err.contains("Usage: schedlab run") && !err.contains("compare"), "{err}");
    let err = fails(&schedlab(&["study", &data("study.toml"), "--runs", "0"]));
    assert!(err.contains("invalid value '0' for '--runs <N>'") && err.contains("1..=1000"), "{err}");
    let err = fails(&schedlab(&["compare", "x.toml", "--base", "6.6"]));
    assert!(err.contains("--patch <CONFIG>"), "{err}");
}

#[test]
fn completions_cover_commands_and_options() {
    let bash = stdout(&schedlab(&["completions", "bash"]));
    assert!(bash.contains("complete -F _schedlab") && bash.contains("--threads") && bash.contains("--keep-autogroup"), "{}", &bash[..200]);
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let s = stdout(&schedlab(&["completions", shell]));
        // fish spells long options `-l sorted`.
        assert!(s.contains("validate") && s.contains("sorted") && s.contains("keep-autogroup"), "{shell}");
    }
    let err = fails(&schedlab(&["completions", "tcsh"]));
    assert!(err.contains("possible values: bash"), "{err}");
}

/// Progress bars draw only on a terminal: with stderr a pipe it stays empty.
#[test]
fn progress_is_silent_when_stderr_is_not_a_terminal() {
    let o = schedlab(&["study", &data("study.toml"), "--runs", "1"]);
    stdout(&o);
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}

/// `run --signals`: the samples go to the CSV file, their summary into the
/// JSON, at the period asked for.
#[test]
fn run_writes_signals_at_the_given_period() {
    let src = temp("signals.toml", "[sim]\nduration = \"20ms\"\n[[task]]\nname = \"hog\"\nprogram = \"run\"\n");
    let csv = std::env::temp_dir().join(format!("schedlab-cli-{}", std::process::id())).join("signals.csv");
    let out = stdout(&schedlab(&["run", &src, "--json", "--signals", csv.to_str().unwrap(), "--signals-period", "2ms"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["signals"]["period_ns"], 2_000_000);
    let text = std::fs::read_to_string(&csv).unwrap();
    let cpu_rows = text.lines().skip(1).take_while(|l| !l.is_empty()).count();
    // One CPU: one row per sample.
    assert_eq!(text.lines().next(), Some("time_ns,cpu,nr_running,util,runnable,busy"));
    assert_eq!(cpu_rows as u64, v["signals"]["samples"].as_u64().unwrap());
    assert!(cpu_rows >= 5, "{text}");
    let err = fails(&schedlab(&["run", &src, "--signals-period", "2ms"]));
    assert!(err.contains("--signals <FILE.csv>"), "{err}");
}

/// `features --missing` lists every left-out kernel behaviour with what the
/// kernel does and what a user of the model sees instead; plain `features`
/// stays the flag list.
#[test]
fn features_missing_lists_what_the_model_leaves_out() {
    let out = stdout(&schedlab(&["features", "--missing"]));
    for m in schedlab_engine::kernel::sched::features::MISSING {
        assert!(out.contains(&format!("{}\n  kernel: {}", m.name, m.kernel)), "{}", m.name);
    }
    assert!(out.contains("CFS bandwidth control"), "{out}");
    let flags = stdout(&schedlab(&["features"]));
    assert!(flags.contains("RUN_TO_PARITY") && !flags.contains("CFS bandwidth control"), "{flags}");
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

/// `run --log` streams the log as the run makes it (README, "Memory"): the
/// text lines, and in JSON the same records as the `log` array in front of
/// the result's other members; the run is the one a hash-only run makes.
#[test]
fn run_log_streams_the_same_records_as_text_and_json() {
    let src = temp("log.toml", "[sim]\nduration = \"20ms\"\n[[task]]\nname = \"hog\"\ncount = 2\nprogram = \"run\"\n[[task]]\nname = \"tick\"\nprogram = \"loop { sleep 3ms; run 1ms }\"\n");
    let text = stdout(&schedlab(&["run", &src, "--log"]));
    let records = text.lines().take_while(|l| !l.starts_with("kernel ")).count();
    let json: serde_json::Value = serde_json::from_str(&stdout(&schedlab(&["run", &src, "--log", "--json"]))).unwrap();
    let log = json["log"].as_array().unwrap();
    // Three forks, and five 4 ms rounds of the tick task, each a sleep, a
    // wake-up with its placement, picks and switches: dozens of records.
    assert!(records > 30 && log.len() == records, "{} JSON records, {records} lines", log.len());
    assert!(log.windows(2).all(|w| w[0]["time"].as_u64() <= w[1]["time"].as_u64()));
    let plain: serde_json::Value = serde_json::from_str(&stdout(&schedlab(&["run", &src, "--json"]))).unwrap();
    assert_eq!(json["log_hash"], plain["log_hash"]);
    assert_eq!(json["tasks"], plain["tasks"]);
}

/// A reader that stops reading (`schedlab run --log x | head`) ends the run
/// quietly: exit status 0, no error printed.
#[test]
fn run_log_ends_quietly_when_the_reader_leaves() {
    use std::io::{BufRead, BufReader};
    let src = temp("long-log.toml", "[sim]\nduration = \"600s\"\n[[task]]\nname = \"hog\"\ncount = 2\nprogram = \"loop { run 10us; sleep 10us }\"\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", &src, "--log"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.contains("Fork"), "{first}");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
}

/// A file that is not UTF-8 is refused at its first bad byte, with line,
/// column and byte offset: `[sim]\n` is bytes 0–5, then `duration = "1`
/// is 13 characters, so the 0xff is byte 19, line 2, column 14.
#[test]
fn a_file_that_is_not_utf8_is_refused_at_its_first_bad_byte() {
    let dir = std::env::temp_dir().join(format!("schedlab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("latin1.toml");
    std::fs::write(&p, b"[sim]\nduration = \"1\xffms\"\n").unwrap();
    let o = schedlab(&["run", p.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("latin1.toml: line 2, column 14 (byte 19): the file is not UTF-8 text (byte 0xff)"), "{err}");
}
