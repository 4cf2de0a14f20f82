//! The examples of README.md and of the guide (docs/guide/*.md), run and compared
//! with the output they show.
//!
//! A ```console block holds commands (`$ ...`, continued by `> ...`), each followed by
//! what it prints on stdout; a line `? failed` right after a command expects it to
//! fail, and then its stderr follows its stdout (progress lines on stderr are not
//! part of an example). In the output `[..]` elides the rest of
//! a line up to what follows (timings) and `...` on its own line elides whole lines
//! (snapbox's matching). Commands run in `sh` with the `fanotb` under test first on
//! PATH, so that an example may pipe (`| head -3`) as a reader would. Each page runs
//! in its own scratch directory, its commands in the order written; pages that probe
//! without building first find the tsivy tables of up to 4 stones there as
//! `./tables`. The serving page's examples ask a server the test starts on a free
//! port, with the tables of up to 4 stones plain and under the limit 60: the address
//! the page shows, `127.0.0.1:8080`, stands for its address, and its `fanotb serve &`
//! for that server, whose first line it shows. (trycmd, made for this, rewrites
//! every `\` of the output to `/`, which would break the board diagrams, and runs no
//! pipes; its matcher, snapbox, is used directly.)

use std::path::{Path, PathBuf};

/// What a page's examples find when they start.
#[derive(Clone, Copy, PartialEq)]
enum Setup {
    /// An empty directory.
    Nothing,
    /// The tsivy tables of up to 4 stones as `./tables`.
    Tables,
    /// Those tables and the same under the limit 60, served (`fanotb serve &`).
    Server,
}

/// The pages whose examples run, and what each finds.
const PAGES: &[(&str, Setup)] = &[
    ("README.md", Setup::Nothing),
    ("docs/guide/rules.md", Setup::Tables),
    ("docs/guide/tables.md", Setup::Nothing),
    ("docs/guide/games.md", Setup::Tables),
    ("docs/guide/limit.md", Setup::Nothing),
    ("docs/guide/proofs.md", Setup::Nothing),
    ("docs/guide/small-boards.md", Setup::Nothing),
    ("docs/guide/serve.md", Setup::Server),
];

/// The address the serving page shows, which stands for the server's.
const SHOWN_ADDRESS: &str = "127.0.0.1:8080";

/// `fanotb serve` on a free port in `cwd`, with its tables built there: the server
/// and its first line (with the address the page shows in place of its own), and
/// its own address.
fn start_server(exe: &Path, cwd: &Path) -> (std::process::Child, String, String) {
    use std::io::BufRead;
    for limit in [None, Some("60")] {
        let mut build = std::process::Command::new(exe);
        build.args(["generate", "--max-stones", "4", "--json"]);
        if let Some(n) = limit {
            build.args(["--no-capture-limit", n]);
        }
        let built = build
            .current_dir(cwd)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(built.success());
    }
    let mut server = std::process::Command::new(exe)
        .args(["serve", "--bind", "127.0.0.1:0"])
        .current_dir(cwd)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("serve printed {first:?}"))
        .to_string();
    (server, first.replace(&address, SHOWN_ADDRESS), address)
}

/// One example: where it is written, the command, and what it shows.
struct Example {
    line: usize,
    command: String,
    fails: bool,
    output: String,
}

/// The examples of a page's ```console blocks.
fn examples(text: &str) -> Vec<Example> {
    let mut found: Vec<Example> = Vec::new();
    let mut in_console = false;
    for (n, line) in text.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            in_console = !in_console && info.trim() == "console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            found.push(Example {
                line: n + 1,
                command: command.to_string(),
                fails: false,
                output: String::new(),
            });
        } else if let Some(last) = found.last_mut() {
            if let Some(more) = line.strip_prefix("> ").filter(|_| last.output.is_empty()) {
                last.command.push('\n');
                last.command.push_str(more);
            } else if line.starts_with("? ") && last.output.is_empty() {
                last.fails = line == "? failed";
            } else {
                last.output.push_str(line);
                last.output.push('\n');
            }
        }
    }
    for example in &mut found {
        // The blank line that separates one example from the next is not output.
        let kept = example.output.trim_end_matches('\n').len();
        example.output.truncate(kept);
        if kept > 0 {
            example.output.push('\n');
        }
    }
    found
}

#[test]
fn a_console_block_splits_into_commands_and_their_output() {
    let page =
        "text\n```console\n$ fanotb a\n> b\nout 1\n\n$ fanotb c\n? failed\nerror\n```\n$ not\n";
    let found = examples(page);
    assert_eq!(found.len(), 2);
    assert_eq!(
        (found[0].line, found[0].command.as_str()),
        (3, "fanotb a\nb")
    );
    assert_eq!(
        (found[0].fails, found[0].output.as_str()),
        (false, "out 1\n")
    );
    assert_eq!(
        (found[1].fails, found[1].output.as_str()),
        (true, "error\n")
    );
}

#[test]
fn examples_show_what_they_print() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_fanotb"));
    let path = format!(
        "{}:{}",
        exe.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let scratch = root.join("target/tmp/docs-examples");
    let _ = std::fs::remove_dir_all(&scratch);
    let tables = scratch.join("tables");
    let built = std::process::Command::new(&exe)
        .args(["generate", "--max-stones", "4", "--json", "--dir"])
        .arg(&tables)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(built.success());

    let assert = snapbox::Assert::new().normalize_paths(false);
    let mut failures = Vec::new();
    let mut ran = 0;
    for &(page, setup) in PAGES {
        let cwd = scratch.join(page.replace('/', "-"));
        std::fs::create_dir_all(&cwd).unwrap();
        if setup == Setup::Tables {
            std::os::unix::fs::symlink(&tables, cwd.join("tables")).unwrap();
        }
        let mut server = (setup == Setup::Server).then(|| start_server(&exe, &cwd));
        // Examples name the project's documents as from the clone's top (read only:
        // nothing of the clone is within an example's reach to write).
        std::fs::create_dir_all(cwd.join("docs")).unwrap();
        std::fs::copy(
            root.join("docs/MANIFEST.tsv"),
            cwd.join("docs/MANIFEST.tsv"),
        )
        .unwrap();
        let text = std::fs::read_to_string(root.join(page)).unwrap();
        for example in examples(&text) {
            ran += 1;
            let (command, first_line) = match &server {
                Some((_, first, address)) => {
                    (example.command.replace(SHOWN_ADDRESS, address), Some(first))
                }
                None => (example.command.clone(), None),
            };
            if let (Some(first), "fanotb serve &") = (first_line, example.command.as_str()) {
                if *first != example.output {
                    failures.push(format!(
                        "{page}:{}: the server's first line is {first:?}",
                        example.line
                    ));
                }
                continue;
            }
            let out = std::process::Command::new("timeout")
                .args(["120", "sh", "-c"])
                .arg(&command)
                .current_dir(&cwd)
                .env("PATH", &path)
                .env("COLUMNS", "100")
                .env("NO_COLOR", "1")
                .env_remove("FANOTB_TABLES")
                .output()
                .unwrap();
            let mut actual = String::from_utf8_lossy(&out.stdout).into_owned();
            if let Some((_, _, address)) = &server {
                actual = actual.replace(address.as_str(), SHOWN_ADDRESS);
            }
            // An output without its last newline (curl's JSON) ends a shown line all
            // the same.
            if !actual.is_empty() && !actual.ends_with('\n') {
                actual.push('\n');
            }
            if example.fails {
                actual.push_str(&String::from_utf8_lossy(&out.stderr));
            }
            let status_ok = out.status.success() != example.fails;
            if let Err(diff) = assert.try_eq(
                None,
                snapbox::Data::text(actual),
                snapbox::Data::text(example.output.clone()),
            ) {
                failures.push(format!(
                    "{page}:{}: `{}`\n{diff}",
                    example.line, example.command
                ));
            } else if !status_ok {
                failures.push(format!(
                    "{page}:{}: `{}` exited {}, expected {}",
                    example.line,
                    example.command,
                    out.status,
                    if example.fails {
                        "a failure"
                    } else {
                        "success"
                    }
                ));
            }
        }
        if let Some((child, ..)) = &mut server {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} examples differ:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(ran >= 30, "only {ran} examples found");
}

#[test]
fn relative_links_name_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    for dir in ["docs", "docs/guide"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (at, _) in text.match_indices("](") {
            let target = &text[at + 2..];
            let target = &target[..target.find(')').unwrap_or(target.len())];
            let file = target.split('#').next().unwrap();
            if file.is_empty() || file.contains("://") || file.contains(' ') {
                continue;
            }
            if !page.parent().unwrap().join(file).exists() {
                broken.push(format!(
                    "{}: {target}",
                    page.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(pages.len() > 10, "only {} pages", pages.len());
    assert!(
        broken.is_empty(),
        "links to missing files:\n{}",
        broken.join("\n")
    );
}

/// The README's two-ply opening table is what `scripts/tsivy-opening.py table` makes
/// of the runs' log and the certificates: a run logged without the table made again
/// fails here.
#[test]
fn the_opening_table_is_the_runs_log() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(root.join("scripts/tsivy-opening.py"))
        .arg("table")
        .env("FANOTB", env!("CARGO_BIN_EXE_fanotb"))
        .output()
        .expect("python3 runs scripts/tsivy-opening.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    // The header, the rule, and a row for each of the 5 first moves and the 39
    // distinct positions after Black's replies.
    assert_eq!(table.lines().count(), 2 + 5 + 39, "{table}");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let header = table.lines().next().unwrap();
    let shown = readme.lines().skip_while(|l| *l != header);
    let differ = shown.zip(table.lines()).find(|(shown, made)| shown != made);
    assert!(
        readme.contains(&table),
        "README.md's opening table is not `scripts/tsivy-opening.py table`; first \
         difference (README, then the script): {differ:?}"
    );
}
