//! Intercommunicators: two disjoint groups whose point-to-point ranks name the other
//! group. Each takes two contexts: `ctx` for its own traffic (point-to-point, and the
//! leaders' exchanges in its collective context) and `ctx + 1` for the collectives of its
//! local group. Leaders (rank 0 of each group) swap what their group needs; each leader
//! then broadcasts the other side's answer to its group.

use std::rc::Rc;

use crate::coll::{cisend, crecv_vec};
use crate::coll_bcast::bcast;
use crate::coll_gather::allgather;
use crate::coll_reduce::allreduce;
use crate::comm::Comm;
use crate::datatype::{Datatype, Predef};
use crate::error::{Error, ErrorClass, Result};
use crate::group::{Group, UNDEFINED};
use crate::op::{Op, Operator};
use crate::p2p::{isend, probe, recv, wait};
use crate::runtime;

/// The tag of the leaders' swaps in an intercommunicator's collective context.
const TAG_LEADERS: i32 = 40;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// The largest next free context among the members of the intracommunicator `local`.
fn local_next_ctx(local: &Comm) -> Result<u32> {
    let mine = runtime::get()?.next_ctx.get().to_ne_bytes();
    let mut agreed = [0u8; 4];
    let unsigned = Datatype::predefined(Predef::Unsigned);
    allreduce(
        &mine,
        &mut agreed,
        1,
        &unsigned,
        &Op::Predefined(Operator::Max),
        local,
    )?;
    Ok(u32::from_ne_bytes(agreed))
}

/// Broadcasts `theirs` (meaningful at `root` only) over `local`: the length, then the words.
fn share(local: &Comm, root: i32, theirs: Vec<u32>) -> Result<Vec<u32>> {
    let unsigned = Datatype::predefined(Predef::Unsigned);
    let mut n = (theirs.len() as u32).to_ne_bytes();
    bcast(&mut n, 1, &unsigned, root, local)?;
    let n = u32::from_ne_bytes(n) as usize;
    let mut data = bytes(&theirs);
    data.resize(4 * n, 0);
    bcast(&mut data, n, &unsigned, root, local)?;
    Ok(words(&data))
}

/// Takes the two contexts `ctx` and `ctx + 1` on this process.
fn take_pair(ctx: u32) -> Result<u32> {
    if ctx >= crate::comm_idup::IDUP_BASE - 2 {
        return Err(Error::new(
            ErrorClass::Intern,
            "no communicator contexts are left",
        ));
    }
    runtime::get()?.next_ctx.set(ctx + 2);
    Ok(ctx)
}

/// `MPI_Intercomm_create`: joins the intracommunicator `local` with the group whose
/// leader is `remote_leader` of `peer`; the two leaders (`local_leader` of `local` and
/// `remote_leader`) talk over `peer` with `tag`. Collective over both groups.
pub fn intercomm_create(
    local: &Comm,
    local_leader: i32,
    peer: &Comm,
    remote_leader: i32,
    tag: i32,
) -> Result<Comm> {
    if local.is_inter() {
        return Err(Error::new(
            ErrorClass::Comm,
            "the local communicator of MPI_Intercomm_create must be an intracommunicator",
        ));
    }
    crate::coll::check_root(local, local_leader)?;
    let next = local_next_ctx(local)?;
    let mut mine = vec![next];
    mine.extend(local.group().iter());
    let theirs = if local.rank() == local_leader {
        leaders_swap(peer, remote_leader, tag, &mine)?
    } else {
        Vec::new()
    };
    let theirs = share(local, local_leader, theirs)?;
    let (&their_next, remote) = theirs
        .split_first()
        .ok_or_else(|| Error::new(ErrorClass::Intern, "the remote leader sent no group"))?;
    if remote.iter().any(|m| local.group().contains(m)) {
        return Err(Error::new(
            ErrorClass::Arg,
            "the groups of an intercommunicator must be disjoint",
        ));
    }
    let ctx = take_pair(next.max(their_next))?;
    Ok(Comm::inter_from_parts(
        ctx,
        local.group().clone(),
        local.rank() as u32,
        Rc::new(remote.to_vec()),
    ))
}

/// The job ranks of `color` in a flattened (color, key, job rank) list, by key then by
/// their place in it.
fn of_color(listed: &[u32], color: i32) -> Vec<u32> {
    let mut chosen: Vec<(i32, usize, u32)> = listed
        .chunks_exact(3)
        .enumerate()
        .filter(|(_, e)| e[0] as i32 == color)
        .map(|(i, e)| (e[1] as i32, i, e[2]))
        .collect();
    chosen.sort();
    chosen.into_iter().map(|(_, _, job)| job).collect()
}

/// The leaders' exchange over `peer` (point-to-point, `tag`): sends `mine`, returns theirs.
fn leaders_swap(peer: &Comm, remote_leader: i32, tag: i32, mine: &[u32]) -> Result<Vec<u32>> {
    let unsigned = Datatype::predefined(Predef::Unsigned);
    let out = bytes(mine);
    // SAFETY: `out` lives until `wait` below completes the send.
    let mut sent = unsafe {
        isend(
            out.as_ptr(),
            mine.len(),
            &unsigned,
            remote_leader,
            tag,
            peer,
        )?
    };
    let st = probe(remote_leader, tag, peer)?;
    let mut got = vec![0u8; st.count_bytes];
    recv(
        &mut got,
        st.count_bytes / 4,
        &unsigned,
        remote_leader,
        tag,
        peer,
    )?;
    wait(&mut sent)?;
    Ok(words(&got))
}

impl Comm {
    fn need_inter(&self, what: &str) -> Result<&Rc<Vec<u32>>> {
        self.remote().ok_or_else(|| {
            Error::new(
                ErrorClass::Comm,
                format!("{what} needs an intercommunicator"),
            )
        })
    }

    /// The intracommunicator of an intercommunicator's local group.
    fn local_part(&self) -> Comm {
        Comm::from_parts(
            self.ctx() as u32 + 1,
            self.group().clone(),
            self.rank() as u32,
        )
    }

    /// `MPI_Comm_remote_size`.
    pub fn remote_size(&self) -> Result<i32> {
        Ok(self.need_inter("MPI_Comm_remote_size")?.len() as i32)
    }

    /// `MPI_Comm_remote_group`.
    pub fn remote_group(&self) -> Result<Group> {
        let remote = self.need_inter("MPI_Comm_remote_group")?.clone();
        Ok(Group::new(remote, self.group()[self.rank() as usize]))
    }

    /// Swaps `mine` between the two groups: the leaders exchange over this
    /// intercommunicator's collective context and broadcast what they got.
    fn swap_groups(&self, mine: &[u32]) -> Result<Vec<u32>> {
        let local = self.local_part();
        let theirs = if self.rank() == 0 {
            let out = bytes(mine);
            // SAFETY: `out` lives until `wait` below completes the send.
            let mut r = unsafe { cisend(self, 0, TAG_LEADERS, &out)? };
            let got = words(&crecv_vec(self, 0, TAG_LEADERS)?);
            wait(&mut r)?;
            got
        } else {
            Vec::new()
        };
        share(&local, 0, theirs)
    }

    /// The context both groups agree on for a new communicator over them (the largest
    /// next free context of all members), and what the remote group sent as `extra`.
    fn agree_inter(&self, extra: &[u32]) -> Result<(u32, Vec<u32>)> {
        let next = local_next_ctx(&self.local_part())?;
        let mut mine = vec![next];
        mine.extend(extra);
        let theirs = self.swap_groups(&mine)?;
        let their_next = *theirs
            .first()
            .ok_or_else(|| Error::new(ErrorClass::Intern, "the remote leader sent nothing"))?;
        Ok((next.max(their_next), theirs[1..].to_vec()))
    }

    /// `MPI_Comm_dup` of an intercommunicator. Collective over both groups.
    pub(crate) fn dup_inter(&self) -> Result<Comm> {
        let remote = self.need_inter("dup_inter")?.clone();
        let (ctx, _) = self.agree_inter(&[])?;
        let ctx = take_pair(ctx)?;
        Ok(Comm::inter_from_parts(
            ctx,
            self.group().clone(),
            self.rank() as u32,
            remote,
        ))
    }

    /// `MPI_Comm_split` of an intercommunicator: one intercommunicator per color, between
    /// the members of that color on each side (ranked by key, then by rank); `None` for
    /// [`UNDEFINED`] and for a color the other side lacks. Collective over both groups.
    pub(crate) fn split_inter(&self, color: i32, key: i32) -> Result<Option<Comm>> {
        let local = self.local_part();
        let mut mine = color.to_ne_bytes().to_vec();
        mine.extend(key.to_ne_bytes());
        let all = allgather(&mine, &vec![8; self.size() as usize], &local)?.concat();
        // (color, key, job rank) of each local member, flattened for the other side.
        let listed: Vec<u32> = words(&all)
            .chunks_exact(2)
            .zip(self.group().iter())
            .flat_map(|(ck, &job)| [ck[0], ck[1], job])
            .collect();
        let (ctx, theirs) = self.agree_inter(&listed)?;
        let ctx = take_pair(ctx)?;
        if color == UNDEFINED {
            return Ok(None);
        }
        let ours = of_color(&listed, color);
        let remote = of_color(&theirs, color);
        if remote.is_empty() {
            return Ok(None);
        }
        let me = self.group()[self.rank() as usize];
        let rank = ours
            .iter()
            .position(|&m| m == me)
            .expect("this process chose its color");
        Ok(Some(Comm::inter_from_parts(
            ctx,
            Rc::new(ours),
            rank as u32,
            Rc::new(remote),
        )))
    }

    /// `MPI_Intercomm_merge`: one intracommunicator of both groups, the group that
    /// passed `high = false` first (if both passed the same, the group whose leader has
    /// the lower job rank). Collective over both groups.
    pub fn intercomm_merge(&self, high: bool) -> Result<Comm> {
        let remote = self.need_inter("MPI_Intercomm_merge")?.clone();
        let (ctx, theirs) = self.agree_inter(&[high as u32])?;
        let their_high = theirs.first().copied().unwrap_or(0) != 0;
        let local_first = match (high, their_high) {
            (false, true) => true,
            (true, false) => false,
            _ => self.group()[0] < remote[0],
        };
        let (first, second) = if local_first {
            (self.group(), &remote)
        } else {
            (&remote, self.group())
        };
        let members: Vec<u32> = first.iter().chain(second.iter()).copied().collect();
        let me = self.group()[self.rank() as usize];
        let rank = members
            .iter()
            .position(|&m| m == me)
            .expect("a member of its own group");
        take_pair(ctx)?;
        Ok(Comm::from_parts(ctx, Rc::new(members), rank as u32))
    }
}
