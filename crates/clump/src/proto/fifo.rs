//! A first-in first-out queue of small `Copy` records whose push and pop inline: a
//! translation's requests in flight, pushed on every send and settled on every answer
//! (std's `VecDeque` keeps its push out of line, a call on every send). It grows, out of
//! line, to the next power of two; it never shrinks.

#[derive(Debug)]
pub(crate) struct Fifo<T> {
    /// The ring's storage: empty, or a power-of-two length.
    items: Vec<T>,
    /// Where the oldest record is.
    head: usize,
    len: usize,
}

impl<T> Default for Fifo<T> {
    fn default() -> Fifo<T> {
        Fifo {
            items: Vec::new(),
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy> Fifo<T> {
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn push_back(&mut self, item: T) {
        if self.len == self.items.len() {
            self.grow(item);
        }
        let mask = self.items.len() - 1;
        self.items[(self.head + self.len) & mask] = item;
        self.len += 1;
    }

    /// Twice the room (four at first), the records kept in order from the front.
    /// `filler` fills the new room until it is pushed to.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, filler: T) {
        let mut items = vec![filler; (self.items.len() * 2).max(4)];
        for (i, slot) in items.iter_mut().take(self.len).enumerate() {
            *slot = self.items[(self.head + i) & (self.items.len() - 1)];
        }
        self.items = items;
        self.head = 0;
    }

    /// Drops the `n` oldest records (all of them if there are fewer); returns how many.
    #[inline(always)]
    pub fn discard_front(&mut self, n: usize) -> usize {
        let n = n.min(self.len);
        if n > 0 {
            self.head = (self.head + n) & (self.items.len() - 1);
            self.len -= n;
        }
        n
    }

    /// Takes every record out, oldest first.
    pub fn take_all(&mut self) -> Vec<T> {
        let mask = self.items.len().wrapping_sub(1);
        let all = (0..self.len)
            .map(|i| self.items[(self.head + i) & mask])
            .collect();
        self.head = 0;
        self.len = 0;
        all
    }
}

#[cfg(test)]
mod tests {
    use super::Fifo;

    #[test]
    fn records_come_out_in_order_across_wraps_and_growth() {
        let mut f = Fifo::default();
        assert!(f.is_empty());
        assert_eq!(f.take_all(), Vec::<u32>::new());
        let mut next_in = 0u32;
        let mut next_out = 0u32;
        // Push three, drop two, over and over: the head wraps around the storage while
        // it grows from 4 to 64.
        for _ in 0..40 {
            for _ in 0..3 {
                f.push_back(next_in);
                next_in += 1;
            }
            assert_eq!(f.discard_front(2), 2);
            next_out += 2;
            assert_eq!(f.len(), (next_in - next_out) as usize);
        }
        assert_eq!(f.take_all(), (next_out..next_in).collect::<Vec<_>>());
        assert!(f.is_empty());
        f.push_back(7);
        assert_eq!(f.take_all(), vec![7]);
    }

    #[test]
    fn discarding_more_than_are_held_drops_what_there_is() {
        let mut f = Fifo::default();
        assert_eq!(f.discard_front(3), 0);
        f.push_back(1u8);
        f.push_back(2);
        assert_eq!(f.discard_front(5), 2);
        assert!(f.is_empty());
        f.push_back(3);
        assert_eq!(f.take_all(), vec![3]);
    }
}
