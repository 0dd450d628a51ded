//! The program's functions of a generalized request (`MPI_Grequest_start`), which the
//! engine keeps with the request.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::Result;
use crate::status::Status;

/// The program's functions of a generalized request.
pub trait Hooks {
    /// Fills the status a wait, test or `MPI_Request_get_status` reports.
    fn query(&mut self, status: &mut Status) -> Result<()>;
    /// Releases the program's state once the request is freed.
    fn free(&mut self) -> Result<()>;
    /// The program is asked to cancel; `complete` says whether it completed already.
    fn cancel(&mut self, complete: bool) -> Result<()>;
}

pub type SharedHooks = Rc<RefCell<dyn Hooks>>;
