//! New communicators from old ones: dup, split, create, and the collective agreement on a
//! context id that keeps their traffic apart.

use std::rc::Rc;

use crate::coll::{crecv, csend};
use crate::coll_gather::allgather;
use crate::coll_reduce::allreduce;
use crate::comm::Comm;
use crate::datatype::{Datatype, Predef};
use crate::error::{Error, ErrorClass, Result};
use crate::group::{Comparison, Group, UNDEFINED};
use crate::op::{Op, Operator};
use crate::runtime;

/// The largest agreed context: those above are derived by `MPI_Comm_idup`.
const MAX_CTX: u32 = crate::comm_idup::IDUP_BASE - 1;

/// Agrees with every member of `parent` on a context none of them has used: the largest of
/// their next free contexts. A process never takes the same context twice, so two
/// communicators a process belongs to never share one.
fn agree_ctx(parent: &Comm) -> Result<u32> {
    let rt = runtime::get()?;
    let mine = rt.next_ctx.get().to_ne_bytes();
    let mut agreed = [0u8; 4];
    let unsigned = Datatype::predefined(Predef::Unsigned);
    allreduce(
        &mine,
        &mut agreed,
        1,
        &unsigned,
        &Op::Predefined(Operator::Max),
        parent,
    )?;
    take_ctx(u32::from_ne_bytes(agreed))
}

/// Takes the agreed context `ctx` on this process.
fn take_ctx(ctx: u32) -> Result<u32> {
    if ctx > MAX_CTX {
        return Err(Error::new(
            ErrorClass::Intern,
            "no communicator contexts are left",
        ));
    }
    runtime::get()?.next_ctx.set(ctx + 1);
    Ok(ctx)
}

/// The tag of `MPI_Comm_create_group`'s agreement in the parent's collective context.
const TAG_CREATE_GROUP: i32 = 41;

/// Agrees on a context among the members of `sub` only (a group of the parent, in the
/// parent's collective context): the parent's other members take no part, so this goes
/// by messages through `sub`'s first member, never the parent's collective slots.
fn agree_ctx_in(sub: &Comm) -> Result<u32> {
    let mine = runtime::get()?.next_ctx.get();
    let word = |b: [u8; 4]| u32::from_ne_bytes(b);
    let mut got = [0u8; 4];
    let agreed = if sub.rank() == 0 {
        let mut max = mine;
        for r in 1..sub.size() {
            crecv(sub, r, TAG_CREATE_GROUP, &mut got)?;
            max = max.max(word(got));
        }
        for r in 1..sub.size() {
            csend(sub, r, TAG_CREATE_GROUP, &max.to_ne_bytes())?;
        }
        max
    } else {
        csend(sub, 0, TAG_CREATE_GROUP, &mine.to_ne_bytes())?;
        crecv(sub, 0, TAG_CREATE_GROUP, &mut got)?;
        word(got)
    };
    take_ctx(agreed)
}

impl Comm {
    /// `MPI_Comm_group`.
    pub fn get_group(&self) -> Group {
        Group::new(self.group().clone(), self.group()[self.rank() as usize])
    }

    /// `MPI_Comm_dup`: the same members in a new context. Collective.
    pub fn dup(&self) -> Result<Comm> {
        if self.is_inter() {
            return self.dup_inter();
        }
        let ctx = agree_ctx(self)?;
        let dup = Comm::from_parts(ctx, self.group().clone(), self.rank() as u32);
        Ok(match self.topology() {
            Some(t) => dup.with_topology(t.clone()),
            None => dup,
        })
    }

    /// `MPI_Comm_split`: one communicator per `color`, ranked by `key` then by rank here;
    /// `None` for [`UNDEFINED`] colors. Collective.
    pub fn split(&self, color: i32, key: i32) -> Result<Option<Comm>> {
        if color < 0 && color != UNDEFINED {
            return Err(Error::new(
                ErrorClass::Arg,
                format!("color {color} is negative"),
            ));
        }
        if self.is_inter() {
            return self.split_inter(color, key);
        }
        let ctx = agree_ctx(self)?;
        let mut mine = color.to_ne_bytes().to_vec();
        mine.extend(key.to_ne_bytes());
        let all = allgather(&mine, &vec![8; self.size() as usize], self)?.concat();
        if color == UNDEFINED {
            return Ok(None);
        }
        let word = |b: &[u8]| i32::from_ne_bytes(b.try_into().expect("4 bytes"));
        let mut chosen: Vec<(i32, usize)> = all
            .chunks_exact(8)
            .enumerate()
            .filter(|(_, ck)| word(&ck[..4]) == color)
            .map(|(r, ck)| (word(&ck[4..]), r))
            .collect();
        chosen.sort();
        let members: Vec<u32> = chosen.iter().map(|&(_, r)| self.group()[r]).collect();
        let me = chosen
            .iter()
            .position(|&(_, r)| r == self.rank() as usize)
            .expect("this process chose its own color");
        Ok(Some(Comm::from_parts(ctx, Rc::new(members), me as u32)))
    }

    /// `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`: one communicator per host, of the
    /// processes that share its memory, ranked by `key`; `None` where `take_part` is false
    /// (`MPI_UNDEFINED`, or a split type this process does not serve). Collective.
    pub fn split_by_host(&self, take_part: bool, key: i32) -> Result<Option<Comm>> {
        let rt = runtime::get()?;
        let me = self.group()[self.rank() as usize];
        let leader = rt.host_leaders.get(me as usize).copied().unwrap_or(me);
        self.split(if take_part { leader as i32 } else { UNDEFINED }, key)
    }

    /// `MPI_Comm_create`: a communicator of `group`'s members, which must belong to this
    /// communicator; `None` on processes outside it. Collective, with the same group on all
    /// (on an intercommunicator, each side its own subgroup: the result joins the two).
    pub fn create(&self, group: &Group) -> Result<Option<Comm>> {
        self.check_subgroup(group)?;
        if self.is_inter() {
            // Each side names a group of its own: a split with the group's order as key.
            let me = self.group()[self.rank() as usize];
            return match group.members().iter().position(|&m| m == me) {
                Some(at) => self.split_inter(0, at as i32),
                None => self.split_inter(UNDEFINED, 0),
            };
        }
        let ctx = agree_ctx(self)?;
        let me = self.group()[self.rank() as usize];
        Ok(group
            .members()
            .iter()
            .position(|&m| m == me)
            .map(|r| Comm::from_parts(ctx, group.members().clone(), r as u32)))
    }

    /// `MPI_Comm_create_group`: a communicator of `group`'s members, collective over them
    /// only; `None` on a process outside the group.
    pub fn create_group(&self, group: &Group) -> Result<Option<Comm>> {
        self.refuse_inter("MPI_Comm_create_group")?;
        self.check_subgroup(group)?;
        let me = self.group()[self.rank() as usize];
        let Some(r) = group.members().iter().position(|&m| m == me) else {
            return Ok(None);
        };
        let members = group.members().clone();
        let sub = Comm::from_parts(self.ctx() as u32, members.clone(), r as u32);
        let ctx = agree_ctx_in(&sub)?;
        Ok(Some(Comm::from_parts(ctx, members, r as u32)))
    }

    /// Fails unless every member of `group` belongs to this communicator.
    fn check_subgroup(&self, group: &Group) -> Result<()> {
        match group.members().iter().find(|m| !self.group().contains(m)) {
            Some(m) => Err(Error::new(
                ErrorClass::Arg,
                format!("job rank {m} of the group is not in the communicator"),
            )),
            None => Ok(()),
        }
    }

    /// `MPI_Comm_compare`.
    pub fn compare(&self, other: &Comm) -> Comparison {
        match self.get_group().compare(&other.get_group()) {
            Comparison::Ident if self.p2p_ctx() == other.p2p_ctx() => Comparison::Ident,
            Comparison::Ident => Comparison::Congruent,
            c => c,
        }
    }

    /// `MPI_Comm_free`; the predefined communicators cannot be freed.
    pub fn free(self) -> Result<()> {
        if self.is_predefined() {
            return Err(Error::new(
                ErrorClass::Comm,
                "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed",
            ));
        }
        Ok(())
    }
}
