//! The lecture presets shipped with the page (assets/presets/*.toml). Each
//! file starts with a `#` comment block: a title line, then the explanation
//! paragraphs the page shows beside the editor.

use std::sync::OnceLock;

/// One preset: a stable id (used in links) and the scenario text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    pub id: &'static str,
    pub text: &'static str,
}

/// A directory of shipped scenario files as build.rs deflated it: one
/// stream of "name\0text\0" per file.
macro_rules! deflated_dir {
    ($dir:literal) => {
        include_bytes!(concat!(env!("OUT_DIR"), "/", $dir, ".deflate"))
    };
}

/// The file names of a list, each checked to exist when the page is
/// compiled (the unused const is never emitted), as `include_bytes!` of
/// each file used to.
macro_rules! shipped {
    ($dir:literal, $file:expr) => {{
        const _: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/", $dir, "/", $file));
        $file
    }};
}

/// Inflates a directory of shipped scenario files; each list does it once,
/// on first use, and keeps the texts for the page's lifetime (44 kB).
fn inflate_dir(z: &[u8]) -> Vec<(&'static str, &'static str)> {
    let bytes = miniz_oxide::inflate::decompress_to_vec(z).expect("build.rs deflated it");
    let all: &'static str = String::from_utf8(bytes).expect("UTF-8 scenario files").leak();
    let mut parts = all.split('\0');
    let mut files = Vec::new();
    while let (Some(name), Some(text)) = (parts.next(), parts.next()) {
        files.push((name, text));
    }
    files
}

/// The text of `name` among a directory's files (every listed name exists:
/// `shipped!` checked it when the page was compiled).
fn text_of(files: &[(&'static str, &'static str)], name: &str) -> &'static str {
    files.iter().find(|(n, _)| *n == name).map_or("", |(_, t)| *t)
}

macro_rules! presets {
    ($($id:literal => $file:literal),* $(,)?) => {
        const LECTURE: &[(&str, &str)] = &[$(($id, shipped!("presets", $file))),*];
    };
}

/// Every preset, in the order of the picker.
pub fn lecture_presets() -> &'static [Preset] {
    static ALL: OnceLock<Vec<Preset>> = OnceLock::new();
    ALL.get_or_init(|| {
        let files = inflate_dir(deflated_dir!("presets"));
        LECTURE.iter().map(|&(id, f)| Preset { id, text: text_of(&files, f) }).collect()
    })
}

presets! {
    "three-equal-tasks" => "01-three-equal-tasks.toml",
    "nice-weights" => "02-nice-weights.toml",
    "short-slice" => "03-short-slice.toml",
    "place-lag" => "04-place-lag.toml",
    "run-to-parity" => "05-run-to-parity.toml",
    "delay-dequeue" => "06-delay-dequeue.toml",
    "sched-batch" => "07-sched-batch.toml",
    "wakeup-placement" => "08-wakeup-placement.toml",
    "xeon-96-busy" => "09-xeon-96-busy.toml",
    "reweight-lag" => "10-reweight-lag.toml",
}

/// A comparison preset (assets/compare/*.toml): a scenario whose `[study]`
/// table names the two configurations (`base`, and `compare` for the
/// right pane).
macro_rules! compare_presets {
    ($($id:literal => $file:literal),* $(,)?) => {
        const COMPARE: &[(&str, &str)] = &[$(($id, shipped!("compare", $file))),*];
    };
}

/// Every comparison preset, in the order of the picker.
pub fn compare_presets() -> &'static [Preset] {
    static ALL: OnceLock<Vec<Preset>> = OnceLock::new();
    ALL.get_or_init(|| {
        let files = inflate_dir(deflated_dir!("compare"));
        COMPARE.iter().map(|&(id, f)| Preset { id, text: text_of(&files, f) }).collect()
    })
}

compare_presets! {
    "eevdf-vs-cfs" => "01-eevdf-vs-cfs.toml",
    "reweight-fix" => "02-reweight-fix.toml",
    "deadline-tree-fastpath" => "03-deadline-tree-fastpath.toml",
    "next-buddy-hint" => "04-next-buddy-hint.toml",
    "sis-filter" => "05-sis-filter.toml",
    "no-same-prio-preempt" => "06-no-same-prio-preempt.toml",
    "preempt-hint" => "07-preempt-hint.toml",
    "place-bonus" => "08-place-bonus.toml",
    "eevdf-next-buddy" => "09-eevdf-next-buddy.toml",
    "base-slice-0.70" => "10-base-slice-070.toml",
    "eevdf-rfc" => "11-eevdf-rfc.toml",
}

pub fn compare_by_id(id: &str) -> Option<&'static Preset> {
    compare_presets().iter().find(|p| p.id == id)
}

/// A study preset (assets/studies/*.toml), one per table of a seed thread,
/// with the label the picker shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StudyPreset {
    pub id: &'static str,
    pub label: &'static str,
    pub text: &'static str,
}

macro_rules! study_presets {
    ($($id:literal, $label:literal);* $(;)?) => {
        const STUDIES: &[(&str, &str, &str)] = &[$(($id, $label, shipped!("studies", concat!($id, ".toml")))),*];
    };
}

/// Every study preset, in the order of the picker.
pub fn study_presets() -> &'static [StudyPreset] {
    static ALL: OnceLock<Vec<StudyPreset>> = OnceLock::new();
    ALL.get_or_init(|| {
        let files = inflate_dir(deflated_dir!("studies"));
        STUDIES.iter().map(|&(id, label, f)| StudyPreset { id, label, text: text_of(&files, f) }).collect()
    })
}

study_presets! {
    "seed-000-hackbench", "seed 000: reweight + pick — hackbench";
    "seed-000-netperf", "seed 000: reweight + pick — netperf RR";
    "seed-000-netperf-stream", "seed 000: reweight + pick — netperf STREAM";
    "seed-000-schbench", "seed 000: reweight + pick — schbench";
    "seed-000-tbench", "seed 000: reweight + pick — tbench";
    "seed-002-hackbench", "seed 002: SIS_FILTER — hackbench";
    "seed-002-netperf", "seed 002: SIS_FILTER — netperf";
    "seed-002-schbench", "seed 002: SIS_FILTER — schbench";
    "seed-002-tbench", "seed 002: SIS_FILTER — tbench";
    "seed-003-pipe-test", "seed 003: same-prio preemption — pipe-test";
    "seed-003-stress-sigfd", "seed 003: same-prio preemption — stress-ng sigfd";
    "seed-003-stress-sigrt", "seed 003: same-prio preemption — stress-ng sigrt";
    "seed-003-stress-sigsuspend", "seed 003: same-prio preemption — stress-ng sigsuspend";
    "seed-003-tbench", "seed 003: same-prio preemption — tbench";
    "seed-004-hackbench", "seed 004: PLACE_BONUS — hackbench";
    "seed-004-netperf", "seed 004: PLACE_BONUS — netperf";
    "seed-004-schbench", "seed 004: PLACE_BONUS — schbench";
    "seed-004-stress-futex", "seed 004: PLACE_BONUS — stress-ng futex";
    "seed-004-unixbench-pipe", "seed 004: PLACE_BONUS — unixbench pipe";
}

pub fn study_by_id(id: &str) -> Option<&'static StudyPreset> {
    study_presets().iter().find(|p| p.id == id)
}

/// The study preset whose text is exactly `text`, if any.
pub fn study_matching(text: &str) -> Option<&'static StudyPreset> {
    study_presets().iter().find(|p| p.text == text)
}

/// The comment block of a scenario as paragraphs, title included (study
/// files have no separate title line).
pub fn comment(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = title(text) {
        out.push(t);
    }
    out.extend(explanation(text));
    out
}

/// The scenario shown when the link names none.
pub const DEFAULT_ID: &str = "three-equal-tasks";

pub fn by_id(id: &str) -> Option<&'static Preset> {
    lecture_presets().iter().find(|p| p.id == id)
}

pub fn default_preset() -> &'static Preset {
    by_id(DEFAULT_ID).expect("the default preset exists")
}

/// The preset whose text is exactly `text`, if any.
pub fn matching(text: &str) -> Option<&'static Preset> {
    lecture_presets().iter().find(|p| p.text == text)
}

/// The leading comment block of a scenario: its lines without `#`.
fn header(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim_start)
        .take_while(|l| l.starts_with('#'))
        .map(|l| {
            let l = l.trim_start_matches('#');
            l.strip_prefix(' ').unwrap_or(l).trim_end()
        })
        .collect()
}

/// The title (first comment line, when a blank comment line follows it or
/// it is the only line).
pub fn title(text: &str) -> Option<String> {
    let h = header(text);
    match h.as_slice() {
        [first, rest @ ..] if !first.is_empty() && rest.first().is_none_or(|l| l.is_empty()) => {
            Some(first.to_string())
        }
        _ => None,
    }
}

/// The explanation paragraphs: the comment block after the title, split at
/// blank comment lines, each paragraph's lines joined.
pub fn explanation(text: &str) -> Vec<String> {
    let h = header(text);
    let body = if title(text).is_some() {
        &h[1..]
    } else {
        &h[..]
    };
    let mut out = Vec::new();
    let mut cur = String::new();
    for l in body {
        if l.is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(l);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What build.rs deflated inflates to the files, byte for byte: every
    /// file of the three directories is one preset's text.
    #[test]
    fn the_deflated_presets_are_the_files() {
        let lists: [(&str, Vec<&str>); 3] = [
            ("presets", lecture_presets().iter().map(|p| p.text).collect()),
            ("compare", compare_presets().iter().map(|p| p.text).collect()),
            ("studies", study_presets().iter().map(|p| p.text).collect()),
        ];
        for (dir, texts) in lists {
            let path = format!("{}/assets/{dir}", env!("CARGO_MANIFEST_DIR"));
            let files: Vec<String> = std::fs::read_dir(&path).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
            assert_eq!(texts.len(), files.len(), "{dir}");
            for f in &files {
                assert!(texts.contains(&f.as_str()), "{dir}: a file no preset holds");
            }
        }
    }

    #[test]
    fn every_preset_has_a_title_and_an_explanation() {
        assert!(lecture_presets().len() >= 8);
        for p in lecture_presets() {
            assert!(title(p.text).is_some(), "{} has no title", p.id);
            assert!(
                !explanation(p.text).is_empty(),
                "{} has no explanation",
                p.id
            );
            assert_eq!(matching(p.text), Some(p));
        }
        assert_eq!(default_preset().id, DEFAULT_ID);
    }

    #[test]
    fn compare_and_study_presets_are_complete() {
        use schedlab_engine::lab::compare::ConfigSpec;
        // One comparison preset per patch of the registry, plus EEVDF vs CFS.
        for patch in schedlab_engine::kernel::patches::PATCHES {
            assert!(
                compare_presets().iter().any(|p| {
                    let sc = schedlab_engine::lab::scenario::parse(p.text).unwrap();
                    let st = sc.study.expect("a [study] table");
                    st.compare.iter().any(|c| {
                        ConfigSpec::parse(&c.name)
                            .is_ok_and(|c| c.patches.iter().any(|n| n == patch.name))
                    })
                }),
                "no comparison preset shows {}",
                patch.name
            );
        }
        for p in compare_presets() {
            assert!(title(p.text).is_some(), "{} has no title", p.id);
            let words: usize = explanation(p.text)
                .iter()
                .map(|s| s.split_whitespace().count())
                .sum();
            assert!(words >= 40, "{}: {words} words", p.id);
            let st = schedlab_engine::lab::scenario::parse(p.text)
                .unwrap()
                .study
                .unwrap();
            assert!(st.loads.is_empty(), "{}: a comparison has no loads", p.id);
        }
        // Every study file of assets/studies is offered and plans.
        let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/studies"))
            .unwrap()
            .count();
        assert_eq!(study_presets().len(), files);
        for p in study_presets() {
            let st = schedlab_engine::lab::study::Study::new(p.text)
                .unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert!(!st.runs.is_empty());
            assert!(p.label.starts_with(&format!("seed {}", &p.id[5..8])));
            assert_eq!(study_matching(p.text), Some(p));
        }
    }

    #[test]
    fn header_parsing() {
        let t = "# Title\n#\n# one\n# two\n#\n# three\n[sim]\n# not this\n";
        assert_eq!(title(t).as_deref(), Some("Title"));
        assert_eq!(
            explanation(t),
            vec!["one two".to_string(), "three".to_string()]
        );
        assert_eq!(title("[sim]\n"), None);
        assert!(explanation("[sim]\n").is_empty());
        let no_title = "# one\n# two\n";
        assert_eq!(title(no_title), None);
        assert_eq!(explanation(no_title), vec!["one two".to_string()]);
    }
}
