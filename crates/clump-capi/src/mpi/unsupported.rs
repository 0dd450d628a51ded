//! Every function of `mpi.h` that clump does not implement yet still exists, so programs
//! built against the standard ABI load and link; a call fails with
//! `MPI_ERR_UNSUPPORTED_OPERATION` through the error handler the standard routes it to:
//! the communicator's where the call names one, the `MPI_FILE_NULL` handler (errors
//! return) for files, and `MPI_COMM_WORLD`'s for the rest (windows and sessions cannot
//! exist here). The tool interface (`MPI_T_*`) is `tools.rs`'s.
//!
//! They are defined with no parameters, or with those up to the communicator: under the C
//! calling convention the caller places and removes the arguments, and each is in an
//! integer register or an 8-byte stack slot of its own (no MPI function takes a floating
//! argument), so a callee that reads only the first few is sound for any argument list.

use super::abi::MPI_ERR_UNSUPPORTED_OPERATION;
use super::errhandlers::handle_error;
use super::export::{call, mpi_functions};
use super::handles::{Handle, COMM_WORLD};
use std::os::raw::c_int;

/// Where an unsupported call's error goes.
enum Route {
    /// Through this communicator's handler (`MPI_COMM_WORLD`'s if it names none).
    Comm(Handle),
    /// Straight back to the caller.
    Returned,
}

fn refuse(route: Route, name: &str) -> c_int {
    call(|| {
        let why = format!("MPI_{name} is not supported by clump");
        Err(match route {
            Route::Comm(comm) => handle_error(comm, (MPI_ERR_UNSUPPORTED_OPERATION, why)),
            Route::Returned => MPI_ERR_UNSUPPORTED_OPERATION,
        })
    })
}

/// Defines each named function as one that refuses, its error routed as its group says
/// (`comm after (a b)`: the communicator is the third parameter).
macro_rules! unsupported {
    (world: $($w:ident)*; returned: $($r:ident)*; $(comm after $skip:tt: $($c:ident)*;)*) => {
        mpi_functions! {
            $(fn $w() -> c_int { refuse(Route::Comm(COMM_WORLD), stringify!($w)) })*
            $(fn $r() -> c_int { refuse(Route::Returned, stringify!($r)) })*
        }
        $($(unsupported!(@comm $skip $c);)*)*
    };
    (@comm ($($skip:ident)*) $name:ident) => {
        mpi_functions! {
            fn $name($($skip: usize,)* comm: Handle) -> c_int {
                refuse(Route::Comm(comm), stringify!($name))
            }
        }
    };
}

unsupported! {
    world:
        Close_port Comm_get_parent Comm_join Get_hw_resource_info Lookup_name Open_port
        Publish_name Register_datarep Register_datarep_c Unpublish_name;
    returned:
        File_call_errhandler File_close File_create_errhandler File_delete File_get_amode
        File_get_atomicity File_get_byte_offset File_get_errhandler File_get_group
        File_get_info File_get_position File_get_position_shared File_get_size
        File_get_type_extent File_get_type_extent_c File_get_view File_iread File_iread_all
        File_iread_all_c File_iread_at File_iread_at_all File_iread_at_all_c
        File_iread_at_c File_iread_c File_iread_shared File_iread_shared_c File_iwrite
        File_iwrite_all File_iwrite_all_c File_iwrite_at File_iwrite_at_all
        File_iwrite_at_all_c File_iwrite_at_c File_iwrite_c File_iwrite_shared
        File_iwrite_shared_c File_open File_preallocate File_read File_read_all
        File_read_all_begin File_read_all_begin_c File_read_all_c File_read_all_end
        File_read_at File_read_at_all File_read_at_all_begin File_read_at_all_begin_c
        File_read_at_all_c File_read_at_all_end File_read_at_c File_read_c
        File_read_ordered File_read_ordered_begin File_read_ordered_begin_c
        File_read_ordered_c File_read_ordered_end File_read_shared File_read_shared_c
        File_seek File_seek_shared File_set_atomicity File_set_errhandler File_set_info
        File_set_size File_set_view File_sync File_write File_write_all
        File_write_all_begin File_write_all_begin_c File_write_all_c File_write_all_end
        File_write_at File_write_at_all File_write_at_all_begin File_write_at_all_begin_c
        File_write_at_all_c File_write_at_all_end File_write_at_c File_write_c
        File_write_ordered File_write_ordered_begin File_write_ordered_begin_c
        File_write_ordered_c File_write_ordered_end File_write_shared File_write_shared_c;
    comm after (_a0 _a1 _a2):
        Comm_accept Comm_connect;
    comm after (_a0 _a1 _a2 _a3 _a4):
        Comm_spawn;
    comm after (_a0 _a1 _a2 _a3 _a4 _a5):
        Comm_spawn_multiple;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::handles::{set_errhandler, ERRORS_RETURN};

    #[test]
    fn an_unsupported_call_returns_its_class_under_errors_return() {
        set_errhandler(COMM_WORLD, ERRORS_RETURN);
        assert_eq!(
            MPI_Comm_spawn(0, 0, 0, 0, 0, COMM_WORLD),
            MPI_ERR_UNSUPPORTED_OPERATION
        );
        assert_eq!(PMPI_Unpublish_name(), MPI_ERR_UNSUPPORTED_OPERATION);
        assert_eq!(
            MPI_Comm_accept(0, 0, 0, COMM_WORLD),
            MPI_ERR_UNSUPPORTED_OPERATION
        );
    }

    #[test]
    fn files_return_their_error_whatever_the_handler() {
        // World's handler stays fatal here: these must not consult it.
        assert_eq!(MPI_File_open(), MPI_ERR_UNSUPPORTED_OPERATION);
    }
}
