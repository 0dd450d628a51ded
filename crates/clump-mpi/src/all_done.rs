//! A request that completes once others have, without taking them: what
//! `MPI_Buffer_iflush` returns over the buffered sends it waits for, whose own requests stay
//! with the buffer that tracks them (and frees their space as they complete).

use crate::error::Result;
use crate::p2p::Request;
use crate::runtime::{self, Advance, Runtime};

/// The requests watched and the request that completes after them.
struct AllDone {
    id: u64,
    watched: Vec<Request>,
}

/// A request that completes once each of `watched` has; they stay the caller's to test,
/// wait for or free (a request freed once complete names nothing, which counts as done).
pub fn all_done<'a>(watched: impl IntoIterator<Item = &'a Request>) -> Result<Request> {
    let rt = runtime::get()?;
    let mut all = AllDone {
        id: rt.engine.borrow_mut().add_coll(),
        watched: watched
            .into_iter()
            .map(|r| Request::from_id(r.id()))
            .collect(),
    };
    let id = all.id;
    if !all.advance(&rt) {
        rt.colls.borrow_mut().push(Box::new(all));
    }
    Ok(Request::from_id(id))
}

impl Advance for AllDone {
    fn advance(&mut self, rt: &Runtime) -> bool {
        self.watched.retain(|r| !r.is_complete(rt));
        if !self.watched.is_empty() {
            return false;
        }
        rt.engine.borrow_mut().finish_coll(self.id, None);
        true
    }
}
