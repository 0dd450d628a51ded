//! The environment queries that need no communication: clocks, versions, the processor
//! name (all from clump-mpi), and memory for the program (`MPI_Alloc_mem`, which clump serves from malloc).

use super::abi::*;
use super::export::{call, mpi_functions, out, string_out};
use std::os::raw::{c_char, c_int, c_void};

mpi_functions! {
    fn Wtime() -> f64 {
        clump_mpi::wtime()
    }

    fn Wtick() -> f64 {
        clump_mpi::wtick()
    }

    fn Get_version(version: *mut c_int, subversion: *mut c_int) -> c_int {
        call(|| {
            out(version, MPI_VERSION)?;
            out(subversion, MPI_SUBVERSION)
        })
    }

    fn Get_library_version(version: *mut c_char, resultlen: *mut c_int) -> c_int {
        call(|| {
            let text = clump_mpi::library_version();
            string_out(&text, version, MPI_MAX_LIBRARY_VERSION_STRING, resultlen)
        })
    }

    fn Get_processor_name(name: *mut c_char, resultlen: *mut c_int) -> c_int {
        call(|| string_out(&clump_mpi::processor_name(), name, MPI_MAX_PROCESSOR_NAME, resultlen))
    }

    fn Alloc_mem(size: MpiAint, _info: *mut c_void, baseptr: *mut c_void) -> c_int {
        call(|| {
            let size = usize::try_from(size).map_err(|_| MPI_ERR_ARG)?;
            if baseptr.is_null() {
                return Err(MPI_ERR_ARG);
            }
            // SAFETY: malloc of any size; at least one byte so that NULL means failure.
            let mem = unsafe { libc::malloc(size.max(1)) };
            if mem.is_null() {
                return Err(MPI_ERR_NO_MEM);
            }
            out(baseptr.cast::<*mut c_void>(), mem)
        })
    }

    fn Pcontrol() -> c_int {
        // Profiling control: a request to tools, which clump itself has nothing to do for
        // (variadic in C; the callee reads no argument).
        MPI_SUCCESS
    }

    fn Free_mem(base: *mut c_void) -> c_int {
        call(|| {
            // SAFETY: the caller's contract is that `base` came from MPI_Alloc_mem (malloc)
            // and is freed once; free(NULL) does nothing.
            unsafe { libc::free(base) };
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn clocks_advance_and_tick_is_fine() {
        let t0 = MPI_Wtime();
        let t1 = PMPI_Wtime();
        assert!(t1 >= t0);
        assert!(MPI_Wtick() > 0.0 && MPI_Wtick() < 1e-3);
    }

    #[test]
    fn version_names_and_memory() {
        let (mut v, mut s) = (0, -1);
        assert_eq!(MPI_Get_version(&mut v, &mut s), MPI_SUCCESS);
        assert_eq!((v, s), (5, 0));
        let mut buf = vec![0 as c_char; MPI_MAX_LIBRARY_VERSION_STRING];
        let mut len = 0;
        assert_eq!(
            MPI_Get_library_version(buf.as_mut_ptr(), &mut len),
            MPI_SUCCESS
        );
        // SAFETY: the call wrote a NUL-terminated string into `buf`.
        let text = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap();
        assert!(text.starts_with("clump") && text.len() == len as usize);
        assert_eq!(
            MPI_Get_processor_name(buf.as_mut_ptr(), &mut len),
            MPI_SUCCESS
        );
        assert!(len > 0);

        let mut mem: *mut c_void = std::ptr::null_mut();
        let slot = (&mut mem as *mut *mut c_void).cast::<c_void>();
        assert_eq!(MPI_Alloc_mem(4096, std::ptr::null_mut(), slot), MPI_SUCCESS);
        assert!(!mem.is_null());
        assert_eq!(MPI_Free_mem(mem), MPI_SUCCESS);
        assert_eq!(MPI_Alloc_mem(-1, std::ptr::null_mut(), slot), MPI_ERR_ARG);
        assert_eq!(
            MPI_Alloc_mem(8, std::ptr::null_mut(), std::ptr::null_mut()),
            MPI_ERR_ARG
        );
        assert_eq!(MPI_Get_version(std::ptr::null_mut(), &mut s), MPI_ERR_ARG);
    }
}
