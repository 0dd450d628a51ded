//! Symmetric data objects: the program's global and static variables. Every PE runs the
//! same executable, so a variable lies at the same offset from the executable's load base
//! on every PE (even when address randomisation moves the base). An address inside the
//! executable's writable segments (`.data`, `.bss`; not the read-only-after-relocation
//! part) becomes that offset, and the target PE reads or writes it in a remote procedure
//! call of the global address space.

use super::res::{gas_err, Res};
use clump_gas::Rmw;
use clump_gas::{Gas, RpcId};
use std::ffi::c_void;
use std::ops::Range;
use std::os::raw::c_int;

/// Bytes of header in front of a put's data and a get's or atomic's request.
const HEADER: usize = 8;
/// The most data one call carries.
const CHUNK: usize = am::MAX_MEDIUM - HEADER;

/// The executable's writable data, as offsets from its load base.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub base: usize,
    pub ranges: Vec<Range<usize>>,
}

pub struct Statics {
    pub layout: Layout,
    put: RpcId,
    get: RpcId,
    rmw: RpcId,
}

impl Layout {
    /// Finds the main executable's writable segments (the loader lists it first).
    pub fn of_program() -> Layout {
        let mut found = Layout::default();
        // SAFETY: dl_iterate_phdr calls `collect` with valid headers of each loaded object
        // while holding the loader's lock; `collect` only reads them and writes `found`,
        // which outlives the call.
        unsafe { libc::dl_iterate_phdr(Some(collect), (&mut found as *mut Layout).cast()) };
        found
    }

    /// The offset of `len` bytes at `addr`, if they lie inside one writable segment.
    pub fn offset_of(&self, addr: usize, len: usize) -> Option<usize> {
        let off = addr.checked_sub(self.base)?;
        let end = off.checked_add(len)?;
        self.contains(off, end).then_some(off)
    }

    fn contains(&self, off: usize, end: usize) -> bool {
        self.ranges.iter().any(|r| r.start <= off && end <= r.end)
    }

    /// The address in this process of `len` bytes at `off`, if they are writable data.
    fn local(&self, off: usize, len: usize) -> Option<*mut u8> {
        let end = off.checked_add(len)?;
        self.contains(off, end)
            .then(|| (self.base + off) as *mut u8)
    }

    /// A fingerprint of the layout: PEs running different programs differ in it.
    fn fingerprint(&self) -> u64 {
        self.ranges.iter().fold(0xcbf2_9ce4_8422_2325, |h, r| {
            [r.start as u64, r.end as u64]
                .iter()
                .fold(h, |h, v| (h ^ v).wrapping_mul(0x100_0000_01b3))
        })
    }

    fn write(&self, off: usize, data: &[u8]) -> bool {
        let Some(p) = self.local(off, data.len()) else {
            return false;
        };
        // SAFETY: the bytes lie inside a writable segment of this executable, mapped for
        // the process's lifetime; the program orders its own accesses against remote ones
        // (barriers, waits), as OpenSHMEM requires.
        unsafe { std::ptr::copy(data.as_ptr(), p, data.len()) };
        true
    }

    fn read(&self, off: usize, len: usize) -> Option<Vec<u8>> {
        let p = self.local(off, len)?;
        // SAFETY: as in `write`, for reading.
        Some(unsafe { std::slice::from_raw_parts(p, len) }.to_vec())
    }

    fn rmw(&self, off: usize, op: Rmw) -> Option<u64> {
        let p = self.local(off, 8)?;
        if !(p as usize).is_multiple_of(8) {
            return None;
        }
        // SAFETY: an aligned word inside writable data of this executable (checked above);
        // every access the library makes to it is atomic.
        unsafe { clump_gas::rmw::apply(p as usize, 8, op) }
    }
}

unsafe extern "C" fn collect(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    data: *mut c_void,
) -> c_int {
    // SAFETY: the loader passes a valid info record and `data` is the Layout given above.
    let (info, found) = unsafe { (&*info, &mut *data.cast::<Layout>()) };
    // SAFETY: dlpi_phdr points at dlpi_phnum program headers.
    let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, info.dlpi_phnum as usize) };
    found.base = info.dlpi_addr as usize;
    let relro = headers
        .iter()
        .find(|h| h.p_type == libc::PT_GNU_RELRO)
        .map(|h| h.p_vaddr as usize..(h.p_vaddr + h.p_memsz) as usize);
    for h in headers
        .iter()
        .filter(|h| h.p_type == libc::PT_LOAD && h.p_flags & libc::PF_W != 0)
    {
        // The end rounded to a word: the page goes on, and a 32-bit atomic on the last
        // variable works on the aligned 64-bit word around it.
        let end = ((h.p_vaddr + h.p_memsz) as usize).next_multiple_of(8);
        let mut r = h.p_vaddr as usize..end;
        // What the loader makes read-only after relocation is not data a PE can write.
        if let Some(ro) = &relro {
            if ro.start <= r.start && ro.end > r.start {
                r.start = ro.end.min(r.end);
            }
        }
        if !r.is_empty() {
            found.ranges.push(r);
        }
    }
    1 // the first object is the executable: stop
}

fn word(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// A call's answer: 1 and data if it was done, 0 if the range is not writable data.
fn answer(data: Option<Vec<u8>>) -> Vec<u8> {
    match data {
        Some(mut d) => {
            d.insert(0, 1);
            d
        }
        None => vec![0],
    }
}

impl Statics {
    /// Collective: finds this program's data, checks that every PE runs the same program,
    /// and registers the remote procedures that reach it.
    pub fn register(gas: &mut Gas) -> Res<Statics> {
        let layout = Layout::of_program();
        let prints = gas.all_gather(&[layout.fingerprint()]).map_err(gas_err)?;
        if prints.iter().any(|&p| p != layout.fingerprint()) {
            return Err("the PEs run different programs (their global data differ)".into());
        }
        let l = layout.clone();
        let put = gas
            .register_rpc(move |_, arg| {
                let ok = word(arg, 0).is_some_and(|off| l.write(off as usize, &arg[HEADER..]));
                answer(ok.then(Vec::new))
            })
            .map_err(gas_err)?;
        let l = layout.clone();
        let get = gas
            .register_rpc(move |_, arg| {
                let read = word(arg, 0)
                    .zip(word(arg, 8))
                    .and_then(|(off, len)| l.read(off as usize, (len as usize).min(CHUNK)));
                answer(read)
            })
            .map_err(gas_err)?;
        let l = layout.clone();
        let rmw = gas
            .register_rpc(move |_, arg| {
                let old = word(arg, 0)
                    .zip(Rmw::from_bytes(&arg[HEADER.min(arg.len())..]))
                    .and_then(|(off, op)| l.rmw(off as usize, op));
                answer(old.map(|v| v.to_le_bytes().to_vec()))
            })
            .map_err(gas_err)?;
        Ok(Statics {
            layout,
            put,
            get,
            rmw,
        })
    }

    /// Calls remote procedure `id` on `pe`; its data if the target accepted the range.
    fn call(&self, gas: &Gas, pe: u32, id: RpcId, arg: &[u8], off: usize) -> Res<Vec<u8>> {
        let mut got = gas.rpc(pe, id, arg).map_err(gas_err)?;
        if got.first() != Some(&1) {
            return Err(format!(
                "PE {pe} refused the access at data offset {off:#x} (not writable data there)"
            ));
        }
        got.remove(0);
        Ok(got)
    }

    pub fn put(&self, gas: &Gas, pe: u32, off: usize, data: &[u8]) -> Res<()> {
        if pe == gas.rank() {
            return self.local_ok(self.layout.write(off, data), off);
        }
        for (i, piece) in data.chunks(CHUNK).enumerate() {
            let at = off + i * CHUNK;
            let mut arg = (at as u64).to_le_bytes().to_vec();
            arg.extend_from_slice(piece);
            self.call(gas, pe, self.put, &arg, at)?;
        }
        Ok(())
    }

    pub fn get(&self, gas: &Gas, pe: u32, off: usize, buf: &mut [u8]) -> Res<()> {
        if pe == gas.rank() {
            let read = self.layout.read(off, buf.len());
            let ok = read.map(|r| buf.copy_from_slice(&r)).is_some();
            return self.local_ok(ok, off);
        }
        for (i, piece) in buf.chunks_mut(CHUNK).enumerate() {
            let at = off + i * CHUNK;
            let mut arg = (at as u64).to_le_bytes().to_vec();
            arg.extend_from_slice(&(piece.len() as u64).to_le_bytes());
            let got = self.call(gas, pe, self.get, &arg, at)?;
            if got.len() != piece.len() {
                return Err(format!("PE {pe} answered a short read"));
            }
            piece.copy_from_slice(&got);
        }
        Ok(())
    }

    pub fn rmw(&self, gas: &Gas, pe: u32, off: usize, op: Rmw) -> Res<u64> {
        if pe == gas.rank() {
            let old = self.layout.rmw(off, op);
            self.local_ok(old.is_some(), off)?;
            return Ok(old.unwrap_or_default());
        }
        let mut arg = (off as u64).to_le_bytes().to_vec();
        arg.extend_from_slice(&op.to_bytes());
        let got = self.call(gas, pe, self.rmw, &arg, off)?;
        word(&got, 0).ok_or_else(|| format!("PE {pe} answered a malformed atomic"))
    }

    fn local_ok(&self, ok: bool, off: usize) -> Res<()> {
        if ok {
            Ok(())
        } else {
            Err(format!("data offset {off:#x} is not writable data"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static mut GLOBAL: [u64; 4] = [1, 2, 3, 4];

    #[test]
    fn globals_of_this_program_are_found_read_written_and_updated() {
        let layout = Layout::of_program();
        let addr = std::ptr::addr_of_mut!(GLOBAL) as usize;
        let off = layout
            .offset_of(addr, 32)
            .expect("a global lies in the data");
        assert!(layout.offset_of(addr, usize::MAX).is_none());
        let on_stack = 0u64;
        assert!(layout
            .offset_of(&on_stack as *const u64 as usize, 8)
            .is_none());
        assert!(layout.write(off + 8, &9u64.to_le_bytes()));
        assert_eq!(layout.read(off + 8, 8).unwrap(), 9u64.to_le_bytes());
        assert_eq!(layout.rmw(off, Rmw::Add(5)), Some(1));
        assert_eq!(layout.rmw(off + 1, Rmw::Load), None, "misaligned");
        assert_eq!(layout.rmw(off, Rmw::Load), Some(6));
        assert_ne!(layout.fingerprint(), Layout::default().fingerprint());
    }
}
