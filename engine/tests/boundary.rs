//! The mirror/laboratory boundary (issue 16): nothing under
//! engine/src/kernel/ may use anything of `crate::lab` but the event log it
//! writes to, `crate::lab::trace` (and what is inside it). The kernel mirror
//! must read like kernel/sched: if it reached into the simulation loop, the
//! scenario format or the studies, it would no longer be a model of the
//! kernel alone.
//!
//! The check reads the source files: every `use` item (grouped trees like
//! `use crate::{lab::sim, ...}` expanded, `super::` paths that climb out of
//! `kernel` resolved) and every path written inline outside a `use`
//! (`crate::lab::…` or `super::…::lab::…`). Comments are ignored.
#![cfg(not(target_arch = "wasm32"))]

use std::fs;
use std::path::{Path, PathBuf};

/// What the mirror may use from the laboratory.
const ALLOWED: &str = "crate::lab::trace";

#[test]
fn kernel_imports_nothing_of_the_lab_but_its_trace() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let kernel = manifest.join("src/kernel");
    let mut files = Vec::new();
    rust_files(&kernel, &mut files);
    files.sort();
    // kernel/mod.rs, chan.rs, patches.rs, sched/*.rs, lib/*.rs: a walk that
    // found almost nothing would pass without checking anything.
    assert!(files.len() >= 15, "only {} .rs files under {}", files.len(), kernel.display());

    let mut offences = Vec::new();
    let mut allowed_seen = 0;
    for file in &files {
        let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let rel = file.strip_prefix(manifest).unwrap();
        // Module path of the file below the crate root: src/kernel/sched/fair.rs
        // is crate::kernel::sched::fair (mod.rs is its folder's module).
        let module = module_path(rel);
        for (line, path) in lab_paths(&text, &module) {
            if is_allowed(&path) {
                allowed_seen += 1;
            } else {
                offences.push(format!("engine/{}:{line}: {path}", rel.display()));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "the kernel mirror may use only {ALLOWED} of the laboratory; found:\n  {}",
        offences.join("\n  ")
    );
    // The kernel does write to the event log (core.rs, fair.rs, ...): if the
    // scanner saw none of those uses, it is not reading the code.
    assert!(allowed_seen >= 5, "only {allowed_seen} uses of {ALLOWED} seen: is the scanner broken?");
}

/// The scanner on code written for it: each forbidden form is caught on
/// its own line, and the allowed forms are not reported.
#[test]
fn the_scanner_catches_every_form_of_import() {
    let module = ["kernel".to_string(), "sched".to_string(), "fair".to_string()];
    let code = "\
use crate::lab::trace::{Cause, Record};
use crate::lab::sim::Sim;
use crate::{
    kernel::lib::rbtree,
    lab::{trace::hist::Hist, scenario::Scenario as S},
};
// use crate::lab::study; (a comment)
fn f() -> crate::lab::trace::Cause { crate::lab::build::make() }
use super::super::super::lab::player;
pub(crate) use crate::lab;
use crate::lab::tracer;
";
    let found: Vec<(usize, String)> = lab_paths(code, &module)
        .into_iter()
        .filter(|(_, p)| !is_allowed(p))
        .collect();
    let expected = [
        (2, "crate::lab::sim::Sim"),
        (5, "crate::lab::scenario::Scenario"),
        (8, "crate::lab::build::make"),
        (9, "crate::lab::player"),
        (10, "crate::lab"),
        (11, "crate::lab::tracer"),
    ];
    let expected: Vec<(usize, String)> = expected.iter().map(|(l, p)| (*l, p.to_string())).collect();
    assert_eq!(found, expected);
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("read_dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/kernel/sched/fair.rs` → [kernel, sched, fair]; `src/kernel/mod.rs` → [kernel].
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .skip(1) // src
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// `crate::lab::trace` and anything below it; not `crate::lab::tracer`.
fn is_allowed(path: &str) -> bool {
    path == ALLOWED || path.starts_with(&format!("{ALLOWED}::"))
}

/// Every path into `crate::lab` that the code names, with its 1-based line.
fn lab_paths(text: &str, module: &[String]) -> Vec<(usize, String)> {
    let lines: Vec<String> = text.lines().map(strip_comment).collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        let item = trimmed
            .strip_prefix("pub(crate) ")
            .or_else(|| trimmed.strip_prefix("pub(super) "))
            .or_else(|| trimmed.strip_prefix("pub "))
            .unwrap_or(trimmed);
        if let Some(rest) = item.strip_prefix("use ") {
            // The whole item, up to its `;`, possibly over several lines.
            let start = i;
            let mut tree = rest.to_string();
            while !tree.contains(';') && i + 1 < lines.len() {
                i += 1;
                tree.push(' ');
                tree.push_str(&lines[i]);
            }
            let tree: String = tree.split(';').next().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
            for path in expand(&tree) {
                let path = resolve(&path, module);
                if path == "crate::lab" || path.starts_with("crate::lab::") {
                    // Report a grouped import at the line naming its leaf.
                    let leaf = path.rsplit("::").next().unwrap();
                    let line = (start..=i).find(|&l| contains_word(&lines[l], leaf)).unwrap_or(start);
                    found.push((line + 1, path));
                }
            }
        } else {
            for path in inline_paths(&lines[i]) {
                let path = resolve(&path, module);
                if path == "crate::lab" || path.starts_with("crate::lab::") {
                    found.push((i + 1, path));
                }
            }
        }
        i += 1;
    }
    found
}

fn strip_comment(line: &str) -> String {
    match line.find("//") {
        Some(at) => line[..at].to_string(),
        None => line.to_string(),
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn contains_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// A use tree (whitespace collapsed, no `;`) as full paths:
/// `crate::{a::b, c::{d, e as f}}` → crate::a::b, crate::c::d, crate::c::e.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        // A leaf: drop a rename, and `x::self` is `x`.
        let leaf = tree.split(" as ").next().unwrap().trim().replace(' ', "");
        return vec![leaf.strip_suffix("::self").unwrap_or(&leaf).to_string()];
    };
    let prefix = tree[..open].trim().replace(' ', "");
    let close = tree.rfind('}').expect("unbalanced braces in a use item");
    let mut out = Vec::new();
    for part in split_top_level(&tree[open + 1..close]) {
        if part.trim().is_empty() {
            continue;
        }
        for sub in expand(part) {
            out.push(if sub == "self" { prefix.trim_end_matches("::").to_string() } else { format!("{prefix}{sub}") });
        }
    }
    out
}

fn split_top_level(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0, 0, Vec::new());
    for (at, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// Paths written in code (not in a `use`) that start at `crate` or `super`.
fn inline_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for root in ["crate::", "super::"] {
        for (at, _) in line.match_indices(root) {
            if line[..at].chars().next_back().is_some_and(|c| is_ident(c) || c == ':') {
                continue; // inside a longer path (super::super::) or a name
            }
            let path: String = line[at..].chars().take_while(|&c| is_ident(c) || c == ':').collect();
            out.push(path.trim_end_matches(':').to_string());
        }
    }
    out
}

/// `super::…` and `self::…` from the file's module to a `crate::` path;
/// other paths as they are.
fn resolve(path: &str, module: &[String]) -> String {
    let mut segments: Vec<&str> = path.split("::").collect();
    if segments[0] != "super" && segments[0] != "self" {
        return path.to_string();
    }
    let mut base: Vec<&str> = module.iter().map(String::as_str).collect();
    while let Some(&first) = segments.first() {
        match first {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        segments.remove(0);
    }
    let mut full = vec!["crate"];
    full.extend(base);
    full.extend(segments);
    full.join("::")
}
