//! What the command-line tests share: the binary under test, its JSON, its failures.

use assert_cmd::Command;
use serde_json::Value;

pub fn fanotb() -> Command {
    Command::cargo_bin("fanotb").unwrap()
}

pub fn json(args: &[&str]) -> Value {
    let out = fanotb().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

pub fn fails(args: &[&str]) -> String {
    let out = fanotb().args(args).output().unwrap();
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    err
}
