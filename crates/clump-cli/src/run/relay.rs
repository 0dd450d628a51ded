//! The launcher's bootstrap service over TCP, for ranks on other hosts. Ranks speak to a
//! Unix socket on their own host (the rank agent's); the agent carries each connection to
//! the launcher's TCP port, which carries it on to the launcher's own Unix socket. The
//! bootstrap server sees the same connections as from local ranks.
//!
//! Every TCP connection starts with the job's relay token (16 bytes, handed to the agents
//! inside ssh): a connection without it is dropped before it reaches the server.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;

use super::sys;
use std::time::Duration;

/// How long a new connection may take to present the token.
const TOKEN_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the launcher's host may leave the agent's connection unanswered.
const UNANSWERED: Duration = Duration::from_secs(5);

/// A byte stream that can be read and written from two threads and half-closed.
pub trait Duplex: Read + Write + Send + Sized + 'static {
    fn twin(&self) -> io::Result<Self>;
    fn close(&self, how: Shutdown);
}

impl Duplex for UnixStream {
    fn twin(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn close(&self, how: Shutdown) {
        let _ = self.shutdown(how);
    }
}

impl Duplex for TcpStream {
    fn twin(&self) -> io::Result<Self> {
        self.try_clone()
    }
    fn close(&self, how: Shutdown) {
        let _ = self.shutdown(how);
    }
}

/// Called when a spliced connection fails (rather than ends): the far side is gone.
pub type OnBroken = Arc<dyn Fn() + Send + Sync>;

/// Carries bytes both ways between `a` and `b` until both directions end; an end or a
/// failure on one side half-closes the other, so each peer sees what it would directly.
/// A failure also calls `on_broken`. Returns the two threads, which end with their
/// direction.
pub fn splice(
    a: impl Duplex,
    b: impl Duplex,
    on_broken: Option<OnBroken>,
) -> io::Result<[JoinHandle<()>; 2]> {
    let (a2, b2) = (a.twin()?, b.twin()?);
    let on_broken2 = on_broken.clone();
    Ok([
        std::thread::spawn(move || one_way(a, b, on_broken)),
        std::thread::spawn(move || one_way(b2, a2, on_broken2)),
    ])
}

fn one_way(mut from: impl Duplex, mut to: impl Duplex, on_broken: Option<OnBroken>) {
    let failed = io::copy(&mut from, &mut to).is_err();
    to.close(Shutdown::Write);
    from.close(Shutdown::Read);
    if let Some(f) = on_broken.filter(|_| failed) {
        f();
    }
}

/// Listens on `ip` (any free port) and carries every connection that presents `token`
/// to the Unix socket `socket`. Returns the address the agents are told.
pub fn serve(ip: std::net::Ipv4Addr, token: u128, socket: PathBuf) -> io::Result<SocketAddr> {
    let listener = TcpListener::bind((ip, 0))?;
    let addr = listener.local_addr()?;
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let socket = socket.clone();
            std::thread::spawn(move || {
                let _ = admit(conn, token, &socket);
            });
        }
    });
    Ok(addr)
}

fn admit(mut conn: TcpStream, token: u128, socket: &PathBuf) -> io::Result<()> {
    conn.set_read_timeout(Some(TOKEN_TIMEOUT))?;
    let mut got = [0u8; 16];
    conn.read_exact(&mut got)?;
    if u128::from_le_bytes(got) != token {
        return Err(io::Error::other("wrong relay token"));
    }
    conn.set_read_timeout(None)?;
    conn.set_nodelay(true)?;
    splice(conn, UnixStream::connect(socket)?, None).map(drop)
}

/// The agent's side: opens a connection to the launcher and presents the token. The
/// connection fails within seconds once the launcher's host stops answering (a cut
/// link, a host powered off), where ssh's own end would never reach the agent.
pub fn connect(launcher: SocketAddr, token: u128) -> io::Result<TcpStream> {
    let mut conn = TcpStream::connect_timeout(&launcher, TOKEN_TIMEOUT)?;
    conn.set_nodelay(true)?;
    sys::fail_unanswered(&conn, UNANSWERED)?;
    conn.write_all(&token.to_le_bytes())?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    #[test]
    fn connections_with_the_token_reach_the_socket_and_others_do_not() {
        let dir = std::env::temp_dir().join(format!("clump-relay-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s");
        let _ = std::fs::remove_file(&path);
        let local = UnixListener::bind(&path).unwrap();
        let addr = serve(std::net::Ipv4Addr::LOCALHOST, 42, path.clone()).unwrap();

        let mut wrong = connect(addr, 41).unwrap();
        let mut good = connect(addr, 42).unwrap();
        let (mut inside, _) = local.accept().unwrap();
        good.write_all(b"ping").unwrap();
        let mut buf = [0u8; 4];
        inside.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ping");
        inside.write_all(b"pong").unwrap();
        drop(inside);
        let mut back = Vec::new();
        good.read_to_end(&mut back).unwrap();
        assert_eq!(back, b"pong");
        // The wrong token's connection is closed without reaching the socket.
        assert_eq!(wrong.read(&mut buf).unwrap_or(0), 0);
        local.set_nonblocking(true).unwrap();
        assert!(local.accept().is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
