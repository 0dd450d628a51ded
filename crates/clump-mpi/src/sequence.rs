//! Sequence numbers per context and job rank (the next message to each destination, or
//! the next one expected from each source), which every eager message reads and bumps.
//! A table per context indexed by rank; the context's table is found through a map, the
//! last one used kept aside (a run of messages mostly stays in one communicator).

use rustc_hash::FxHashMap as HashMap;

pub struct Sequences {
    ranks: usize,
    tables: Vec<Box<[u32]>>,
    by_ctx: HashMap<u32, usize>,
    /// The context used last and its table's index.
    last: Option<(u32, usize)>,
}

impl Sequences {
    /// Counters for job ranks `0..ranks`, all at 0.
    pub fn new(ranks: usize) -> Sequences {
        Sequences {
            ranks,
            tables: Vec::new(),
            by_ctx: HashMap::default(),
            last: None,
        }
    }

    /// The counter of `rank` in `ctx`; `None` for a rank outside the job.
    #[inline]
    pub fn get(&mut self, ctx: u32, rank: u32) -> Option<&mut u32> {
        let rank = rank as usize;
        if rank >= self.ranks {
            return None;
        }
        let table = match self.last {
            Some((c, t)) if c == ctx => t,
            _ => self.table(ctx),
        };
        Some(&mut self.tables[table][rank])
    }

    /// The counter of `rank` in `ctx` without creating its table (0 if never used).
    pub fn peek(&self, ctx: u32, rank: u32) -> u32 {
        self.by_ctx
            .get(&ctx)
            .and_then(|&t| self.tables[t].get(rank as usize))
            .copied()
            .unwrap_or(0)
    }

    /// The index of `ctx`'s table, made on first use; it becomes the one kept aside.
    /// (Out of line: `get`'s common case stays a few instructions.)
    #[cold]
    #[inline(never)]
    fn table(&mut self, ctx: u32) -> usize {
        let next = self.tables.len();
        let t = *self.by_ctx.entry(ctx).or_insert(next);
        if t == next {
            self.tables.push(vec![0; self.ranks].into_boxed_slice());
        }
        self.last = Some((ctx, t));
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_kept_per_context_and_rank_and_ranks_outside_the_job_have_none() {
        let mut s = Sequences::new(3);
        assert_eq!(s.peek(7, 1), 0);
        *s.get(0, 1).unwrap() += 1;
        *s.get(7, 1).unwrap() += 5;
        *s.get(0, 1).unwrap() += 1;
        *s.get(0, 2).unwrap() += 1;
        assert_eq!(
            (s.peek(0, 1), s.peek(7, 1), s.peek(0, 2), s.peek(7, 0)),
            (2, 5, 1, 0)
        );
        assert!(s.get(0, 3).is_none());
        assert!(s.get(u32::MAX, u32::MAX).is_none());
        assert_eq!(s.peek(0, 9), 0);
    }
}
