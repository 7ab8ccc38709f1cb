//! A small spanned document tree shared by the TOML and JSON front ends,
//! and the mapping from byte offsets to 1-based line/column positions.

use std::cell::Cell;

use super::Pos;

/// The source text with a line index, to turn byte offsets into `Pos`.
pub(crate) struct Src<'a> {
    pub text: &'a str,
    line_starts: Vec<usize>,
    /// The last offset asked for and its count of chars from its line's
    /// start, so that increasing offsets on one long line (a minified JSON
    /// scenario, a long program) cost linear time in all.
    last: Cell<(usize, usize)>,
}

impl<'a> Src<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Src {
            text,
            line_starts,
            last: Cell::new((0, 0)),
        }
    }

    /// 1-based line and column (in chars) of a byte offset. Offsets past the
    /// end are clamped; a leading byte-order mark does not count as a column.
    pub fn pos(&self, off: usize) -> Pos {
        let off = off.min(self.text.len());
        let idx = match self.line_starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(idx).copied().unwrap_or(0);
        let (last_off, last_chars) = self.last.get();
        let (from, base) = if (start..=off).contains(&last_off) {
            (last_off, last_chars)
        } else {
            (start, 0)
        };
        let bytes = self.text.as_bytes().get(from..off).unwrap_or(&[]);
        let chars = base + bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
        self.last.set((off, chars));
        let mut col = chars;
        if idx == 0 && off >= 3 && self.text.starts_with('\u{feff}') {
            col = col.saturating_sub(1);
        }
        Pos {
            line: u32::try_from(idx + 1).unwrap_or(u32::MAX),
            col: u32::try_from(col + 1).unwrap_or(u32::MAX),
        }
    }
}

/// How a string was written, which decides how offsets inside it map back
/// to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StrSyntax {
    /// TOML "basic"
    Basic,
    /// TOML 'literal'
    Literal,
    /// TOML """multi-line basic"""
    MlBasic,
    /// TOML '''multi-line literal'''
    MlLiteral,
    /// JSON "string"
    Json,
    /// Anything else (falls back to the value's start)
    Unknown,
}

#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Str(String, StrSyntax),
    /// TOML integers are i64 and JSON integers saturate, so i128 holds every
    /// value exactly enough for range checks.
    Int(i128),
    /// The number as written.
    Float(String),
    Bool(bool),
    Datetime,
    Null,
    Array(Vec<Value>),
    Table(Vec<Entry>),
}

/// A value with the byte span it was written at (for a TOML `[table]` or
/// `[[array]]` the span of its header).
#[derive(Debug, Clone)]
pub(crate) struct Value {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub key: String,
    pub key_start: usize,
    pub value: Value,
}

/// Nesting deeper than this is rejected by both front ends.
pub(crate) const MAX_NESTING: usize = 64;

/// Parses TOML into the shared tree. Table entries come out in file order.
pub(crate) fn from_toml(text: &str) -> Result<Value, (Option<usize>, String)> {
    use toml::de::DeTable;
    let doc = DeTable::parse(text).map_err(|e| match (e.span(), deep_key(text)) {
        (Some(span), _) => (Some(span.start), e.message().to_string()),
        (None, Some((at, parts))) => (Some(at), format!("nesting deeper than {MAX_NESTING} levels (a dotted key of {parts} parts)")),
        (None, None) => (None, e.message().to_string()),
    })?;
    let span = doc.span();
    let table = convert_table(text, doc.get_ref(), 0)?;
    Ok(Value {
        kind: Kind::Table(table),
        start: span.start,
        end: span.end,
    })
}

/// Where the first key of more than `MAX_NESTING` dotted parts starts, and
/// its parts: toml's parser stops at such a key with "recursion limit" and
/// no position. (A quoted part with a dot counts twice: this only places
/// an error the parser already found.)
fn deep_key(text: &str) -> Option<(usize, usize)> {
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let key = line.split('=').next().unwrap_or("");
        let parts = key.matches('.').count() + 1;
        if parts > MAX_NESTING {
            return Some((off + line.len() - line.trim_start().len(), parts));
        }
        off += line.len();
    }
    None
}

fn convert_table(
    text: &str,
    t: &toml::de::DeTable<'_>,
    depth: usize,
) -> Result<Vec<Entry>, (Option<usize>, String)> {
    let mut out = Vec::with_capacity(t.len());
    for (k, v) in t.iter() {
        out.push(Entry {
            key: k.get_ref().to_string(),
            key_start: k.span().start,
            value: convert(text, v, depth + 1)?,
        });
    }
    // The map is sorted by key name; restore the order of the file.
    out.sort_by_key(|e| e.key_start);
    Ok(out)
}

fn convert(
    text: &str,
    v: &toml::Spanned<toml::de::DeValue<'_>>,
    depth: usize,
) -> Result<Value, (Option<usize>, String)> {
    use toml::de::DeValue;
    let span = v.span();
    if depth > MAX_NESTING {
        return Err((
            Some(span.start),
            format!("nesting deeper than {MAX_NESTING} levels"),
        ));
    }
    let kind = match v.get_ref() {
        DeValue::String(s) => {
            let raw = text.get(span.start..).unwrap_or("");
            let syntax = if raw.starts_with("\"\"\"") {
                StrSyntax::MlBasic
            } else if raw.starts_with("'''") {
                StrSyntax::MlLiteral
            } else if raw.starts_with('"') {
                StrSyntax::Basic
            } else if raw.starts_with('\'') {
                StrSyntax::Literal
            } else {
                StrSyntax::Unknown
            };
            Kind::Str(s.to_string(), syntax)
        }
        DeValue::Integer(i) => {
            let n = i128::from_str_radix(i.as_str(), i.radix()).unwrap_or_else(|_| {
                if i.as_str().starts_with('-') {
                    i128::MIN
                } else {
                    i128::MAX
                }
            });
            Kind::Int(n)
        }
        DeValue::Float(f) => Kind::Float(f.as_str().to_string()),
        DeValue::Boolean(b) => Kind::Bool(*b),
        DeValue::Datetime(_) => Kind::Datetime,
        DeValue::Array(a) => {
            let mut items = Vec::with_capacity(a.len());
            for item in a.iter() {
                items.push(convert(text, item, depth + 1)?);
            }
            Kind::Array(items)
        }
        DeValue::Table(t) => Kind::Table(convert_table(text, t, depth)?),
    };
    Ok(Value {
        kind,
        start: span.start,
        end: span.end,
    })
}

/// For each byte of a string value's decoded text, the byte offset in the
/// file it came from, plus one entry for the end. Exact for every string
/// syntax (escapes included) when the decoding can be reproduced; otherwise
/// every offset is the value's start.
pub(crate) fn string_offsets(text: &str, v: &Value) -> Vec<usize> {
    if let Kind::Str(s, syntax) = &v.kind {
        let raw = text.get(v.start..v.end).unwrap_or("");
        for crlf in [false, true] {
            if let Some((decoded, map)) = decode_map(raw, v.start, *syntax, crlf) {
                if decoded == *s {
                    return map;
                }
            }
        }
        vec![v.start; s.len() + 1]
    } else {
        vec![v.start]
    }
}

fn push_mapped(out: &mut String, map: &mut Vec<usize>, c: char, off: usize) {
    out.push(c);
    map.extend(std::iter::repeat_n(off, c.len_utf8()));
}

fn hex_escape(it: &mut std::iter::Peekable<std::str::CharIndices<'_>>, n: usize) -> Option<u32> {
    let mut v: u32 = 0;
    for _ in 0..n {
        let (_, c) = it.next()?;
        v = v.checked_mul(16)?.checked_add(c.to_digit(16)?)?;
    }
    Some(v)
}

/// Re-decodes a quoted string exactly as written, recording offsets.
fn decode_map(
    raw: &str,
    base: usize,
    syntax: StrSyntax,
    crlf: bool,
) -> Option<(String, Vec<usize>)> {
    let (quotes, multiline, escapes) = match syntax {
        StrSyntax::Basic | StrSyntax::Json => (1, false, true),
        StrSyntax::Literal => (1, false, false),
        StrSyntax::MlBasic => (3, true, true),
        StrSyntax::MlLiteral => (3, true, false),
        StrSyntax::Unknown => return None,
    };
    let json = syntax == StrSyntax::Json;
    let end = raw.len().checked_sub(quotes)?;
    let mut lead = quotes;
    if lead > end {
        return None;
    }
    let mut inner = raw.get(lead..end)?;
    if multiline {
        if let Some(rest) = inner.strip_prefix("\r\n") {
            inner = rest;
            lead += 2;
        } else if let Some(rest) = inner.strip_prefix('\n') {
            inner = rest;
            lead += 1;
        }
    }
    let base = base + lead;
    let mut out = String::with_capacity(inner.len());
    let mut map = Vec::with_capacity(inner.len() + 1);
    let mut it = inner.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c == '\\' && escapes {
            let (_, e) = it.next()?;
            let ch = match e {
                'b' => '\u{8}',
                't' => '\t',
                'n' => '\n',
                'f' => '\u{c}',
                'r' => '\r',
                '"' => '"',
                '\\' => '\\',
                '/' if json => '/',
                'e' if !json => '\u{1b}',
                'x' if !json => char::from_u32(hex_escape(&mut it, 2)?)?,
                'U' if !json => char::from_u32(hex_escape(&mut it, 8)?)?,
                'u' => {
                    let hi = hex_escape(&mut it, 4)?;
                    if json && (0xD800..0xDC00).contains(&hi) {
                        let (_, b) = it.next()?;
                        let (_, u) = it.next()?;
                        if b != '\\' || u != 'u' {
                            return None;
                        }
                        let lo = hex_escape(&mut it, 4)?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return None;
                        }
                        char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                    } else {
                        char::from_u32(hi)?
                    }
                }
                ' ' | '\t' | '\r' | '\n' if multiline => {
                    // Line-ending backslash: drop all whitespace up to the next
                    // non-whitespace character.
                    while let Some(&(_, w)) = it.peek() {
                        if matches!(w, ' ' | '\t' | '\r' | '\n') {
                            it.next();
                        } else {
                            break;
                        }
                    }
                    continue;
                }
                _ => return None,
            };
            push_mapped(&mut out, &mut map, ch, base + i);
        } else if crlf && c == '\r' && it.peek().is_some_and(|&(_, n)| n == '\n') {
            continue;
        } else {
            push_mapped(&mut out, &mut map, c, base + i);
        }
    }
    map.push(base + inner.len());
    Some((out, map))
}

/// TOML text as a JSON value (through the same parser as scenarios), for
/// data files that serde then reads: one TOML front end in the page instead
/// of toml's serde deserializer as well. A float keeps the digits written.
pub(crate) fn toml_to_json(text: &str) -> Result<serde_json::Value, String> {
    fn json(v: &Value) -> serde_json::Value {
        use serde_json::Value as J;
        match &v.kind {
            Kind::Str(s, _) => J::String(s.clone()),
            Kind::Int(i) => i64::try_from(*i).map_or(J::Null, J::from),
            Kind::Float(f) => f.replace('_', "").parse::<f64>().ok().and_then(serde_json::Number::from_f64).map_or(J::Null, J::Number),
            Kind::Bool(b) => J::Bool(*b),
            Kind::Datetime | Kind::Null => J::Null,
            Kind::Array(xs) => J::Array(xs.iter().map(json).collect()),
            Kind::Table(es) => J::Object(es.iter().map(|e| (e.key.clone(), json(&e.value))).collect()),
        }
    }
    from_toml(text).map(|v| json(&v)).map_err(|(at, e)| format!("{e} (at byte {})", at.unwrap_or(0)))
}
