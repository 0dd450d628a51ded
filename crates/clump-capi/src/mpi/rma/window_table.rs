//! The windows of a process, named by handles `first + id`, found by indexing rather than
//! by hashing: a call that names its window pays a subtraction, a bounds check and a load.
//! Unlike the C face's generational [`HandleTable`](super::super::handle_table), ids are
//! never reused: every process numbers its windows in the same collective order and names
//! a window to the others by its id, so an id another process keeps must never reach a
//! newer window. A freed window leaves an empty slot of one word behind.

pub struct WindowTable<T> {
    first: usize,
    slots: Vec<Option<Box<T>>>,
}

impl<T> WindowTable<T> {
    /// An empty table whose first handle is `first`.
    pub const fn new(first: usize) -> WindowTable<T> {
        WindowTable {
            first,
            slots: Vec::new(),
        }
    }

    /// The id the next stored object gets.
    pub fn next_id(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Stores `value` under the next id; returns its handle.
    pub fn insert(&mut self, value: T) -> usize {
        self.slots.push(Some(Box::new(value)));
        self.first + self.slots.len() - 1
    }

    #[inline]
    pub fn get_mut(&mut self, h: usize) -> Option<&mut T> {
        let id = h.wrapping_sub(self.first);
        self.slots.get_mut(id)?.as_deref_mut()
    }

    #[inline]
    pub fn by_id(&mut self, id: u32) -> Option<&mut T> {
        self.slots.get_mut(id as usize)?.as_deref_mut()
    }

    /// Takes the object of handle `h` out; its handle names nothing from now on.
    pub fn remove(&mut self, h: usize) -> Option<T> {
        let id = h.checked_sub(self.first)?;
        self.slots.get_mut(id)?.take().map(|b| *b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_index_their_objects_and_freed_ones_name_nothing_again() {
        let mut t = WindowTable::new(0x100);
        assert_eq!(t.next_id(), 0);
        let a = t.insert("a");
        let b = t.insert("b");
        assert_eq!((a, b), (0x100, 0x101));
        assert_eq!(t.get_mut(b).copied(), Some("b"));
        assert_eq!(t.by_id(0).copied(), Some("a"));
        assert_eq!(t.remove(a), Some("a"));
        assert_eq!(t.get_mut(a), None);
        assert_eq!(t.remove(a), None);
        // A new object gets a new id, never the freed one's.
        assert_eq!(t.insert("c"), 0x102);
        assert_eq!(t.get_mut(a), None);
        for bad in [0, 0xff, 0x103, usize::MAX] {
            assert_eq!(t.get_mut(bad), None, "{bad:#x}");
            assert_eq!(t.remove(bad), None, "{bad:#x}");
        }
    }
}
