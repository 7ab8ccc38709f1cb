//! The URL fragment: the whole scenario, the current instant and the view
//! options, so a link reopens exactly the same view.
//!
//! `#v=2&z=<scenario>&e=<event>&cpu=<n>&g=<group,group>&k=<kernel>&f=<NAME:1,NAME:0>&w=<t0>-<t1>&big=1&q=1&p=<preset>`
//!
//! The comparison and the study pages add `page=compare|study`; the
//! comparison its two configurations (`b=`, `c=`), its preset (`cp=`), the
//! shared instant (`t=` ns), the number of seeds of its table (`n=`), and
//! the followed CPU and window as above; the study page its preset
//! (`sp=`) and how it was shrunk: seeds (`ss=`), the load levels and cases
//! kept (`sl=`, `sc=`: indices). `q=1` opens the lecture view in quiz mode.
//!
//! The scenario is its UTF-8 text, compressed with DEFLATE in the zlib
//! format (`miniz_oxide`; the checksum catches a link cut short) and
//! base64url-encoded (`z=`, with the version tag
//! `v=2`); `s=` holds plain base64url text (shorter for tiny texts, and
//! handy to write by hand). Links written before the version tag (no
//! `v=`) carry `z=` in schedlab's first format, a small LZSS; it is still
//! decoded ([`lzss_decompress`]) so that old links open. Fragments come
//! from anyone: decoding never panics, and every problem is reported in
//! words while the rest of the link still applies.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// The pages of the app.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Page {
    /// One run, event by event (the lecture view).
    #[default]
    Lecture,
    /// Two configurations side by side.
    Compare,
    /// A study: loads × seeds × configurations, as the mails' table.
    Study,
}

impl Page {
    pub const ALL: [Page; 3] = [Page::Lecture, Page::Compare, Page::Study];

    /// The name in links.
    pub fn id(self) -> &'static str {
        match self {
            Page::Lecture => "lecture",
            Page::Compare => "compare",
            Page::Study => "study",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Page::Lecture => "Lecture",
            Page::Compare => "Compare",
            Page::Study => "Studies",
        }
    }

    pub fn from_id(s: &str) -> Option<Page> {
        Page::ALL.into_iter().find(|p| p.id() == s)
    }
}

/// What a link holds. Absent fields keep the page's defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Link {
    pub page: Page,
    /// The comparison's configurations (`KERNEL[+PATCH...][,FLAG=on|off]`).
    pub base: Option<String>,
    pub compare: Option<String>,
    /// The comparison's preset.
    pub compare_preset: Option<String>,
    /// The comparison's shared instant (ns).
    pub time: Option<u64>,
    /// The study page's preset.
    pub study_preset: Option<String>,
    pub text: Option<String>,
    pub preset: Option<String>,
    pub event: Option<u64>,
    pub cpu: Option<u32>,
    /// The group queues the tree view descended into (group ids, from the
    /// root); None: the CPU's root queue.
    pub queue: Option<Vec<u32>>,
    pub kernel: Option<String>,
    pub features: Vec<(String, bool)>,
    /// Timeline window in ns.
    pub window: Option<(u64, u64)>,
    pub big: bool,
    /// The lecture view in quiz mode.
    pub quiz: bool,
    /// The comparison's number of seeds for its table.
    pub runs: Option<u32>,
    /// The study's shrink: seeds, and the indices of the loads and cases kept.
    pub study_seeds: Option<usize>,
    pub study_loads: Option<Vec<usize>>,
    pub study_cases: Option<Vec<usize>>,
}

/// The current link format (`v=`); links without it are version 1.
pub const VERSION: u32 = 2;

/// Largest scenario a link may expand to.
pub const MAX_TEXT: usize = 256 * 1024;
/// At most this many fields are read from a link, each but the scenario at
/// most this long, and at most this many feature settings: a link's
/// settings are a few dozen bytes, and a hostile one must cost the page
/// no more than that (every problem is one notice).
pub const MAX_FIELDS: usize = 64;
pub const MAX_FIELD_LEN: usize = 1024;
pub const MAX_FEATURES: usize = 64;

/// Encodes a link as a fragment (without the leading `#`).
pub fn encode(link: &Link) -> String {
    let mut parts = Vec::new();
    if link.page != Page::Lecture {
        parts.push(format!("page={}", link.page.id()));
    }
    for (k, v) in [
        ("cp", &link.compare_preset),
        ("b", &link.base),
        ("c", &link.compare),
        ("sp", &link.study_preset),
    ] {
        if let Some(v) = v {
            parts.push(format!("{k}={}", escape(v)));
        }
    }
    if let Some(t) = link.time {
        parts.push(format!("t={t}"));
    }
    if let Some(n) = link.runs {
        parts.push(format!("n={n}"));
    }
    if let Some(n) = link.study_seeds {
        parts.push(format!("ss={n}"));
    }
    for (k, v) in [("sl", &link.study_loads), ("sc", &link.study_cases)] {
        if let Some(v) = v {
            parts.push(format!("{k}={}", list(v)));
        }
    }
    if let Some(t) = &link.text {
        let z = compress(t.as_bytes());
        if z.len() < t.len() {
            parts.insert(0, format!("v={VERSION}"));
            parts.push(format!("z={}", b64_encode(&z)));
        } else {
            parts.push(format!("s={}", b64_encode(t.as_bytes())));
        }
    }
    if let Some(p) = &link.preset {
        parts.push(format!("p={}", escape(p)));
    }
    if let Some(e) = link.event {
        parts.push(format!("e={e}"));
    }
    if let Some(c) = link.cpu {
        parts.push(format!("cpu={c}"));
    }
    if let Some(g) = &link.queue {
        parts.push(format!("g={}", list(g)));
    }
    if let Some(k) = &link.kernel {
        parts.push(format!("k={}", escape(k)));
    }
    if !link.features.is_empty() {
        let f: Vec<String> = link
            .features
            .iter()
            .map(|(n, v)| format!("{}:{}", escape(n), *v as u8))
            .collect();
        parts.push(format!("f={}", f.join(",")));
    }
    if let Some((a, b)) = link.window {
        parts.push(format!("w={a}-{b}"));
    }
    if link.big {
        parts.push("big=1".to_string());
    }
    if link.quiz {
        parts.push("q=1".to_string());
    }
    parts.join("&")
}

/// Decodes a fragment (with or without `#`). Returns what could be read and
/// one message per problem.
pub fn decode(fragment: &str) -> (Link, Vec<String>) {
    let mut link = Link::default();
    let mut problems = Vec::new();
    let frag = fragment.strip_prefix('#').unwrap_or(fragment);
    // The version tag decides how `z=` is read, wherever it stands.
    let mut version = 1;
    for part in frag.split('&').filter(|p| !p.is_empty()).take(MAX_FIELDS) {
        if let Some(v) = part.strip_prefix("v=") {
            match v.parse::<u32>() {
                Ok(n @ 1..=VERSION) => version = n,
                _ => {
                    problems.push(format!(
                        "The link's format version `{}` is not one this page reads (1 to {VERSION}); it is read as version {VERSION}.",
                        shorten(v)
                    ));
                    version = VERSION;
                }
            }
        }
    }
    for (i, part) in frag.split('&').filter(|p| !p.is_empty()).enumerate() {
        if i == MAX_FIELDS {
            problems.push(format!("The link has more than {MAX_FIELDS} fields: the rest are ignored."));
            break;
        }
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        if value.len() > MAX_FIELD_LEN && key != "z" && key != "s" {
            problems.push(format!("The link's field `{}` is longer than {MAX_FIELD_LEN} bytes (ignored).", shorten(key)));
            continue;
        }
        match key {
            "v" => {}
            "z" | "s" => {
                let text = b64_decode(value).and_then(|bytes| match (key, version) {
                    ("z", 1) => lzss_decompress(&bytes, MAX_TEXT),
                    ("z", _) => decompress(&bytes, MAX_TEXT),
                    _ => Ok(bytes),
                });
                match text.and_then(|b| {
                    String::from_utf8(b).map_err(|e| {
                        format!(
                            "it is not UTF-8 text (byte {})",
                            e.utf8_error().valid_up_to()
                        )
                    })
                }) {
                    Ok(t) => link.text = Some(t),
                    Err(e) => problems.push(format!("The link's scenario could not be read: {e}.")),
                }
            }
            "p" => link.preset = Some(unescape(key, value, &mut problems)),
            "page" => match Page::from_id(value) {
                Some(p) => link.page = p,
                None => problems.push(format!(
                    "The link names an unknown page `{}` (known: lecture, compare, study).",
                    shorten(value)
                )),
            },
            "cp" => link.compare_preset = Some(unescape(key, value, &mut problems)),
            "sp" => link.study_preset = Some(unescape(key, value, &mut problems)),
            "b" => link.base = Some(unescape(key, value, &mut problems)),
            "c" => link.compare = Some(unescape(key, value, &mut problems)),
            "t" => match value.parse() {
                Ok(v) => link.time = Some(v),
                Err(_) => problems.push(format!(
                    "The link's time `{}` is not a number of ns.",
                    shorten(value)
                )),
            },
            "e" => match value.parse() {
                Ok(v) => link.event = Some(v),
                Err(_) => problems.push(format!(
                    "The link's event number `{}` is not a number.",
                    shorten(value)
                )),
            },
            "cpu" => match value.parse() {
                Ok(v) => link.cpu = Some(v),
                Err(_) => problems.push(format!(
                    "The link's CPU `{}` is not a number.",
                    shorten(value)
                )),
            },
            "k" => link.kernel = Some(unescape(key, value, &mut problems)),
            "f" => {
                for (n, item) in value.split(',').filter(|s| !s.is_empty()).enumerate() {
                    if n == MAX_FEATURES {
                        problems.push(format!("The link sets more than {MAX_FEATURES} features: the rest are ignored."));
                        break;
                    }
                    match item.rsplit_once(':') {
                        Some((n, "1")) => link.features.push((unescape(key, n, &mut problems), true)),
                        Some((n, "0")) => link.features.push((unescape(key, n, &mut problems), false)),
                        _ => problems.push(format!(
                            "The link's feature setting `{}` is not NAME:1 or NAME:0.",
                            shorten(item)
                        )),
                    }
                }
            }
            "w" => match value
                .split_once('-')
                .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            {
                Some((a, b)) if a < b => link.window = Some((a, b)),
                _ => problems.push(format!(
                    "The link's timeline window `{}` is not START-END in ns.",
                    shorten(value)
                )),
            },
            "big" => link.big = value == "1",
            "q" => link.quiz = value == "1",
            "n" => match value.parse::<u32>() {
                Ok(v @ 1..=100) => link.runs = Some(v),
                _ => problems.push(format!(
                    "The link's number of seeds `{}` is not a number from 1 to 100.",
                    shorten(value)
                )),
            },
            "ss" => match value.parse::<usize>() {
                Ok(v) if v >= 1 => link.study_seeds = Some(v),
                _ => problems.push(format!(
                    "The link's number of study seeds `{}` is not a positive number.",
                    shorten(value)
                )),
            },
            "sl" | "sc" => match parse_list(value) {
                Some(l) if key == "sl" => link.study_loads = Some(l),
                Some(l) => link.study_cases = Some(l),
                None => problems.push(format!(
                    "The link's study {} `{}` are not a list of indices (0,2,3).",
                    if key == "sl" { "loads" } else { "cases" },
                    shorten(value)
                )),
            },
            "g" => match parse_list(value) {
                Some(g) => link.queue = Some(g),
                None => problems.push(format!(
                    "The link's group queues `{}` are not a list of group numbers (1,3).",
                    shorten(value)
                )),
            },
            "" => {}
            other => problems.push(format!(
                "The link has an unknown field `{}` (ignored).",
                shorten(other)
            )),
        }
    }
    (link, problems)
}

/// A list of numbers as a link writes it: `0,2,3`.
fn list<T: ToString>(v: &[T]) -> String {
    v.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

/// A non-empty list of numbers written by [`list`].
fn parse_list<T: std::str::FromStr>(value: &str) -> Option<Vec<T>> {
    let l: Vec<T> = value.split(',').filter(|s| !s.is_empty()).map(str::parse).collect::<Result<_, _>>().ok()?;
    (!l.is_empty()).then_some(l)
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 24 {
        format!("{}…", s.chars().take(24).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Percent-escapes what would break the fragment's syntax.
fn escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-decodes a link value. A `%` not followed by two hex digits, or
/// bytes that are not UTF-8 once decoded, are kept as written (lossy) and
/// reported in `problems` under the link's `key`.
fn unescape(key: &str, s: &str, problems: &mut Vec<String>) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut bad = None;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = |c: Option<&u8>| c.and_then(|&c| (c as char).to_digit(16));
            if let (Some(h), Some(l)) = (hex(b.get(i + 1)), hex(b.get(i + 2))) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
            bad.get_or_insert(i);
        }
        out.push(b[i]);
        i += 1;
    }
    if let Some(at) = bad {
        let end = (at + 3).min(s.len());
        let shown = s.get(at..end).unwrap_or("%");
        problems.push(format!("The link's `{key}` has a bad escape `{shown}` at character {}: kept as written.", at + 1));
    }
    match String::from_utf8(out) {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("The link's `{key}` is not UTF-8 once decoded (byte {}).", e.utf8_error().valid_up_to()));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    }
}

/// base64url without padding (the `base64` crate).
pub fn b64_encode(data: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(data)
}

/// base64url (padding and the `+/` alphabet tolerated, as hand-edited
/// links have them); says where it went wrong.
pub fn b64_decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim_end_matches('=');
    if text.len() / 4 * 3 > MAX_TEXT {
        return Err("it is too long".to_string());
    }
    let text: String = text
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    URL_SAFE_NO_PAD.decode(text.as_bytes()).map_err(|e| match e {
        base64::DecodeError::InvalidByte(i, b) => format!(
            "it is not base64url (character {} is `{}`)",
            i + 1,
            b.escape_ascii()
        ),
        base64::DecodeError::InvalidLength(_) | base64::DecodeError::InvalidLastSymbol(..) => {
            "it is cut short (incomplete base64url)".to_string()
        }
        base64::DecodeError::InvalidPadding => "its base64url padding is wrong".to_string(),
    })
}

/// Compresses with DEFLATE in the zlib format (RFC 1950: its Adler-32
/// checksum tells a link cut short or mistyped from a shorter text); level
/// 9: links are short and made rarely.
pub fn compress(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(data, 9)
}

/// Inverse of [`compress`]; rejects malformed input and output over `max`.
pub fn decompress(data: &[u8], max: usize) -> Result<Vec<u8>, String> {
    use miniz_oxide::inflate::{decompress_to_vec_zlib_with_limit, TINFLStatus};
    decompress_to_vec_zlib_with_limit(data, max).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => format!("it expands to more than {} KiB", max / 1024),
        TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
            "its compressed data is cut short (was the link copied whole?)".to_string()
        }
        TINFLStatus::Adler32Mismatch => "its compressed data is cut short or damaged (checksum mismatch; was the link copied whole?)".to_string(),
        _ => "its compressed data is corrupt".to_string(),
    })
}

// Version 1 links (no `v=`): LZSS. A flag byte announces 8 items, bit i
// set = a match. A literal is one byte; a match is two bytes: 12 bits of
// distance − 1 and 4 bits of length − 3 (lengths 3..=18 within the last
// 4096 bytes). Only the decoder is kept, so that old links still open.
const MIN_MATCH: usize = 3;

/// Decodes a version 1 `z=` payload; rejects malformed input and output
/// over `max`. A payload cut short inside a match is an error; cut at an
/// item boundary it cannot be told from a shorter text.
///
/// Hand-written on purpose (issue 16): this is schedlab's own first link
/// format (the bit layout above, no header or checksum), which no crate
/// implements (LZSS crates each define their own framing), and its 37
/// lines only decode. New links use zlib ([`decompress`], `miniz_oxide`).
pub fn lzss_decompress(data: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = Vec::with_capacity(data.len() * 2);
    let mut i = 0;
    while i < data.len() {
        let flags = data[i];
        i += 1;
        for bit in 0..8 {
            if i >= data.len() {
                break;
            }
            if flags & (1 << bit) != 0 {
                let Some(pair) = data.get(i..i + 2) else {
                    return Err("its compressed data is cut short".to_string());
                };
                let v = u16::from_be_bytes([pair[0], pair[1]]) as usize;
                i += 2;
                let (dist, len) = ((v >> 4) + 1, (v & 15) + MIN_MATCH);
                if dist > out.len() {
                    return Err(
                        "its compressed data is corrupt (a reference before the start)".to_string(),
                    );
                }
                let from = out.len() - dist;
                for j in 0..len {
                    out.push(out[from + j]);
                }
            } else {
                out.push(data[i]);
                i += 1;
            }
            if out.len() > max {
                return Err("it expands to more than 256 KiB".to_string());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips() {
        for n in 0..40 {
            let data: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            let s = b64_encode(&data);
            assert!(s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'));
            assert_eq!(b64_decode(&s).unwrap(), data);
        }
        // "hello" = 0x68656c6c6f: 011010 000110 010101 101100 011011 000110 1111(00)
        // = a G V s b G 8.
        assert_eq!(b64_encode(b"hello"), "aGVsbG8");
        assert_eq!(b64_decode("aGVsbG8=").unwrap(), b"hello");
        // The standard alphabet's +/ read as -_: 0xfb 0xff = 111110 111111 1111(00).
        assert_eq!(b64_decode("+/8").unwrap(), vec![0xfb, 0xff]);
        assert!(b64_decode("a b").unwrap_err().contains("character 2"));
        assert!(b64_decode("a").unwrap_err().contains("cut short"));
    }

    #[test]
    fn deflate_round_trips_and_shrinks_scenarios() {
        let text = crate::presets::lecture_presets().iter().map(|p| p.text).collect::<String>();
        for t in [text.as_str(), "", "a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "abcabcabcabcabcabd"] {
            let z = compress(t.as_bytes());
            assert_eq!(decompress(&z, MAX_TEXT).unwrap(), t.as_bytes());
        }
        for p in crate::presets::lecture_presets() {
            let z = compress(p.text.as_bytes());
            assert!(z.len() * 10 < p.text.len() * 7, "{}: {} -> {}", p.id, p.text.len(), z.len());
        }
        // Pseudo-random bytes (incompressible) also round-trip.
        let mut x = 1u32;
        let noise: Vec<u8> = (0..5000)
            .map(|_| {
                x = x.wrapping_mul(1103515245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        assert_eq!(decompress(&compress(&noise), MAX_TEXT).unwrap(), noise);
        // A bomb is cut off: 1 MiB of zeros compresses to about 1 KiB.
        let zeros = compress(&vec![0u8; 1 << 20]);
        assert!(zeros.len() < 4096);
        assert!(decompress(&zeros, MAX_TEXT).unwrap_err().contains("more than 256 KiB"));
    }

    /// A link written by the first version (LZSS, no `v=`), copied from
    /// the page before the format changed: it still opens, with the very
    /// text it was made from.
    #[test]
    fn version_1_links_still_open() {
        let old = include_str!("../tests/data/link-v1.txt").trim();
        assert!(!old.contains("v="));
        let (link, problems) = decode(old);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(link.text.as_deref(), Some(include_str!("../tests/data/link-v1.toml")));
        assert_eq!((link.event, link.cpu, link.big), (Some(29), Some(0), true));
        // Today's encoder writes version 2, which reads back.
        let frag = encode(&link);
        assert!(frag.starts_with("v=2&") && frag.contains("&z="), "{frag}");
        assert!(frag.len() < old.len(), "deflate is shorter: {} vs {}", frag.len(), old.len());
        assert_eq!(decode(&frag), (link, Vec::new()));
    }

    #[test]
    fn a_link_cut_short_says_so() {
        let link = Link { text: Some(crate::presets::default_preset().text.to_string()), event: Some(7), ..Default::default() };
        let frag = encode(&link);
        let z = frag.find("z=").unwrap();
        let end = frag[z..].find('&').map_or(frag.len(), |i| z + i);
        // Cut inside z=, at several places (the last two in the checksum):
        // the text is not applied, and the notice says why.
        for cut in [z + 10, z + 40, end - 8, end - 2] {
            let (l, p) = decode(&frag[..cut]);
            assert_eq!(l.text, None, "cut at {cut}");
            assert_eq!(p.len(), 1, "{p:?}");
            assert!(p[0].contains("could not be read") && p[0].contains("cut short"), "{p:?}");
        }
    }

    /// A hand-edited link with a broken escape still opens, keeps the text
    /// as written, and says which key and where: `p=a%zzb` — `%z` is not
    /// two hex digits, at character 2 of the value. `k=%41` is `A`; `%C3`
    /// alone is half of a UTF-8 sequence.
    #[test]
    fn bad_escapes_are_kept_and_reported() {
        let (l, p) = decode("v=2&p=a%zzb&k=6.%36");
        assert_eq!((l.preset.as_deref(), l.kernel.as_deref()), (Some("a%zzb"), Some("6.6")));
        assert_eq!(p, vec!["The link's `p` has a bad escape `%zz` at character 2: kept as written.".to_string()]);
        let (l, p) = decode("v=2&k=6.1%");
        assert_eq!(l.kernel.as_deref(), Some("6.1%"));
        assert!(p[0].contains("`k` has a bad escape `%` at character 4"), "{p:?}");
        let (l, p) = decode("v=2&b=%C3");
        assert_eq!(l.base.as_deref(), Some("\u{fffd}"));
        assert!(p[0].contains("`b` is not UTF-8 once decoded (byte 0)"), "{p:?}");
    }

    #[test]
    fn garbage_never_panics() {
        let mut x = 7u32;
        for n in 0..300 {
            let data: Vec<u8> = (0..n % 64)
                .map(|_| {
                    x = x.wrapping_mul(1664525).wrapping_add(1013904223);
                    (x >> 24) as u8
                })
                .collect();
            let _ = decompress(&data, 1000);
            let _ = lzss_decompress(&data, 1000);
            let s: String = data.iter().map(|&b| (b % 96 + 32) as char).collect();
            let _ = decode(&s);
            let _ = decode(&format!("z={s}&e={s}&f={s}&w={s}"));
            let _ = decode(&format!("v=2&z={s}&sl={s}&n={s}"));
        }
        // Version 1: a back-reference before the start is an error.
        assert!(lzss_decompress(&[1, 0xff, 0xf0], 100).is_err());
        // Version 1 bomb: one literal, then seven matches of 18 bytes each
        // (distance 1): 1 + 7 × 18 = 127 bytes.
        let mut bomb = vec![0xfeu8, b'a'];
        bomb.extend(std::iter::repeat_n([0x00, 0x0f], 7).flatten());
        assert_eq!(lzss_decompress(&bomb, 1000).unwrap(), vec![b'a'; 1 + 7 * 18]);
        assert!(lzss_decompress(&bomb, 20).is_err());
        let (_, p) = decode("v=9&e=1");
        assert_eq!(p.len(), 1, "{p:?}");
    }

    #[test]
    fn link_round_trips() {
        let link = Link {
            text: Some(crate::presets::default_preset().text.to_string()),
            preset: Some("three-equal-tasks".into()),
            event: Some(42),
            cpu: Some(3),
            kernel: Some("6.12".into()),
            features: vec![("PLACE_LAG".into(), false), ("NEXT_BUDDY".into(), true)],
            window: Some((1000, 2_000_000)),
            queue: Some(vec![1, 3]),
            big: true,
            quiz: true,
            ..Default::default()
        };
        let frag = encode(&link);
        assert!(frag.starts_with("v=2&z="), "{frag}");
        assert!(frag.contains("&g=1,3&"), "{frag}");
        let (back, problems) = decode(&format!("#{frag}"));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back, link);
        // Tiny texts go uncompressed.
        let tiny = Link { text: Some("x".into()), ..Default::default() };
        assert_eq!(encode(&tiny), "s=eA");
        assert_eq!(decode("s=eA").0, tiny);
    }

    #[test]
    fn pages_round_trip() {
        let link = Link {
            page: Page::Compare,
            base: Some("6.6".into()),
            compare: Some("6.6+reweight-fix,RUN_TO_PARITY=off".into()),
            compare_preset: Some("reweight-fix".into()),
            time: Some(123_456),
            runs: Some(5),
            cpu: Some(1),
            window: Some((10, 20)),
            ..Default::default()
        };
        let frag = encode(&link);
        assert!(frag.starts_with("page=compare&"), "{frag}");
        assert_eq!(decode(&frag), (link, Vec::new()));
        let study = Link {
            page: Page::Study,
            study_preset: Some("seed-002-hackbench".into()),
            study_seeds: Some(2),
            study_loads: Some(vec![0, 1]),
            study_cases: Some(vec![0]),
            ..Default::default()
        };
        assert_eq!(decode(&encode(&study)), (study, Vec::new()));
        // The lecture page is the default and is not written.
        assert_eq!(encode(&Link::default()), "");
        let (l, p) = decode("page=nope&t=x&n=0&ss=x&sl=a");
        assert_eq!(l.page, Page::Lecture);
        assert_eq!(p.len(), 5, "{p:?}");
    }

    #[test]
    fn bad_fields_are_reported_and_the_rest_applies() {
        let (l, p) = decode("#s=!!!&e=12&cpu=x&f=A:1,B&w=5-3&what=1&big=1");
        assert_eq!(l.event, Some(12));
        assert!(l.big);
        assert_eq!(l.features, vec![("A".to_string(), true)]);
        assert_eq!(l.text, None);
        assert_eq!(p.len(), 5, "{p:?}");
        assert!(p[0].contains("not base64url"), "{p:?}");
        let (_, p) = decode("s=_w");
        assert!(p[0].contains("not UTF-8"), "{p:?}");
        let (l, p) = decode("g=1,x&e=3");
        assert_eq!((l.queue, l.event), (None, Some(3)));
        assert!(p.len() == 1 && p[0].contains("group queues"), "{p:?}");
    }

    /// A link's size is bounded field by field: past 64 fields the rest are
    /// ignored with one notice (a link of a million `&x` parts gives one,
    /// not a million), a field other than the scenario longer than 1024
    /// bytes is skipped, and past 64 feature settings the rest are ignored.
    #[test]
    fn links_are_capped_field_by_field() {
        let many = format!("e=7&{}", "what=1&".repeat(1_000_000));
        let (l, p) = decode(&many);
        assert_eq!(l.event, Some(7));
        // Fields 2..=64 are unknown (63 notices), then one for the rest.
        assert_eq!(p.len(), 64, "{:?}", &p[60..]);
        assert!(p[63].contains("more than 64 fields"), "{}", p[63]);
        let (l, p) = decode(&format!("cpu=3&k={}", "x".repeat(2000)));
        assert_eq!((l.cpu, l.kernel), (Some(3), None));
        assert_eq!(p, vec!["The link's field `k` is longer than 1024 bytes (ignored).".to_string()]);
        let items: Vec<String> = (0..100).map(|i| format!("F{i}:1")).collect();
        let (l, p) = decode(&format!("f={}", items.join(",")));
        assert_eq!(l.features.len(), 64);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("more than 64 features"), "{}", p[0]);
    }
}
