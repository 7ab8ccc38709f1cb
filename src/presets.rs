//! The lecture presets shipped with the page (assets/presets/*.toml). Each
//! file starts with a `#` comment block: a title line, then the explanation
//! paragraphs the page shows beside the editor.

/// One preset: a stable id (used in links) and the scenario text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    pub id: &'static str,
    pub text: &'static str,
}

macro_rules! presets {
    ($($id:literal => $file:literal),* $(,)?) => {
        /// Every preset, in the order of the picker.
        pub const PRESETS: &[Preset] = &[
            $(Preset { id: $id, text: include_str!(concat!("../assets/presets/", $file)) }),*
        ];
    };
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
}

/// The scenario shown when the link names none.
pub const DEFAULT_ID: &str = "three-equal-tasks";

pub fn by_id(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

pub fn default_preset() -> &'static Preset {
    by_id(DEFAULT_ID).expect("the default preset exists")
}

/// The preset whose text is exactly `text`, if any.
pub fn matching(text: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.text == text)
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

    #[test]
    fn every_preset_has_a_title_and_an_explanation() {
        assert!(PRESETS.len() >= 8);
        for p in PRESETS {
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
