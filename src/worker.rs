//! The study workers' protocol: JSON strings through `postMessage`.
//!
//! The study page runs a pool of workers ([`pool_size`]); each is driven
//! alone by this protocol.
//!
//! The worker says `{"kind":"ready"}` once its handler is installed
//! (messages sent before that would be lost while its wasm loads); the
//! page then sends `{"kind":"plan","text":…}` once, then one
//! `{"kind":"run","index":i}` per run; the worker (src/bin/study-worker.rs)
//! plans the study once (`Study::new`) and answers each run with its
//! `RunValue` (`{"kind":"done",…}`) or an error (`{"kind":"failed",…}`).
//! [`handle`] is the whole worker side, so it is tested natively.

use schedlab_engine::lab::study::{RunValue, Study};
use serde::{Deserialize, Serialize};

/// The most workers a study starts (each holds its own copy of the engine
/// and the planned study).
pub const MAX_WORKERS: usize = 8;

/// How many workers the study page starts for `runs` runs: one per core
/// the browser reports (`navigator.hardwareConcurrency`; 1 if it reports
/// nothing usable), at most [`MAX_WORKERS`], never more than there are runs.
pub fn pool_size(cores: Option<f64>, runs: usize) -> usize {
    let cores = cores.filter(|c| c.is_finite() && *c >= 1.0).map_or(1, |c| c as usize);
    cores.min(MAX_WORKERS).min(runs).max(1)
}

/// A message to the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Request {
    Plan { text: String },
    Run { index: usize },
    /// A trace file to turn into a replay scenario (`lab::import`): done
    /// here so that a large trace neither blocks the page nor puts the
    /// importer in the page's .wasm.
    Import { name: String, text: String },
    /// A study chart to draw as an SVG file (plotters-svg lives in the
    /// worker's .wasm, not the page's).
    ChartSvg { chart: crate::views::plots::ChartSvg },
    /// A run's whole trace as ftrace text (`lab::perfetto`): the writer
    /// lives in the worker's .wasm, not the page's. The run is the
    /// scenario under these overrides (`Overrides`, field by field).
    Export {
        text: String,
        kernel: Option<String>,
        patches: Option<Vec<String>>,
        features: Vec<(String, bool)>,
        seed: Option<u64>,
        duration: Option<u64>,
    },
}

/// A message from the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Reply {
    /// The worker is listening.
    Ready,
    Planned { runs: usize },
    Done { index: usize, value: RunValueMsg },
    Failed { index: Option<usize>, message: String },
    /// The scenario an imported trace became.
    Imported { scenario: String },
    /// The chart's SVG document.
    Svg { svg: String },
    /// The exported trace.
    Trace { trace: String },
}

/// `RunValue` as it travels (the engine's type is only `Serialize`). JSON
/// has no NaN or infinity: serde_json writes them as null, read back as NaN.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunValueMsg {
    pub value: Option<f64>,
    pub events: u64,
    pub schedule_hash: String,
    pub wakeup_cdf: Vec<u64>,
    pub switches_per_sec: Option<f64>,
    pub ops_per_sec: Option<f64>,
    pub engagement: schedlab_engine::lab::study::Engagement,
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

impl From<&RunValue> for RunValueMsg {
    fn from(v: &RunValue) -> Self {
        RunValueMsg {
            value: finite(v.value),
            events: v.events,
            schedule_hash: v.schedule_hash.clone(),
            wakeup_cdf: v.wakeup_cdf.clone(),
            switches_per_sec: finite(v.switches_per_sec),
            ops_per_sec: finite(v.ops_per_sec),
            engagement: v.engagement,
        }
    }
}

impl RunValueMsg {
    pub fn into_run_value(self) -> RunValue {
        RunValue {
            value: self.value.unwrap_or(f64::NAN),
            events: self.events,
            schedule_hash: self.schedule_hash,
            wakeup_cdf: self.wakeup_cdf,
            switches_per_sec: self.switches_per_sec.unwrap_or(f64::NAN),
            ops_per_sec: self.ops_per_sec.unwrap_or(f64::NAN),
            engagement: self.engagement,
        }
    }
}

pub fn encode<T: Serialize>(m: &T) -> String {
    serde_json::to_string(m).unwrap_or_else(|e| {
        format!(r#"{{"kind":"failed","index":null,"message":"cannot encode a message: {e}"}}"#)
    })
}

/// The worker: answers one message, keeping the planned study in `study`.
pub fn handle(study: &mut Option<Study>, msg: &str) -> String {
    let req: Request = match serde_json::from_str(msg) {
        Ok(r) => r,
        Err(e) => {
            return encode(&Reply::Failed {
                index: None,
                message: format!("the worker got a message it cannot read: {e}"),
            })
        }
    };
    let reply = match req {
        Request::Import { name, text } => import_trace(&name, &text),
        Request::ChartSvg { chart } => Reply::Svg { svg: chart.render() },
        Request::Export { text, kernel, patches, features, seed, duration } => {
            let ov = schedlab_engine::Overrides { kernel, patches, features, seed, duration };
            match schedlab_engine::lab::perfetto::export_scenario(&text, &ov) {
                Ok(trace) => Reply::Trace { trace },
                Err(message) => Reply::Failed { index: None, message },
            }
        }
        Request::Plan { text } => match Study::new(&text) {
            Ok(s) => {
                let runs = s.runs.len();
                *study = Some(s);
                Reply::Planned { runs }
            }
            Err(e) => {
                *study = None;
                Reply::Failed {
                    index: None,
                    message: e.to_string(),
                }
            }
        },
        Request::Run { index } => match study.as_ref() {
            None => Reply::Failed {
                index: Some(index),
                message: "no study planned".to_string(),
            },
            Some(s) if index >= s.runs.len() => Reply::Failed {
                index: Some(index),
                message: format!("run {index} does not exist ({} runs)", s.runs.len()),
            },
            Some(s) => match s.run_one(index) {
                Ok(v) => Reply::Done {
                    index,
                    value: RunValueMsg::from(&v),
                },
                Err(message) => Reply::Failed {
                    index: Some(index),
                    message,
                },
            },
        },
    };
    encode(&reply)
}

/// A trace as a replay scenario; pinned threads, as the Traces panel
/// promises (a thread that stayed on one CPU stays there).
fn import_trace(name: &str, text: &str) -> Reply {
    use schedlab_engine::lab::import;
    let o = import::Options { source: name.to_string(), pin: true, ..Default::default() };
    match import::import(text.as_bytes(), &o) {
        Ok((scenario, _)) => Reply::Imported { scenario },
        Err(e) => Reply::Failed { index: None, message: format!("{name}: {e}") },
    }
}

/// Asks a new worker one question: sends `req` once the worker is ready,
/// hands its reply (or why there is none) to `done`, and ends the worker.
pub fn ask(req: &Request, done: Box<dyn FnOnce(Result<Reply, String>)>) {
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    let Ok(w) = web_sys::Worker::new(crate::pages::study::WORKER_URL) else {
        return done(Err("the page could not start a worker".into()));
    };
    type Handler = Closure<dyn FnMut(web_sys::MessageEvent)>;
    let state: Rc<RefCell<(Option<String>, Option<Box<dyn FnOnce(Result<Reply, String>)>>, Option<Handler>)>> =
        Rc::new(RefCell::new((Some(encode(req)), Some(done), None)));
    let (st, worker) = (state.clone(), w.clone());
    let on_message = Handler::new(move |ev: web_sys::MessageEvent| {
        let reply = decode_reply(&ev.data().as_string().unwrap_or_default());
        // The worker is listening: hand it the request, once.
        if let Ok(Reply::Ready) = reply {
            if let Some(req) = st.borrow_mut().0.take() {
                let _ = worker.post_message(&JsValue::from_str(&req));
            }
            return;
        }
        // Nothing the worker still posts may reach the handler dropped below.
        worker.set_onmessage(None);
        worker.terminate();
        let (done, handler) = {
            let mut s = st.borrow_mut();
            (s.1.take(), s.2.take())
        };
        if let Some(done) = done {
            done(reply);
        }
        // Drop the handler after this call returns.
        gloo::timers::callback::Timeout::new(0, move || drop(handler)).forget();
    });
    w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    state.borrow_mut().2 = Some(on_message);
}

/// Reads a worker's reply.
pub fn decode_reply(msg: &str) -> Result<Reply, String> {
    serde_json::from_str(msg).map_err(|e| format!("unreadable message from the worker: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = r#"
[sim]
duration = "20ms"
[topology]
preset = "2cpu-vm"
[[workload]]
kind = "hackbench"
fds = 2
loops = 5
[study]
base = "6.6"
compare = "6.6+sis-filter"
seeds = 2
load = "groups"
loads = [1, 2]
"#;

    /// The Traces panel's import runs in the worker: perf sched text
    /// becomes a scenario with a task per thread that ran, named COMM-PID
    /// (`a-1` switched in at 1.0 s, out at 1.5 s), and a bad line comes back
    /// as a failure that names the file and the line.
    #[test]
    fn the_worker_imports_a_trace() {
        let mut study = None;
        let trace = "  a-1 [000] 1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=1 next_prio=120\n  \
                     a-1 [000] 1.500000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n";
        let req = encode(&Request::Import { name: "t.txt".into(), text: trace.into() });
        match decode_reply(&handle(&mut study, &req)).unwrap() {
            Reply::Imported { scenario } => assert!(scenario.contains("name = \"a-1\""), "{scenario}"),
            other => panic!("{other:?}"),
        }
        let bad = "  a-1 [000] 1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=x next_prio=120\n";
        let req = encode(&Request::Import { name: "bad.txt".into(), text: bad.into() });
        match decode_reply(&handle(&mut study, &req)).unwrap() {
            Reply::Failed { index: None, message } => assert!(message.starts_with("bad.txt: line 1: sched_switch"), "{message}"),
            other => panic!("{other:?}"),
        }
    }

    /// A study chart's SVG is drawn in the worker: the request travels as
    /// JSON and the reply is the same document the plots module draws.
    #[test]
    fn the_worker_draws_a_chart_as_svg() {
        use crate::views::plots::{BarGroup, ChartSvg};
        let chart = ChartSvg::Bars {
            w: 900,
            h: 320,
            title: "hackbench: time".into(),
            y_label: "s".into(),
            configs: vec!["6.6".into(), "6.6+sis-filter".into()],
            groups: vec![BarGroup { label: "1 group".into(), bars: vec![Some((1.5, 0.1)), None] }],
        };
        let want = chart.render();
        match decode_reply(&handle(&mut None, &encode(&Request::ChartSvg { chart }))).unwrap() {
            Reply::Svg { svg } => {
                assert_eq!(svg, want);
                assert!(svg.starts_with("<svg") && svg.contains("\nhackbench: time\n"), "{svg}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// The lecture's trace export runs in the worker: the reply is what
    /// the engine's export writes for the scenario under the overrides sent
    /// (kernel 5.15, seed 7: the header names both), and a scenario that
    /// does not parse comes back as a failure.
    #[test]
    fn the_worker_exports_a_trace() {
        let text = "[sim]\nduration = \"20ms\"\n[[task]]\nname = \"a\"\ncount = 2\nprogram = \"run\"\n";
        let export = |text: &str| Request::Export { text: text.into(), kernel: Some("5.15".into()), patches: None, features: vec![], seed: Some(7), duration: None };
        let ov = schedlab_engine::Overrides { kernel: Some("5.15".into()), seed: Some(7), ..Default::default() };
        let want = schedlab_engine::lab::perfetto::export_scenario(text, &ov).unwrap();
        match decode_reply(&handle(&mut None, &encode(&export(text)))).unwrap() {
            Reply::Trace { trace } => {
                assert_eq!(trace, want);
                assert!(trace.starts_with("# tracer: nop") && trace.contains("kernel 5.15 seed 7") && trace.contains("sched_switch"), "{}", &trace[..300]);
            }
            other => panic!("{other:?}"),
        }
        match decode_reply(&handle(&mut None, &encode(&export("[sim]\nduration = 3\n")))).unwrap() {
            Reply::Failed { index: None, message } => assert!(message.contains("duration"), "{message}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_worker_plans_once_and_runs_by_index() {
        let mut st = None;
        let planned = decode_reply(&handle(&mut st, &encode(&Request::Plan { text: TINY.into() }))).unwrap();
        let direct = Study::new(TINY).unwrap();
        assert_eq!(planned, Reply::Planned { runs: direct.runs.len() });
        for i in [0, direct.runs.len() - 1] {
            match decode_reply(&handle(&mut st, &encode(&Request::Run { index: i }))).unwrap() {
                Reply::Done { index, value } => {
                    assert_eq!(index, i);
                    // Through JSON and back: the very same value.
                    assert_eq!(value.into_run_value(), direct.run_one(i).unwrap());
                }
                other => panic!("{other:?}"),
            }
        }
        // Errors are replies, never panics.
        let out = decode_reply(&handle(&mut st, &encode(&Request::Run { index: 999 }))).unwrap();
        assert!(matches!(out, Reply::Failed { index: Some(999), .. }), "{out:?}");
        let out = decode_reply(&handle(&mut st, "{nonsense")).unwrap();
        assert!(matches!(out, Reply::Failed { index: None, .. }));
        let bad = decode_reply(&handle(&mut st, &encode(&Request::Plan { text: "[study]\nbase = 1\n".into() }))).unwrap();
        match bad {
            Reply::Failed { message, .. } => assert!(message.contains("study.base"), "{message}"),
            other => panic!("{other:?}"),
        }
        assert!(st.is_none(), "a failed plan forgets the old study");
    }

    #[test]
    fn the_pool_has_one_worker_per_core_within_bounds() {
        // One per reported core...
        assert_eq!(pool_size(Some(4.0), 40), 4);
        // ...at most MAX_WORKERS, never more than the runs...
        assert_eq!(pool_size(Some(64.0), 40), MAX_WORKERS);
        assert_eq!(pool_size(Some(4.0), 3), 3);
        // ...and one when the browser says nothing usable (or no run).
        assert_eq!(pool_size(None, 40), 1);
        assert_eq!(pool_size(Some(0.0), 40), 1);
        assert_eq!(pool_size(Some(f64::NAN), 40), 1);
        assert_eq!(pool_size(Some(4.0), 0), 1);
    }

    #[test]
    fn not_a_number_survives_the_trip() {
        let v = RunValue {
            value: f64::NAN,
            events: 3,
            schedule_hash: "00".into(),
            wakeup_cdf: vec![1, 2],
            switches_per_sec: f64::INFINITY,
            ops_per_sec: 1.5,
            engagement: schedlab_engine::lab::study::Engagement { reweights: 4, reweights_nonzero_lag: 2, ..Default::default() },
        };
        let back: RunValueMsg = serde_json::from_str(&encode(&RunValueMsg::from(&v))).unwrap();
        let r = back.into_run_value();
        assert!(r.value.is_nan() && r.switches_per_sec.is_nan());
        assert_eq!(r.ops_per_sec, 1.5);
    }
}
