//! The task program language:
//!
//! ```text
//! program := stmt ((";" | newline) stmt)*
//! stmt    := "run" [D] | "sleep" D | "loop" [N] "{" program "}" | "yield"
//!          | "nice" N | "slice" (D | "default" | "0") | "exit"
//!          | "send" CH [N] | "recv" CH [N] | "wake" TASK | "wait"
//!          | "futex_wake" TASK | "futex_wait" [D] | "call" TASK | "reply"
//! D       := 4ms | 1.5ms | 750us | exp(D) | uniform(D, D)
//! ```
//!
//! `#` starts a comment to the end of the line. Loops nest at most
//! `MAX_LOOP_DEPTH` deep.

use super::duration::parse_duration;
use super::{suggest, Dur, Pos, Program, Stmt, StmtKind, SLICE_MAX_NS, SLICE_MIN_NS};

/// How deep `loop`s may nest.
pub const MAX_LOOP_DEPTH: usize = 16;

const KEYWORDS: [&str; 15] = [
    "run", "sleep", "loop", "yield", "nice", "slice", "exit", "send", "recv", "wake", "wait", "call",
    "reply", "futex_wake", "futex_wait",
];

/// A parsed program and the `wake` targets it names (checked against the
/// task list by the caller).
pub(crate) struct Parsed {
    pub program: Program,
    pub wakes: Vec<(String, Pos)>,
}

/// An error at a byte offset inside the program text.
type Error = (usize, String);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    Word(&'a str),
    Num(&'a str),
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Semi,
    Newline,
    Eof,
}

impl Tok<'_> {
    fn describe(&self) -> String {
        match self {
            Tok::Word(w) | Tok::Num(w) => format!("`{w}`"),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Semi => "`;`".into(),
            Tok::Newline => "end of line".into(),
            Tok::Eof => "end of program".into(),
        }
    }

    fn ends_stmt(&self) -> bool {
        matches!(self, Tok::Semi | Tok::Newline | Tok::Eof | Tok::RBrace)
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

fn lex(code: &str) -> Result<Vec<(Tok<'_>, usize)>, Error> {
    let mut toks = Vec::new();
    let mut it = code.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let tok = match c {
            ' ' | '\t' | '\r' => continue,
            '\n' => Tok::Newline,
            '#' => {
                while it.peek().is_some_and(|&(_, c)| c != '\n') {
                    it.next();
                }
                continue;
            }
            ';' => Tok::Semi,
            '{' => Tok::LBrace,
            '}' => Tok::RBrace,
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            ',' => Tok::Comma,
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = it.peek() {
                    if !is_word_char(d) {
                        break;
                    }
                    end = j + d.len_utf8();
                    it.next();
                }
                Tok::Word(code.get(i..end).unwrap_or(""))
            }
            c if c.is_ascii_digit()
                || (matches!(c, '-' | '+' | '.')
                    && it.peek().is_some_and(|&(_, d)| d.is_ascii_digit())) =>
            {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = it.peek() {
                    if !(d.is_alphanumeric() || matches!(d, '.' | '_')) {
                        break;
                    }
                    end = j + d.len_utf8();
                    it.next();
                }
                Tok::Num(code.get(i..end).unwrap_or(""))
            }
            other => {
                let hint = if other == '"' || other == '\'' {
                    " (durations in a program are written without quotes: run 4ms)"
                } else {
                    ""
                };
                return Err((
                    i,
                    format!("unexpected character `{}`{hint}", other.escape_debug()),
                ));
            }
        };
        toks.push((tok, i));
    }
    toks.push((Tok::Eof, code.len()));
    Ok(toks)
}

struct Parser<'a, 'p> {
    toks: Vec<(Tok<'a>, usize)>,
    i: usize,
    pos: &'p dyn Fn(usize) -> Pos,
    wakes: Vec<(String, Pos)>,
}

/// Parses and checks a program. `pos` maps a byte offset in `code` to its
/// position in the file; errors come with their file position.
pub(crate) fn parse(code: &str, pos: &dyn Fn(usize) -> Pos) -> Result<Parsed, (Pos, String)> {
    let toks = lex(code).map_err(|(off, m)| (pos(off), m))?;
    let mut p = Parser {
        toks,
        i: 0,
        pos,
        wakes: Vec::new(),
    };
    let stmts = p.block(0, None).map_err(|(off, m)| (pos(off), m))?;
    if stmts.is_empty() {
        return Err((
            pos(0),
            "program is empty; write e.g. \"run\" (CPU hog) or \"loop { sleep 10ms; run 1ms }\""
                .to_string(),
        ));
    }
    check_block(&stmts)?;
    Ok(Parsed {
        program: Program { stmts },
        wakes: p.wakes,
    })
}

impl<'a> Parser<'a, '_> {
    fn peek(&self) -> (Tok<'a>, usize) {
        self.toks.get(self.i).copied().unwrap_or((Tok::Eof, 0))
    }

    fn bump(&mut self) -> (Tok<'a>, usize) {
        let t = self.peek();
        if self.i < self.toks.len() {
            self.i += 1;
        }
        t
    }

    /// Statements up to the end of input (`open` = None) or up to the `}`
    /// matching the `{` at offset `open`.
    fn block(&mut self, depth: usize, open: Option<usize>) -> Result<Vec<Stmt>, Error> {
        let mut stmts = Vec::new();
        loop {
            while matches!(self.peek().0, Tok::Semi | Tok::Newline) {
                self.bump();
            }
            let (tok, off) = self.peek();
            match (tok, open) {
                (Tok::Eof, None) => return Ok(stmts),
                (Tok::Eof, Some(o)) => return Err((o, "this `{` is never closed; add `}`".into())),
                (Tok::RBrace, Some(_)) => {
                    self.bump();
                    return Ok(stmts);
                }
                (Tok::RBrace, None) => {
                    return Err((off, "unexpected `}` with no open `loop {`".into()))
                }
                _ => {}
            }
            let stmt = self.stmt(depth)?;
            let after_loop = matches!(stmt.kind, StmtKind::Loop { .. });
            stmts.push(stmt);
            let (next, next_off) = self.peek();
            // A `}` closing a loop may be followed directly by the next statement.
            if !next.ends_stmt() && !after_loop {
                return Err((
                    next_off,
                    format!("expected `;` or a new line before {}", next.describe()),
                ));
            }
        }
    }

    fn stmt(&mut self, depth: usize) -> Result<Stmt, Error> {
        let (tok, off) = self.bump();
        let pos = (self.pos)(off);
        let word = match tok {
            Tok::Word(w) => w,
            other => {
                return Err((
                    off,
                    format!("expected a statement, found {}", other.describe()),
                ))
            }
        };
        let kind = match word {
            "run" => {
                if self.peek().0.ends_stmt() {
                    StmtKind::RunForever
                } else {
                    StmtKind::Run(self.dur("run")?)
                }
            }
            "sleep" => StmtKind::Sleep(self.dur("sleep")?),
            "loop" => {
                let count = match self.peek() {
                    (Tok::Num(n), noff) => {
                        self.bump();
                        match n.parse::<u64>() {
                            Ok(c) if c >= 1 => Some(c),
                            _ => {
                                return Err((
                                    noff,
                                    format!(
                                    "loop count must be a whole number of at least 1, found `{n}`"
                                ),
                                ))
                            }
                        }
                    }
                    _ => None,
                };
                let (brace, boff) = self.bump();
                if brace != Tok::LBrace {
                    return Err((
                        boff,
                        format!("expected `{{` after `loop`, found {}", brace.describe()),
                    ));
                }
                if depth >= MAX_LOOP_DEPTH {
                    return Err((
                        off,
                        format!("loops nest deeper than {MAX_LOOP_DEPTH} levels"),
                    ));
                }
                let body = self.block(depth + 1, Some(boff))?;
                StmtKind::Loop { count, body }
            }
            "yield" => StmtKind::Yield,
            "exit" => StmtKind::Exit,
            "wait" => StmtKind::Wait,
            "futex_wait" => {
                if self.peek().0.ends_stmt() {
                    StmtKind::FutexWait(None)
                } else {
                    StmtKind::FutexWait(Some(self.dur("futex_wait")?))
                }
            }
            "reply" => StmtKind::Reply,
            "nice" => {
                let (t, noff) = self.bump();
                match t {
                    Tok::Num(n) => match n.parse::<i32>() {
                        Ok(v) if (-20..=19).contains(&v) => StmtKind::Nice(v),
                        _ => {
                            return Err((
                                noff,
                                format!("nice must be an integer in -20..=19, found `{n}`"),
                            ))
                        }
                    },
                    other => {
                        return Err((
                            noff,
                            format!("nice needs a value in -20..=19, found {}", other.describe()),
                        ))
                    }
                }
            }
            "slice" => {
                let (t, soff) = self.bump();
                match t {
                    Tok::Word("default") => StmtKind::Slice(None),
                    Tok::Num(n) => {
                        let ns = if n == "0" { Ok(0) } else { parse_duration(n) };
                        match ns {
                            Ok(0) => StmtKind::Slice(None),
                            Ok(v) if (SLICE_MIN_NS..=SLICE_MAX_NS).contains(&v) => {
                                StmtKind::Slice(Some(v))
                            }
                            Ok(_) => {
                                return Err((
                                    soff,
                                    "slice must be between 100us and 100ms".to_string(),
                                ))
                            }
                            Err(m) => return Err((soff, m)),
                        }
                    }
                    Tok::Word(w @ ("exp" | "uniform")) => {
                        return Err((soff, format!("slice takes a fixed duration, not `{w}(..)`")))
                    }
                    other => {
                        return Err((
                            soff,
                            format!(
                                "slice needs a duration (e.g. `slice 3ms`) or `default`, found {}",
                                other.describe()
                            ),
                        ))
                    }
                }
            }
            "send" | "recv" => {
                let (t, coff) = self.bump();
                let chan = match t {
                    Tok::Word(c) => c.to_string(),
                    other => {
                        return Err((
                            coff,
                            format!("{word} needs a channel name, found {}", other.describe()),
                        ))
                    }
                };
                let n = match self.peek() {
                    (Tok::Num(n), noff) => {
                        self.bump();
                        match n.parse::<u32>() {
                            Ok(v) if v >= 1 => v,
                            _ => {
                                return Err((
                                    noff,
                                    format!("{word} count must be a whole number of at least 1, found `{n}`"),
                                ))
                            }
                        }
                    }
                    _ => 1,
                };
                if word == "send" {
                    StmtKind::Send { chan, n }
                } else {
                    StmtKind::Recv { chan, n }
                }
            }
            "wake" | "futex_wake" | "call" => {
                let (t, toff) = self.bump();
                match t {
                    Tok::Word(name) => {
                        self.wakes.push((name.to_string(), (self.pos)(toff)));
                        let name = name.to_string();
                        match word {
                            "wake" => StmtKind::Wake(name),
                            "futex_wake" => StmtKind::FutexWake(name),
                            _ => StmtKind::Call(name),
                        }
                    }
                    other => {
                        return Err((
                            toff,
                            format!("{word} needs a task name, found {}", other.describe()),
                        ))
                    }
                }
            }
            other => {
                let mut msg = format!("unknown statement `{other}`");
                if let Some(s) = suggest(other, &KEYWORDS) {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                return Err((off, msg));
            }
        };
        Ok(Stmt { kind, pos })
    }

    /// Skips newlines inside a distribution's parentheses.
    fn bump_in_parens(&mut self) -> (Tok<'a>, usize) {
        while self.peek().0 == Tok::Newline {
            self.bump();
        }
        self.bump()
    }

    fn fixed(&mut self, what: &str) -> Result<(u64, usize), Error> {
        let (t, off) = self.bump_in_parens();
        match t {
            Tok::Num(n) => parse_duration(n).map(|v| (v, off)).map_err(|m| (off, m)),
            other => Err((
                off,
                format!(
                    "{what} needs a duration like `1ms`, found {}",
                    other.describe()
                ),
            )),
        }
    }

    fn expect_in_parens(&mut self, want: Tok<'_>) -> Result<(), Error> {
        let (t, off) = self.bump_in_parens();
        if t == want {
            Ok(())
        } else {
            Err((
                off,
                format!("expected {}, found {}", want.describe(), t.describe()),
            ))
        }
    }

    fn dur(&mut self, stmt: &str) -> Result<Dur, Error> {
        let (t, off) = self.bump();
        let d = match t {
            Tok::Num(n) => Dur::Fixed(parse_duration(n).map_err(|m| (off, m))?),
            Tok::Word("exp") => {
                self.expect_in_parens(Tok::LParen)?;
                let (mean, _) = self.fixed("exp")?;
                self.expect_in_parens(Tok::RParen)?;
                if mean == 0 {
                    return Err((off, "exp(..) needs a positive mean".to_string()));
                }
                Dur::Exp { mean }
            }
            Tok::Word("uniform") => {
                self.expect_in_parens(Tok::LParen)?;
                let (lo, _) = self.fixed("uniform")?;
                self.expect_in_parens(Tok::Comma)?;
                let (hi, hi_off) = self.fixed("uniform")?;
                self.expect_in_parens(Tok::RParen)?;
                if lo > hi {
                    return Err((hi_off, "uniform(lo, hi) needs lo <= hi".to_string()));
                }
                if hi == 0 {
                    return Err((off, "uniform(0, 0) is always zero; use a positive upper bound".to_string()));
                }
                Dur::Uniform { lo, hi }
            }
            Tok::Word(w) => {
                let mut msg = format!("{stmt} needs a duration like `4ms`, `exp(1ms)` or `uniform(1ms, 2ms)`, found `{w}`");
                if let Some(s) = suggest(w, &["exp", "uniform"]) {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                return Err((off, msg));
            }
            other => {
                return Err((
                    off,
                    format!("{stmt} needs a duration like `4ms`, `exp(1ms)` or `uniform(1ms, 2ms)`, found {}", other.describe()),
                ))
            }
        };
        if d == Dur::Fixed(0) {
            return Err((off, format!("{stmt} needs a positive duration")));
        }
        Ok(d)
    }
}

/// True when the statements can let simulated time pass.
fn advances_time(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Run(_)
        | StmtKind::RunForever
        | StmtKind::Sleep(_)
        | StmtKind::Wait
        | StmtKind::FutexWait(_)
        | StmtKind::Recv { .. }
        | StmtKind::Yield
        | StmtKind::Exit => true,
        StmtKind::Loop { body, .. } => advances_time(body),
        _ => false,
    })
}

/// Loops that spin without advancing time, and statements after one that
/// never finishes (`run` without a duration, `exit`, `loop` without a count).
fn check_block(stmts: &[Stmt]) -> Result<(), (Pos, String)> {
    let mut prev_endless: Option<&str> = None;
    for s in stmts {
        if let Some(what) = prev_endless {
            return Err((s.pos, format!("unreachable statement: {what}")));
        }
        match &s.kind {
            StmtKind::Loop { count, body } => {
                if count.is_none() && body.is_empty() {
                    return Err((
                        s.pos,
                        "`loop` without a count has an empty body; it would spin forever without advancing time"
                            .to_string(),
                    ));
                }
                if count.is_none() && !advances_time(body) {
                    return Err((
                        s.pos,
                        "loop never advances time: put a `run`, `sleep`, `wait`, `recv` or `yield` inside".to_string(),
                    ));
                }
                check_block(body)?;
                if count.is_none() {
                    prev_endless = Some("the `loop` above has no count and never ends");
                }
            }
            StmtKind::RunForever => {
                prev_endless = Some("`run` without a duration above runs forever")
            }
            StmtKind::Exit => prev_endless = Some("`exit` above ends the task"),
            _ => {}
        }
    }
    Ok(())
}
