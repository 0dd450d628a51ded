//! The communication pattern of each collective algorithm, over member indices `0..n`:
//! who sends to whom, in which order. Pure: each face maps members to its own ranks and
//! drives its own transport (clump-gas's messages, MPI's point-to-point or schedules).

/// A member's place in a binomial tree of `n` members rooted at member 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binomial {
    /// The member this one hears from (broadcast) or sends to (reduction); none at the root.
    pub parent: Option<usize>,
    v: usize,
    n: usize,
    /// The children are `v + 2^k` for `k` below this (those that are members).
    levels: u32,
}

impl Binomial {
    /// The members below this one, smallest subtree first. Child `c` heads members
    /// `c .. c + size` for a power-of-two size, so combining the children in this order,
    /// each into what came before, keeps rank order (non-commutative reductions). Without
    /// allocating: the blocking collectives ask for it on every call.
    pub fn children(&self) -> impl DoubleEndedIterator<Item = usize> {
        let (v, n) = (self.v, self.n);
        (0..self.levels)
            .map(move |k| v + (1 << k))
            .filter(move |&c| c < n)
    }
}

/// Member `v`'s place in the binomial tree of `n` members rooted at 0. A broadcast
/// receives from the parent, then sends to the children largest subtree first (reverse
/// order); a reduction receives from the children in order, then sends to the parent.
pub fn binomial(v: usize, n: usize) -> Binomial {
    let (parent, levels) = if v == 0 {
        (None, n.max(1).next_power_of_two().trailing_zeros())
    } else {
        let low = v & v.wrapping_neg();
        (Some(v - low), low.trailing_zeros())
    };
    Binomial {
        parent,
        v,
        n,
        levels,
    }
}

/// The rounds of a dissemination barrier for member `me` of `n`: in each, send to the
/// first member and hear from the second (distances 1, 2, 4, ...).
pub fn dissemination(me: usize, n: usize) -> impl Iterator<Item = (usize, usize)> {
    std::iter::successors(Some(1usize), |d| d.checked_mul(2))
        .take_while(move |&d| d < n)
        .map(move |d| ((me + d) % n, (me + n - d) % n))
}

/// A member's part in recursive doubling (an all-reduce of a commutative operation) over
/// `n` members: the members past the largest power of two hand their data to a partner
/// below it and get the result back from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Doubling {
    /// Send to `partner`, then receive the result from it.
    Extra { partner: usize },
    /// First absorb `extra`'s data (if any), exchange with each of `partners` in turn
    /// (a lower partner's data is the lower operand), then send the result to `extra`.
    Core {
        extra: Option<usize>,
        partners: Vec<usize>,
    },
}

/// Member `v`'s part in recursive doubling over `n` members.
pub fn doubling(v: usize, n: usize) -> Doubling {
    let p = 1usize << n.max(1).ilog2();
    if v >= p {
        return Doubling::Extra { partner: v - p };
    }
    Doubling::Core {
        extra: (v + p < n).then_some(v + p),
        partners: std::iter::successors(Some(1usize), |m| m.checked_mul(2))
            .take_while(|&m| m < p)
            .map(|m| v ^ m)
            .collect(),
    }
}

/// The partners of member `v` in a prefix (scan) by recursive doubling over `n` members,
/// in round order: at round `k` the partner is `v ^ 2^k`, where it exists. A lower
/// partner's data joins this member's prefix.
pub fn prefix_partners(v: usize, n: usize) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(1usize), |m| m.checked_mul(2))
        .take_while(move |&m| m < n)
        .map(move |m| v ^ m)
        .filter(move |&p| p < n)
}

/// How the members sit on hosts, for a two-level (host-aware) collective rooted at `root`:
/// within each host through its leader, and between hosts among the leaders only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tiers {
    /// The members on this member's host, its leader first (the root on the root's host).
    pub local: Vec<usize>,
    /// Each host's leader, the root first.
    pub leaders: Vec<usize>,
    /// The members of each host in the order of `leaders`, each leader first.
    pub hosts: Vec<Vec<usize>>,
}

impl Tiers {
    /// The tiers of members `0..n`, member `m` on host `host(m)` (any key that is equal
    /// for members of one host), for member `me` and a collective rooted at `root` (both
    /// members).
    pub fn new<H: PartialEq>(n: usize, host: impl Fn(usize) -> H, root: usize, me: usize) -> Tiers {
        let mut hosts: Vec<(H, Vec<usize>)> = Vec::new();
        for m in 0..n {
            let h = host(m);
            match hosts.iter_mut().find(|(k, _)| *k == h) {
                Some((_, members)) => members.push(m),
                None => hosts.push((h, vec![m])),
            }
        }
        let mut hosts: Vec<Vec<usize>> = hosts.into_iter().map(|(_, m)| m).collect();
        let root_host = hosts.iter().position(|m| m.contains(&root)).unwrap_or(0);
        hosts.swap(0, root_host);
        if let Some(at) = hosts
            .first()
            .and_then(|h| h.iter().position(|&m| m == root))
        {
            hosts[0].swap(0, at);
        }
        let local = hosts
            .iter()
            .find(|m| m.contains(&me))
            .cloned()
            .unwrap_or_default();
        let leaders = hosts.iter().map(|m| m[0]).collect();
        Tiers {
            local,
            leaders,
            hosts,
        }
    }

    /// Whether a flat algorithm over all members is as good: one host, or one member per
    /// host.
    pub fn is_flat(&self) -> bool {
        self.hosts.len() == 1 || self.hosts.iter().all(|h| h.len() == 1)
    }
}

#[cfg(test)]
mod tests;
