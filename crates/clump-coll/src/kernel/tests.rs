use super::*;

fn bytes<T: Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

#[test]
fn integer_operators() {
    let cases = [
        (Op::Sum, [4, -1, 0]),
        (Op::Prod, [3, -6, 0]),
        (Op::Min, [1, -3, 0]),
        (Op::Max, [3, 2, 0]),
        (Op::Land, [1, 1, 0]),
        (Op::Lor, [1, 1, 0]),
        (Op::Lxor, [0, 0, 0]),
        (Op::Band, [1, 2 & -3, 0]),
        (Op::Bor, [3, 2 | -3, 0]),
        (Op::Bxor, [2, 2 ^ -3, 0]),
        (Op::Replace, [3, -3, 0]),
        (Op::NoOp, [1, 2, 0]),
    ];
    for (op, want) in cases {
        let mut higher = [3i32, -3, 0];
        assert!(combine_slice(op, &[1, 2, 0], &mut higher), "{op:?}");
        assert_eq!(higher, want, "{op:?}");
    }
}

#[test]
fn sums_and_products_wrap() {
    let mut h = [u32::MAX, 1 << 31];
    assert!(combine_slice(Op::Sum, &[1, 1 << 31], &mut h));
    assert_eq!(h, [0, 0]);
    let mut h = [i8::MAX];
    assert!(combine_slice(Op::Prod, &[2], &mut h));
    assert_eq!(h, [-2]);
    let mut h = [usize::MAX];
    assert!(combine_slice(Op::Sum, &[1], &mut h));
    assert_eq!(h, [0]);
}

#[test]
fn floats_refuse_bitwise_and_location_operators() {
    let mut h = [2.0f64, 4.0];
    assert!(combine_slice(Op::Prod, &[1.5, -2.0], &mut h));
    assert_eq!(h, [3.0, -8.0]);
    assert!(combine_slice(Op::Max, &[1.5f32], &mut [1.0f32]));
    for op in [Op::Band, Op::Bor, Op::Bxor, Op::MaxLoc, Op::MinLoc] {
        let mut h = [1.0f64];
        assert!(!combine_slice(op, &[2.0], &mut h), "{op:?}");
        assert_eq!(h, [1.0], "a refused operation changes nothing");
    }
    assert!(!combine(Op::MaxLoc, Elem::I32, &[], &mut []));
}

#[test]
fn locations_take_the_lower_index_on_ties() {
    let pair = |v: f64, i: i32| [v.to_ne_bytes().to_vec(), i.to_ne_bytes().to_vec()].concat();
    let lower = [pair(2.0, 5), pair(1.0, 3)].concat();
    let mut higher = [pair(2.0, 1), pair(7.0, 9)].concat();
    assert!(combine(
        Op::MaxLoc,
        Elem::Loc(Loc::F64I32),
        &lower,
        &mut higher
    ));
    assert_eq!(higher, [pair(2.0, 1), pair(7.0, 9)].concat());
    assert!(combine(
        Op::MinLoc,
        Elem::Loc(Loc::F64I32),
        &lower,
        &mut higher
    ));
    assert_eq!(higher, [pair(2.0, 1), pair(1.0, 3)].concat());
    // Fortran's pairs carry the index in the value's type.
    let two = |v: f32, i: f32| bytes(&[v, i]);
    let mut higher = two(-1.0, 7.0);
    assert!(combine(
        Op::MinLoc,
        Elem::Loc(Loc::F32F32),
        &two(-2.0, 9.0),
        &mut higher
    ));
    assert_eq!(higher, two(-2.0, 9.0));
    assert!(!combine(
        Op::Sum,
        Elem::Loc(Loc::F32F32),
        &two(1.0, 1.0),
        &mut higher
    ));
}

#[test]
fn complex_numbers_sum_and_multiply_only() {
    let mut h = [[3.0f64, -1.0]];
    assert!(combine_slice(Op::Prod, &[[1.0, 2.0]], &mut h));
    assert_eq!(h, [[5.0, 5.0]], "(1+2i)(3-i) = 5+5i");
    let mut h = [[0.0f32, 1.0]];
    assert!(combine_slice(Op::Prod, &[[0.0, 1.0]], &mut h));
    assert_eq!(h, [[-1.0, 0.0]], "i * i = -1");
    assert!(combine_slice(Op::Sum, &[[1.0, 2.0]], &mut h));
    assert_eq!(h, [[0.0, 2.0]]);
    assert!(!combine_slice(Op::Max, &[[0.0f32, 1.0]], &mut h));
}
