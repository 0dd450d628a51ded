//! A blocking read by messages (a job of one in AM mode: every access is a message to this
//! rank itself) comes as gets of up to 1 MiB landing in the segment, not as 64 KiB replies:
//! a read of 6 MiB and 5 bytes is seven exchanges, more than the landing area's four slots
//! hold at once, and every byte arrives where it belongs.

use clump_gas::{Gas, GasConfig, LocalMode};

#[test]
fn a_read_by_messages_comes_in_pieces_of_a_mebibyte_and_lands_every_byte() {
    let mut g = Gas::init_with(GasConfig {
        segment_bytes: 8 << 20,
        local: LocalMode::Am,
    })
    .expect("a job of one starts");
    let len = (6 << 20) + 5;
    let a = g.alloc::<u8>(len).unwrap();
    let pattern: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4096) as u8).collect();
    g.local(&a).as_mut_slice().copy_from_slice(&pattern);

    let before = g.stats();
    let mut back = vec![0u8; len];
    g.read_bulk(a.at(0, 0), &mut back).unwrap();
    let messages = g.stats().self_messages - before.self_messages;
    assert!(
        back == pattern,
        "the bytes read differ from those in the segment"
    );
    assert_eq!(messages, 14, "seven gets of up to 1 MiB and their replies");

    // A read that starts and ends inside a piece, and one of a single byte.
    let mut part = vec![0u8; (1 << 20) + 3];
    g.read_bulk(a.at(0, 5), &mut part).unwrap();
    assert!(part == pattern[5..5 + part.len()]);
    assert_eq!(g.read(a.at(0, len - 1)).unwrap(), pattern[len - 1]);
}
