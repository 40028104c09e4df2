//! DECIMAL(M,D)'s stored and index-key forms.
//!
//! A column value is stored as its unscaled integer at the column's scale D (value × 10^D),
//! in two's complement, in a width fixed by M:
//!
//! | M        | row form                 | key form (after the value tag)               |
//! |----------|--------------------------|----------------------------------------------|
//! | 1..=38   | 16 bytes, little-endian  | 16 bytes, big-endian, sign bit flipped       |
//! | 39..=65  | 32 bytes, little-endian  | 32 bytes, big-endian, sign bit flipped       |
//!
//! The 16-byte forms are the i128 forms tables have always been written with, byte for
//! byte, so existing files read the same. A 65-digit integer needs 217 bits, so 32 bytes
//! hold every DECIMAL(65,D) value. Flipping the sign bit of a big-endian two's-complement
//! integer makes `memcmp` order equal numeric order, and one column has one width, so keys
//! of one column compare correctly.
//!
//! Encoding checks the value against the column: a value with more fractional digits than
//! D or more integer digits than M-D is refused, never rounded here (the SQL layer rounds
//! and reports before it stores).

use crate::types::StorageError;
use myriad_types::decimal::{Decimal, DecimalError, MAX_PRECISION};

/// The largest M whose values are stored in 16 bytes (the i128 form).
pub const NARROW_MAX_PRECISION: u8 = 38;

/// Bytes of a DECIMAL(precision, _) value in a row or a key (after the key's value tag).
pub fn width(precision: u8) -> usize {
    if precision <= NARROW_MAX_PRECISION {
        16
    } else {
        32
    }
}

/// Whether DECIMAL(precision, scale) is a column type storage can hold: MariaDB's limits.
pub fn valid_type(precision: u8, scale: u8) -> bool {
    precision >= 1
        && precision as u32 <= MAX_PRECISION
        && scale <= precision
        && scale as u32 <= myriad_types::decimal::MAX_SCALE
}

/// [`encode`]'s form argument: the row form, little-endian.
pub const ROW_FORM: bool = false;
/// [`encode`]'s form argument: the key form, big-endian with the sign bit flipped.
pub const KEY_FORM: bool = true;

/// Appends the row form ([`ROW_FORM`]) or the key form ([`KEY_FORM`]) of `value` in a
/// DECIMAL(precision, scale) column; an error when the value does not fit the column
/// exactly. The form is a constant, so each form compiles to its own code with no test of
/// it per value.
pub fn encode<const KEY: bool>(
    precision: u8,
    scale: u8,
    value: &Decimal,
    out: &mut Vec<u8>,
) -> Result<(), DecimalError> {
    if !value.fits(precision as u32, scale as u32) {
        return Err(DecimalError::Overflow);
    }
    let be = value.rescale(scale as u32)?.unscaled_be_bytes();
    let unscaled = &be[40 - width(precision)..];
    if KEY {
        let start = out.len();
        out.extend_from_slice(unscaled);
        out[start] ^= 0x80;
    } else {
        out.extend(unscaled.iter().rev());
    }
    Ok(())
}

/// Reads the row form of a DECIMAL(precision, scale) value (exactly [`width`] bytes).
pub fn decode_row(precision: u8, scale: u8, bytes: &[u8]) -> Result<Decimal, StorageError> {
    let n = width(precision);
    if bytes.len() != n {
        return Err(StorageError::Corrupt(format!(
            "DECIMAL({precision},{scale}) value of {} bytes, not {n}",
            bytes.len()
        )));
    }
    // Sign-extend the little-endian two's complement to 40 big-endian bytes.
    let fill = if bytes[n - 1] & 0x80 != 0 { 0xFF } else { 0x00 };
    let mut be = [fill; 40];
    for (i, b) in bytes.iter().enumerate() {
        be[39 - i] = *b;
    }
    let value = Decimal::from_unscaled_be_bytes(be, scale as u32)
        .map_err(|e| StorageError::Corrupt(format!("DECIMAL({precision},{scale}) value: {e}")))?;
    if !value.fits(precision as u32, scale as u32) {
        return Err(StorageError::Corrupt(format!(
            "DECIMAL({precision},{scale}) value {value} out of its column's range"
        )));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dec(unscaled: i128, scale: u8) -> Decimal {
        Decimal::from_i128_scaled(unscaled, scale as u32).unwrap()
    }

    /// A DECIMAL(precision, scale) value from digits: at most `precision` of them.
    fn column_value(precision: u8, scale: u8) -> impl Strategy<Value = Decimal> {
        (
            any::<bool>(),
            prop::collection::vec(0u8..10, 0..=precision as usize),
        )
            .prop_map(move |(negative, digits)| {
                Decimal::from_digits(negative, &digits, scale as u32).unwrap()
            })
    }

    proptest! {
        /// Up to 38 digits, the forms are the i128 ones tables were written with.
        #[test]
        fn narrow_forms_are_the_i128_forms(v in -(10i128.pow(38) - 1)..10i128.pow(38), scale in 0u8..=38) {
            let d = dec(v, scale);
            let mut row = Vec::new();
            encode::<ROW_FORM>(38, scale, &d, &mut row).unwrap();
            prop_assert_eq!(&row[..], &v.to_le_bytes()[..]);
            let mut key = Vec::new();
            encode::<KEY_FORM>(38, scale, &d, &mut key).unwrap();
            prop_assert_eq!(&key[..], &((v as u128) ^ (1 << 127)).to_be_bytes()[..]);
            prop_assert_eq!(decode_row(38, scale, &row).unwrap().to_string(), d.to_string());
        }

        #[test]
        fn wide_rows_round_trip((p, s, d) in (39u8..=65, 0u8..=38).prop_flat_map(|(p, s)| {
            (Just(p), Just(s), column_value(p, s))
        })) {
            let mut row = Vec::new();
            encode::<ROW_FORM>(p, s, &d, &mut row).unwrap();
            prop_assert_eq!(row.len(), 32);
            let back = decode_row(p, s, &row).unwrap();
            prop_assert_eq!(back.to_string(), d.rescale(s as u32).unwrap().to_string());
        }

        #[test]
        fn wide_keys_order_as_numbers(a in column_value(65, 30), b in column_value(65, 30)) {
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            encode::<KEY_FORM>(65, 30, &a, &mut ka).unwrap();
            encode::<KEY_FORM>(65, 30, &b, &mut kb).unwrap();
            prop_assert_eq!(ka.len(), 32);
            prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
        }
    }

    #[test]
    fn values_outside_the_column_are_refused() {
        let mut out = Vec::new();
        let wide = Decimal::parse(&"9".repeat(65)).unwrap();
        assert!(encode::<ROW_FORM>(65, 0, &wide, &mut out).is_ok());
        assert_eq!(
            encode::<ROW_FORM>(65, 1, &wide, &mut out),
            Err(DecimalError::Overflow)
        );
        let fraction = Decimal::parse("1.25").unwrap();
        assert_eq!(
            encode::<KEY_FORM>(40, 1, &fraction, &mut out),
            Err(DecimalError::Overflow)
        );
        assert!(encode::<KEY_FORM>(40, 2, &fraction, &mut out).is_ok());
        let too_wide = Decimal::parse(&format!("1{}", "0".repeat(65))).unwrap();
        assert_eq!(
            encode::<ROW_FORM>(65, 0, &too_wide, &mut out),
            Err(DecimalError::Overflow)
        );
        assert!(decode_row(65, 0, &[0; 16]).is_err());
        // 2^254 fits 32 bytes but not DECIMAL(65,0): a corrupt file, not a value.
        let mut raw = vec![0u8; 32];
        raw[31] = 0x40;
        assert!(decode_row(65, 0, &raw).is_err());
        assert!(valid_type(65, 30) && valid_type(38, 38) && valid_type(1, 0));
        assert!(
            !valid_type(66, 0) && !valid_type(0, 0) && !valid_type(65, 39) && !valid_type(5, 6)
        );
    }
}
