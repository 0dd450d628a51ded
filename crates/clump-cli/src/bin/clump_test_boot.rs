//! Test helper for the launcher's integration tests (not for users): joins the job,
//! checks an allgather of every rank's contribution, runs barriers, and misbehaves on
//! request.
//!
//! Options (R is a rank): `--exit R:CODE` exits after the allgather; `--kill R` SIGKILLs
//! itself after the allgather; `--sleep R` sleeps forever after the allgather;
//! `--abort R:STATUS:REASON` calls `Job::abort` after the allgather; `--barriers K`
//! runs K barriers (default 3); `--shm` makes rank 0 leave a file in /dev/shm;
//! `--secret` looks for the job id wherever another user could read it and prints
//! `secret=hidden` or where it found it.

#![forbid(unsafe_code)]

use clump::boot::Job;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::ExitCode;

/// Of a different length for each of 16 neighbouring ranks, and bounded, so that the
/// sum over a job of 1024 (which every rank receives) stays small.
fn contribution(rank: u32) -> Vec<u8> {
    let mut v = format!("rank{rank}:").into_bytes();
    v.extend(std::iter::repeat_n(rank as u8, (rank % 16) as usize * 37));
    v
}

/// The value of `--name R:...` for this rank, if given.
fn for_rank<'a>(args: &'a [String], name: &str, rank: u32) -> Option<&'a str> {
    let i = args.iter().position(|a| a == name)?;
    let v = args.get(i + 1)?;
    let (r, rest) = v.split_once(':').unwrap_or((v, ""));
    (r.parse() == Ok(rank)).then_some(rest)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut job = match Job::from_env() {
        Ok(j) => j,
        Err(e) => {
            eprintln!("clump-test-boot: {e}");
            return ExitCode::from(1);
        }
    };
    let rank = job.rank();
    let mut polls = 0u64;
    if let Err(e) = gather_and_check(&mut job, &mut polls) {
        eprintln!("clump-test-boot: rank {rank}: allgather: {e}");
        return ExitCode::from(1);
    }
    println!("rank {rank} ready pid={}", std::process::id());
    std::io::stdout().flush().unwrap();

    if args.iter().any(|a| a == "--shm") && rank == 0 {
        // Named like the launcher's leftovers: by its pid, our parent.
        let launcher = std::os::unix::process::parent_id();
        std::fs::write(format!("/dev/shm/clump-{launcher}-probe"), b"left behind").unwrap();
    }
    if args.iter().any(|a| a == "--secret") {
        println!("rank {rank} secret={}", where_public(&secret_forms(&job)));
    }
    if let Some(code) = for_rank(&args, "--exit", rank) {
        return ExitCode::from(code.parse::<u8>().expect("--exit R:CODE"));
    }
    if for_rank(&args, "--kill", rank).is_some() {
        let _ = nix::sys::signal::raise(nix::sys::signal::SIGKILL);
    }
    if for_rank(&args, "--sleep", rank).is_some() {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    if let Some(v) = for_rank(&args, "--abort", rank) {
        let (status, reason) = v.split_once(':').expect("--abort R:STATUS:REASON");
        let status = status.parse().expect("--abort status");
        job.abort(status, reason);
        return ExitCode::from(status as u8);
    }

    let barriers: u32 = args
        .iter()
        .position(|a| a == "--barriers")
        .map_or(3, |i| args[i + 1].parse().expect("--barriers K"));
    for b in 0..barriers {
        if let Err(e) = job.barrier(&mut || polls += 1) {
            eprintln!("clump-test-boot: rank {rank}: barrier {b}: {e}");
            return ExitCode::from(1);
        }
    }
    let boot = std::env::var("CLUMP_BOOT_SOCKET").unwrap_or_default();
    let mode = Path::new(&boot)
        .parent()
        .and_then(|d| std::fs::metadata(d).ok())
        .map_or(0, |m| m.permissions().mode() & 0o777);
    println!(
        "rank {rank}/{} ok job={:016x} boot={boot} mode={mode:o} polls={polls}",
        job.size(),
        job.job_id()
    );
    ExitCode::SUCCESS
}

/// Every rank's contribution, checked; polls counted in `polls`.
fn gather_and_check(job: &mut Job, polls: &mut u64) -> Result<(), clump::boot::BootError> {
    let rank = job.rank();
    let all = job.allgather(&contribution(rank), &mut || *polls += 1)?;
    assert_eq!(all.len(), job.size() as usize);
    for (r, got) in all.iter().enumerate() {
        assert_eq!(
            *got,
            contribution(r as u32),
            "rank {rank}: wrong contribution from rank {r}"
        );
    }
    Ok(())
}

/// The job id and key as they could be written: in hex or decimal.
fn secret_forms(job: &Job) -> [String; 5] {
    let key = clump::config::Config::from_env()
        .expect("the launcher's variables are valid")
        .job
        .job_key;
    let id = job.job_id();
    [
        format!("{id:016x}"),
        format!("{id:x}"),
        id.to_string(),
        format!("{key:032x}"),
        format!("{key:x}"),
    ]
}

/// Where another user of this machine could read one of `forms` (the job id and key in
/// hex or decimal): the command lines of this process and of its launcher, the names in
/// the temporary and shared-memory directories (recursively in what is listable), and the Unix socket
/// names (abstract names are public). Also checks that this process's environment is
/// readable by its owner alone. "hidden" when none shows it.
fn where_public(forms: &[String]) -> String {
    let shows = |text: &str| forms.iter().any(|f| text.contains(f.as_str()));
    let mut found = Vec::new();
    let parent = std::os::unix::process::parent_id();
    for pid in ["self".to_owned(), parent.to_string()] {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if shows(&String::from_utf8_lossy(&cmdline)) {
            found.push(format!("the command line of {pid}"));
        }
    }
    let mut dirs = vec![std::env::temp_dir(), "/tmp".into(), "/dev/shm".into()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if shows(&e.file_name().to_string_lossy()) {
                found.push(format!("the file name {}", e.path().display()));
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) && dirs.len() < 1000 {
                dirs.push(e.path());
            }
        }
    }
    let sockets = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    if shows(&sockets) {
        found.push("a Unix socket name".to_owned());
    }
    let environ = std::fs::metadata("/proc/self/environ").map_or(0o777, |m| m.permissions().mode());
    if environ & 0o044 != 0 {
        found.push(format!("the environment (mode {environ:o})"));
    }
    if found.is_empty() {
        "hidden".to_owned()
    } else {
        found.join(", ").replace(' ', "_")
    }
}
