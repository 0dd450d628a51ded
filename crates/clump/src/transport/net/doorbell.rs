//! A doorbell on a UDP socket: a counter in memory that the kernel bumps for every
//! datagram it queues on the socket, so that a poll learns whether the network has
//! anything for it with one memory read instead of a system call.
//!
//! Paper 001 rations network polls because, unlike shared-memory queues, the network
//! cannot be polled from cache (its NIC memory was uncacheable; here a poll is a system
//! call), and notes that cacheable NIC memory might make the rationing unnecessary. The
//! doorbell is that cacheable memory: a six-instruction eBPF socket filter, attached to
//! the socket, adds one to a counter in a memory-mappable BPF array for each datagram
//! before the kernel queues it. The cache line changes only when a datagram comes.
//!
//! The doorbell is a hint, never the only way a datagram is found: the filter counts
//! before the datagram is queued, a datagram counted may still be dropped (receive
//! buffer full), and polls still read the socket now and then. The reliability protocol
//! retransmits whatever is missed, so a wrong hint costs time, never a message. Loading
//! the filter needs BPF rights (root or `CAP_BPF` where unprivileged BPF is off);
//! without them the socket has no doorbell and polls fall back to 001's rationing.
//!
//! Written by hand rather than with an eBPF crate: the program is six fixed
//! instructions, where those crates bring a compiler tool chain for BPF programs. The
//! `bpf` system call itself has no safe wrapper in nix or rustix, so it is the one raw
//! call here; attaching goes through nix's socket options, the mapping through memmap2.

use memmap2::{MmapOptions, MmapRaw};
use std::io;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};

/// `SO_ATTACH_BPF`, which nix does not name: attaches the eBPF program whose descriptor
/// is the value.
#[derive(Clone, Copy)]
struct AttachBpf;
nix::setsockopt_impl!(
    AttachBpf,
    libc::SOL_SOCKET,
    libc::SO_ATTACH_BPF,
    RawFd,
    nix::sys::socket::sockopt::SetStruct<RawFd>
);

/// Empty socket reads in a row, while the counter is ahead, after which datagrams
/// counted before the first of them are taken as dropped by the kernel.
const EMPTY_READS_BEFORE_RESYNC: u32 = 16;

/// The counter page of one socket, and how many of its datagrams were read.
pub struct Doorbell {
    /// The map's value area: its first 8 bytes are the counter.
    counter: MmapRaw,
    /// Datagrams read from the socket (or given up as dropped).
    consumed: u64,
    /// Empty reads in a row while the counter was ahead of `consumed`.
    empty_reads: u32,
    /// The counter at the first of those empty reads.
    counter_at_first_empty: u64,
}

impl Doorbell {
    /// Attaches a doorbell to `socket`; an error when this process may not load BPF
    /// programs or the kernel lacks what it needs.
    pub fn attach(socket: impl AsFd) -> io::Result<Doorbell> {
        let map = create_counter_map()?;
        let prog = load_counting_filter(&map)?;
        nix::sys::socket::setsockopt(&socket, AttachBpf, &prog.as_raw_fd())?;
        // The value area of a BPF array created mmapable with one 8-byte value.
        let counter = MmapOptions::new()
            .len(std::mem::size_of::<u64>())
            .map_raw_read_only(&map)?;
        // The socket keeps the program, the program and the mapping keep the map: both
        // descriptors may close here.
        Ok(Doorbell {
            counter,
            consumed: 0,
            empty_reads: 0,
            counter_at_first_empty: 0,
        })
    }

    /// The counter now, to pass to [`Doorbell::unread`] and [`Doorbell::read`].
    pub fn snapshot(&self) -> u64 {
        // SAFETY: the pointer is the start, page-aligned, of a mapping of at least 8
        // bytes that lives as long as `self`; the kernel only changes them with atomic
        // adds, and no Rust object aliases them.
        let counter = unsafe { &*self.counter.as_ptr().cast::<AtomicU64>() };
        counter.load(Ordering::Acquire)
    }

    /// Whether datagrams were counted that have not been read yet.
    pub fn rang(&self) -> bool {
        self.snapshot() > self.consumed
    }

    /// Datagrams counted and not read yet, of a counter reading `snapshot`: a read
    /// that asks for no more than these spares the kernel a look at an empty queue.
    pub fn unread(&self, snapshot: u64) -> u64 {
        snapshot.saturating_sub(self.consumed)
    }

    /// Records a socket read that returned `got` datagrams, the counter having been
    /// `before` (from [`Doorbell::snapshot`]) when it started.
    pub fn read(&mut self, before: u64, got: usize) {
        // A datagram given up as dropped may yet come (late, not dropped): never count
        // more read than were counted, or the next datagram would not ring.
        self.consumed = (self.consumed + got as u64).min(self.snapshot());
        if got > 0 || before <= self.consumed {
            self.empty_reads = 0;
            return;
        }
        // Counted, yet not there: on its way into the queue, or dropped by the kernel
        // after the count. Several empty reads later, what was counted before the
        // first of them is no longer on its way.
        if self.empty_reads == 0 {
            self.counter_at_first_empty = before;
        }
        self.empty_reads += 1;
        if self.empty_reads >= EMPTY_READS_BEFORE_RESYNC {
            self.consumed = self.consumed.max(self.counter_at_first_empty);
            self.empty_reads = 0;
        }
    }
}

const BPF_MAP_CREATE: libc::c_long = 0;
const BPF_PROG_LOAD: libc::c_long = 5;
const BPF_MAP_TYPE_ARRAY: u32 = 2;
const BPF_PROG_TYPE_SOCKET_FILTER: u32 = 1;
const BPF_F_MMAPABLE: u32 = 1 << 10;
const BPF_PSEUDO_MAP_VALUE: u8 = 2;

/// The leading fields of `union bpf_attr` for BPF_MAP_CREATE; the rest must be zero.
#[repr(C)]
#[derive(Default)]
struct MapCreate {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
    rest: [u32; 27],
}

/// The leading fields of `union bpf_attr` for BPF_PROG_LOAD; the rest must be zero.
#[repr(C)]
#[derive(Default)]
struct ProgLoad {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    rest: [u64; 12],
}

/// One eBPF instruction (`struct bpf_insn`).
#[repr(C)]
#[derive(Clone, Copy)]
struct Insn {
    code: u8,
    /// Destination register in the low four bits, source in the high four.
    regs: u8,
    off: i16,
    imm: i32,
}

const fn insn(code: u8, dst: u8, src: u8, imm: i32) -> Insn {
    Insn {
        code,
        regs: dst | (src << 4),
        off: 0,
        imm,
    }
}

fn bpf(cmd: libc::c_long, attr: *mut libc::c_void, size: usize) -> io::Result<OwnedFd> {
    // SAFETY: `attr` points at a live, fully initialised attribute block of `size`
    // bytes whose pointers (if any) point at live memory for the call.
    let fd = unsafe { libc::syscall(libc::SYS_bpf, cmd, attr, size as libc::c_uint) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel returned a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// An mmapable BPF array of one u64.
fn create_counter_map() -> io::Result<OwnedFd> {
    let mut attr = MapCreate {
        map_type: BPF_MAP_TYPE_ARRAY,
        key_size: 4,
        value_size: 8,
        max_entries: 1,
        map_flags: BPF_F_MMAPABLE,
        ..MapCreate::default()
    };
    bpf(
        BPF_MAP_CREATE,
        (&mut attr as *mut MapCreate).cast(),
        std::mem::size_of::<MapCreate>(),
    )
}

/// A socket filter that adds one to the map's counter and keeps the whole datagram.
fn load_counting_filter(map: &OwnedFd) -> io::Result<OwnedFd> {
    let program = [
        // r1 = &map.value[0]  (a 16-byte load of an immediate: the map, offset 0)
        insn(0x18, 1, BPF_PSEUDO_MAP_VALUE, map.as_raw_fd()),
        insn(0, 0, 0, 0),
        // r2 = 1
        insn(0xb7, 2, 0, 1),
        // atomic *(u64 *)(r1 + 0) += r2
        insn(0xdb, 1, 2, 0),
        // w0 = 0xffffffff: keep the datagram whole
        insn(0xb4, 0, 0, -1),
        // exit
        insn(0x95, 0, 0, 0),
    ];
    let license = c"MIT OR Apache-2.0";
    let mut attr = ProgLoad {
        prog_type: BPF_PROG_TYPE_SOCKET_FILTER,
        insn_cnt: program.len() as u32,
        insns: program.as_ptr() as u64,
        license: license.as_ptr() as u64,
        ..ProgLoad::default()
    };
    bpf(
        BPF_PROG_LOAD,
        (&mut attr as *mut ProgLoad).cast(),
        std::mem::size_of::<ProgLoad>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::UdpSocket;
    use std::time::{Duration, Instant};

    /// A doorbell where this process may load BPF programs; `None` (and a line saying
    /// why) where it may not, as for an unprivileged user.
    fn try_attach(socket: &UdpSocket) -> Option<Doorbell> {
        match Doorbell::attach(socket) {
            Ok(d) => Some(d),
            Err(e) => {
                eprintln!("no doorbell here ({e}): the fallback is tested instead");
                None
            }
        }
    }

    fn wait_until(cond: impl Fn() -> bool) -> bool {
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if cond() {
                return true;
            }
            std::thread::yield_now();
        }
        false
    }

    #[test]
    fn rings_once_per_datagram_and_falls_silent_once_they_are_read() {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        rx.set_nonblocking(true).unwrap();
        let Some(mut bell) = try_attach(&rx) else {
            return;
        };
        assert!(!bell.rang());
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        for i in 0..3u8 {
            tx.send_to(&[i; 10], rx.local_addr().unwrap()).unwrap();
        }
        assert!(wait_until(|| bell.snapshot() == 3));
        let mut buf = [0u8; 64];
        for _ in 0..3 {
            assert!(bell.rang());
            let before = bell.snapshot();
            let got = rx.recv_from(&mut buf).map_or(0, |_| 1);
            bell.read(before, got);
        }
        assert!(!bell.rang(), "every counted datagram was read");
    }

    #[test]
    fn datagrams_dropped_after_the_count_stop_ringing_after_a_few_empty_reads() {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let Some(mut bell) = try_attach(&rx) else {
            return;
        };
        // Counted, then taken by someone else: to the doorbell, as good as dropped.
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        tx.send_to(b"x", rx.local_addr().unwrap()).unwrap();
        let mut buf = [0u8; 8];
        rx.recv_from(&mut buf).unwrap();
        assert!(bell.rang());
        for _ in 0..EMPTY_READS_BEFORE_RESYNC - 1 {
            let before = bell.snapshot();
            bell.read(before, 0);
            assert!(bell.rang(), "a datagram may still be on its way");
        }
        let before = bell.snapshot();
        bell.read(before, 0);
        assert!(!bell.rang());
        // Later datagrams ring again.
        tx.send_to(b"y", rx.local_addr().unwrap()).unwrap();
        assert!(wait_until(|| bell.rang()));
    }
}
