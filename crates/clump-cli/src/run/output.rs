//! `--tag-output`: passes a rank's stdout or stderr on line by line, prefixed with `[rank]`.

use std::io::{BufRead, BufReader, Read, Write};
use std::thread::JoinHandle;

pub fn forward(rank: u32, from: impl Read + Send + 'static, to_stderr: bool) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut from = BufReader::new(from);
        let mut line = Vec::new();
        let prefix = format!("[{rank}] ");
        loop {
            line.clear();
            match from.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line.last() != Some(&b'\n') {
                line.push(b'\n');
            }
            // One write per line under the lock, so lines of different ranks never interleave.
            let ok = if to_stderr {
                write_line(&mut std::io::stderr().lock(), &prefix, &line)
            } else {
                write_line(&mut std::io::stdout().lock(), &prefix, &line)
            };
            if !ok {
                return;
            }
        }
    })
}

fn write_line(w: &mut impl Write, prefix: &str, line: &[u8]) -> bool {
    let mut buf = Vec::with_capacity(prefix.len() + line.len());
    buf.extend_from_slice(prefix.as_bytes());
    buf.extend_from_slice(line);
    w.write_all(&buf).and_then(|()| w.flush()).is_ok()
}
