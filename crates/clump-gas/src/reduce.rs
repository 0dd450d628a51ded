//! Element types all_reduce combines, and how.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Min,
    Max,
}

pub trait Reducible: bytemuck::Pod {
    fn combine(self, other: Self, op: ReduceOp) -> Self;
}

macro_rules! reducible {
    ($($t:ty => $add:ident),*) => {$(
        impl Reducible for $t {
            fn combine(self, other: Self, op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum => self.$add(other),
                    ReduceOp::Min => if other < self { other } else { self },
                    ReduceOp::Max => if other > self { other } else { self },
                }
            }
        }
    )*};
}

trait PlainAdd {
    fn plain_add(self, other: Self) -> Self;
}
impl PlainAdd for f32 {
    fn plain_add(self, other: f32) -> f32 {
        self + other
    }
}
impl PlainAdd for f64 {
    fn plain_add(self, other: f64) -> f64 {
        self + other
    }
}

// Integer sums wrap, as in MPI implementations, rather than panic in a handler's caller.
reducible!(i32 => wrapping_add, i64 => wrapping_add, u32 => wrapping_add, u64 => wrapping_add,
           f32 => plain_add, f64 => plain_add);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combines() {
        assert_eq!(3i32.combine(-5, ReduceOp::Sum), -2);
        assert_eq!(3u64.combine(5, ReduceOp::Min), 3);
        assert_eq!(3.5f64.combine(5.0, ReduceOp::Max), 5.0);
        assert_eq!(u32::MAX.combine(1, ReduceOp::Sum), 0);
        assert_eq!(1.5f32.combine(2.0, ReduceOp::Sum), 3.5);
    }
}
