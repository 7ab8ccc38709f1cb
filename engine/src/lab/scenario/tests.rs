use super::*;

fn p(line: u32, col: u32) -> Pos {
    Pos { line, col }
}

/// Parses, panicking with the error text (tests only).
fn ok(text: &str) -> Scenario {
    match parse(text) {
        Ok(s) => s,
        Err(e) => panic!("unexpected error: {e}\n--- input ---\n{text}"),
    }
}

/// Parses, expecting an error.
fn err(text: &str) -> ScenarioError {
    match parse(text) {
        Ok(s) => panic!("expected an error, got {s:#?}\n--- input ---\n{text}"),
        Err(e) => e,
    }
}

/// Asserts key, position and a message fragment.
#[track_caller]
fn assert_err(e: &ScenarioError, key: &str, pos: Pos, fragment: &str) {
    assert_eq!(e.key, key, "key of: {e}");
    assert_eq!(e.pos, Some(pos), "position of: {e}");
    assert!(
        e.msg.contains(fragment),
        "message of `{e}` lacks `{fragment}`"
    );
}

/// A one-task TOML scenario with the given program, the program on line 3
/// starting at column 12.
fn prog_toml(program: &str) -> String {
    format!("[[task]]\nname = \"t\"\nprogram = \"{program}\"\n")
}

fn stmts(program: &str) -> Vec<StmtKind> {
    fn strip(s: &[Stmt]) -> Vec<StmtKind> {
        s.iter()
            .map(|s| match &s.kind {
                StmtKind::Loop { count, body } => StmtKind::Loop {
                    count: *count,
                    body: body
                        .iter()
                        .map(|b| Stmt {
                            kind: b.kind.clone(),
                            pos: p(0, 0),
                        })
                        .collect(),
                },
                k => k.clone(),
            })
            .collect()
    }
    let sc = ok(&prog_toml(program));
    strip(&sc.tasks[0].program.stmts)
}

fn prog_err(program: &str) -> ScenarioError {
    err(&prog_toml(program))
}

// ---------------------------------------------------------------------------
// The design.md example
// ---------------------------------------------------------------------------

const EXAMPLE_TOML: &str = r#"[sim]
duration = "5s"
seed = 1
kernel = "6.18"            # preset: "5.15" (CFS), "6.6", "6.12", "6.18" (EEVDF)
hz = 1000
patches = []               # names from `schedlab patches`
features = { RUN_TO_PARITY = false }   # per-flag overrides
base_slice = "750us"       # optional tunable overrides

[topology]
preset = "1cpu"            # or explicit: sockets, llcs_per_socket,
                           # cores_per_llc, threads_per_core

[[task]]
name = "hog"
count = 2                  # hog.0, hog.1
nice = 0
policy = "normal"          # normal | batch | idle
slice = "3ms"              # optional custom slice (sched_attr), 6.12+
affinity = "0"
program = "run"            # runs forever

[[task]]
name = "tick"
program = "loop { sleep 10ms; run 1ms }"
"#;

const EXAMPLE_WORKLOAD: &str = r#"
[[workload]]               # macros that expand into tasks
kind = "hackbench"         # hackbench | schbench | netperf-rr | tbench | pipe-test | ...
groups = 2
"#;

const EXAMPLE_JSON: &str = r#"{
  "sim": {
    "duration": "5s", "seed": 1, "kernel": "6.18", "hz": 1000, "patches": [],
    "features": { "RUN_TO_PARITY": false }, "base_slice": "750us"
  },
  "topology": { "preset": "1cpu" },
  "task": [
    { "name": "hog", "count": 2, "nice": 0, "policy": "normal", "slice": "3ms",
      "affinity": "0", "program": "run" },
    { "name": "tick", "program": "loop { sleep 10ms; run 1ms }" }
  ]
}"#;

/// Sets every position to 0:0 so TOML and JSON parses can be compared.
fn erase_positions(s: &mut Scenario) {
    fn stmts(v: &mut [Stmt]) {
        for s in v {
            s.pos = p(0, 0);
            if let StmtKind::Loop { body, .. } = &mut s.kind {
                stmts(body);
            }
        }
    }
    let z = p(0, 0);
    s.sim.kernel.pos = z;
    if let Some(h) = &mut s.sim.hz {
        h.1 = z;
    }
    for n in &mut s.sim.patches {
        n.pos = z;
    }
    for (n, _) in &mut s.sim.features {
        n.pos = z;
    }
    if let Some(b) = &mut s.sim.base_slice {
        b.1 = z;
    }
    if let Some(t) = &mut s.sim.tunable_scaling {
        t.1 = z;
    }
    if let Some(b) = &mut s.sim.balance_phases {
        b.1 = z;
    }
    let t = &mut s.topology;
    t.pos = z;
    if let Some(n) = &mut t.preset {
        n.pos = z;
    }
    for c in [
        &mut t.sockets,
        &mut t.llcs_per_socket,
        &mut t.cores_per_llc,
        &mut t.threads_per_core,
    ]
    .into_iter()
    .flatten()
    {
        c.1 = z;
    }
    for task in &mut s.tasks {
        task.pos = z;
        if let Some(a) = &mut task.affinity {
            a.1 = z;
        }
        stmts(&mut task.program.stmts);
    }
}

#[test]
fn design_example_parses() {
    let s = ok(EXAMPLE_TOML);
    assert_eq!(s.sim.duration, 5_000_000_000);
    assert_eq!(s.sim.seed, 1);
    assert_eq!(
        s.sim.kernel,
        Named {
            name: "6.18".into(),
            key: "sim.kernel".into(),
            pos: p(4, 10)
        }
    );
    assert_eq!(s.sim.hz, Some((1000, p(5, 6))));
    assert!(s.sim.patches.is_empty());
    assert_eq!(
        s.sim.features,
        vec![(
            Named {
                name: "RUN_TO_PARITY".into(),
                key: "sim.features.RUN_TO_PARITY".into(),
                pos: p(7, 14)
            },
            false
        )]
    );
    assert_eq!(s.sim.base_slice, Some((750_000, p(8, 14))));
    assert_eq!(s.sim.tunable_scaling, None);

    assert_eq!(s.topology.pos, p(10, 1));
    assert_eq!(
        s.topology.preset,
        Some(Named {
            name: "1cpu".into(),
            key: "topology.preset".into(),
            pos: p(11, 10)
        })
    );
    assert_eq!(s.topology.sockets, None);

    assert_eq!(s.tasks.len(), 2);
    let hog = &s.tasks[0];
    assert_eq!(hog.name, "hog");
    assert_eq!(hog.count, 2);
    assert_eq!(hog.nice, 0);
    assert_eq!(hog.policy, Policy::Normal);
    assert_eq!(hog.slice, Some(3_000_000));
    assert_eq!(hog.affinity, Some((CpuList(vec![0]), p(20, 12))));
    assert_eq!(hog.start, 0);
    assert_eq!(hog.pos, p(14, 1));
    assert_eq!(
        hog.program.stmts,
        vec![Stmt {
            kind: StmtKind::RunForever,
            pos: p(21, 12)
        }]
    );

    let tick = &s.tasks[1];
    assert_eq!(tick.name, "tick");
    assert_eq!(tick.count, 1);
    assert_eq!(tick.pos, p(23, 1));
    assert_eq!(
        tick.program.stmts,
        vec![Stmt {
            kind: StmtKind::Loop {
                count: None,
                body: vec![
                    Stmt {
                        kind: StmtKind::Sleep(Dur::Fixed(10_000_000)),
                        pos: p(25, 19)
                    },
                    Stmt {
                        kind: StmtKind::Run(Dur::Fixed(1_000_000)),
                        pos: p(25, 31)
                    },
                ],
            },
            pos: p(25, 12),
        }]
    );
}

#[test]
fn json_equals_toml() {
    assert_eq!(Format::detect(EXAMPLE_JSON), Format::Json);
    assert_eq!(Format::detect(EXAMPLE_TOML), Format::Toml);
    let mut t = ok(EXAMPLE_TOML);
    let mut j = ok(EXAMPLE_JSON);
    // JSON positions are real too.
    assert_eq!(j.tasks[1].pos, p(10, 5));
    assert_eq!(j.sim.hz, Some((1000, p(3, 58))));
    assert_eq!(j.tasks[1].program.stmts[0].pos, p(10, 35));
    erase_positions(&mut t);
    erase_positions(&mut j);
    assert_eq!(t, j);
    // parse_with forces a format.
    assert!(parse_with(EXAMPLE_JSON, Format::Toml).is_err());
    assert!(parse_with(EXAMPLE_TOML, Format::Json).is_err());
}

#[test]
fn defaults() {
    let s = ok("");
    assert_eq!(s.sim.duration, 1_000_000_000);
    assert_eq!(s.sim.seed, 1);
    assert_eq!(s.sim.kernel.name, "6.18");
    assert_eq!(s.sim.kernel.pos, p(1, 1));
    assert_eq!(s.topology.pos, p(1, 1));
    assert!(s.tasks.is_empty());
    let s = ok("\n\n[sim]\nseed = 7\n");
    assert_eq!(s.sim.kernel.pos, p(3, 1));
    assert_eq!(s.sim.seed, 7);
    let s = ok("{}");
    assert_eq!(s.sim.duration, 1_000_000_000);
}

#[test]
fn every_field() {
    let s = ok(r#"
[sim]
duration = "250ms"
seed = 18446744073709551615
kernel = "5.15"
hz = 250
patches = ["a", "b"]
features = { PLACE_LAG = "off", NEXT_BUDDY = "on", DELAY_DEQUEUE = true }
tunable_scaling = "log"

[topology]
sockets = 2
llcs_per_socket = 2
cores_per_llc = 12
threads_per_core = 2

[[task]]
name = "w_1-x"
count = 65536
nice = -20
policy = "idle"
affinity = "0-7:2/4,12, 40-47"
start = "1.5ms"
program = "run 1ms"

[[task]]
name = "b"
policy = "batch"
nice = 19
program = "run"
"#);
    assert_eq!(s.sim.seed, u64::MAX);
    assert_eq!(s.sim.duration, 250_000_000);
    assert_eq!(s.sim.hz.map(|h| h.0), Some(250));
    let names: Vec<&str> = s.sim.patches.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(s.sim.patches[1].key, "sim.patches[1]");
    assert_eq!(s.sim.patches[1].pos, p(7, 17));
    let f: Vec<(&str, bool)> = s
        .sim
        .features
        .iter()
        .map(|(n, b)| (n.name.as_str(), *b))
        .collect();
    assert_eq!(
        f,
        [
            ("PLACE_LAG", false),
            ("NEXT_BUDDY", true),
            ("DELAY_DEQUEUE", true)
        ]
    );
    assert_eq!(
        s.sim.tunable_scaling.map(|t| t.0),
        Some(TunableScaling::Log)
    );
    assert_eq!(s.topology.sockets, Some((2, p(12, 11))));
    assert_eq!(s.topology.threads_per_core.map(|t| t.0), Some(2));
    let t = &s.tasks[0];
    assert_eq!(
        (t.count, t.nice, t.policy, t.start),
        (65536, -20, Policy::Idle, 1_500_000)
    );
    let cpus = &t.affinity.as_ref().unwrap().0;
    assert_eq!(cpus.0, vec![0, 1, 4, 5, 12, 40, 41, 42, 43, 44, 45, 46, 47]);
    assert_eq!(cpus.to_string(), "0-1,4-5,12,40-47");
    assert_eq!((s.tasks[1].policy, s.tasks[1].nice), (Policy::Batch, 19));
}

// ---------------------------------------------------------------------------
// Errors: key and exact position
// ---------------------------------------------------------------------------

#[test]
fn syntax_errors() {
    let e = err("[sim]\nduration = \n");
    assert_err(&e, "", p(2, 12), "syntax error");
    assert!(
        e.to_string().starts_with("line 2, column 12: syntax error"),
        "{e}"
    );

    let e = err("{\"sim\": {\"duration\": \"5s\",}}");
    assert_err(&e, "", p(1, 27), "syntax error");

    let e = err("{\n  \"sim\": {\"seed\": 1}\n  \"task\": []\n}");
    assert_err(&e, "", p(3, 3), "expected `,` or `}`");

    let e = err("{\"sim\": {}, \"sim\": {}}");
    assert_err(&e, "", p(1, 13), "duplicate key `sim`");

    let e = err("[sim]\nseed = 1\nseed = 2\n");
    assert_err(&e, "", p(3, 1), "duplicate key");

    let e = err("{\"a\": \"x\ny\"}");
    assert_err(&e, "", p(1, 9), "control character");

    let e = err("{\"sim\": {\"seed\": 01}}");
    assert_err(&e, "", p(1, 18), "leading zeros");

    let e = err("{} x");
    assert_err(&e, "", p(1, 4), "expected end of input");

    let e = err("  {");
    assert_err(&e, "", p(1, 4), "expected a key");
}

#[test]
fn unknown_keys_with_suggestions() {
    let e = err("[sim]\ndurtion = \"5s\"\n");
    assert_err(
        &e,
        "sim.durtion",
        p(2, 1),
        "unknown key `durtion` in [sim]; did you mean `duration`?",
    );
    assert_eq!(
        e.to_string(),
        "sim.durtion at line 2, column 1: unknown key `durtion` in [sim]; did you mean `duration`?"
    );

    let e = err("[[task]]\nname = \"a\"\n  nicee = 1\nprogram = \"run\"\n");
    assert_err(&e, "task[0].nicee", p(3, 3), "did you mean `nice`?");

    let e = err("[tsk]\n");
    assert_err(&e, "tsk", p(1, 2), "did you mean `task`?");

    let e = err("[topology]\nsocket = 2\n");
    assert_err(&e, "topology.socket", p(2, 1), "did you mean `sockets`?");

    let e = err("[sim]\nzzzzzz = 1\n");
    assert_err(&e, "sim.zzzzzz", p(2, 1), "expected one of duration, warmup, seed");

    let e = err("{\"sim\": {\"sed\": 1}}");
    assert_err(&e, "sim.sed", p(1, 10), "did you mean `seed`?");
}

#[test]
fn wrong_types() {
    let e = err("[[task]]\nname = \"a\"\nnice = \"5\"\nprogram = \"run\"\n");
    assert_err(
        &e,
        "task[0].nice",
        p(3, 8),
        "must be an integer in -20..=19, found a string",
    );

    let e = err("[[task]]\nname = \"a\"\ncount = true\nprogram = \"run\"\n");
    assert_err(&e, "task[0].count", p(3, 9), "found a boolean");

    let e = err("[sim]\nkernel = 6.18\n");
    assert_err(&e, "sim.kernel", p(2, 10), "quote it: \"6.18\"");

    let e = err("sim = 5\n");
    assert_err(
        &e,
        "sim",
        p(1, 7),
        "`sim` must be a table, found an integer",
    );

    let e = err("[task]\nname = \"a\"\n");
    assert_err(&e, "task", p(1, 1), "write each task as a [[task]] table");

    let e = err("{\"task\": [5]}");
    assert_err(&e, "task[0]", p(1, 11), "must be an object, found a number");

    let e = err("[sim]\npatches = \"a\"\n");
    assert_err(&e, "sim.patches", p(2, 11), "array of patch names");

    let e = err("[sim]\npatches = [\"a\", 1]\n");
    assert_err(&e, "sim.patches[1]", p(2, 17), "patch name");

    let e = err("[sim]\nfeatures = { X = 1 }\n");
    assert_err(
        &e,
        "sim.features.X",
        p(2, 18),
        "true/false or \"on\"/\"off\"",
    );

    let e = err("[[task]]\nname = \"a\"\nprogram = [\"run\"]\n");
    assert_err(&e, "task[0].program", p(3, 11), "found an array");

    let e = err("{\"sim\": {\"seed\": 1.5}}");
    assert_err(&e, "sim.seed", p(1, 18), "found a number with a fraction");

    let e = err("[sim]\nseed = -1\n");
    assert_err(&e, "sim.seed", p(2, 8), "seed must be an integer in 0..=");
}

#[test]
fn out_of_range_nice_matches_display_format() {
    let text = "[sim]\nduration = \"1s\"\n\n[[task]]\nname = \"a\"\nprogram = \"run\"\n\n[[task]]\nname = \"b\"\nprogram = \"run\"\n# the next line is wrong\nnice = 25\n";
    let e = err(text);
    assert_eq!(
        e.to_string(),
        "task[1].nice at line 12, column 8: nice must be an integer in -20..=19"
    );
}

#[test]
fn other_ranges() {
    let e = err("[sim]\nhz = 200\n");
    assert_err(
        &e,
        "sim.hz",
        p(2, 6),
        "hz must be one of 100, 250, 300, 1000, found 200",
    );
    let e = err("[sim]\nbase_slice = \"50us\"\n");
    assert_err(
        &e,
        "sim.base_slice",
        p(2, 14),
        "between 100us and 100ms, found 50us",
    );
    let e = err("[sim]\nduration = \"0s\"\n");
    assert_err(&e, "sim.duration", p(2, 12), "positive");
    let e = err("[sim]\nbalance_phases = \"steady\"\n");
    assert_err(&e, "sim.balance_phases", p(2, 18), "\"boot\" or \"spread\", found \"steady\"");
    let e = err("[sim]\ntunable_scaling = \"lin\"\n");
    assert_err(
        &e,
        "sim.tunable_scaling",
        p(2, 19),
        "\"none\", \"log\" or \"linear\"",
    );
    let e = err("[[task]]\nname = \"a\"\ncount = 0\nprogram = \"run\"\n");
    assert_err(&e, "task[0].count", p(3, 9), "1..=65536");
    let e = err("[[task]]\nname = \"a\"\npolicy = \"batc\"\nprogram = \"run\"\n");
    assert_err(&e, "task[0].policy", p(3, 10), "did you mean \"batch\"?");
    let e = err("[[task]]\nname = \"a\"\nslice = \"200ms\"\nprogram = \"run\"\n");
    assert_err(&e, "task[0].slice", p(3, 9), "between 100us and 100ms");
    let e = err("[[task]]\nname = \"1a\"\nprogram = \"run\"\n");
    assert_err(&e, "task[0].name", p(2, 8), "invalid task name");
    let e = err("[[task]]\nname = \"a.b\"\nprogram = \"run\"\n");
    assert_err(&e, "task[0].name", p(2, 8), "invalid task name");
    let long = "x".repeat(65);
    let e = err(&format!("[[task]]\nname = \"{long}\"\nprogram = \"run\"\n"));
    assert_err(&e, "task[0].name", p(2, 8), "longer than 64");
    ok(&format!(
        "[[task]]\nname = \"{}\"\nprogram = \"run\"\n",
        "x".repeat(64)
    ));
    let e = err("[sim]\nkernel = \"\"\n");
    assert_err(&e, "sim.kernel", p(2, 10), "must not be empty");
    let e = err("[sim]\npatches = [\"a\", \"a\"]\n");
    assert_err(&e, "sim.patches[1]", p(2, 17), "listed twice");
}

#[test]
fn missing_required_keys() {
    let e = err("[sim]\n\n[[task]]\nprogram = \"run\"\n");
    assert_err(&e, "task[0].name", p(3, 1), "missing required key `name`");
    let e = err("[[task]]\nname = \"a\"\nprogram = \"run\"\n\n  [[task]]\nname = \"b\"\n");
    assert_err(
        &e,
        "task[1].program",
        p(5, 3),
        "missing required key `program`",
    );
}

#[test]
fn bad_durations() {
    let e = err("[sim]\nduration = \"5\"\n");
    assert_err(&e, "sim.duration", p(2, 12), "use a unit: \"5ms\"");
    let e = err("[sim]\nduration = 5\n");
    assert_err(&e, "sim.duration", p(2, 12), "needs a unit: write \"5ms\"");
    let e = err("[sim]\nduration = \"-1ms\"\n");
    assert_err(&e, "sim.duration", p(2, 12), "negative");
    let e = err("[sim]\nduration = \"5 s\"\n");
    assert_err(&e, "sim.duration", p(2, 12), "without a space");
    let e = err("[[task]]\nname = \"a\"\nstart = \"1.5ns\"\nprogram = \"run\"\n");
    assert_err(&e, "task[0].start", p(3, 9), "whole number of nanoseconds");
    let e = err("[sim]\nduration = \"2000000s\"\n");
    assert_err(&e, "sim.duration", p(2, 12), "too large");
    let e = err("[sim]\nduration = \"5min\"\n");
    assert_err(&e, "sim.duration", p(2, 12), "unknown unit `min`");
    let e = err("{\"sim\": {\"duration\": 5}}");
    assert_err(&e, "sim.duration", p(1, 22), "needs a unit");
}

#[test]
fn bad_cpulists() {
    let t =
        |aff: &str| format!("[[task]]\nname = \"a\"\naffinity = \"{aff}\"\nprogram = \"run\"\n");
    let e = err(&t("0-3,,5"));
    assert_err(&e, "task[0].affinity", p(3, 17), "empty group");
    let e = err(&t("0-3,5-2"));
    assert_err(&e, "task[0].affinity", p(3, 17), "5 is greater than 2");
    let e = err(&t("0, x"));
    assert_err(&e, "task[0].affinity", p(3, 16), "expected a CPU number");
    let e = err(&t("4096"));
    assert_err(&e, "task[0].affinity", p(3, 13), "out of range");
    let e = err(&t(""));
    assert_err(&e, "task[0].affinity", p(3, 13), "empty cpulist");
    let e = err(&t("0-7:3/2"));
    assert_err(&e, "task[0].affinity", p(3, 13), "need 1 <= 3 <= 2");
    let e = err(&t("0-7:3"));
    assert_err(&e, "task[0].affinity", p(3, 13), "A-B:USED/GROUP");
    let e = err("[[task]]\nname = \"a\"\naffinity = true\nprogram = \"run\"\n");
    assert_err(&e, "task[0].affinity", p(3, 12), "cpulist string");

    assert_eq!(
        CpuList::parse("0-15:4/8").unwrap().0,
        vec![0, 1, 2, 3, 8, 9, 10, 11]
    );
    assert_eq!(CpuList::parse(" 3 , 1,2 ").unwrap().0, vec![1, 2, 3]);
    assert_eq!(CpuList::parse("0-4095").unwrap().0.len(), 4096);
    assert_eq!(CpuList::parse("0-4095:1/4095").unwrap().0, vec![0, 4095]);
    assert!(CpuList::parse(",").is_err());
    assert!(CpuList::parse("1-").is_err());
    assert!(CpuList::parse("-1").is_err());
    let s = ok("[[task]]\nname = \"a\"\naffinity = 3\nprogram = \"run\"\n");
    assert_eq!(
        s.tasks[0].affinity.as_ref().map(|a| a.0.clone()),
        Some(CpuList(vec![3]))
    );
}

#[test]
fn duplicate_task_names() {
    let e = err("[[task]]\nname = \"a\"\nprogram = \"run\"\n[[task]]\nname = \"b\"\nprogram = \"run\"\n[[task]]\nname   =   \"a\"\nprogram = \"run\"\n");
    assert_err(
        &e,
        "task[2].name",
        p(8, 12),
        "duplicate task name `a` (already used by task[0])",
    );
}

#[test]
fn topology_rules() {
    let e = err("[topology]\npreset = \"2x4\"\nsockets = 2\n");
    assert_err(
        &e,
        "topology.sockets",
        p(3, 1),
        "cannot be combined with `preset`",
    );
    let e = err("[topology]\ncores_per_llc = 2\npreset = \"2x4\"\n");
    assert_err(
        &e,
        "topology.preset",
        p(3, 1),
        "cannot be combined with `cores_per_llc`",
    );
    let e = err("[topology]\ncores_per_llc = 2000\n");
    assert_err(&e, "topology.cores_per_llc", p(2, 17), "1..=1024");
    let e = err("[topology]\nthreads_per_core = 9\n");
    assert_err(&e, "topology.threads_per_core", p(2, 20), "1..=8");
    let e = err("\n[topology]\nsockets = 64\ncores_per_llc = 128\n");
    assert_err(&e, "topology", p(2, 1), "8192 CPUs");
    let s = ok("[topology]\nsockets = 4\ncores_per_llc = 1024\n");
    assert_eq!(s.topology.cores_per_llc.map(|c| c.0), Some(1024));
    assert_eq!(s.topology.llcs_per_socket, None);
}

#[test]
fn workloads_and_channels_parse() {
    let text = format!("{EXAMPLE_TOML}{EXAMPLE_WORKLOAD}");
    let sc = parse(&text).unwrap();
    assert_eq!(sc.workloads.len(), 1);
    assert_eq!(sc.workloads[0].kind.name, "hackbench");
    assert_eq!(sc.workloads[0].kind.key, "workload[0].kind");
    let e = err("[[workload]]\ngroups = 2\n");
    assert_err(&e, "workload[0].kind", p(1, 1), "workload is missing required key `kind`");
    let sc = parse("[[workload]]\nkind = \"x\"\nwork = \"30us\"\nmode = \"pipe\"\nn = 3\nsync = true\n").unwrap();
    let params: Vec<(&str, &Param)> = sc.workloads[0].params.iter().map(|(n, v)| (n.name.as_str(), v)).collect();
    assert_eq!(params, vec![("work", &Param::Dur(30_000)), ("mode", &Param::Str("pipe".into())), ("n", &Param::Int(3)), ("sync", &Param::Bool(true))]);
    let sc = parse("[[channel]]\nname = \"req\"\ncapacity = 4\n").unwrap();
    assert_eq!((sc.channels[0].name.as_str(), sc.channels[0].capacity, sc.channels[0].sync), ("req", 4, true));
    let sc = parse("[[channel]]\nname = \"sig\"\nsync = false\n").unwrap();
    assert!(!sc.channels[0].sync);
    let e = err("[[channel]]\nname = \"a\"\nsync = \"no\"\n");
    assert_eq!(e.key, "channel[0].sync");
    let e = err("[[channel]]\nname = \"a\"\nsize = 4\n");
    assert_eq!(e.key, "channel[0].size");
}

#[test]
fn channel_kinds_parse_and_refuse_what_the_kernel_object_has_not() {
    let kind = |text: &str| parse(text).unwrap().channels[0].kind;
    // A pipe of one page unless told; a socket's writers wake at a quarter.
    assert_eq!(kind("[[channel]]\nname = \"a\"\n"), ChannelKind::Pipe { pages: 1 });
    assert_eq!(kind("[[channel]]\nname = \"a\"\ncapacity = 640\npages = 16\n"), ChannelKind::Pipe { pages: 16 });
    assert_eq!(kind("[[channel]]\nname = \"a\"\ncapacity = 278\nkind = \"socket\"\n"), ChannelKind::Socket { wake_at: 69 });
    assert_eq!(kind("[[channel]]\nname = \"a\"\nkind = \"socket\"\ncapacity = 9\nwake_at = 8\n"), ChannelKind::Socket { wake_at: 8 });
    let e = err("[[channel]]\nname = \"a\"\ncapacity = 12\npages = 3\n");
    assert_err(&e, "channel[0].pages", p(4, 9), "power of two");
    let e = err("[[channel]]\nname = \"a\"\ncapacity = 10\npages = 4\n");
    assert_err(&e, "channel[0].pages", p(4, 9), "a multiple of `pages`");
    let e = err("[[channel]]\nname = \"a\"\nkind = \"fifo\"\n");
    assert_err(&e, "channel[0].kind", p(3, 8), "unknown channel kind");
    let e = err("[[channel]]\nname = \"a\"\nkind = \"socket\"\npages = 2\n");
    assert_err(&e, "channel[0].pages", p(4, 9), "is a pipe's");
    let e = err("[[channel]]\nname = \"a\"\nwake_at = 2\n");
    assert_err(&e, "channel[0].wake_at", p(3, 11), "is a socket's");
    let e = err("[[channel]]\nname = \"a\"\nkind = \"socket\"\ncapacity = 4\nwake_at = 4\n");
    assert_err(&e, "channel[0].wake_at", p(5, 11), "below the capacity");
    let e = err("[[channel]]\nname = \"a\"\nsync = false\npages = 2\n");
    assert_err(&e, "channel[0].pages", p(4, 9), "a signal queue");
    // What the printer writes reads back the same.
    for text in ["capacity = 640\npages = 16\n", "capacity = 278\nkind = \"socket\"\n", "capacity = 9\nkind = \"socket\"\nwake_at = 8\n", "sync = false\n"] {
        let sc = parse(&format!("[[channel]]\nname = \"a\"\n{text}")).unwrap();
        let back = parse(&print::channel(&sc.channels[0])).unwrap();
        assert_eq!((back.channels[0].capacity, back.channels[0].sync, back.channels[0].kind), (sc.channels[0].capacity, sc.channels[0].sync, sc.channels[0].kind), "{text}");
    }
}

#[test]
fn groups_parse_and_check_names() {
    let sc = parse(
        "[[group]]\nname = \"db\"\nweight = 200\n[[group]]\nname = \"web\"\nparent = \"db\"\nidle = true\n\
         [[task]]\nname = \"t\"\ngroup = \"web\"\nwant_preempt = true\nprogram = \"run\"\n",
    )
    .unwrap();
    assert_eq!(sc.groups.len(), 2);
    assert_eq!((sc.groups[0].weight, sc.groups[0].shares), (200, None));
    assert_eq!(sc.groups[1].parent.as_ref().map(|n| n.name.as_str()), Some("db"));
    assert_eq!((sc.groups[1].shares, sc.groups[1].idle), (None, true));
    let sc2 = parse("[[group]]\nname = \"a\"\nshares = 512\n[[task]]\nname = \"t\"\ngroup = \"a\"\nprogram = \"run\"\n").unwrap();
    assert_eq!(sc2.groups[0].shares, Some(512));
    // sched_group_set_shares() refuses a weight while cpu.idle is 1.
    let e = err("[[group]]\nname = \"a\"\nidle = true\nweight = 50\n");
    assert_err(&e, "group[0].weight", p(4, 10), "has the weight of SCHED_IDLE");
    let e = err("[[group]]\nname = \"a\"\nshares = 512\nidle = true\n");
    assert_err(&e, "group[0].shares", p(3, 10), "the kernel refuses cpu.weight/cpu.shares");
    // One knob per group (a fuzz case: the printer kept shares, the weight
    // was lost on the way back).
    let e = err("[[group]]\nname = \"a\"\nweight = 10000\nshares = 138691\n");
    assert_err(&e, "group[0].shares", p(4, 10), "`weight` (cgroup v2 cpu.weight) or `shares` (v1 cpu.shares), not both");
    assert_eq!(sc.tasks[0].group.as_ref().map(|n| n.name.as_str()), Some("web"));
    assert!(sc.tasks[0].want_preempt);

    let e = err("[[group]]\nname = \"a\"\nparent = \"b\"\n");
    assert_err(&e, "group[0].parent", p(3, 10), "no group named `b`");
    let e = err("[[group]]\nname = \"a\"\nparent = \"b\"\n[[group]]\nname = \"b\"\nparent = \"a\"\n");
    assert_err(&e, "group[0].parent", p(3, 10), "group `a` would be its own ancestor");
    // A group leading into a cycle is not on it: the cycle's first group in
    // file order is named (here b, where the walk from a finds it).
    let e = err("[[group]]\nname = \"a\"\nparent = \"b\"\n[[group]]\nname = \"b\"\nparent = \"c\"\n[[group]]\nname = \"c\"\nparent = \"b\"\n");
    assert_err(&e, "group[1].parent", p(6, 10), "group `b` would be its own ancestor");
    let e = err("[[group]]\nname = \"web\"\n[[task]]\nname = \"t\"\ngroup = \"wbe\"\nprogram = \"run\"\n");
    assert_err(&e, "task[0].group", p(5, 9), "no group named `wbe`; did you mean `web`?");
    let e = err("[[group]]\nname = \"g\"\nweight = 0\n");
    assert_eq!(e.key, "group[0].weight");
    let e = err("[sim]\ncosts = { context_switch = \"2us\", scanner = \"1ns\" }\n");
    assert_eq!(e.key, "sim.costs.scanner");
    let sc = parse("[sim]\ncosts = { context_switch = \"2us\", scan = \"0ns\" }\n").unwrap();
    assert_eq!((sc.sim.costs.context_switch, sc.sim.costs.scan, sc.sim.costs.migration), (Some(2000), Some(0), None));
}

// ---------------------------------------------------------------------------
// Program language
// ---------------------------------------------------------------------------

#[test]
fn program_statements() {
    let ms = |n: u64| n * 1_000_000;
    let got = stmts(
        "run 1ms; run exp(2ms); run uniform( 1ms , 3ms ); sleep 500us; loop 3 { yield }; nice -5; \
         slice 3ms; slice default; slice 0; send ch; send ch 4; recv ch 2; wake t; wait; exit",
    );
    let want = vec![
        StmtKind::Run(Dur::Fixed(ms(1))),
        StmtKind::Run(Dur::Exp { mean: ms(2) }),
        StmtKind::Run(Dur::Uniform {
            lo: ms(1),
            hi: ms(3),
        }),
        StmtKind::Sleep(Dur::Fixed(500_000)),
        StmtKind::Loop {
            count: Some(3),
            body: vec![Stmt {
                kind: StmtKind::Yield,
                pos: p(0, 0),
            }],
        },
        StmtKind::Nice(-5),
        StmtKind::Slice(Some(ms(3))),
        StmtKind::Slice(None),
        StmtKind::Slice(None),
        StmtKind::Send {
            chan: "ch".into(),
            n: 1,
        },
        StmtKind::Send {
            chan: "ch".into(),
            n: 4,
        },
        StmtKind::Recv {
            chan: "ch".into(),
            n: 2,
        },
        StmtKind::Wake("t".into()),
        StmtKind::Wait,
        StmtKind::Exit,
    ];
    assert_eq!(got, want);

    // Newlines, comments, no separator after a loop's `}`, 1.5ms, µs.
    let got =
        stmts("loop 2 { run 1.5ms } sleep 10\u{b5}s # comment ; not a statement\\n\\n  yield");
    assert_eq!(got.len(), 3);
    assert_eq!(got[1], StmtKind::Sleep(Dur::Fixed(10_000)));
}

#[test]
fn program_display_round_trips() {
    let src =
        "run 1ms; run exp(2ms); loop 3 { sleep uniform(1ms, 3ms); loop { recv c 2; send c } }";
    let s = ok(&prog_toml(src));
    let text = s.tasks[0].program.to_string();
    assert_eq!(
        text,
        "run 1ms; run exp(2ms); loop 3 { sleep uniform(1ms, 3ms); loop { recv c 2; send c } }"
    );
    let again = ok(&prog_toml(&text));
    let mut a = s.clone();
    let mut b = again;
    erase_positions(&mut a);
    erase_positions(&mut b);
    assert_eq!(a, b);
}

#[test]
fn program_errors_basic_string() {
    // program = "loop { slep 10ms; run 1ms }": content starts at column 12.
    let e = prog_err("loop { slep 10ms; run 1ms }");
    assert_err(
        &e,
        "task[0].program",
        p(3, 19),
        "unknown statement `slep`; did you mean `sleep`?",
    );
    assert_eq!(
        e.to_string(),
        "task[0].program at line 3, column 19: unknown statement `slep`; did you mean `sleep`?"
    );

    let cases: &[(&str, u32, &str)] = &[
        ("loop { }", 12, "empty body"),
        ("loop { nice 1 }", 12, "loop never advances time"),
        ("loop { loop 2 { send c } }", 12, "loop never advances time"),
        (
            "run; sleep 1ms",
            17,
            "unreachable statement: `run` without a duration",
        ),
        ("exit; run", 18, "unreachable"),
        ("loop { run 1ms }; run", 30, "unreachable"),
        ("run uniform(2ms, 1ms)", 29, "lo <= hi"),
        ("nice 20", 17, "-20..=19"),
        ("send ch 0", 20, "at least 1"),
        ("recv 5", 17, "channel name"),
        ("slice 50us", 18, "between 100us and 100ms"),
        ("slice exp(1ms)", 18, "fixed duration"),
        ("run 4", 16, "use a unit: \"4ms\""),
        ("sleep", 17, "needs a duration"),
        ("sleep 0ms", 18, "positive"),
        ("run exq(1ms)", 16, "did you mean `exp`?"),
        ("loop { run 1ms", 17, "never closed"),
        ("run 1ms }", 20, "unexpected `}`"),
        ("run 1ms 2ms", 20, "expected `;` or a new line"),
        ("loop 0 { run 1ms }", 17, "at least 1"),
        ("loop run 1ms", 17, "expected `{` after `loop`"),
        ("run 1ms; @", 21, "unexpected character `@`"),
        ("4ms", 12, "expected a statement"),
        ("  # only a comment", 12, "program is empty"),
        ("wake nobody", 17, "no task named `nobody`"),
        ("wake t.0", 17, "has count 1"),
        ("run exp(0ns)", 16, "positive mean"),
    ];
    for &(src, col, frag) in cases {
        let e = prog_err(src);
        assert_err(&e, "task[0].program", p(3, col), frag);
    }
}

#[test]
fn program_quotes_hint() {
    // A single-quoted TOML string so the program can contain a double quote.
    let e = err("[[task]]\nname = \"t\"\nprogram = 'run \"4ms\"'\n");
    assert_err(&e, "task[0].program", p(3, 16), "without quotes");
}

#[test]
fn program_errors_in_multiline_strings() {
    let text = "[[task]]\nname = \"t\"\nprogram = '''\nrun 1ms\nloop 3 {\n  sleep 1ms  # fine\n  slep 2ms\n}\n'''\n";
    let e = err(text);
    assert_err(&e, "task[0].program", p(7, 3), "did you mean `sleep`?");

    // Statement positions inside the ''' string.
    let ok_text = text.replace("slep", "sleep");
    let s = ok(&ok_text);
    let st = &s.tasks[0].program.stmts;
    assert_eq!(st[0].pos, p(4, 1));
    assert_eq!(st[1].pos, p(5, 1));
    if let StmtKind::Loop { body, .. } = &st[1].kind {
        assert_eq!(body[1].pos, p(7, 3));
    } else {
        panic!("not a loop");
    }

    // ''' with text on the first line (no newline to trim).
    let e = err("[[task]]\nname = \"t\"\nprogram = '''run 1ms\n    slep'''\n");
    assert_err(&e, "task[0].program", p(4, 5), "unknown statement");

    // """ with a line-ending backslash and an escape.
    let e = err(
        "[[task]]\nname = \"t\"\nprogram = \"\"\"\\\n    run 1ms; \\\n    \\u0073lep 1ms\"\"\"\n",
    );
    assert_err(&e, "task[0].program", p(5, 5), "unknown statement `slep`");

    // CRLF line endings.
    let e = err("[[task]]\r\nname = \"t\"\r\nprogram = '''\r\nrun 1ms\r\n  slep 1ms\r\n'''\r\n");
    assert_err(&e, "task[0].program", p(5, 3), "unknown statement");
}

#[test]
fn program_errors_with_escapes() {
    // Line 7: `program = "run 1ms\nslep 2ms"`; the \n escape is two columns.
    let text = "[sim]\nseed = 1\n\n[[task]]\nname = \"t\"\n\nprogram = \"run 1ms\\nslep 2ms\"\n";
    let e = err(text);
    assert_eq!(
        e.to_string(),
        "task[0].program at line 7, column 21: unknown statement `slep`; did you mean `sleep`?"
    );
    // JSON, with a \u escape before the error and a non-ASCII character.
    let e =
        err("{\"task\": [{\"name\": \"t\", \"program\": \"run 1ms # \u{e9}\\u00e9\\nslep 1ms\"}]}");
    assert_err(&e, "task[0].program", p(1, 56), "unknown statement");
    // Literal string: backslashes are not escapes.
    let e = err("[[task]]\nname = \"t\"\nprogram = 'run 1ms \\ slep'\n");
    assert_err(
        &e,
        "task[0].program",
        p(3, 20),
        "unexpected character `\\\\`",
    );
}

#[test]
fn program_nesting_limit() {
    let mut deep = String::new();
    for _ in 0..MAX_LOOP_DEPTH {
        deep.push_str("loop 2 { ");
    }
    deep.push_str("run 1ms");
    deep.push_str(&" }".repeat(MAX_LOOP_DEPTH));
    ok(&prog_toml(&deep));
    let too_deep = format!("loop {{ {deep} }}");
    let e = prog_err(&too_deep);
    assert_eq!(e.key, "task[0].program");
    assert!(e.msg.contains("nest deeper than 16"), "{e}");
    // Very deep input is an error, not a stack overflow.
    let e = prog_err(&"loop { ".repeat(100_000));
    assert!(e.msg.contains("nest deeper"), "{e}");
}

#[test]
fn wake_targets() {
    let text = "[[task]]\nname = \"srv\"\ncount = 3\nprogram = \"loop { wait; run 1ms }\"\n[[task]]\nname = \"cli\"\nprogram = \"loop { wake srv.2; sleep 1ms }\"\n";
    let s = ok(text);
    assert_eq!(
        s.tasks[1].program.stmts[0].kind,
        StmtKind::Loop {
            count: None,
            body: vec![
                Stmt {
                    kind: StmtKind::Wake("srv.2".into()),
                    pos: p(7, 19)
                },
                Stmt {
                    kind: StmtKind::Sleep(Dur::Fixed(1_000_000)),
                    pos: p(7, 31)
                },
            ]
        }
    );
    let e = err(&text.replace("srv.2", "srv.3"));
    assert_err(
        &e,
        "task[1].program",
        p(7, 24),
        "not one of `srv.0` .. `srv.2`",
    );
    let e = err(&text.replace("srv.2", "srv"));
    assert_err(&e, "task[1].program", p(7, 24), "has count 3");
    let e = err(&text.replace("srv.2", "svr.1"));
    assert_err(&e, "task[1].program", p(7, 24), "did you mean `srv`?");
    let e = err(&text.replace("srv.2", "srv.02"));
    assert_err(&e, "task[1].program", p(7, 24), "not one of");
}

// ---------------------------------------------------------------------------
// Durations
// ---------------------------------------------------------------------------

#[test]
fn durations() {
    let good: &[(&str, u64)] = &[
        ("750us", 750_000),
        ("4ms", 4_000_000),
        ("2s", 2_000_000_000),
        ("1.5ms", 1_500_000),
        ("0.25s", 250_000_000),
        ("12ns", 12),
        ("10\u{b5}s", 10_000),
        ("10\u{3bc}s", 10_000),
        ("0s", 0),
        ("1.000s", 1_000_000_000),
        ("0.000000001s", 1),
        (" 3ms ", 3_000_000),
        ("1000000s", MAX_DURATION_NS),
        ("00012ms", 12_000_000),
    ];
    for &(s, ns) in good {
        assert_eq!(parse_duration(s), Ok(ns), "{s}");
    }
    let bad: &[(&str, &str)] = &[
        ("4", "use a unit: \"4ms\""),
        ("-1ms", "negative"),
        ("1.5ns", "whole number"),
        ("0.0000000001s", "whole number"),
        ("1000000.000000001s", "too large"),
        ("1000001s", "too large"),
        ("99999999999999999999999999s", "too large"),
        ("18446744073709551616ns", "too large"),
        ("", "empty"),
        ("ms", "expected a number"),
        ("1..5ms", "malformed"),
        ("1.ms", "malformed"),
        (".5ms", "malformed"),
        ("1e3ms", "unknown unit"),
        ("4 ms", "without a space"),
        ("4MS", "unknown unit"),
        ("+4ms", "expected a number"),
    ];
    for &(s, frag) in bad {
        match parse_duration(s) {
            Ok(v) => panic!("{s:?} parsed as {v}"),
            Err(m) => assert!(m.contains(frag), "{s:?}: {m}"),
        }
    }
}

#[test]
fn format_duration_shortest_and_round_trips() {
    let cases: &[(u64, &str)] = &[
        (0, "0s"),
        (12, "12ns"),
        (750_000, "750us"),
        (4_000_000, "4ms"),
        (1_500_000, "1.5ms"),
        (2_000_000_000, "2s"),
        (250_000_000, "250ms"),
        (1_000, "1us"),
        (1_001, "1001ns"),
        (1_234_567, "1234567ns"),
        (1_500_000_000, "1.5s"),
        (MAX_DURATION_NS, "1000000s"),
    ];
    for &(ns, s) in cases {
        assert_eq!(format_duration(ns), s, "{ns}");
        assert_eq!(parse_duration(s), Ok(ns));
    }
    let mut rng = Rng(0x5eed);
    for _ in 0..20_000 {
        let r = rng.next();
        let ns = match r % 4 {
            0 => r % 1_000,
            1 => (r % 1_000_000) * 1_000,
            2 => (r % 100_000) * 10_000,
            _ => r % (MAX_DURATION_NS + 1),
        };
        let s = format_duration(ns);
        assert_eq!(parse_duration(&s), Ok(ns), "{ns} -> {s}");
    }
    // Values above the limit still format.
    assert_eq!(format_duration(u64::MAX), "18446744073709551615ns");
}

// ---------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------

/// xorshift64* — small, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const RICH_TOML: &str = r#"[sim]
duration = "250ms"
seed = 42
hz = 250
patches = ["a", "b"]
features = { PLACE_LAG = "off", NEXT_BUDDY = true }
tunable_scaling = "log"
balance_phases = "spread"
[topology]
sockets = 2
cores_per_llc = 4
[[task]]
name = "srv"
count = 3
affinity = "0-7:2/4,12"
program = '''
loop {
  recv req 1   # wait for a request
  run exp(200us); send rsp
}
'''
[[task]]
name = "cli"
start = "1.5ms"
program = """loop 100 { send req; run uniform(10us, 20us); wake srv.1; recv rsp }\nexit"""
"#;

const RICH_JSON: &str = r#"{"sim": {"duration": "250ms", "seed": 42, "features": {"X": "on"}},
 "topology": {"preset": "2x8"},
 "task": [{"name": "a", "nice": -3, "policy": "batch", "program": "loop 3 { sleep 1ms; run 2ms }\nexit"},
          {"name": "b", "program": "run \u0031ms; slice default; wake a", "affinity": "1,3"}]}"#;

#[test]
fn fuzzed_inputs_never_panic() {
    ok(RICH_TOML);
    ok(RICH_JSON);
    let bases = [EXAMPLE_TOML, EXAMPLE_JSON, RICH_TOML, RICH_JSON];
    let interesting: &[u8] =
        b"{}[]()\"'#;,:.=-_\\\n 0123456789abcdefgimnorsuxyzTF\t\r\x00\xc3\xa9\xff";
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (mut oks, mut errs) = (0usize, 0usize);
    // SCENARIO_FUZZ_ITERS=1000000 for a longer run.
    let iters = std::env::var("SCENARIO_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    for _ in 0..iters {
        let base = bases[rng.below(bases.len())];
        let mut bytes = base.as_bytes().to_vec();
        let edits = 1 + rng.below(4);
        for _ in 0..edits {
            let len = bytes.len();
            let at = rng.below(len + 1);
            match rng.below(6) {
                0 if at < len => bytes[at] = interesting[rng.below(interesting.len())],
                1 => bytes.insert(at, interesting[rng.below(interesting.len())]),
                2 if at < len => {
                    bytes.remove(at);
                }
                3 => bytes.truncate(at),
                4 if at < len => {
                    // Duplicate a chunk.
                    let end = (at + rng.below(40)).min(len);
                    let chunk = bytes[at..end].to_vec();
                    let to = rng.below(bytes.len() + 1);
                    bytes.splice(to..to, chunk);
                }
                _ if at < len => bytes[at] = (rng.next() & 0xff) as u8,
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        match parse(&text) {
            Ok(_) => oks += 1,
            Err(e) => {
                errs += 1;
                let _ = e.to_string();
            }
        }
        let _ = parse_with(&text, Format::Json);
        let _ = parse_with(&text, Format::Toml);
        let a = rng.below(text.len() + 1);
        let b = (a + rng.below(12)).min(text.len());
        if let Some(sub) = text.get(a..b) {
            let _ = parse_duration(sub);
            let _ = CpuList::parse(sub);
        }
    }
    assert!(oks > 100 && errs > 100, "oks {oks}, errs {errs}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 10_000;
    let json = format!("{{\"a\": {}{}}}", "[".repeat(n), "]".repeat(n));
    let e = err(&json);
    assert_eq!(e.key, "");
    assert!(e.msg.contains("nesting deeper than"), "{e}");
    let json = format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
    assert!(err(&json).msg.contains("nesting deeper than"));
    let toml_arrays = format!("a = {}{}", "[".repeat(n), "]".repeat(n));
    assert!(err(&toml_arrays).msg.contains("syntax error"));
    let toml_tables = format!("a = {}1{}", "{b=".repeat(n), "}".repeat(n));
    assert!(err(&toml_tables).msg.contains("syntax error"));
    let toml_dotted = format!("[a{}]", ".b".repeat(n));
    assert!(err(&toml_dotted).msg.contains("syntax error"));
    let json_unclosed = "[".repeat(n);
    assert!(parse_with(&json_unclosed, Format::Json).is_err());
}

#[test]
fn error_helpers() {
    let n = Named {
        name: "bogus".into(),
        key: "sim.patches[0]".into(),
        pos: p(3, 12),
    };
    let e = ScenarioError::at(&n, "unknown patch `bogus`");
    assert_eq!(
        e.to_string(),
        "sim.patches[0] at line 3, column 12: unknown patch `bogus`"
    );
    let e = ScenarioError::at(
        ("task[0].affinity", p(2, 3)),
        "CPU 9 is not in the topology",
    );
    assert_eq!(
        e.to_string(),
        "task[0].affinity at line 2, column 3: CPU 9 is not in the topology"
    );
    let e = ScenarioError::at(("topology", None), "no CPUs");
    assert_eq!(e.to_string(), "topology: no CPUs");
    let e = ScenarioError::new("", None, "oops");
    assert_eq!(e.to_string(), "oops");
    let s: Scenario = EXAMPLE_TOML.parse().unwrap();
    assert_eq!(s.tasks.len(), 2);
}

#[test]
fn positions_count_chars_and_skip_bom() {
    // "é" is two bytes but one column.
    let e = err("# caf\u{e9}\n[sim]\nseed = \"\u{e9}\u{e9}\"  \nkernel = 1\n");
    assert_err(&e, "sim.seed", p(3, 8), "integer");
    let e = err("\u{feff}[sim]\nsed = 1\n");
    assert_err(&e, "sim.sed", p(2, 1), "did you mean");
    let e = err("\u{feff}{\"sim\": 1}");
    assert_err(&e, "sim", p(1, 9), "must be an object");
}

#[test]
fn large_single_line_inputs() {
    // 100 000 statements on one line of a minified JSON scenario, and 5 000
    // tasks: positions and checks stay (close to) linear.
    let prog = "run 1ms; ".repeat(100_000);
    let mut json = format!("{{\"task\": [{{\"name\": \"big\", \"program\": \"{prog}\"}}");
    for i in 0..5_000 {
        json.push_str(&format!(
            ", {{\"name\": \"t{i}\", \"program\": \"wake t0; sleep 1ms\"}}"
        ));
    }
    json.push_str("]}");
    let s = ok(&json);
    assert_eq!(s.tasks[0].program.stmts.len(), 100_000);
    assert_eq!(s.tasks[0].program.stmts[99_999].pos, p(1, 39 + 9 * 99_999));
    assert_eq!(s.tasks.len(), 5_001);
}

/// A [study] key inside a workload is named as a study key, whatever its
/// value (an array used to be called a type error), at the key.
#[test]
fn study_keys_in_a_workload_are_named_as_such() {
    for (line, col) in [("loads = [\"1\", \"2\"]", 1), ("seeds = 3", 1)] {
        let e = parse(&format!("[[workload]]\nkind = \"hackbench\"\n{line}\n")).unwrap_err();
        let key = line.split(' ').next().unwrap();
        assert_err(&e, &format!("workload[0].{key}"), p(3, col), &format!("unknown workload parameter `{key}`: `{key}` is a [study] key"));
    }
}

/// An empty process or group name says which name is empty (the process
/// one used to be called a task name).
#[test]
fn empty_names_say_whose_name() {
    let e = parse("[[task]]\nname = \"a\"\nprocess = \"\"\nprogram = \"run\"\n").unwrap_err();
    assert_err(&e, "task[0].process", p(3, 11), "process name must not be empty");
    let e = parse("[[group]]\nname = \"\"\n").unwrap_err();
    assert_err(&e, "group[0].name", p(2, 8), "group name must not be empty");
    let e = parse("[[task]]\nname = \"1a\"\nprogram = \"run\"\n").unwrap_err();
    assert_err(&e, "task[0].name", p(2, 8), "invalid task name");
}

/// A dotted key or header deeper than toml's recursion limit is placed at
/// its line, with how deep it is (the parser itself says only "recursion
/// limit", with no position).
#[test]
fn keys_nested_too_deeply_are_placed() {
    let deep = vec!["a"; 100].join(".");
    for (text, line) in [(format!("[{deep}]\n"), 1), (format!("[sim]\n{deep} = 1\n"), 2)] {
        let e = parse(&text).unwrap_err();
        assert_err(&e, "", p(line, 1), "nesting deeper than 64 levels (a dotted key of 100 parts)");
    }
}
