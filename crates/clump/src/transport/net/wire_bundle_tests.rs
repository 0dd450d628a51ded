//! Tests of datagrams that carry several packets: each ends where its length says, keeps
//! its own CRC, and only a packet with the "more" flag may have another after it.

use super::tests::fixtures::{
    coalesced, credit_answer, credit_then_request, enc, header, request, JOB,
};
use super::*;

#[test]
fn many_packets_of_every_data_kind_share_a_datagram() {
    let d = coalesced();
    let mut rest = &d[..];
    let mut kinds = Vec::new();
    while !rest.is_empty() {
        let (h, payload, next) = decode_next(rest, JOB, Integrity::Crc).unwrap();
        assert_eq!(payload.len(), h.total_len as usize);
        kinds.push(h.kind);
        rest = next;
    }
    use PacketKind::{Long, Medium, Short};
    assert_eq!(kinds, [Short, Short, Medium, Medium, Long]);
}

#[test]
fn two_packets_share_a_datagram_each_decoded_in_turn() {
    let d = credit_then_request();
    let (first, payload, rest) = decode_next(&d, JOB, Integrity::Crc).unwrap();
    assert_eq!(
        (first.channel, first.handler, &first.args[..]),
        (Channel::Reply, 0, &[0x1000_0001][..])
    );
    assert!(payload.is_empty());
    let (second, payload, rest) = decode_next(rest, JOB, Integrity::Crc).unwrap();
    let (h, sent) = request();
    assert_eq!((second, payload), (h, &sent[..]));
    assert!(rest.is_empty(), "the last packet has no \"more\" flag");
    // Each packet re-encodes to its own bytes, the first with its flag set again.
    let mut again = credit_answer();
    again.extend(enc(&second, payload));
    assert_eq!(again, d);
}

#[test]
fn a_packet_with_a_payload_ends_at_its_length() {
    let (h, payload) = request();
    let mut d = enc(&h, &payload);
    mark_followed(&mut d, Integrity::Crc).unwrap();
    let first_len = d.len();
    d.extend(enc(&header(PacketKind::Ack, 0, 0), &[]));
    let (got, got_payload, rest) = decode_next(&d, JOB, Integrity::Crc).unwrap();
    assert_eq!((got, got_payload), (h, &payload[..]));
    assert_eq!(rest, &d[first_len..]);
    assert_eq!(decode_next(rest, JOB, Integrity::Crc).unwrap().0.kind, PacketKind::Ack);
}

#[test]
fn decode_takes_one_packet_only() {
    let d = credit_then_request();
    assert!(matches!(
        decode(&d, JOB),
        Err(WireError::LengthMismatch { .. })
    ));
}

#[test]
fn the_more_flag_with_nothing_after_it_is_refused() {
    assert_eq!(
        decode_next(&credit_answer(), JOB, Integrity::Crc).unwrap_err(),
        WireError::NothingFollows
    );
}

#[test]
fn a_packet_without_the_flag_cannot_have_one_after_it() {
    let (h, payload) = request();
    let mut d = enc(&header(PacketKind::Nack, 0, 0), &[]);
    d.extend(enc(&h, &payload));
    // The first packet claims the whole datagram: its declared length is wrong.
    assert!(matches!(
        decode_next(&d, JOB, Integrity::Crc),
        Err(WireError::LengthMismatch { .. })
    ));
}

#[test]
fn each_packet_keeps_its_own_crc() {
    let mut d = credit_then_request();
    let last = d.len() - 1;
    d[last] ^= 1;
    let (_, _, rest) = decode_next(&d, JOB, Integrity::Crc).expect("the first packet is intact");
    assert!(matches!(
        decode_next(rest, JOB, Integrity::Crc),
        Err(WireError::CrcMismatch { .. })
    ));
    let mut d = credit_then_request();
    d[offsets::SEQ] ^= 1;
    assert!(matches!(
        decode_next(&d, JOB, Integrity::Crc),
        Err(WireError::CrcMismatch { .. })
    ));
}

#[test]
fn a_declared_length_past_the_datagram_is_refused() {
    let mut d = credit_answer();
    d.extend([0u8; 8]);
    d[offsets::PAYLOAD_LEN..offsets::PAYLOAD_LEN + 4].copy_from_slice(&100u32.to_le_bytes());
    assert!(matches!(
        decode_next(&d, JOB, Integrity::Crc),
        Err(WireError::LengthMismatch { declared: 100, .. })
    ));
}

#[test]
fn only_a_whole_packet_is_marked() {
    let (h, payload) = request();
    let d = enc(&h, &payload);
    // Its header alone (a fragment sent from elsewhere) cannot be resealed here.
    let mut head = d[..h.wire_len()].to_vec();
    assert_eq!(
        mark_followed(&mut head, Integrity::Crc),
        Err(WireError::NotMarkable { len: head.len() })
    );
    assert!(matches!(
        mark_followed(&mut [0u8; 8], Integrity::Crc),
        Err(WireError::Truncated { .. })
    ));
}
