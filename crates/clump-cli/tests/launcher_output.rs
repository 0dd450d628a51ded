//! The ranks' output through the real launcher: whole lines per rank on stdout and on
//! stderr, tagged or not, however the ranks' writes interleave; a partial line is passed
//! on after a moment, and at exit.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const CLUMP: &str = env!("CARGO_BIN_EXE_clump");
const ROUNDS: usize = 20;

/// Each rank writes ROUNDS lines "<r>a <r>b <r>c" to stdout and to stderr, in three
/// writes each with a pause inside the line, all ranks at once.
const WRITER: &str = r#"r=$CLUMP_RANK; i=0
while [ $i -lt 20 ]; do
  printf "${r}a "; printf "${r}a " >&2; sleep 0.01
  printf "${r}b "; printf "${r}b " >&2
  printf "${r}c\n"; printf "${r}c\n" >&2
  i=$((i + 1))
done"#;

/// Checks that no line holds words of two ranks and that each rank's words, read in
/// order, are all it wrote. A line may be cut where a rank paused past the moment a
/// partial line waits (a loaded machine), but never joined to another rank's.
fn check_whole_lines(text: &str, tagged: bool, n: u32) {
    let mut words: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let mut rest = line;
        if tagged {
            let (tag, after) = line
                .split_once("] ")
                .unwrap_or_else(|| panic!("untagged {line:?}"));
            rest = after;
            let rank = tag.trim_start_matches('[');
            assert!(rest.starts_with(rank), "tag {tag} on {line:?}");
        }
        let rank = &rest[..1];
        for w in rest.split_whitespace() {
            assert!(
                w.starts_with(rank),
                "ranks mixed in one line: {line:?}\n{text}"
            );
            words.entry(rank.to_owned()).or_default().push(w.to_owned());
        }
    }
    assert_eq!(words.len(), n as usize, "{text}");
    for (rank, got) in words {
        let want: Vec<String> = (0..ROUNDS)
            .flat_map(|_| ["a", "b", "c"].map(|p| format!("{rank}{p}")))
            .collect();
        assert_eq!(got, want, "rank {rank}'s words");
    }
}

#[test]
fn lines_of_ranks_never_mix_on_stdout_or_stderr() {
    for tagged in [false, true] {
        let mut cmd = Command::new(CLUMP);
        cmd.args(["run", "-n", "4"]);
        if tagged {
            cmd.arg("--tag-output");
        }
        cmd.args(["sh", "-c", WRITER]);
        let o = clump_testkit::wait_with_timeout(cmd);
        assert!(o.status.success(), "{o:?}");
        check_whole_lines(&String::from_utf8_lossy(&o.stdout), tagged, 4);
        check_whole_lines(&String::from_utf8_lossy(&o.stderr), tagged, 4);
    }
}

#[test]
fn a_line_unfinished_at_exit_is_passed_on_ended() {
    let mut cmd = Command::new(CLUMP);
    cmd.args(["run", "-n", "3", "sh", "-c", "printf 'last words'"]);
    let o = clump_testkit::wait_with_timeout(cmd);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "last words\n".repeat(3));
}

#[test]
fn a_partial_line_is_passed_on_while_the_rank_still_runs() {
    let mut job = Command::new(CLUMP)
        .args([
            "run",
            "-n",
            "1",
            "sh",
            "-c",
            "printf 'waiting'; exec sleep 600",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = job.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut got = [0u8; 7];
        let _ = tx.send(out.read_exact(&mut got).map(|()| got));
    });
    // Only a guard against a hang: the line comes after 100 ms on an idle machine.
    let got = rx.recv_timeout(Duration::from_secs(120));
    job.kill().unwrap();
    job.wait().unwrap();
    assert_eq!(&got.expect("the partial line came").unwrap(), b"waiting");
}
