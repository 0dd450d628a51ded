//! The smallest eager messages to a peer of this host in four arguments at most: the
//! sender's rank, the context and the length share a word, the tag takes one and the
//! bytes the rest, so the whole request fits the first cache line of a queue slot and one
//! line moves between the cores instead of two. The sequence number stays out: requests
//! from one endpoint to another through shared memory arrive in the order they were sent,
//! so the receiver gives the message the number it expects next (the sender still counts
//! it, so messages in the other forms keep their numbers).

use crate::matching::Envelope;

/// The largest message in this form.
pub const MAX: usize = 8;
/// Arguments ahead of the data words.
const HEAD: usize = 2;
/// Ranks and contexts above these take the general form.
const MAX_RANK: u32 = 0xffff;
const MAX_CTX: u32 = 0xfff;

/// The arguments of `data` sent with `env` in this form and how many are used; `None`
/// when the message does not fit it.
#[inline]
pub fn encode(env: Envelope, data: &[u8], args: &mut [u32; HEAD + MAX / 4]) -> Option<usize> {
    if data.len() > MAX || env.src > MAX_RANK || env.ctx > MAX_CTX {
        return None;
    }
    args[0] = env.src | env.ctx << 16 | (data.len() as u32) << 28;
    args[1] = env.tag as u32;
    for (word, chunk) in args[HEAD..].iter_mut().zip(data.chunks(4)) {
        // A whole word is one load; only a last partial one is padded (a copy call).
        *word = match <[u8; 4]>::try_from(chunk) {
            Ok(w) => u32::from_le_bytes(w),
            Err(_) => {
                let mut b = [0u8; 4];
                b[..chunk.len()].copy_from_slice(chunk);
                u32::from_le_bytes(b)
            }
        };
    }
    Some(HEAD + data.len().div_ceil(4))
}

/// The envelope and bytes (into `out`) of a message in this form; `None` when its
/// arguments do not hold one.
pub fn decode<'a>(args: &[u32], out: &'a mut [u8; MAX]) -> Option<(Envelope, &'a [u8])> {
    let [head, tag, words @ ..] = args else {
        return None;
    };
    let len = (head >> 28) as usize;
    if len > MAX || words.len() != len.div_ceil(4) {
        return None;
    }
    for (chunk, w) in out.chunks_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    let env = Envelope {
        src: head & MAX_RANK,
        ctx: head >> 16 & MAX_CTX,
        tag: *tag as i32,
    };
    Some((env, &out[..len]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_in_four_arguments_and_others_are_refused() {
        let env = Envelope {
            src: MAX_RANK,
            ctx: MAX_CTX,
            tag: i32::MAX,
        };
        for len in 0..=MAX {
            let data: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(37) | 1).collect();
            let mut args = [0; HEAD + MAX / 4];
            let n = encode(env, &data, &mut args).expect("fits");
            assert!(n <= 4, "one cache line: four arguments at most");
            let mut out = [0; MAX];
            assert_eq!(decode(&args[..n], &mut out), Some((env, &data[..])));
        }
        let mut args = [0; HEAD + MAX / 4];
        assert_eq!(encode(env, &[0; MAX + 1], &mut args), None);
        let far = Envelope {
            src: 0x10000,
            ..env
        };
        assert_eq!(encode(far, b"x", &mut args), None);
        let late = Envelope { ctx: 0x1000, ..env };
        assert_eq!(encode(late, b"x", &mut args), None);
        let mut out = [0; MAX];
        assert_eq!(decode(&[0], &mut out), None, "too few arguments");
        assert_eq!(decode(&[5 << 28, 0], &mut out), None, "bytes missing");
        assert_eq!(decode(&[9 << 28, 0, 0, 0, 0], &mut out), None, "too long");
        assert_eq!(decode(&[1 << 28, 0, 0, 0], &mut out), None, "extra words");
    }
}
