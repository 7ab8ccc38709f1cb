//! Study statistics and tables, checked against hand-computed examples.

use super::*;

#[test]
fn percent_change_follows_the_mails_sign_convention() {
    // Throughput 100 -> 101.35 ops/s: 1.35 % more, an improvement.
    assert!((change_pct(100.0, 101.35, true) - 1.35).abs() < 1e-9);
    // hackbench 2.0 s -> 2.027 s: 1.35 % slower, shown as -1.35.
    assert!((change_pct(2.0, 2.027, false) + 1.35).abs() < 1e-9);
    // p99 latency 100 us -> 90 us: 10 % lower, shown as +10.
    assert!((change_pct(100.0, 90.0, false) - 10.0).abs() < 1e-9);
    // seed 002's +112.84: throughput more than doubled.
    assert!((change_pct(1000.0, 2128.4, true) - 112.84).abs() < 1e-9);
    assert_eq!(change_pct(0.0, 5.0, true), 0.0);
}

#[test]
fn std_is_the_sample_deviation_in_percent_of_the_mean() {
    // mean 2, deviations -1 0 1: sample variance 2/2 = 1, std 1 = 50 %.
    assert!((std_pct(&[1.0, 2.0, 3.0]) - 50.0).abs() < 1e-9);
    // One run has no spread.
    assert_eq!(std_pct(&[4.0]), 0.0);
    // 10 ± 0.1: 1 %.
    assert!((std_pct(&[9.9, 10.0, 10.1]) - 1.0).abs() < 1e-9);
}

const TEXT: &str = "[sim]\nduration = \"1s\"\n[topology]\npreset = \"2cpu-vm\"\n\
    [[workload]]\nkind = \"hackbench\"\nfds = 2\nloops = 5\n\
    [study]\nbase = \"6.6\"\ncompare = [\"6.6+sis-filter\", \"6.18\"]\nseeds = [4, 9, 11]\nload = \"groups\"\nloads = [1, 2, \"100%\"]\n\
    cases = [{ mode = \"process\", ipc = \"pipe\" }, { mode = \"threads\", ipc = \"sockets\" }]\n";

#[test]
fn a_study_plans_cases_by_loads_by_seeds_by_configurations() {
    let s = Study::new(TEXT).unwrap();
    let labels: Vec<(&str, &str)> = s.rows.iter().map(|r| (r.case.as_str(), r.load.as_str())).collect();
    // "100%" of 2 CPUs is 2 groups.
    assert_eq!(
        labels,
        [
            ("process-pipe", "1 group"),
            ("process-pipe", "2 groups"),
            ("process-pipe", "2 groups"),
            ("threads-sockets", "1 group"),
            ("threads-sockets", "2 groups"),
            ("threads-sockets", "2 groups")
        ]
    );
    assert_eq!(s.configs.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(), ["6.6", "6.6+sis-filter", "6.18"]);
    assert_eq!(s.runs.len(), 6 * 3 * 3);
    assert_eq!(s.runs[0], RunKey { row: 0, config: 0, seed: 4 });
    assert_eq!(s.runs[1], RunKey { row: 0, config: 1, seed: 4 });
    assert_eq!(s.metric, Metric::Time);
}

/// A reproduction keeps what its mail tables read: here the compare
/// column 6.18 and the process-pipe rows at 2 groups (both of them: the
/// load "2" and "100%" of 2 CPUs), 2 of 6 rows by 3 seeds by 2
/// configurations. The baseline stays although no table names it, so
/// that every change is still taken against it; a name the study lacks
/// is ignored.
#[test]
fn keep_drops_the_configurations_and_rows_not_named() {
    let mut s = Study::new(TEXT).unwrap();
    s.keep(&["6.18", "6.12"], &[("process-pipe", "2 groups"), ("nosuch", "1 group")]);
    assert_eq!(s.configs.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(), ["6.6", "6.18"]);
    let rows: Vec<(&str, &str)> = s.rows.iter().map(|r| (r.case.as_str(), r.load.as_str())).collect();
    assert_eq!(rows, [("process-pipe", "2 groups"), ("process-pipe", "2 groups")]);
    assert_eq!(s.runs.len(), 2 * 3 * 2);
    assert_eq!(s.values.len(), s.runs.len());
    assert!(s.runs.iter().all(|k| k.row < 2 && k.config < 2));
}

#[test]
fn the_table_is_formatted_as_in_the_mails() {
    let mut s = Study::new(TEXT).unwrap();
    // Fake values (seconds, lower is better) for row 0 and the first
    // compare column: baseline 9.9/10.0/10.1 (mean 10, std 1.00 %), compare
    // 10.035/10.135/10.235 (mean 10.135: 1.35 % slower; std 0.1 =
    // 0.99 % of 10.135). The other columns: equal to the baseline.
    for (i, k) in s.runs.clone().iter().enumerate() {
        let j = [4, 9, 11].iter().position(|&x| x == k.seed).unwrap() as f64;
        let base = 9.9 + 0.1 * j;
        let value = if k.config == 1 { base + 0.135 } else { base };
        s.record(i, RunValue { value, events: 0, schedule_hash: String::new(), wakeup_cdf: Vec::new(), switches_per_sec: 0.0, ops_per_sec: 0.0, engagement: Default::default() });
    }
    let t = s.table();
    assert!(t.complete);
    let text = t.format(false);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "hackbench");
    assert_eq!(lines[1], "=========");
    assert_eq!(lines[3], "case            \tload    \tbaseline(std%)\tcompare%( std%)\tcompare%( std%)");
    assert_eq!(lines[4], "process-pipe    \t1 group \t 1.00 (  1.00)\t -1.35 (  0.99)\t +0.00 (  1.00)");
    // The CSV has the same numbers: a header with one column per seed,
    // then row 0's baseline and first compare cell.
    let csv = t.csv(false);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "case,load,config,role,runs,mean,std_pct,change_pct,same_schedules,seed 4,seed 9,seed 11");
    assert!(lines[1].starts_with("process-pipe,1 group,6.6,baseline,3,"), "{}", lines[1]);
    let f: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(&f[3..5], &["compare 1", "3"], "{}", lines[2]);
    assert!((f[5].parse::<f64>().unwrap() - 10.135).abs() < 1e-9, "{}", lines[2]);
    assert!((f[7].parse::<f64>().unwrap() + 1.35).abs() < 1e-9, "{}", lines[2]);
    // Faked runs carry no schedule hash: nothing is known to be the same.
    assert_eq!(f[8], "false", "{}", lines[2]);
    assert_eq!(lines.len(), 1 + t.rows.len() * t.configs.len());
    assert_eq!(crate::lab::study::csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
    // The worst seed of the compare cell: every seed is 0.135 s slower; the
    // largest relative loss is on the smallest baseline (seed 4).
    assert_eq!(t.rows[0].cells[1].worst_seed, Some(4));
    let got: Vec<f64> = t.rows[0].cells[1].values.iter().flatten().copied().collect();
    for (g, want) in got.iter().zip([10.035, 10.135, 10.235]) {
        assert!((g - want).abs() < 1e-9, "{got:?}");
    }
}

#[test]
fn the_sorted_view_puts_the_worst_regression_first() {
    let mut s = Study::new(TEXT).unwrap();
    for (i, k) in s.runs.clone().iter().enumerate() {
        // Row r's compare runs take (1 + r/100) times the baseline: row 0
        // is unchanged, row 5 is 5 % slower (the worst).
        let value = if k.config == 1 { 1.0 + k.row as f64 / 100.0 } else { 1.0 };
        s.record(i, RunValue { value, events: 0, schedule_hash: String::new(), wakeup_cdf: Vec::new(), switches_per_sec: 0.0, ops_per_sec: 0.0, engagement: Default::default() });
    }
    assert_eq!(s.table().sorted_rows(), vec![5, 4, 3, 2, 1, 0]);
}

#[test]
fn a_run_reproduces_from_its_cell_scenario() {
    let mut s = Study::new(TEXT).unwrap();
    let i = 7;
    let v = s.run_one(i).unwrap();
    s.record(i, v.clone());
    // The text a cell opens gives the same run (value and schedule), also
    // when its records are hashed.
    let text = s.run_scenario_text(s.runs[i]);
    let (mut sim, cfg) = crate::from_text(&text, &crate::Overrides::default(), LogMode::HashOnly).unwrap();
    sim.run();
    assert_eq!(cfg.kernel, "6.6");
    assert_eq!(cfg.patches, vec!["sis-filter".to_string()]);
    assert_eq!(format!("{:016x}", sim.log.schedule.0), v.schedule_hash);
    assert_eq!(sim.workload_metric(&sim.info.workloads[0], Metric::Time), v.value);
}

#[test]
fn bad_studies_name_the_key() {
    let e = Study::new("[[workload]]\nkind = \"hogs\"\n").unwrap_err();
    assert!(e.msg.contains("no [study]"), "{e}");
    let e = Study::new("[study]\nbase = \"6.6\"\ncompare = \"6.18\"\n").unwrap_err();
    assert!(e.msg.contains("one [[workload]]"), "{e}");
    let e = Study::new("[[workload]]\nkind = \"hogs\"\n[study]\nbase = \"6.6\"\ncompare = \"6.6+no-such-patch\"\n").unwrap_err();
    assert_eq!(e.key, "study.compare");
    assert!(e.msg.contains("no-such-patch"), "{e}");
    let e = Study::new("[[workload]]\nkind = \"hogs\"\n[study]\nbase = \"6.6\"\ncompare = \"6.18\"\nmetric = \"speed\"\n").unwrap_err();
    assert!(e.msg.contains("unknown metric"), "{e}");
    let e = Study::new("[[workload]]\nkind = \"hackbench\"\n[study]\nbase = \"6.6\"\ncompare = \"6.18\"\ncases = [{ ipc = \"carrier-pigeon\" }]\n").unwrap_err();
    assert_eq!(e.key, "study.cases[0].ipc");
    let e = Study::new("[[workload]]\nkind = \"hackbench\"\n[study]\nbase = \"6.6\"\ncompare = \"6.18\"\nload = \"groups\"\n").unwrap_err();
    assert!(e.msg.contains("go together"), "{e}");
}

/// Engagement counts are opt-in (they need the decision records) and then
/// count the mechanism: on seed 003's sigsuspend study (one row, one seed),
/// 6.6 preempts on wake-ups and never skips as same priority; the patch
/// never preempts nice-0 by nice-0 and skips instead. Without the opt-in
/// nothing is counted and the schedule is the same.
#[test]
fn engagement_is_counted_only_when_asked_and_does_not_change_the_schedule() {
    let text = crate::lab::reproduce::study_text("seed-003-stress-sigsuspend").unwrap();
    let mut s = Study::new(text).unwrap();
    s.set_seeds(vec![1]);
    let run = |s: &Study, c: usize| s.runs.iter().position(|k| k.config == c && k.row == 0).unwrap();
    let plain = s.run_one(run(&s, 0)).unwrap();
    assert_eq!(plain.engagement.wakeups, 0);
    s.count_engagement = true;
    let (base, patch) = (s.run_one(run(&s, 0)).unwrap(), s.run_one(run(&s, 1)).unwrap());
    assert_eq!(base.schedule_hash, plain.schedule_hash);
    assert!(base.engagement.wakeups > 0 && base.engagement.wakeup_preemptions > 0, "{:?}", base.engagement);
    assert_eq!(base.engagement.same_prio_skips, 0);
    assert_eq!(patch.engagement.wakeup_preemptions, 0);
    assert!(patch.engagement.same_prio_skips > 0, "{:?}", patch.engagement);
}

/// The engagement shows why SIS_FILTER is inert on seed 002's hackbench
/// at 2 groups (80 tasks on spr-2s-224): the patch filters only the
/// CPU-by-CPU scan (`!has_idle_core`), and every select_idle_cpu() scan
/// of the run looks for an idle core, so no CPU is ever filtered (7 420 of
/// 7 420 scans at seed 1; the mask is empty as well: no CPU is overloaded
/// at a tick).
#[test]
fn sis_filters_engagement_counts_the_idle_core_scans_it_leaves_alone() {
    let text = crate::lab::reproduce::study_text("seed-002-hackbench").unwrap().replace("loads = [1, 2, 4, 8]", "loads = [2]");
    let mut s = Study::new(&text).unwrap();
    s.set_seeds(vec![1]);
    s.count_engagement = true;
    let run = s.runs.iter().position(|k| k.config == 1 && k.row == 0).unwrap();
    let e = s.run_one(run).unwrap().engagement;
    assert!(e.scans > 1000, "{e:?}");
    assert_eq!((e.core_scans, e.cpus_filtered), (e.scans, 0), "{e:?}");
}

/// A 2-CPU hackbench study, run, of 6.6 against 6.6+reweight-fix, 6.18
/// and 6.18 with TG_LOAD_AVG_RATELIMIT off. reweight-fix changes only
/// reweight_entity() on a queued entity; with no cgroup and no nice change
/// nothing is ever reweighted (update_cfs_group() has no group entity to
/// reweight), so it makes 6.6's decisions at the same times. Without a
/// cgroup no task group has a load average to publish either, so the
/// rate limit's flag leaves 6.18 as it is. 6.18 has another base slice
/// (0.70 ms normalized against 6.6's 0.75), so its hackbench pairs switch
/// at other times. (Also the reproduction's test of a table's own pair.)
pub(crate) fn never_acting_study() -> Study {
    let text = "[sim]\nduration = \"20ms\"\n[topology]\npreset = \"2cpu-vm\"\n\
        [[workload]]\nkind = \"hackbench\"\nfds = 2\nloops = 1000000\n\
        [study]\nbase = \"6.6\"\ncompare = [\"6.6+reweight-fix\", \"6.18\", \"6.18,TG_LOAD_AVG_RATELIMIT=off\"]\n\
        seeds = [1, 2]\nload = \"groups\"\nloads = [1, 2]\n";
    let mut s = Study::new(text).unwrap();
    s.run_all(1).unwrap();
    s
}

/// A compare column is marked when every seed's run switched exactly as
/// the baseline's (`never_acting_study()`): reweight-fix makes 6.6's
/// decisions, so same schedule hashes, a change of exactly 0 and the
/// mark; 6.18, with or without the flag, switches at other times: no mark,
/// whatever its change.
#[test]
fn a_change_that_never_acts_is_marked_same_schedules() {
    let s = never_acting_study();
    let t = s.table();
    for row in &t.rows {
        let (fix, newer) = (&row.cells[1], &row.cells[2]);
        assert!(fix.same_schedules, "{} {}: {fix:?}", row.case, row.load);
        assert_eq!(fix.change_pct, Some(0.0));
        assert!(!newer.same_schedules, "{} {}: {newer:?}", row.case, row.load);
        assert!(!row.cells[3].same_schedules, "{} {}: {:?}", row.case, row.load, row.cells[3]);
        assert!(!row.cells[0].same_schedules, "the baseline is never marked");
    }
    let text = t.format(false);
    assert_eq!(text.lines().filter(|l| l.contains(" +0.00 (") && l.contains(") =\t")).count(), t.rows.len(), "{text}");
    assert!(text.contains("\n= the same schedule as the baseline on every seed"), "{text}");
    // The first configuration that switched like each: 6.6+reweight-fix
    // like the baseline, 6.18 like none before it, 6.18 without the flag
    // like 6.18.
    for row in &t.rows {
        let like: Vec<usize> = row.cells.iter().map(|c| c.switched_like).collect();
        assert_eq!(like, [0, 0, 2, 2], "{} {}", row.case, row.load);
    }
    // A seed that ran only in the compare column proves nothing.
    let base = s.values[0].clone().unwrap();
    assert!(!same_schedules(&[None, Some(&base)], &[Some(&base), Some(&base)]));
    assert!(same_schedules(&[Some(&base), None], &[Some(&base), None]));
    assert!(!same_schedules(&[None], &[None]), "no run: nothing to compare");
}
