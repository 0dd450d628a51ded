//! The bytes an accumulate's elements take in window memory. An element of a predefined
//! type may have holes: `MPI_SHORT_INT` is a short, two bytes of padding, then an int. So
//! that no element is ever split between two runs (its two halves combined apart, or one
//! half by a concurrent accumulate), accumulates carry their elements in memory layout,
//! `extent` bytes apart, each as far as its last data byte; the operation combines them
//! packed, and only data bytes are written back.

use clump_mpi::Datatype;

/// How far one element's data reaches from its start: its size unless it has holes.
pub fn reach(dt: &Datatype) -> usize {
    dt.runs(1)
        .map(|(off, _, len)| off as usize + len)
        .max()
        .unwrap_or(0)
}

/// Whether an element has holes between its data bytes (carried in memory layout).
pub fn has_holes(dt: &Datatype) -> bool {
    reach(dt) != dt.size()
}

/// Elements in `len` bytes of memory layout; `None` unless `len` is whole elements.
pub fn count(dt: &Datatype, len: usize) -> Option<usize> {
    let (ext, last) = (usize::try_from(dt.extent()).ok()?.max(1), reach(dt));
    match len {
        0 => Some(0),
        _ if len < last || !(len - last).is_multiple_of(ext) => None,
        _ => Some((len - last) / ext + 1),
    }
}

/// `packed` (whole elements) in memory layout, holes zeroed.
pub fn spread(dt: &Datatype, packed: &[u8]) -> Vec<u8> {
    let n = packed.len() / dt.size().max(1);
    let ext = dt.extent().max(1) as usize;
    let mut out = vec![0; if n == 0 { 0 } else { (n - 1) * ext + reach(dt) }];
    for (off, at, len) in dt.runs(n) {
        out[off as usize..off as usize + len].copy_from_slice(&packed[at..at + len]);
    }
    out
}

/// The packed data of `memory` (whole elements in memory layout).
pub fn gather(dt: &Datatype, memory: &[u8]) -> Vec<u8> {
    let n = count(dt, memory.len()).unwrap_or(0);
    dt.runs(n)
        .flat_map(|(off, _, len)| &memory[off as usize..off as usize + len])
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clump_mpi::Predef;

    #[test]
    fn a_short_int_goes_whole_with_its_hole() {
        let dt = Datatype::predefined(Predef::ShortInt);
        assert!(has_holes(&dt));
        let packed = [1, 0, 2, 0, 0, 0, 3, 0, 4, 0, 0, 0];
        let memory = spread(&dt, &packed);
        assert_eq!(memory.len(), 16);
        assert_eq!(&memory[..8], &[1, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(count(&dt, 16), Some(2));
        assert_eq!(count(&dt, 6), None);
        assert_eq!(gather(&dt, &memory), packed);
    }

    #[test]
    fn types_without_holes_are_their_packed_bytes() {
        for p in [Predef::Int, Predef::LongInt, Predef::DoubleInt] {
            let dt = Datatype::predefined(p);
            assert!(!has_holes(&dt));
            assert_eq!(count(&dt, dt.size()), Some(1));
            let packed = vec![5; dt.size()];
            assert_eq!(spread(&dt, &packed), packed);
        }
    }
}
