//! Reading and writing the protocol's primitive encodings: fixed-width little-endian
//! integers, length-encoded integers and strings, NUL-terminated strings.
//!
//! [`Reader`] never panics: every read checks the remaining length and fails with
//! [`DecodeError`] on a short or malformed payload. This is what keeps untrusted packets
//! from reaching an index out of bounds.

use std::fmt;

/// A payload that does not decode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub &'static str);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed packet: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

pub type DecodeResult<T> = Result<T, DecodeError>;

/// A cursor over one payload.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn take(&mut self, len: usize, what: &'static str) -> DecodeResult<&'a [u8]> {
        if len > self.bytes.len() {
            return Err(DecodeError(what));
        }
        let (head, tail) = self.bytes.split_at(len);
        self.bytes = tail;
        Ok(head)
    }

    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.bytes)
    }

    pub fn u8(&mut self, what: &'static str) -> DecodeResult<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &'static str) -> DecodeResult<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u24(&mut self, what: &'static str) -> DecodeResult<u32> {
        let b = self.take(3, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }

    pub fn u32(&mut self, what: &'static str) -> DecodeResult<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self, what: &'static str) -> DecodeResult<u64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A length-encoded integer; None for the NULL marker 0xFB.
    pub fn lenenc_int_or_null(&mut self, what: &'static str) -> DecodeResult<Option<u64>> {
        match self.u8(what)? {
            first @ 0..=0xFA => Ok(Some(u64::from(first))),
            0xFB => Ok(None),
            0xFC => Ok(Some(u64::from(self.u16(what)?))),
            0xFD => Ok(Some(u64::from(self.u24(what)?))),
            0xFE => Ok(Some(self.u64(what)?)),
            _ => Err(DecodeError(what)),
        }
    }

    pub fn lenenc_int(&mut self, what: &'static str) -> DecodeResult<u64> {
        self.lenenc_int_or_null(what)?.ok_or(DecodeError(what))
    }

    pub fn lenenc_bytes(&mut self, what: &'static str) -> DecodeResult<&'a [u8]> {
        let len = self.lenenc_int(what)?;
        let len = usize::try_from(len).map_err(|_| DecodeError(what))?;
        self.take(len, what)
    }

    /// Bytes up to a NUL, which is consumed. A missing NUL is an error.
    pub fn nul_bytes(&mut self, what: &'static str) -> DecodeResult<&'a [u8]> {
        let end = self
            .bytes
            .iter()
            .position(|&b| b == 0)
            .ok_or(DecodeError(what))?;
        let s = &self.bytes[..end];
        self.bytes = &self.bytes[end + 1..];
        Ok(s)
    }

    /// Bytes up to a NUL or the end of the payload (clients differ on the final NUL).
    pub fn nul_or_eof_bytes(&mut self) -> &'a [u8] {
        match self.bytes.iter().position(|&b| b == 0) {
            Some(end) => {
                let s = &self.bytes[..end];
                self.bytes = &self.bytes[end + 1..];
                s
            }
            None => self.rest(),
        }
    }
}

/// Append a length-encoded integer.
pub fn put_lenenc_int(out: &mut Vec<u8>, value: u64) {
    if value < 0xFB {
        out.push(value as u8);
    } else if value <= 0xFFFF {
        out.push(0xFC);
        out.extend_from_slice(&(value as u16).to_le_bytes());
    } else if value <= 0xFF_FFFF {
        out.push(0xFD);
        out.extend_from_slice(&(value as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xFE);
        out.extend_from_slice(&value.to_le_bytes());
    }
}

/// Append a length-encoded string.
pub fn put_lenenc_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_lenenc_int(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn lenenc_int_round_trips(value in any::<u64>()) {
            let mut out = Vec::new();
            put_lenenc_int(&mut out, value);
            let mut reader = Reader::new(&out);
            prop_assert_eq!(reader.lenenc_int("v"), Ok(value));
            prop_assert!(reader.is_empty());
        }

        #[test]
        fn lenenc_bytes_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut out = Vec::new();
            put_lenenc_bytes(&mut out, &bytes);
            let mut reader = Reader::new(&out);
            prop_assert_eq!(reader.lenenc_bytes("v"), Ok(&bytes[..]));
        }

        #[test]
        fn reads_of_random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut reader = Reader::new(&bytes);
            let _ = reader.lenenc_bytes("a");
            let _ = reader.nul_bytes("b");
            let _ = reader.u64("c");
            let _ = reader.lenenc_int_or_null("d");
        }
    }

    #[test]
    fn short_reads_fail() {
        let mut reader = Reader::new(&[0xFC, 1]);
        assert_eq!(reader.lenenc_int("x"), Err(DecodeError("x")));
        let mut reader = Reader::new(b"abc");
        assert!(reader.nul_bytes("s").is_err());
        assert_eq!(Reader::new(b"abc").nul_or_eof_bytes(), b"abc");
    }
}
