//! `fanotb serve` started on a random local port, and an HTTP client for it.
#![allow(dead_code)] // not every test crate uses every helper

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// The server process, killed if a test fails before it stops it.
pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
        Server::start_with(dir, &[])
    }

    /// Started with more `serve` options.
    pub fn start_with(dir: &Path, options: &[&str]) -> Server {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("fanotb"))
            .args(["serve", "--bind", "127.0.0.1:0"])
            .args(options)
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // "serving DIR on http://127.0.0.1:PORT/ (Ctrl-C stops)"
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .trim_end_matches('/')
            .to_string();
        Server { child, base }
    }

    /// GET `path`: the status and the body.
    pub fn get(&self, agent: &ureq::Agent, path: &str) -> (u16, String) {
        let mut r = agent.get(format!("{}{path}", self.base)).call().unwrap();
        let status = r.status().as_u16();
        (status, r.body_mut().read_to_string().unwrap())
    }

    /// Sends the server a signal, as `kill` takes it (`-INT`, `-TERM`).
    pub fn signal(&self, sig: &str) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args([sig, &pid]).status().unwrap();
        assert!(sent.success(), "kill {sig} {pid}");
    }

    /// The server's `host:port`.
    pub fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    pub fn json(&self, agent: &ureq::Agent, path: &str) -> (u16, Value) {
        let (status, body) = self.get(agent, path);
        (status, serde_json::from_str(&body).unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}
