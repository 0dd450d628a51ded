//! The kernel refusing cross-memory attach, as seccomp or Yama would on some machines:
//! with `CLUMP_TEST_REFUSE_CMA=1` this process installs a seccomp filter that fails
//! `process_vm_readv` and `process_vm_writev` with EPERM, so every large message on this
//! host must fall back to chunks (the checks then run as usual).

use crate::fail;

// Classic BPF opcodes (linux/filter.h) and the offset of `nr` in `struct seccomp_data`.
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const RET_K: u16 = 0x06;
const NR_OFFSET: u32 = 0;

fn op(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// Installs the filter if the environment asks for it, and checks that it holds.
pub fn if_asked() {
    if std::env::var("CLUMP_TEST_REFUSE_CMA").as_deref() != Ok("1") {
        return;
    }
    let refuse = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    let filter = [
        op(LD_W_ABS, 0, 0, NR_OFFSET),
        op(JEQ_K, 2, 0, libc::SYS_process_vm_readv as u32),
        op(JEQ_K, 1, 0, libc::SYS_process_vm_writev as u32),
        op(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW),
        op(RET_K, 0, 0, refuse),
    ];
    let prog = libc::sock_fprog {
        len: filter.len() as u16,
        filter: filter.as_ptr().cast_mut(),
    };
    // SAFETY: `prog` points at `filter`, both alive for the calls; the kernel copies the
    // program. PR_SET_NO_NEW_PRIVS only restricts this process.
    let set = unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &prog as *const libc::sock_fprog,
            ) == 0
    };
    if !set {
        fail(format!(
            "seccomp filter: {}",
            std::io::Error::last_os_error()
        ));
    }
    // The refusal is in force: a read of this process's own memory fails.
    let src = [1u8; 8];
    let mut dst = [0u8; 8];
    let local = libc::iovec {
        iov_base: dst.as_mut_ptr().cast(),
        iov_len: 8,
    };
    let remote = libc::iovec {
        iov_base: src.as_ptr().cast_mut().cast(),
        iov_len: 8,
    };
    // SAFETY: both ranges are live 8-byte arrays of this process.
    let got = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    let e = std::io::Error::last_os_error();
    if got != -1 || e.raw_os_error() != Some(libc::EPERM) {
        fail(format!("cross-memory attach not refused: {got} ({e})"));
    }
}
