use super::*;

#[test]
fn a_binomial_tree_reaches_every_member_once() {
    for n in 1..40 {
        let mut heard = vec![0; n];
        for v in 0..n {
            let b = binomial(v, n);
            assert_eq!(b.parent.is_none(), v == 0, "n {n} v {v}");
            for c in b.children() {
                assert_eq!(binomial(c, n).parent, Some(v), "n {n} v {v} child {c}");
                heard[c] += 1;
            }
        }
        assert_eq!(heard[0], 0);
        assert!(heard[1..].iter().all(|&h| h == 1), "n {n}: {heard:?}");
    }
}

#[test]
fn binomial_children_come_smallest_subtree_first() {
    // Member 0 of 8: 1, 2, 4 (subtrees {1}, {2,3}, {4..8}); member 4: 5, 6.
    let kids = |v, n| binomial(v, n).children().collect::<Vec<_>>();
    assert_eq!(kids(0, 8), [1, 2, 4]);
    assert_eq!(kids(0, 5), [1, 2, 4]);
    assert_eq!(kids(4, 8), [5, 6]);
    assert_eq!(kids(4, 6), [5]);
    assert_eq!(binomial(6, 7).parent, Some(4));
    assert_eq!(kids(6, 7), Vec::<usize>::new());
    assert_eq!(kids(0, 1), Vec::<usize>::new());
    let back = binomial(0, 8).children().rev().collect::<Vec<_>>();
    assert_eq!(
        back,
        [4, 2, 1],
        "a broadcast sends to the largest subtree first"
    );
}

#[test]
fn dissemination_pairs_every_send_with_a_receive() {
    for n in 1..20 {
        let rounds: Vec<Vec<(usize, usize)>> =
            (0..n).map(|m| dissemination(m, n).collect()).collect();
        for (m, r) in rounds.iter().enumerate() {
            assert_eq!(r.len(), (n as f64).log2().ceil() as usize, "n {n}");
            for (k, &(to, _)) in r.iter().enumerate() {
                assert_eq!(rounds[to][k].1, m, "n {n}: {to} hears {m} in round {k}");
            }
        }
    }
}

#[test]
fn doubling_partners_are_mutual_and_extras_fold_in() {
    for n in 1..20 {
        for v in 0..n {
            match doubling(v, n) {
                Doubling::Extra { partner } => assert!(
                    matches!(doubling(partner, n), Doubling::Core { extra: Some(e), .. } if e == v),
                    "n {n}: {v}'s partner {partner} does not take its data"
                ),
                Doubling::Core { partners, .. } => {
                    for (k, &p) in partners.iter().enumerate() {
                        let Doubling::Core {
                            partners: theirs, ..
                        } = doubling(p, n)
                        else {
                            panic!("n {n}: {p} is an extra");
                        };
                        assert_eq!(theirs[k], v, "n {n}");
                    }
                }
            }
        }
    }
    assert_eq!(doubling(5, 6), Doubling::Extra { partner: 1 });
    assert_eq!(
        doubling(1, 6),
        Doubling::Core {
            extra: Some(5),
            partners: vec![0, 3]
        }
    );
}

#[test]
fn prefix_partners_skip_members_past_the_end() {
    assert_eq!(prefix_partners(0, 5).collect::<Vec<_>>(), [1, 2, 4]);
    assert_eq!(prefix_partners(4, 5).collect::<Vec<_>>(), [0]);
    assert_eq!(prefix_partners(3, 5).collect::<Vec<_>>(), [2, 1]);
    assert_eq!(prefix_partners(0, 1).count(), 0);
}

#[test]
fn tiers_put_the_root_and_its_host_first() {
    // Hosts a: 0, 2, 4; b: 1, 3; c: 5. Root 3 (on b), seen from member 4 (on a).
    let host = ['a', 'b', 'a', 'b', 'a', 'c'];
    let t = Tiers::new(host.len(), |m| host[m], 3, 4);
    assert_eq!(t.hosts, [vec![3, 1], vec![0, 2, 4], vec![5]]);
    assert_eq!(t.leaders, [3, 0, 5]);
    assert_eq!(t.local, [0, 2, 4]);
    assert!(!t.is_flat());
    assert!(Tiers::new(3, |_| 7, 1, 0).is_flat());
    assert!(Tiers::new(3, |m| m, 1, 0).is_flat());
}
