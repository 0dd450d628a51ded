//! Communication contexts. Every context shares the PE's one stream of accesses, so a
//! context's quiet completes, and its fence orders, the others' accesses too (more than
//! the standard asks, never less); creating one always succeeds. A context's accesses
//! number PEs in its team (OpenSHMEM 1.5 §9.4). A private context of the world team makes
//! its direct accesses without the process lock (`private`).

use super::abi::{CTX_DEFAULT, CTX_INVALID, CTX_PRIVATE, TEAM_INVALID, TEAM_WORLD};
use super::private;
use super::runtime::{dst_slice, run, Res, State};
use std::os::raw::{c_int, c_long};

impl State {
    /// The team of a live context handle from C (`None`: the call has none, the default).
    pub fn ctx_team(&self, ctx: Option<usize>) -> Res<usize> {
        match ctx {
            None | Some(CTX_DEFAULT) => Ok(TEAM_WORLD),
            Some(h) => self
                .contexts
                .borrow()
                .get(&h)
                .copied()
                .ok_or_else(|| format!("{h:#x} is not a live context")),
        }
    }

    /// Checks a context handle from C, as [`State::ctx_team`].
    pub fn check_ctx(&self, ctx: Option<usize>) -> Res<()> {
        self.ctx_team(ctx).map(drop)
    }

    fn create_ctx(&self, out: *mut usize, team: usize, options: c_long) -> Res<c_int> {
        // SAFETY: `out` is the C caller's `shmem_ctx_t *`: one handle's room, or NULL.
        let slot = unsafe { dst_slice(out.cast(), size_of::<usize>(), "ctx")? };
        let h = self.fresh_handle();
        if options & CTX_PRIVATE != 0 && team == TEAM_WORLD {
            private::register(self, h)?;
        }
        self.contexts.borrow_mut().insert(h, team);
        slot.copy_from_slice(&h.to_ne_bytes());
        Ok(0)
    }
}

#[pshmem::twin]
pub extern "C" fn shmem_ctx_create(options: c_long, ctx: *mut usize) -> c_int {
    run("shmem_ctx_create", |s| {
        s.create_ctx(ctx, TEAM_WORLD, options)
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_team_create_ctx(team: usize, options: c_long, ctx: *mut usize) -> c_int {
    run("shmem_team_create_ctx", |s| {
        if team == TEAM_INVALID {
            // SAFETY: `ctx` is the C caller's `shmem_ctx_t *`: one handle's room, or NULL.
            let slot = unsafe { dst_slice(ctx.cast(), size_of::<usize>(), "ctx")? };
            slot.copy_from_slice(&CTX_INVALID.to_ne_bytes());
            return Ok(-1);
        }
        s.team_members(team)?;
        s.create_ctx(ctx, team, options)
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_ctx_destroy(ctx: usize) {
    run("shmem_ctx_destroy", |s| {
        if ctx == CTX_INVALID {
            return Ok(()); // the specification's no-op
        }
        if ctx == CTX_DEFAULT {
            return Err("the default context cannot be destroyed".into());
        }
        s.check_ctx(Some(ctx))?;
        s.quiet()?;
        private::forget(ctx);
        s.contexts.borrow_mut().remove(&ctx);
        Ok(())
    })
}

#[pshmem::twin]
pub extern "C" fn shmem_ctx_get_team(ctx: usize, team: *mut usize) -> c_int {
    run("shmem_ctx_get_team", |s| {
        // SAFETY: `team` is the C caller's `shmem_team_t *`: one handle's room, or NULL.
        let slot = unsafe { dst_slice(team.cast(), size_of::<usize>(), "team")? };
        if ctx == CTX_INVALID {
            slot.copy_from_slice(&TEAM_INVALID.to_ne_bytes());
            return Ok(-1);
        }
        let t = s.ctx_team(Some(ctx))?;
        slot.copy_from_slice(&t.to_ne_bytes());
        Ok(0)
    })
}
