//! The table of pending requests: a slab whose ids carry a generation, so that an id whose
//! request completed and whose slot was reused names nothing rather than another request.
//! (A hash map did this job at the cost of hashing on every send, receive and wait.)
//! The C face keeps its request handles in one too, with fewer generations so that a
//! handle fits a C `int`.

use std::ops::Index;

/// Slots' generations stay at most this by default, so that no id has its top bit set
/// (the point-to-point layer reserves those ids: logged eager sends, `u64::MAX` and the
/// two below it).
const LAST_GENERATION: u32 = (1 << 31) - 1;

struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// The slab; generations run from 1 to `LAST`, then start again at 1.
pub struct Requests<T, const LAST: u32 = LAST_GENERATION> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
}

impl<T, const LAST: u32> Default for Requests<T, LAST> {
    fn default() -> Self {
        Requests {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

/// The id of slot `index` in `generation`: never 0 (generations start at 1).
#[inline(always)]
fn id(index: u32, generation: u32) -> u64 {
    (generation as u64) << 32 | index as u64
}

impl<T, const LAST: u32> Requests<T, LAST> {
    /// The slot index the next `insert` takes (a caller that bounds indices checks it).
    pub fn next_index(&self) -> usize {
        self.free.last().map_or(self.slots.len(), |&i| i as usize)
    }

    #[inline]
    pub fn insert(&mut self, value: T) -> u64 {
        match self.free.pop() {
            Some(i) => {
                let slot = &mut self.slots[i as usize];
                slot.value = Some(value);
                id(i, slot.generation)
            }
            None => {
                let i = self.slots.len() as u32;
                self.slots.push(Slot {
                    generation: 1,
                    value: Some(value),
                });
                id(i, 1)
            }
        }
    }

    #[inline]
    fn slot(&self, id: u64) -> Option<&Slot<T>> {
        self.slots
            .get(id as u32 as usize)
            .filter(|s| s.generation == (id >> 32) as u32)
    }

    #[inline]
    pub fn get(&self, id: u64) -> Option<&T> {
        self.slot(id)?.value.as_ref()
    }

    #[inline]
    pub fn get_mut(&mut self, id: u64) -> Option<&mut T> {
        let slot = self.slots.get_mut(id as u32 as usize)?;
        if slot.generation != (id >> 32) as u32 {
            return None;
        }
        slot.value.as_mut()
    }

    #[inline]
    pub fn remove(&mut self, id: u64) -> Option<T> {
        self.remove_if(id, |_| true)
    }

    /// Removes the value of `id` if `take` says so of it: a look and a removal in one
    /// lookup (a wait that finds its request complete).
    #[inline]
    pub fn remove_if(&mut self, id: u64, take: impl FnOnce(&T) -> bool) -> Option<T> {
        let i = id as u32;
        let slot = self.slots.get_mut(i as usize)?;
        if slot.generation != (id >> 32) as u32 || !slot.value.as_ref().is_some_and(take) {
            return None;
        }
        let value = slot.value.take()?;
        slot.generation = if slot.generation >= LAST {
            1
        } else {
            slot.generation + 1
        };
        self.free.push(i);
        Some(value)
    }
}

impl<T, const LAST: u32> Index<&u64> for Requests<T, LAST> {
    type Output = T;

    fn index(&self, id: &u64) -> &T {
        self.get(*id).expect("no request with this id")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_removed_requests_name_nothing_even_once_their_slot_is_reused() {
        let mut r: Requests<_> = Requests::default();
        let a = r.insert("a");
        let b = r.insert("b");
        assert!(a != 0 && b != 0 && a != b);
        assert_eq!(r.remove(a), Some("a"));
        assert_eq!(r.get(a), None);
        let c = r.insert("c");
        assert_ne!(c, a, "the reused slot has a new generation");
        assert_eq!(r.get(a), None);
        assert_eq!(r.remove(a), None);
        assert_eq!((r[&b], r[&c]), ("b", "c"));
        assert_eq!(r.get_mut(c).map(|v| *v), Some("c"));
        assert_eq!(r.get(u64::MAX), None);
    }

    #[test]
    fn generations_wrap_before_the_reserved_ids() {
        let mut r: Requests<_> = Requests::default();
        let first = r.insert(0);
        r.slots[0].generation = LAST_GENERATION;
        let last = id(0, LAST_GENERATION);
        assert_eq!(r.remove(last), Some(0));
        assert_eq!(r.insert(1), first);
        assert!(last < 1 << 63);
    }

    #[test]
    fn a_smaller_generation_bound_wraps_there_and_the_next_index_is_known() {
        let mut r: Requests<u8, 3> = Requests::default();
        assert_eq!(r.next_index(), 0);
        let a = r.insert(0);
        assert_eq!(r.next_index(), 1);
        let mut ids = vec![a];
        for _ in 0..3 {
            let id = *ids.last().unwrap();
            assert_eq!(r.remove(id), Some(0));
            assert_eq!(r.next_index(), 0, "the freed slot comes back first");
            ids.push(r.insert(0));
        }
        let generations: Vec<u64> = ids.iter().map(|id| id >> 32).collect();
        assert_eq!(generations, [1, 2, 3, 1]);
    }
}
