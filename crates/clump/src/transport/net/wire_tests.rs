//! Tests of the packet codec: layout, round trips, one test per validation failure, and
//! property tests (round trip of arbitrary packets; no panic and no false accept on
//! arbitrary bytes and mutated datagrams).

use super::*;
use proptest::prelude::*;
use proptest::sample::Index;

#[path = "wire_fixtures.rs"]
pub(super) mod fixtures;
use fixtures::{enc, ep, header, JOB};

const DATA_KINDS: [DataKind; 5] = [
    DataKind::Short,
    DataKind::Medium,
    DataKind::Long,
    DataKind::Get,
    DataKind::GetReply,
];

/// Every packet kind, with a returned packet of each data kind.
fn all_kinds() -> Vec<PacketKind> {
    let mut kinds: Vec<PacketKind> = DATA_KINDS.iter().map(|&k| k.into()).collect();
    kinds.push(PacketKind::Ack);
    kinds.push(PacketKind::Nack);
    for (i, of) in DATA_KINDS.into_iter().enumerate() {
        let reason = ReturnReason::from_u8(1 + (i as u8 * 2) % 9).unwrap();
        kinds.push(PacketKind::Returned { reason, of });
    }
    kinds
}

/// A valid datagram: a medium request with two arguments and a 10-byte payload.
fn sample() -> Vec<u8> {
    enc(&header(PacketKind::Medium, 2, 10), b"0123456789")
}

fn set(d: &mut [u8], at: usize, bytes: &[u8]) {
    d[at..at + bytes.len()].copy_from_slice(bytes);
}

/// Recomputes the CRC after a deliberate edit, so that the check after it is reached.
fn reseal(d: &mut [u8]) {
    let crc = checksum(d);
    set(d, offsets::CRC, &crc.to_le_bytes());
}

/// `sample()` with `bytes` written at `at` and the CRC recomputed.
fn edited(at: usize, bytes: &[u8]) -> Vec<u8> {
    let mut d = sample();
    set(&mut d, at, bytes);
    reseal(&mut d);
    d
}

fn err(d: &[u8]) -> WireError {
    decode(d, JOB).expect_err("datagram should be rejected")
}

fn encode_err(h: &Header, payload: &[u8]) -> WireError {
    let mut out = vec![1, 2, 3];
    let e = encode(h, payload, &mut out).expect_err("header should be refused");
    assert_eq!(
        out,
        [1, 2, 3],
        "a failed encode leaves the buffer as it was"
    );
    e
}

#[test]
fn layout_matches_the_documented_offsets() {
    let mut h = header(PacketKind::Get, 2, 0);
    h.channel = Channel::Request;
    h.ack = Some(0xaabb_ccdd);
    h.seq = 0x1122_3344;
    h.handler = 0x42;
    h.timestamp = 0x0bad_cafe;
    h.echo = Some(0x5151_7171);
    let d = enc(&h, &[]);
    assert_eq!(d.len(), FIXED_HEADER_LEN + 8);
    assert_eq!(&d[0..2], b"CL");
    assert_eq!(d[offsets::VERSION], 3);
    assert_eq!(d[offsets::KIND], 4);
    assert_eq!(d[offsets::FLAGS], 0b110);
    assert_eq!(d[offsets::HANDLER], 0x42);
    assert_eq!(d[offsets::NARGS], 2);
    assert_eq!(d[offsets::REASON], 0);
    let u32_at = |at: usize| u32::from_le_bytes(d[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(d[at..at + 8].try_into().unwrap());
    assert_eq!(
        u32_at(offsets::CRC),
        crc32c::crc32c(&{
            let mut z = d.clone();
            z[8..12].fill(0);
            z
        })
    );
    assert_eq!(u32_at(offsets::SEQ), 0x1122_3344);
    assert_eq!(u32_at(offsets::ACK), 0xaabb_ccdd);
    assert_eq!(u32_at(offsets::PAYLOAD_LEN), 0);
    assert_eq!(u32_at(offsets::FRAG_OFFSET), 0);
    assert_eq!(u32_at(offsets::TOTAL_LEN), 65536);
    assert_eq!(u64_at(offsets::JOB), JOB);
    assert_eq!(u32_at(offsets::SRC), 101);
    assert_eq!(u32_at(offsets::SRC + 4), 7);
    assert_eq!(u64_at(offsets::SRC + 8), 0xfeed_f00d_dead_beef);
    assert_eq!(u32_at(offsets::DST), 202);
    assert_eq!(u32_at(offsets::DST + 4), 9);
    assert_eq!(u64_at(offsets::DST + 8), 0x1234_5678_9abc_def0);
    assert_eq!(u64_at(offsets::TAG), 0x5eed);
    assert_eq!(u64_at(offsets::SEGMENT_OFFSET), 8192);
    assert_eq!(u64_at(offsets::REPLY_OFFSET), 128);
    assert_eq!(u32_at(offsets::TIMESTAMP), 0x0bad_cafe);
    assert_eq!(u32_at(offsets::ECHO), 0x5151_7171);
    assert_eq!(u32_at(offsets::ARGS), 0x1000_0001);
    assert_eq!(u32_at(offsets::ARGS + 4), 0x2000_0002);

    // A returned long, on the reply channel, without an ack.
    let mut h = header(
        PacketKind::Returned {
            reason: ReturnReason::BadTag,
            of: DataKind::Long,
        },
        0,
        3,
    );
    h.channel = Channel::Reply;
    h.ack = None;
    let d = enc(&h, b"abc");
    assert_eq!(d[offsets::KIND], 8 | (3 << 4));
    assert_eq!(d[offsets::REASON], 2);
    assert_eq!(d[offsets::FLAGS], 0b01);
    assert_eq!(u32_at_(&d, offsets::ACK), 0);
    assert_eq!(u32_at_(&d, offsets::PAYLOAD_LEN), 3);
    assert_eq!(&d[FIXED_HEADER_LEN..], b"abc");
}

fn u32_at_(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}

#[test]
fn every_kind_round_trips_with_0_to_16_args_and_payloads_0_1_max() {
    let max = vec![0xa5u8; MAX_DATAGRAM_PAYLOAD];
    let mut buf = vec![0u8; MAX_DATAGRAM];
    for kind in all_kinds() {
        let carries = matches!(kind.shape(), Shape::Medium | Shape::Bulk);
        let sizes: &[usize] = if carries {
            &[0, 1, MAX_DATAGRAM_PAYLOAD]
        } else {
            &[0]
        };
        let max_args = if matches!(kind, PacketKind::Ack | PacketKind::Nack) {
            0
        } else {
            MAX_ARGS
        };
        for nargs in 0..=max_args {
            for &size in sizes {
                let h = header(kind, nargs, size);
                let payload = &max[..size];
                let d = enc(&h, payload);
                assert_eq!(d.len(), h.datagram_len(size));
                assert!(d.len() <= MAX_DATAGRAM);
                let (got, got_payload) = decode(&d, JOB)
                    .unwrap_or_else(|e| panic!("{kind:?} nargs {nargs} size {size}: {e}"));
                assert_eq!(got, h);
                assert_eq!(got.args.len(), nargs.min(max_args));
                assert_eq!(got_payload, payload);
                // Encoding into a slice gives the same bytes; re-encoding too.
                let n = encode_into(&h, payload, &mut buf).unwrap();
                assert_eq!(&buf[..n], &d[..]);
                assert_eq!(enc(&got, got_payload), d);
            }
        }
    }
}

#[test]
fn encode_appends_to_what_the_buffer_holds() {
    let mut out = b"xyz".to_vec();
    encode(&header(PacketKind::Short, 1, 0), &[], &mut out).unwrap();
    assert_eq!(&out[..3], b"xyz");
    assert!(decode(&out[3..], JOB).is_ok());
}

#[test]
fn a_medium_larger_than_a_datagram_is_fragmented_and_reassembled() {
    let message: Vec<u8> = (0..MAX_MEDIUM).map(|i| (i * 7 % 251) as u8).collect();
    let mut h = header(PacketKind::Medium, 4, 0);
    h.total_len = message.len() as u32;
    let datagrams: Vec<Vec<u8>> = message
        .chunks(1400)
        .enumerate()
        .map(|(i, chunk)| {
            h.frag_offset = (i * 1400) as u32;
            h.seq = i as u32;
            enc(&h, chunk)
        })
        .collect();
    let mut rebuilt = vec![0u8; MAX_MEDIUM];
    let mut got_bytes = 0;
    // Out of order, as the network may deliver them.
    for d in datagrams.iter().rev() {
        let (g, payload) = decode(d, JOB).unwrap();
        assert_eq!(g.total_len as usize, MAX_MEDIUM);
        let at = g.frag_offset as usize;
        rebuilt[at..at + payload.len()].copy_from_slice(payload);
        got_bytes += payload.len();
    }
    assert_eq!(got_bytes, MAX_MEDIUM);
    assert_eq!(rebuilt, message);

    // The last fragment ends exactly at the total; one byte further is refused.
    let mut h = header(PacketKind::Long, 0, 0);
    h.total_len = 1000;
    h.frag_offset = 900;
    assert!(decode(&enc(&h, &[1; 100]), JOB).is_ok());
    h.frag_offset = 901;
    assert_eq!(
        encode_err(&h, &[1; 100]),
        WireError::FragmentOutOfBounds {
            offset: 901,
            len: 100,
            total: 1000
        }
    );
}

#[test]
fn truncated_datagrams_are_refused() {
    let d = sample();
    for len in [0, 1, 2, 3, 12, FIXED_HEADER_LEN - 1] {
        assert_eq!(
            err(&d[..len]),
            WireError::Truncated {
                len,
                need: FIXED_HEADER_LEN
            }
        );
    }
    // Arguments cut off: the header needs 8 more bytes than are left.
    assert_eq!(
        err(&d[..FIXED_HEADER_LEN + 4]),
        WireError::Truncated {
            len: FIXED_HEADER_LEN + 4,
            need: FIXED_HEADER_LEN + 8
        }
    );
    // Payload cut off.
    for cut in 1..=10 {
        assert_eq!(
            err(&d[..d.len() - cut]),
            WireError::LengthMismatch {
                declared: 10,
                actual: 10 - cut
            }
        );
    }
}

#[test]
fn a_flipped_magic_is_refused() {
    let mut d = sample();
    d[0] ^= 0x20;
    assert_eq!(err(&d), WireError::BadMagic(*b"cL"));
    assert_eq!(err(&edited(1, b"X")), WireError::BadMagic(*b"CX"));
    assert_eq!(err(&[0u8; 200]), WireError::BadMagic([0, 0]));
}

#[test]
fn another_version_is_refused() {
    for v in [0u8, 1, 2, 255] {
        assert_eq!(
            err(&edited(offsets::VERSION, &[v])),
            WireError::BadVersion(v)
        );
    }
}

#[test]
fn a_packet_of_another_job_is_refused() {
    let d = sample();
    assert_eq!(
        decode(&d, JOB + 1).unwrap_err(),
        WireError::WrongJob {
            expected: JOB + 1,
            found: JOB
        }
    );
    assert_eq!(
        err(&edited(offsets::JOB, &7u64.to_le_bytes())),
        WireError::WrongJob {
            expected: JOB,
            found: 7
        }
    );
}

#[test]
fn unknown_kinds_are_refused() {
    for k in [0u8, 9, 0x0f, 0xf0] {
        assert_eq!(err(&edited(offsets::KIND, &[k])), WireError::BadKind(k));
    }
    // A returned-kind nibble on a packet that is not a returned one.
    assert_eq!(
        err(&edited(offsets::KIND, &[0x22])),
        WireError::BadKind(0x22)
    );
    // A returned packet of an unknown kind.
    for of in [0u8, 6, 15] {
        let mut d = enc(
            &header(
                PacketKind::Returned {
                    reason: ReturnReason::BadHandler,
                    of: DataKind::Short,
                },
                1,
                0,
            ),
            &[],
        );
        set(&mut d, offsets::KIND, &[8 | (of << 4)]);
        reseal(&mut d);
        assert_eq!(err(&d), WireError::BadReturnedKind(of));
    }
}

#[test]
fn return_reasons_are_checked() {
    let returned = header(
        PacketKind::Returned {
            reason: ReturnReason::Unreachable,
            of: DataKind::Short,
        },
        0,
        0,
    );
    for r in [0u8, 10, 255] {
        let mut d = enc(&returned, &[]);
        set(&mut d, offsets::REASON, &[r]);
        reseal(&mut d);
        assert_eq!(err(&d), WireError::BadReason(r));
    }
    for r in 1..=9u8 {
        let mut d = enc(&returned, &[]);
        set(&mut d, offsets::REASON, &[r]);
        reseal(&mut d);
        let (h, _) = decode(&d, JOB).unwrap();
        let PacketKind::Returned { reason, .. } = h.kind else {
            panic!("{h:?}")
        };
        assert_eq!(reason as u8, r);
    }
    // A reason on a packet that is not returned.
    assert_eq!(
        err(&edited(offsets::REASON, &[3])),
        WireError::UnexpectedReason(3)
    );
}

#[test]
fn unknown_flags_and_a_stray_ack_number_are_refused() {
    assert_eq!(
        err(&edited(offsets::FLAGS, &[0b1_0010])),
        WireError::UnknownFlags(0b1_0000)
    );
    assert_eq!(
        err(&edited(offsets::FLAGS, &[0x80])),
        WireError::UnknownFlags(0x80)
    );
    // The ack flag cleared while the number stays.
    assert_eq!(
        err(&edited(offsets::FLAGS, &[0])),
        WireError::AckWithoutFlag(76)
    );
    // A timestamp echo without its flag.
    assert_eq!(
        err(&edited(offsets::ECHO, &[9])),
        WireError::EchoWithoutFlag(9)
    );
    let mut ack = header(PacketKind::Ack, 0, 0);
    ack.ack = None;
    assert_eq!(encode_err(&ack, &[]), WireError::MissingAck);
}

#[test]
fn more_than_16_args_are_refused() {
    for n in [17u8, 18, 255] {
        assert_eq!(
            err(&edited(offsets::NARGS, &[n])),
            WireError::TooManyArgs(usize::from(n))
        );
    }
    assert_eq!(Args::new(&[0; 17]), Err(WireError::TooManyArgs(17)));
    assert_eq!(Args::new(&[1, 2]).unwrap().as_slice(), &[1, 2]);
}

#[test]
fn a_payload_length_that_disagrees_with_the_datagram_is_refused() {
    for declared in [0u32, 9, 11, u32::MAX] {
        assert_eq!(
            err(&edited(offsets::PAYLOAD_LEN, &declared.to_le_bytes())),
            WireError::LengthMismatch {
                declared,
                actual: 10
            }
        );
    }
    let mut d = sample();
    d.push(0);
    assert_eq!(
        err(&d),
        WireError::LengthMismatch {
            declared: 10,
            actual: 11
        }
    );
}

#[test]
fn a_payload_beyond_the_datagram_limit_is_refused() {
    let len = MAX_DATAGRAM_PAYLOAD + 1;
    let mut h = header(PacketKind::Medium, 0, 0);
    h.total_len = len as u32;
    let payload = vec![0u8; len];
    assert_eq!(encode_err(&h, &payload), WireError::PayloadTooLarge { len });
    // Built by hand: a valid datagram, one byte longer and sealed.
    let mut d = enc(&h.clone(), &payload[1..]);
    d.push(0);
    set(&mut d, offsets::PAYLOAD_LEN, &(len as u32).to_le_bytes());
    reseal(&mut d);
    assert_eq!(err(&d), WireError::PayloadTooLarge { len });
}

#[test]
fn fragment_bounds_and_totals_are_checked() {
    let frag = |offset: u32, total: u32| {
        let mut d = sample();
        set(&mut d, offsets::FRAG_OFFSET, &offset.to_le_bytes());
        set(&mut d, offsets::TOTAL_LEN, &total.to_le_bytes());
        reseal(&mut d);
        d
    };
    assert!(decode(&frag(0, 10), JOB).is_ok());
    assert!(decode(&frag(5, 15), JOB).is_ok());
    for (offset, total) in [
        (0, 9),
        (1, 10),
        (u32::MAX, 10),
        (u32::MAX, MAX_MEDIUM as u32),
    ] {
        assert_eq!(
            err(&frag(offset, total)),
            WireError::FragmentOutOfBounds {
                offset,
                len: 10,
                total
            }
        );
    }
    // A medium beyond MAX_MEDIUM, a long beyond MAX_LONG.
    assert_eq!(
        err(&frag(0, MAX_MEDIUM as u32 + 1)),
        WireError::TotalTooLarge {
            kind: "medium",
            total: MAX_MEDIUM as u32 + 1,
            max: MAX_MEDIUM
        }
    );
    let mut long = header(PacketKind::Long, 0, 10);
    long.total_len = MAX_LONG as u32 + 1;
    assert_eq!(
        encode_err(&long, &[0; 10]),
        WireError::TotalTooLarge {
            kind: "long",
            total: MAX_LONG as u32 + 1,
            max: MAX_LONG
        }
    );
    long.total_len = MAX_LONG as u32;
    long.frag_offset = MAX_LONG as u32 - 10;
    assert!(decode(&enc(&long, &[0; 10]), JOB).is_ok());
    // An empty fragment of a non-empty message carries nothing.
    assert_eq!(
        encode_err(&header_with(PacketKind::GetReply, |h| h.total_len = 5), &[]),
        WireError::EmptyFragment {
            offset: 0,
            total: 5
        }
    );
    // ... but a returned message may leave its payload out.
    let returned = PacketKind::Returned {
        reason: ReturnReason::BadSegmentOffset,
        of: DataKind::Long,
    };
    assert!(decode(&enc(&header_with(returned, |h| h.total_len = 5), &[]), JOB).is_ok());
}

fn header_with(kind: PacketKind, edit: impl FnOnce(&mut Header)) -> Header {
    let mut h = header(kind, 1, 0);
    edit(&mut h);
    h
}

#[test]
fn offsets_that_overflow_are_refused() {
    let mut long = header(PacketKind::Long, 0, 10);
    long.segment_offset = u64::MAX - 10;
    assert!(decode(&enc(&long, &[0; 10]), JOB).is_ok());
    long.segment_offset = u64::MAX - 9;
    assert_eq!(
        encode_err(&long, &[0; 10]),
        WireError::OffsetOverflow {
            offset: u64::MAX - 9,
            len: 10
        }
    );
    let mut d = enc(&header(PacketKind::Long, 0, 10), &[0; 10]);
    set(&mut d, offsets::SEGMENT_OFFSET, &u64::MAX.to_le_bytes());
    reseal(&mut d);
    assert_eq!(
        err(&d),
        WireError::OffsetOverflow {
            offset: u64::MAX,
            len: 10
        }
    );
    let get = header_with(PacketKind::Get, |h| h.reply_offset = u64::MAX);
    assert_eq!(
        encode_err(&get, &[]),
        WireError::OffsetOverflow {
            offset: u64::MAX,
            len: 65536
        }
    );
}

#[test]
fn fields_a_kind_does_not_use_are_refused() {
    let not = |kind: &'static str, field: &'static str| WireError::FieldNotAllowed { kind, field };
    let cases: Vec<(Header, &[u8], WireError)> = vec![
        (
            header(PacketKind::Short, 0, 0),
            b"x",
            not("short", "a payload"),
        ),
        (
            header_with(PacketKind::Short, |h| h.total_len = 1),
            b"",
            not("short", "a message length"),
        ),
        (
            header_with(PacketKind::Short, |h| h.frag_offset = 1),
            b"",
            not("short", "a fragment offset"),
        ),
        (
            header_with(PacketKind::Short, |h| h.segment_offset = 1),
            b"",
            not("short", "a segment offset"),
        ),
        (
            header_with(PacketKind::Medium, |h| h.segment_offset = 1),
            b"",
            not("medium", "a segment offset"),
        ),
        (
            header_with(PacketKind::Long, |h| h.reply_offset = 1),
            b"",
            not("long", "a reply offset"),
        ),
        (header(PacketKind::Get, 0, 0), b"x", not("get", "a payload")),
        (
            header_with(PacketKind::Ack, |h| h.handler = 1),
            b"",
            not("ack", "a handler"),
        ),
        (
            header_with(PacketKind::Nack, |h| h.args = Args::new(&[1]).unwrap()),
            b"",
            not("nack", "arguments"),
        ),
        (
            header_with(PacketKind::Get, |h| h.channel = Channel::Reply),
            b"",
            WireError::WrongChannel {
                kind: "get",
                expected: Channel::Request,
            },
        ),
        (
            header_with(PacketKind::GetReply, |h| h.channel = Channel::Request),
            b"",
            WireError::WrongChannel {
                kind: "get reply",
                expected: Channel::Reply,
            },
        ),
    ];
    for (h, payload, want) in cases {
        assert_eq!(encode_err(&h, payload), want, "{h:?}");
        // The same header sneaked past the encoder is refused by the decoder.
        let mut d = enc(&header(PacketKind::Medium, 0, 0), &[]);
        sneak(&mut d, &h, payload);
        assert_eq!(err(&d), want, "{h:?}");
    }
}

/// Rewrites `d` as the datagram of `h` and `payload` without validating them.
fn sneak(d: &mut Vec<u8>, h: &Header, payload: &[u8]) {
    let (kind, reason) = h.kind.to_wire();
    let flags = u8::from(h.channel == Channel::Reply) | (u8::from(h.ack.is_some()) << 1);
    d.clear();
    d.resize(h.wire_len() + payload.len(), 0);
    set(d, 0, &MAGIC);
    set(d, offsets::VERSION, &[VERSION, kind, flags, h.handler]);
    set(d, offsets::NARGS, &[h.args.len() as u8, reason]);
    set(d, offsets::SEQ, &h.seq.to_le_bytes());
    set(d, offsets::ACK, &h.ack.unwrap_or(0).to_le_bytes());
    set(
        d,
        offsets::PAYLOAD_LEN,
        &(payload.len() as u32).to_le_bytes(),
    );
    set(d, offsets::FRAG_OFFSET, &h.frag_offset.to_le_bytes());
    set(d, offsets::TOTAL_LEN, &h.total_len.to_le_bytes());
    set(d, offsets::JOB, &h.job.to_le_bytes());
    set(d, offsets::TAG, &h.tag.to_le_bytes());
    set(d, offsets::SEGMENT_OFFSET, &h.segment_offset.to_le_bytes());
    set(d, offsets::REPLY_OFFSET, &h.reply_offset.to_le_bytes());
    for (i, a) in h.args.iter().enumerate() {
        set(d, offsets::ARGS + 4 * i, &a.to_le_bytes());
    }
    let at = h.wire_len();
    set(d, at, payload);
    reseal(d);
}

#[test]
fn a_corrupted_byte_anywhere_is_refused() {
    let framing = |at: usize| {
        at < 3
            || at == offsets::NARGS
            || (offsets::PAYLOAD_LEN..offsets::PAYLOAD_LEN + 4).contains(&at)
    };
    let d = sample();
    for at in 0..d.len() {
        for mask in [0x01u8, 0x10, 0x80, 0xff] {
            let mut bad = d.clone();
            bad[at] ^= mask;
            let e = err(&bad);
            if !framing(at) {
                assert!(
                    matches!(e, WireError::CrcMismatch { .. }),
                    "byte {at} ^ {mask:#x}: {e}"
                );
            }
        }
    }
}

#[test]
fn encode_into_a_short_buffer_is_refused() {
    let h = header(PacketKind::Medium, 2, 10);
    let need = h.datagram_len(10);
    let mut buf = vec![0u8; need - 1];
    assert_eq!(
        encode_into(&h, b"0123456789", &mut buf),
        Err(WireError::BufferTooSmall {
            len: need - 1,
            need
        })
    );
}

#[test]
fn errors_explain_themselves() {
    let text = |e: WireError| e.to_string();
    assert!(text(WireError::WrongJob {
        expected: 1,
        found: 2
    })
    .contains("stale"));
    assert!(text(WireError::CrcMismatch {
        stored: 1,
        computed: 2
    })
    .contains("CRC32C"));
    assert!(text(WireError::TooManyArgs(17)).contains("17"));
    assert_eq!(
        text(WireError::WrongChannel {
            kind: "get",
            expected: Channel::Request
        }),
        "get packet must travel on the request channel"
    );
}

// ---- Fuzzing seeds ----

fn fuzz_corpus() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/wire_decode")
}

/// The seeds of the fuzz corpus: one valid datagram of each kind, some with arguments,
/// payloads and fragments.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for kind in all_kinds() {
        let name = match kind {
            PacketKind::Returned { of, .. } => format!("returned-{}", PacketKind::from(of).name()),
            k => k.name().to_string(),
        }
        .replace(' ', "-");
        let carries = matches!(kind.shape(), Shape::Medium | Shape::Bulk);
        let (nargs, payload): (usize, &[u8]) = if carries {
            (3, b"payload bytes")
        } else if matches!(kind, PacketKind::Ack | PacketKind::Nack) {
            (0, b"")
        } else {
            (16, b"")
        };
        out.push((name, enc(&header(kind, nargs, payload.len()), payload)));
    }
    let mut frag = header(PacketKind::Medium, 1, 0);
    frag.total_len = 3000;
    frag.frag_offset = 1400;
    out.push(("medium-fragment".into(), enc(&frag, &[7; 1400])));
    out.push((
        "credit-then-request".into(),
        fixtures::credit_then_request(),
    ));
    out.push(("coalesced".into(), fixtures::coalesced()));
    out
}

/// Writes the fuzz seeds: `cargo test -p clump --lib write_fuzz_seeds -- --ignored`
/// (after a change of the format).
#[test]
#[ignore]
fn write_fuzz_seeds() {
    let dir = fuzz_corpus();
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in seeds() {
        std::fs::write(dir.join(format!("seed-{name}")), bytes).unwrap();
    }
}

#[test]
fn fuzz_seeds_are_current() {
    let Ok(entries) = std::fs::read_dir(fuzz_corpus()) else {
        clump_testkit::skip("no fuzz directory beside this checkout");
        return;
    };
    let mut seen = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        if !path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("seed-")
        {
            continue;
        }
        let mut rest = &std::fs::read(&path).unwrap()[..];
        while !rest.is_empty() {
            let next = decode_next(rest, JOB, Integrity::Crc).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            rest = next.2;
        }
        seen += 1;
    }
    assert_eq!(
        seen,
        seeds().len(),
        "run write_fuzz_seeds to refresh the corpus"
    );
}

// ---- Property tests ----

fn arb_data_kind() -> impl Strategy<Value = DataKind> {
    prop::sample::select(DATA_KINDS.to_vec())
}

fn arb_kind() -> impl Strategy<Value = PacketKind> {
    prop_oneof![
        arb_data_kind().prop_map(PacketKind::from),
        Just(PacketKind::Ack),
        Just(PacketKind::Nack),
        (1u8..=9, arb_data_kind()).prop_map(|(r, of)| PacketKind::Returned {
            reason: ReturnReason::from_u8(r).unwrap(),
            of
        }),
    ]
}

fn arb_endpoint() -> impl Strategy<Value = EndpointId> {
    (any::<u32>(), any::<u32>(), any::<u64>()).prop_map(|(pid, fd, nonce)| ep(pid, fd, nonce))
}

fn arb_offset() -> impl Strategy<Value = u64> {
    prop_oneof![any::<u64>(), Just(0), Just(u64::MAX)]
}

/// An arbitrary valid packet: arbitrary fields, bent to the rules of its kind.
fn arb_packet() -> impl Strategy<Value = (Header, Vec<u8>)> {
    let names = (any::<u64>(), arb_endpoint(), arb_endpoint(), any::<u64>());
    let call = (
        any::<u8>(),
        prop::collection::vec(any::<u32>(), 0..=MAX_ARGS),
        any::<u32>(),
        any::<Option<u32>>(),
        any::<bool>(),
    );
    let data = (
        prop::collection::vec(any::<u8>(), 0..=1500),
        any::<u32>(),
        any::<u32>(),
        arb_offset(),
        arb_offset(),
    );
    (arb_kind(), names, call, data).prop_map(
        |(
            kind,
            (job, src, dst, tag),
            (handler, args, seq, ack, reply),
            (mut payload, a, b, seg, rep),
        )| {
            let channel = match kind {
                PacketKind::Get => Channel::Request,
                PacketKind::GetReply => Channel::Reply,
                _ if reply => Channel::Reply,
                _ => Channel::Request,
            };
            let mut h = Header::new(kind, channel);
            h.job = job;
            h.src = src;
            h.dst = dst;
            h.tag = tag;
            h.seq = seq;
            h.ack = ack;
            match kind {
                PacketKind::Ack => h.ack = Some(ack.unwrap_or(seq)),
                PacketKind::Nack => {}
                _ => {
                    h.handler = handler;
                    h.args = Args::new(&args).unwrap();
                }
            }
            let returned = matches!(kind, PacketKind::Returned { .. });
            let shape = kind.shape();
            match shape {
                Shape::Bare => payload.clear(),
                Shape::Sack => {
                    payload.truncate(SACK_BYTES);
                    h.total_len = payload.len() as u32;
                }
                Shape::Medium | Shape::Bulk => {
                    let max = if shape == Shape::Medium {
                        MAX_MEDIUM
                    } else {
                        MAX_LONG
                    };
                    let room = max - payload.len();
                    let frag = a as usize % (room + 1);
                    let extra = b as usize % (room - frag + 1);
                    if payload.is_empty() && !returned {
                        h.total_len = 0;
                    } else {
                        h.frag_offset = frag as u32;
                        h.total_len = (frag + payload.len() + extra) as u32;
                    }
                    if shape == Shape::Bulk {
                        h.segment_offset = seg.min(u64::MAX - u64::from(h.total_len));
                    }
                }
                Shape::GetRequest => {
                    payload.clear();
                    h.total_len = (a as usize % (MAX_LONG + 1)) as u32;
                    h.segment_offset = seg.min(u64::MAX - u64::from(h.total_len));
                    h.reply_offset = rep.min(u64::MAX - u64::from(h.total_len));
                }
            }
            (h, payload)
        },
    )
}

/// Decodes `d` under its own job (so that the job check is passed and the rest reached);
/// an accepted datagram must be the canonical encoding of what it decodes to.
fn decode_any(d: &[u8]) -> Result<(Header, &[u8]), WireError> {
    let job = d
        .get(offsets::JOB..offsets::JOB + 8)
        .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap()));
    let got = decode(d, job);
    if let Ok((h, payload)) = &got {
        assert_eq!(
            enc(h, payload),
            d,
            "an accepted datagram re-encodes to itself"
        );
    }
    got
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_packets_round_trip((h, payload) in arb_packet()) {
        let d = enc(&h, &payload);
        prop_assert_eq!(d.len(), h.datagram_len(payload.len()));
        let (got, got_payload) = decode(&d, h.job).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(got, h);
        prop_assert_eq!(got_payload, &payload[..]);
        prop_assert_eq!(enc(&got, got_payload), d);
    }

    #[test]
    fn a_single_byte_mutation_is_always_refused(
        (h, payload) in arb_packet(),
        at in any::<Index>(),
        byte in any::<u8>(),
    ) {
        let d = enc(&h, &payload);
        let at = at.index(d.len());
        let mut bad = d.clone();
        bad[at] = byte;
        let got = decode_any(&bad);
        if byte == d[at] {
            prop_assert!(got.is_ok());
        } else {
            prop_assert!(got.is_err(), "byte {} set to {:#x} was accepted", at, byte);
        }
    }

    #[test]
    fn a_truncated_or_extended_datagram_is_refused(
        (h, payload) in arb_packet(),
        cut in any::<Index>(),
        extra in prop::collection::vec(any::<u8>(), 1..8),
    ) {
        let d = enc(&h, &payload);
        prop_assert!(decode_any(&d[..cut.index(d.len())]).is_err());
        let mut longer = d.clone();
        longer.extend_from_slice(&extra);
        prop_assert!(decode_any(&longer).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400), job in any::<u64>()) {
        let _ = decode(&bytes, job);
        let _ = decode_any(&bytes);
    }

    /// Arbitrary bytes with valid framing and CRC, so that decoding reaches the checks of
    /// every field: no panic, and whatever is accepted is canonical.
    #[test]
    fn arbitrary_sealed_headers_never_panic(
        mut bytes in prop::collection::vec(any::<u8>(), FIXED_HEADER_LEN..FIXED_HEADER_LEN + 200),
        nargs in 0u8..=16,
        kind_lo in prop_oneof![3 => 1u8..=8, 1 => 0u8..16],
        kind_hi in prop_oneof![2 => Just(0u8), 2 => 1u8..=5, 1 => 0u8..16],
        zero in any::<[u8; 8]>(),
    ) {
        let header_len = header_len(usize::from(nargs));
        prop_assume!(bytes.len() >= header_len);
        let payload_len = (bytes.len() - header_len) as u32;
        set(&mut bytes, 0, &MAGIC);
        set(&mut bytes, offsets::VERSION, &[VERSION, kind_lo | (kind_hi << 4)]);
        set(&mut bytes, offsets::NARGS, &[nargs]);
        set(&mut bytes, offsets::PAYLOAD_LEN, &payload_len.to_le_bytes());
        // Bring some fields into range now and then, so the later checks are reached.
        let fields = [
            (offsets::FLAGS, 1),
            (offsets::HANDLER, 1),
            (offsets::REASON, 1),
            (offsets::ACK, 4),
            (offsets::FRAG_OFFSET, 4),
            (offsets::TOTAL_LEN, 4),
            (offsets::SEGMENT_OFFSET, 8),
            (offsets::REPLY_OFFSET, 8),
        ];
        for ((at, n), z) in fields.into_iter().zip(zero) {
            if z < 192 {
                bytes[at..at + n].fill(0);
            }
        }
        reseal(&mut bytes);
        let _ = decode_any(&bytes);
    }
}

proptest! {
    /// The one-pass checksum of short datagrams is the CRC32C the crate computes, for
    /// every length (too short for the one-pass path, and every remainder of a word).
    #[test]
    fn the_short_checksum_is_the_crates_crc32c(bytes in proptest::collection::vec(any::<u8>(), 0..=SHORT_DATAGRAM + 8)) {
        for len in [bytes.len(), bytes.len() / 2, bytes.len().min(11), bytes.len().min(3)] {
            prop_assert_eq!(checksum(&bytes[..len]), portable_checksum(&bytes[..len]));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// crc-fast continues a CRC exactly as the crc32c crate does, at every length and
    /// from any starting value.
    #[test]
    fn the_long_data_checksum_is_the_crates_crc32c(
        start in any::<u32>(),
        bytes in proptest::collection::vec(any::<u8>(), 0..=4 * LONG_DATA),
    ) {
        for len in [bytes.len(), bytes.len() / 2, LONG_DATA.min(bytes.len())] {
            prop_assert_eq!(
                crc_append(start, &bytes[..len]),
                crc32c::crc32c_append(start, &bytes[..len])
            );
        }
    }
}

#[test]
fn a_header_encoded_alone_carries_the_crc_of_the_whole_datagram() {
    let mut h = Header::new(PacketKind::Long, Channel::Request);
    let payload: Vec<u8> = (0..70_000u32).map(|i| (i * 31 + 5) as u8).collect();
    for len in [1, LONG_DATA - 1, LONG_DATA, 60_000] {
        h.total_len = 70_000;
        let mut whole = vec![0u8; MAX_DATAGRAM];
        let n = encode_into(&h, &payload[..len], &mut whole).unwrap();
        let mut head = vec![0u8; MAX_HEADER_LEN];
        let k = encode_header_into(&h, &payload[..len], &mut head, Integrity::Crc).unwrap();
        assert_eq!((k, &head[..k]), (h.wire_len(), &whole[..k]), "{len}");
        assert_eq!(n, k + len);
        let (_, got) = decode(&whole[..n], h.job).unwrap();
        assert_eq!(got, &payload[..len]);
    }
}
