//! Printing: every command builds a report that serialises for `--json` and
//! displays as text, so the two cannot drift apart.

use std::fmt;
use std::io::Write;

use serde::Serialize;

/// Writes to stdout; a closed pipe (`fanotb ... | head`) ends the program quietly
/// instead of panicking.
pub fn emit(s: &str) {
    let mut o = std::io::stdout().lock();
    if o.write_all(s.as_bytes()).and_then(|()| o.flush()).is_err() {
        std::process::exit(0);
    }
}

/// Prints a report: pretty JSON with `--json`, else its text; streamed, so a report
/// of a million moves is never held whole as text.
pub fn print<R: Serialize + fmt::Display>(report: &R, json: bool) {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = if json {
        serde_json::to_writer_pretty(&mut out, report)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
    } else {
        write!(out, "{report}")
    };
    if written.and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

/// Prints one line of a streamed report: a JSON line with `--json`, else its text.
pub fn print_line<R: Serialize + fmt::Display>(line: &R, json: bool) {
    if json {
        emit(&(serde_json::to_string(line).expect("reports serialise") + "\n"));
    } else {
        emit(&format!("{line}\n"));
    }
}

pub fn to_json<R: Serialize>(report: &R) -> String {
    serde_json::to_string_pretty(report).expect("reports serialise")
}

/// A failure whose `--json` report the command has already printed.
#[derive(Debug)]
pub struct Reported(pub String);

impl fmt::Display for Reported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Reported {}

/// The error of a command that failed after printing its own report: with `--json`
/// that report already holds the error.
pub fn failure(msg: String, json: bool) -> Box<dyn std::error::Error> {
    if json {
        Box::new(Reported(msg))
    } else {
        msg.into()
    }
}
