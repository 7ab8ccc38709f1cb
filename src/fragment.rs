//! The URL fragment: the whole scenario, the current instant and the view
//! options, so a link reopens exactly the same view.
//!
//! `#z=<scenario>&e=<event>&cpu=<n>&k=<kernel>&f=<NAME:1,NAME:0>&w=<t0>-<t1>&big=1&p=<preset>`
//!
//! The comparison and the study pages add `page=compare|study`; the
//! comparison its two configurations (`b=`, `c=`), its preset (`cp=`) and
//! the shared instant (`t=` ns); the study page its preset (`sp=`).
//!
//! The scenario is its UTF-8 text, LZ-compressed (a small LZSS, below) and
//! base64url-encoded (`z=`); `s=` holds plain base64url text (shorter for
//! tiny texts, and handy to write by hand). Fragments come from anyone:
//! decoding never panics, and every problem is reported in words while the
//! rest of the link still applies.

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
    pub kernel: Option<String>,
    pub features: Vec<(String, bool)>,
    /// Timeline window in ns.
    pub window: Option<(u64, u64)>,
    pub big: bool,
}

/// Largest scenario a link may expand to.
pub const MAX_TEXT: usize = 256 * 1024;

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
    if let Some(t) = &link.text {
        let z = compress(t.as_bytes());
        if z.len() < t.len() {
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
    parts.join("&")
}

/// Decodes a fragment (with or without `#`). Returns what could be read and
/// one message per problem.
pub fn decode(fragment: &str) -> (Link, Vec<String>) {
    let mut link = Link::default();
    let mut problems = Vec::new();
    let frag = fragment.strip_prefix('#').unwrap_or(fragment);
    for part in frag.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        match key {
            "z" | "s" => {
                let text = b64_decode(value).and_then(|bytes| {
                    if key == "z" {
                        decompress(&bytes, MAX_TEXT)
                    } else {
                        Ok(bytes)
                    }
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
            "p" => link.preset = Some(unescape(value)),
            "page" => match Page::from_id(value) {
                Some(p) => link.page = p,
                None => problems.push(format!(
                    "The link names an unknown page `{}` (known: lecture, compare, study).",
                    shorten(value)
                )),
            },
            "cp" => link.compare_preset = Some(unescape(value)),
            "sp" => link.study_preset = Some(unescape(value)),
            "b" => link.base = Some(unescape(value)),
            "c" => link.compare = Some(unescape(value)),
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
            "k" => link.kernel = Some(unescape(value)),
            "f" => {
                for item in value.split(',').filter(|s| !s.is_empty()) {
                    match item.rsplit_once(':') {
                        Some((n, "1")) => link.features.push((unescape(n), true)),
                        Some((n, "0")) => link.features.push((unescape(n), false)),
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
            "" => {}
            other => problems.push(format!(
                "The link has an unknown field `{}` (ignored).",
                shorten(other)
            )),
        }
    }
    (link, problems)
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

fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding.
pub fn b64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let v = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..chunk.len() + 1 {
            out.push(B64[(v >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// base64url (padding and `+/` tolerated); says where it went wrong.
pub fn b64_decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, c) in text.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => {
                return Err(format!(
                    "it is not base64url (character {} is `{}`)",
                    i + 1,
                    c.escape_ascii()
                ))
            }
        } as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
        if out.len() > MAX_TEXT {
            return Err("it is too long".to_string());
        }
    }
    if bits >= 6 {
        return Err("it is cut short (incomplete base64url)".to_string());
    }
    Ok(out)
}

// LZSS: a flag byte announces 8 items, bit i set = a match. A literal is one
// byte; a match is two bytes: 12 bits of distance − 1 and 4 bits of
// length − 3 (lengths 3..=18 within the last 4096 bytes).
const WINDOW: usize = 4096;
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 18;

/// Compresses with greedy LZSS (hash chains over 3-byte prefixes).
pub fn compress(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 2 + 8);
    let mut head = vec![usize::MAX; 1 << 12];
    let mut prev = vec![usize::MAX; data.len()];
    let hash = |i: usize| -> usize {
        ((data[i] as usize) << 4 ^ (data[i + 1] as usize) << 2 ^ data[i + 2] as usize) & 0xfff
    };
    let insert = |i: usize, head: &mut Vec<usize>, prev: &mut Vec<usize>| {
        if i + MIN_MATCH <= data.len() {
            let h = hash(i);
            prev[i] = head[h];
            head[h] = i;
        }
    };
    let mut i = 0;
    let mut flag_at = 0;
    let mut nitems = 8;
    while i < data.len() {
        if nitems == 8 {
            flag_at = out.len();
            out.push(0);
            nitems = 0;
        }
        let (mut best_len, mut best_dist) = (0, 0);
        if i + MIN_MATCH <= data.len() {
            let mut cand = head[hash(i)];
            let mut tries = 64;
            while cand != usize::MAX && i - cand <= WINDOW && tries > 0 {
                let max = MAX_MATCH.min(data.len() - i);
                let mut l = 0;
                while l < max && data[cand + l] == data[i + l] {
                    l += 1;
                }
                if l > best_len {
                    best_len = l;
                    best_dist = i - cand;
                    if l == max {
                        break;
                    }
                }
                cand = prev[cand];
                tries -= 1;
            }
        }
        if best_len >= MIN_MATCH {
            out[flag_at] |= 1 << nitems;
            let v = ((best_dist - 1) << 4 | (best_len - MIN_MATCH)) as u16;
            out.extend_from_slice(&v.to_be_bytes());
            for j in i..i + best_len {
                insert(j, &mut head, &mut prev);
            }
            i += best_len;
        } else {
            out.push(data[i]);
            insert(i, &mut head, &mut prev);
            i += 1;
        }
        nitems += 1;
    }
    out
}

/// Inverse of [`compress`]; rejects malformed input and output over `max`.
pub fn decompress(data: &[u8], max: usize) -> Result<Vec<u8>, String> {
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
            assert!(s.bytes().all(|c| B64.contains(&c)));
            assert_eq!(b64_decode(&s).unwrap(), data);
        }
        assert_eq!(b64_encode(b"hello"), "aGVsbG8");
        assert_eq!(b64_decode("aGVsbG8=").unwrap(), b"hello");
        assert!(b64_decode("a b").unwrap_err().contains("character 2"));
        assert!(b64_decode("a").is_err());
    }

    #[test]
    fn lz_round_trips_and_shrinks_scenarios() {
        let text = crate::presets::PRESETS
            .iter()
            .map(|p| p.text)
            .collect::<String>();
        for t in [
            text.as_str(),
            "",
            "a",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "abcabcabcabcabcabd",
        ] {
            let z = compress(t.as_bytes());
            assert_eq!(decompress(&z, MAX_TEXT).unwrap(), t.as_bytes());
        }
        for p in crate::presets::PRESETS {
            let z = compress(p.text.as_bytes());
            assert!(
                z.len() < p.text.len(),
                "{}: {} -> {}",
                p.id,
                p.text.len(),
                z.len()
            );
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
            let s: String = data.iter().map(|&b| (b % 96 + 32) as char).collect();
            let _ = decode(&s);
            let _ = decode(&format!("z={s}&e={s}&f={s}&w={s}"));
        }
        // A back-reference before the start is an error, not a panic.
        assert!(decompress(&[1, 0xff, 0xf0], 100).is_err());
        // A bomb is cut off.
        // One literal, then seven matches of 18 bytes each (distance 1).
        let mut bomb = vec![0xfeu8, b'a'];
        bomb.extend(std::iter::repeat_n([0x00, 0x0f], 7).flatten());
        assert_eq!(decompress(&bomb, 1000).unwrap(), vec![b'a'; 1 + 7 * 18]);
        assert!(decompress(&bomb, 20).is_err());
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
            big: true,
            ..Default::default()
        };
        let frag = encode(&link);
        assert!(frag.starts_with("z="), "{frag}");
        let (back, problems) = decode(&format!("#{frag}"));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back, link);
        // Tiny texts go uncompressed.
        let tiny = Link {
            text: Some("x".into()),
            ..Default::default()
        };
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
            ..Default::default()
        };
        let frag = encode(&link);
        assert!(frag.starts_with("page=compare&"), "{frag}");
        assert_eq!(decode(&frag), (link, Vec::new()));
        let study = Link {
            page: Page::Study,
            study_preset: Some("seed-002-hackbench".into()),
            ..Default::default()
        };
        assert_eq!(decode(&encode(&study)).0, study);
        // The lecture page is the default and is not written.
        assert_eq!(encode(&Link::default()), "");
        let (l, p) = decode("page=nope&t=x");
        assert_eq!(l.page, Page::Lecture);
        assert_eq!(p.len(), 2, "{p:?}");
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
    }
}
