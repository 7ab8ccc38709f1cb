//! A small JSON parser (RFC 8259) that keeps the byte offset of every key and
//! value. Nesting is capped at `MAX_NESTING` levels, so deep input is an
//! error, not a stack overflow. Duplicate keys are rejected.

use std::collections::HashSet;

use super::value::{Entry, Kind, StrSyntax, Value, MAX_NESTING};

type Error = (Option<usize>, String);

/// Parses one JSON document (an optional byte-order mark, one value,
/// whitespace).
pub(crate) fn parse(text: &str) -> Result<Value, Error> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        i: 0,
    };
    if text.starts_with('\u{feff}') {
        p.i = '\u{feff}'.len_utf8();
    }
    p.skip_ws();
    let v = p.value(0)?;
    p.skip_ws();
    if p.i < p.bytes.len() {
        return Err(p.unexpected("end of input"));
    }
    Ok(v)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn unexpected(&self, expected: &str) -> Error {
        match self.text.get(self.i..).and_then(|s| s.chars().next()) {
            Some(c) => (
                Some(self.i),
                format!("unexpected `{}`, expected {expected}", c.escape_debug()),
            ),
            None => (
                Some(self.i),
                format!("unexpected end of input, expected {expected}"),
            ),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let start = self.i;
                let s = self.string()?;
                Ok(Value {
                    kind: Kind::Str(s, StrSyntax::Json),
                    start,
                    end: self.i,
                })
            }
            Some(b't') => self.literal("true", Kind::Bool(true)),
            Some(b'f') => self.literal("false", Kind::Bool(false)),
            Some(b'n') => self.literal("null", Kind::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.unexpected("a value")),
        }
    }

    fn literal(&mut self, word: &str, kind: Kind) -> Result<Value, Error> {
        let start = self.i;
        if self.bytes.get(start..start + word.len()) == Some(word.as_bytes()) {
            self.i += word.len();
            if self.peek().is_some_and(|b| b.is_ascii_alphanumeric()) {
                self.i = start;
                return Err(self.unexpected("a value"));
            }
            Ok(Value {
                kind,
                start,
                end: self.i,
            })
        } else {
            Err(self.unexpected("a value"))
        }
    }

    fn enter(&self, depth: usize) -> Result<usize, Error> {
        if depth >= MAX_NESTING {
            Err((
                Some(self.i),
                format!("nesting deeper than {MAX_NESTING} levels"),
            ))
        } else {
            Ok(depth + 1)
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Error> {
        let depth = self.enter(depth)?;
        let start = self.i;
        self.i += 1; // '{'
        let mut entries: Vec<Entry> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value {
                kind: Kind::Table(entries),
                start,
                end: self.i,
            });
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.unexpected("a key in double quotes"));
            }
            let key_start = self.i;
            let key = self.string()?;
            if !seen.insert(key.clone()) {
                return Err((Some(key_start), format!("duplicate key `{key}`")));
            }
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.unexpected("`:`"));
            }
            self.i += 1;
            self.skip_ws();
            let value = self.value(depth)?;
            entries.push(Entry {
                key,
                key_start,
                value,
            });
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value {
                        kind: Kind::Table(entries),
                        start,
                        end: self.i,
                    });
                }
                _ => return Err(self.unexpected("`,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, Error> {
        let depth = self.enter(depth)?;
        let start = self.i;
        self.i += 1; // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value {
                kind: Kind::Array(items),
                start,
                end: self.i,
            });
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value {
                        kind: Kind::Array(items),
                        start,
                        end: self.i,
                    });
                }
                _ => return Err(self.unexpected("`,` or `]`")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let digits = self
            .text
            .get(self.i..self.i + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| (Some(self.i), "expected 4 hex digits after \\u".to_string()))?;
        let v = u32::from_str_radix(digits, 16)
            .map_err(|_| (Some(self.i), "expected 4 hex digits after \\u".to_string()))?;
        self.i += 4;
        Ok(v)
    }

    /// Reads a string starting at the opening quote; leaves `i` after the
    /// closing quote.
    fn string(&mut self) -> Result<String, Error> {
        let open = self.i;
        self.i += 1;
        let mut out = String::new();
        loop {
            let rest = self.text.get(self.i..).unwrap_or("");
            // Copy the run of plain characters in one go.
            let run = rest
                .find(|c: char| c == '"' || c == '\\' || (c as u32) < 0x20)
                .unwrap_or(rest.len());
            out.push_str(rest.get(..run).unwrap_or(""));
            self.i += run;
            match self.peek() {
                None => return Err((Some(open), "unterminated string".to_string())),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let esc_at = self.i;
                    self.i += 1;
                    let e = self.peek();
                    self.i += 1;
                    let c = match e {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if self.bytes.get(self.i..self.i + 2) != Some(b"\\u") {
                                    return Err((
                                        Some(esc_at),
                                        "unpaired surrogate in \\u escape".to_string(),
                                    ));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err((
                                        Some(esc_at),
                                        "unpaired surrogate in \\u escape".to_string(),
                                    ));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            char::from_u32(code).ok_or_else(|| {
                                (Some(esc_at), "unpaired surrogate in \\u escape".to_string())
                            })?
                        }
                        _ => return Err((Some(esc_at), "invalid escape in string".to_string())),
                    };
                    out.push(c);
                }
                Some(_) => {
                    return Err((
                        Some(self.i),
                        "control character in string (write \\n, \\t, ...)".to_string(),
                    ))
                }
            }
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.i;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - from
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let int_start = self.i;
        let n = self.digits();
        if n == 0 {
            return Err(self.unexpected("a digit"));
        }
        if n > 1 && self.bytes.get(int_start) == Some(&b'0') {
            return Err((
                Some(int_start),
                "numbers cannot have leading zeros".to_string(),
            ));
        }
        let mut integral = true;
        if self.peek() == Some(b'.') {
            integral = false;
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.unexpected("a digit after `.`"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integral = false;
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.unexpected("a digit in the exponent"));
            }
        }
        let raw = self.text.get(start..self.i).unwrap_or("");
        let kind = if integral {
            Kind::Int(raw.parse::<i128>().unwrap_or(if raw.starts_with('-') {
                i128::MIN
            } else {
                i128::MAX
            }))
        } else {
            Kind::Float(raw.to_string())
        };
        Ok(Value {
            kind,
            start,
            end: self.i,
        })
    }
}
