//! ENCODE(s, password) and DECODE(s, password), MariaDB's old reversible scrambling (its
//! sql_crypt.cc): the password's old-style hash seeds MariaDB's my_rnd generator, which
//! shuffles a 256-byte substitution table and then draws a running XOR mask per byte.
//! Not encryption; kept because old applications stored data with it.

use super::Args;
use crate::value::Value;

/// MariaDB's my_rnd: two seeds below 2^30 - 1.
struct Rnd {
    seed1: u64,
    seed2: u64,
}

impl Rnd {
    const MAX: u64 = 0x3FFF_FFFF;

    fn new(seed1: u64, seed2: u64) -> Rnd {
        Rnd {
            seed1: seed1 % Rnd::MAX,
            seed2: seed2 % Rnd::MAX,
        }
    }

    /// The next draw scaled to 0..=254, as `(uint) (my_rnd() * 255.0)`.
    fn next_byte(&mut self) -> usize {
        self.seed1 = (self.seed1 * 3 + self.seed2) % Rnd::MAX;
        self.seed2 = (self.seed1 + self.seed2 + 33) % Rnd::MAX;
        (self.seed1 as f64 / Rnd::MAX as f64 * 255.0) as usize
    }
}

/// MariaDB's hash_password (the pre-4.1 password hash): blanks and tabs skipped, 64-bit
/// arithmetic, each half cut to 31 bits.
fn hash_password(password: &[u8]) -> (u64, u64) {
    let (mut nr, mut add, mut nr2) = (1_345_345_333u64, 7u64, 0x1234_5671u64);
    for &b in password.iter().filter(|&&b| b != b' ' && b != b'\t') {
        let tmp = u64::from(b);
        nr ^= ((nr & 63).wrapping_add(add))
            .wrapping_mul(tmp)
            .wrapping_add(nr << 8);
        nr2 = nr2.wrapping_add((nr2 << 8) ^ nr);
        add = add.wrapping_add(tmp);
    }
    (nr & 0x7FFF_FFFF, nr2 & 0x7FFF_FFFF)
}

/// The substitution tables (decode, encode) and the generator as it stands after them.
fn tables(password: &[u8]) -> ([u8; 256], [u8; 256], Rnd) {
    let (seed1, seed2) = hash_password(password);
    let mut rnd = Rnd::new(seed1, seed2);
    let mut decode = [0u8; 256];
    for (i, d) in decode.iter_mut().enumerate() {
        *d = i as u8;
    }
    for i in 0..256 {
        let idx = rnd.next_byte();
        decode.swap(idx, i);
    }
    let mut encode = [0u8; 256];
    for (i, &d) in decode.iter().enumerate() {
        encode[usize::from(d)] = i as u8;
    }
    (decode, encode, rnd)
}

/// ENCODE (`decode` false) or DECODE of argument 0 with the password in argument 1;
/// NULL if either is NULL.
pub(super) fn transform(a: &Args, decode: bool) -> Value {
    let (Some(mut s), Some(password)) = (a.v[0].to_text(), a.v[1].to_text()) else {
        return Value::Null;
    };
    let (decode_table, encode_table, mut rnd) = tables(&password);
    let mut shift = 0usize;
    for b in s.iter_mut() {
        shift ^= rnd.next_byte();
        if decode {
            *b = decode_table[usize::from(*b) ^ shift];
            shift ^= usize::from(*b);
        } else {
            let idx = usize::from(*b);
            *b = encode_table[idx] ^ shift as u8;
            shift ^= idx;
        }
    }
    Value::Bytes(s)
}
