//! DECIMAL: exact fixed-point numbers with MariaDB's limits and rounding.
//!
//! A [`Decimal`] is an unscaled integer and a scale: `unscaled × 10^-scale`. The integer is a
//! fixed 320-bit two's-complement integer (bnum's `BInt<5>`), so a value is `Copy`, never
//! allocates, and holds any number of up to [`MAX_DIGITS`] decimal digits (320 bits hold 96).
//!
//! Limits, as in MariaDB 10.11:
//! - a column is DECIMAL(M,D) with M <= [`MAX_PRECISION`] (65) and D <= [`MAX_SCALE`] (38);
//! - an expression's value may be wider than any column: MariaDB computes in a buffer of nine
//!   base-10^9 limbs, so `99…9 (65 nines) + 1` shows 66 digits, and a product of 81 digits
//!   still shows; past [`MAX_DIGITS`] (81) digits it is an error (1690, "DECIMAL value is out
//!   of range"). Storing a value into a column checks the column's M and D ([`Decimal::to_column`]).
//! - the scale of any value is at most 38: products round their extra fractional digits away,
//!   half away from zero, and quotients get the dividend's scale plus `div_precision_increment`
//!   digits (at most 38), rounded half away from zero.
//!
//! Arithmetic is exact: operands are widened to a 640-bit integer (two 81-digit operands
//! multiply to at most 162 digits, 539 bits), the exact result is rounded once to its scale,
//! and only then checked against the 81-digit bound.
//!
//! Equality, ordering and hashing are numeric: `1.0 == 1.00`, and both hash alike.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;
use std::sync::OnceLock;

use bnum::cast::As;
use bnum::BInt;

/// The unscaled integer of a value: 320 bits hold every integer of up to 96 digits.
type Narrow = BInt<5>;
/// The integer arithmetic is done in: 640 bits hold every product of two 81-digit integers
/// (162 digits) and every dividend scaled for a quotient (81 + 76 digits).
type Wide = BInt<10>;

/// The largest M of a DECIMAL(M,D) column.
pub const MAX_PRECISION: u32 = 65;
/// The largest D of a DECIMAL(M,D) column, and the largest scale of any value.
pub const MAX_SCALE: u32 = 38;
/// The most digits a value may have: MariaDB's decimal buffer is nine limbs of nine digits.
pub const MAX_DIGITS: u32 = 81;
/// MariaDB's default `div_precision_increment`: digits a quotient adds to the dividend's scale.
pub const DEFAULT_DIV_PRECISION_INCREMENT: u32 = 4;

/// The highest power of ten the arithmetic needs: a wide product has at most 162 digits.
const MAX_POW10: usize = 2 * MAX_DIGITS as usize;

/// Why a decimal operation has no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecimalError {
    /// The result needs more than [`MAX_DIGITS`] digits, or more than a column allows.
    Overflow,
    /// The divisor of a division or modulo is zero.
    DivisionByZero,
    /// The text is not a decimal number.
    Invalid,
}

impl fmt::Display for DecimalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DecimalError::Overflow => "DECIMAL value is out of range",
            DecimalError::DivisionByZero => "division by zero",
            DecimalError::Invalid => "not a decimal number",
        })
    }
}

impl std::error::Error for DecimalError {}

/// An exact decimal number: `unscaled × 10^-scale`, at most [`MAX_DIGITS`] digits and
/// [`MAX_SCALE`] fractional digits. The scale is part of the value's text (`1.50` keeps its
/// zero) but not of its identity: `1.5 == 1.50`.
#[derive(Clone, Copy)]
pub struct Decimal {
    /// Invariant: `|unscaled| < 10^MAX_DIGITS`.
    unscaled: Narrow,
    /// Invariant: `scale <= MAX_SCALE`.
    scale: u8,
}

fn pow10(n: u32) -> Wide {
    static TABLE: OnceLock<Vec<Wide>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut powers = Vec::with_capacity(MAX_POW10 + 1);
        let mut p = Wide::ONE;
        for _ in 0..=MAX_POW10 {
            powers.push(p);
            p *= Wide::TEN;
        }
        powers
    });
    table[n as usize]
}

/// The number of decimal digits of `|x|`; zero has none.
fn digit_count(x: Wide) -> u32 {
    let magnitude = x.unsigned_abs().as_::<Wide>();
    let (mut lo, mut hi) = (0u32, MAX_POW10 as u32 + 1);
    // The smallest n with |x| < 10^n.
    while lo < hi {
        let mid = (lo + hi) / 2;
        if mid as usize > MAX_POW10 || magnitude < pow10(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// `num / den` rounded half away from zero; `den` is not zero.
fn div_round(num: Wide, den: Wide) -> Wide {
    let quotient = num / den;
    let remainder = num % den;
    if remainder == Wide::ZERO {
        return quotient;
    }
    let twice = remainder.unsigned_abs().as_::<Wide>() * Wide::TWO;
    if twice >= den.unsigned_abs().as_::<Wide>() {
        if num.is_negative() != den.is_negative() {
            quotient - Wide::ONE
        } else {
            quotient + Wide::ONE
        }
    } else {
        quotient
    }
}

/// `x` with `drop` fewer fractional digits, rounded half away from zero (or truncated).
fn drop_digits(x: Wide, drop: u32, round: bool) -> Wide {
    if drop == 0 {
        return x;
    }
    if drop as usize > MAX_POW10 {
        return Wide::ZERO;
    }
    if round {
        div_round(x, pow10(drop))
    } else {
        x / pow10(drop)
    }
}

/// Steps `pos` over a sign at `bytes[pos]`, if one stands there; whether it was a minus.
fn take_sign(bytes: &[u8], pos: &mut usize) -> bool {
    match bytes.get(*pos) {
        Some(b'-') => {
            *pos += 1;
            true
        }
        Some(b'+') => {
            *pos += 1;
            false
        }
        _ => false,
    }
}

impl Decimal {
    pub const ZERO: Decimal = Decimal {
        unscaled: Narrow::ZERO,
        scale: 0,
    };
    pub const ONE: Decimal = Decimal {
        unscaled: Narrow::ONE,
        scale: 0,
    };

    /// The exact value `unscaled × 10^-scale`, rounded half away from zero to a scale of at
    /// most 38; an error past 81 digits.
    fn from_wide(unscaled: Wide, scale: u32) -> Result<Decimal, DecimalError> {
        let (unscaled, scale) = if scale > MAX_SCALE {
            (drop_digits(unscaled, scale - MAX_SCALE, true), MAX_SCALE)
        } else {
            (unscaled, scale)
        };
        // Anything that fits an i128 (at most 39 digits) is far inside the bound.
        if i128::try_from(unscaled).is_err() && digit_count(unscaled) > MAX_DIGITS {
            return Err(DecimalError::Overflow);
        }
        Ok(Decimal {
            unscaled: unscaled.as_::<Narrow>(),
            scale: scale as u8,
        })
    }

    fn wide(&self) -> Wide {
        self.unscaled.as_::<Wide>()
    }

    /// `unscaled × 10^-scale` from a 128-bit unscaled integer (storage's form for M <= 38).
    pub fn from_i128_scaled(unscaled: i128, scale: u32) -> Result<Decimal, DecimalError> {
        Decimal::from_wide(Wide::from(unscaled), scale)
    }

    /// The unscaled integer when it fits 128 bits.
    pub fn unscaled_i128(&self) -> Option<i128> {
        i128::try_from(self.unscaled).ok()
    }

    /// The unscaled integer as 40 big-endian two's-complement bytes.
    pub fn unscaled_be_bytes(&self) -> [u8; 40] {
        let mut bytes = [0u8; 40];
        // bnum keeps the limbs least significant first.
        for (i, limb) in self.unscaled.to_bits().digits().iter().rev().enumerate() {
            bytes[i * 8..i * 8 + 8].copy_from_slice(&limb.to_be_bytes());
        }
        bytes
    }

    /// The value whose unscaled integer is `bytes` (as [`Decimal::unscaled_be_bytes`] writes).
    pub fn from_unscaled_be_bytes(bytes: [u8; 40], scale: u32) -> Result<Decimal, DecimalError> {
        let unscaled = Narrow::from_be_slice(&bytes).ok_or(DecimalError::Invalid)?;
        Decimal::from_wide(unscaled.as_::<Wide>(), scale)
    }

    /// The decimal digits of `|unscaled|`, most significant first (none for zero).
    pub fn unscaled_digits(&self) -> Vec<u8> {
        let text = self.unscaled.unsigned_abs().to_string();
        if text == "0" {
            return Vec::new();
        }
        text.bytes().map(|b| b - b'0').collect()
    }

    /// The value with `digits` (most significant first, each 0..=9) as unscaled magnitude.
    pub fn from_digits(negative: bool, digits: &[u8], scale: u32) -> Result<Decimal, DecimalError> {
        let significant = digits.iter().skip_while(|&&d| d == 0).count();
        if significant > MAX_DIGITS as usize {
            return Err(DecimalError::Overflow);
        }
        let digits = &digits[digits.len() - significant..];
        if digits.iter().any(|&d| d > 9) {
            return Err(DecimalError::Invalid);
        }
        // Nine digits at a time in a u64 (10^9 fits a u32): a tenth of the wide
        // multiplications a digit-at-a-time loop makes.
        let mut unscaled = Wide::ZERO;
        for chunk in digits.chunks(9) {
            let part = chunk.iter().fold(0u64, |acc, &d| acc * 10 + u64::from(d));
            unscaled = unscaled * pow10(chunk.len() as u32) + Wide::from(part);
        }
        if negative {
            unscaled = -unscaled;
        }
        Decimal::from_wide(unscaled, scale)
    }

    pub fn from_i64(v: i64) -> Decimal {
        Decimal {
            unscaled: Narrow::from(v),
            scale: 0,
        }
    }

    pub fn from_u64(v: u64) -> Decimal {
        Decimal {
            unscaled: Narrow::from(v),
            scale: 0,
        }
    }

    /// The shortest decimal that reads back as `v` (Rust's and MariaDB's shortest repr);
    /// `None` for NaN and infinities, an overflow past 81 digits (about 1e81).
    pub fn from_f64(v: f64) -> Option<Result<Decimal, DecimalError>> {
        if !v.is_finite() {
            return None;
        }
        Some(Decimal::parse(&format!("{v:e}")))
    }

    /// The nearest i64, rounded half away from zero (as MariaDB converts DECIMAL to integer).
    pub fn to_i64(&self) -> Option<i64> {
        i64::try_from(drop_digits(self.wide(), self.scale as u32, true)).ok()
    }

    /// The nearest u64, rounded half away from zero; `None` below zero or past u64::MAX.
    pub fn to_u64(&self) -> Option<u64> {
        u64::try_from(drop_digits(self.wide(), self.scale as u32, true)).ok()
    }

    /// The integer part, truncated toward zero, when it fits i128.
    pub fn trunc_to_i128(&self) -> Option<i128> {
        i128::try_from(drop_digits(self.wide(), self.scale as u32, false)).ok()
    }

    /// The nearest double (correctly rounded from the exact text).
    pub fn to_f64(&self) -> f64 {
        self.to_string().parse().unwrap_or(f64::NAN)
    }

    /// Digits after the point.
    pub fn scale(&self) -> u32 {
        self.scale as u32
    }

    /// Digits before the point, not counting a lone leading zero (`0.5` has none).
    pub fn integer_digits(&self) -> u32 {
        digit_count(self.wide()).saturating_sub(self.scale as u32)
    }

    /// Digits in all: integer digits plus the scale (`0.50` has precision 2, `123` has 3).
    pub fn precision(&self) -> u32 {
        self.integer_digits() + self.scale as u32
    }

    pub fn is_zero(&self) -> bool {
        self.unscaled == Narrow::ZERO
    }

    pub fn is_negative(&self) -> bool {
        self.unscaled.is_negative()
    }

    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        match self.unscaled.cmp(&Narrow::ZERO) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }
    }

    pub fn abs(&self) -> Decimal {
        Decimal {
            unscaled: self.unscaled.abs(),
            scale: self.scale,
        }
    }

    /// Minus the value, with the same scale.
    pub fn neg(&self) -> Decimal {
        Decimal {
            unscaled: -self.unscaled,
            scale: self.scale,
        }
    }

    /// The same number with its trailing fractional zeros removed (`1.500` → `1.5`).
    pub fn normalized(&self) -> Decimal {
        let mut unscaled = self.unscaled;
        let mut scale = self.scale;
        while scale > 0 && unscaled % Narrow::TEN == Narrow::ZERO {
            unscaled /= Narrow::TEN;
            scale -= 1;
        }
        if unscaled == Narrow::ZERO {
            scale = 0;
        }
        Decimal { unscaled, scale }
    }

    fn aligned(&self, other: &Decimal) -> (Wide, Wide, u32) {
        let scale = self.scale.max(other.scale) as u32;
        let a = self.wide() * pow10(scale - self.scale as u32);
        let b = other.wide() * pow10(scale - other.scale as u32);
        (a, b, scale)
    }

    /// Both unscaled integers when the scales agree and both fit an i128: the common case,
    /// done in native arithmetic.
    fn small_pair(&self, other: &Decimal) -> Option<(i128, i128)> {
        if self.scale != other.scale {
            return None;
        }
        Some((self.unscaled_i128()?, other.unscaled_i128()?))
    }

    fn from_small(unscaled: i128, scale: u8) -> Decimal {
        // An i128 has at most 39 digits, far inside the 81-digit bound.
        Decimal {
            unscaled: Narrow::from(unscaled),
            scale,
        }
    }

    /// `self + other`, exact, with the larger scale.
    pub fn checked_add(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        if let Some((a, b)) = self.small_pair(other) {
            if let Some(sum) = a.checked_add(b) {
                return Ok(Decimal::from_small(sum, self.scale));
            }
        }
        let (a, b, scale) = self.aligned(other);
        Decimal::from_wide(a + b, scale)
    }

    /// `self - other`, exact, with the larger scale.
    pub fn checked_sub(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        if let Some((a, b)) = self.small_pair(other) {
            if let Some(difference) = a.checked_sub(b) {
                return Ok(Decimal::from_small(difference, self.scale));
            }
        }
        let (a, b, scale) = self.aligned(other);
        Decimal::from_wide(a - b, scale)
    }

    /// `self × other` with the sum of the scales, rounded half away from zero past 38.
    pub fn checked_mul(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        let scale = self.scale + other.scale;
        if u32::from(scale) <= MAX_SCALE {
            if let (Some(a), Some(b)) = (self.unscaled_i128(), other.unscaled_i128()) {
                if let Some(product) = a.checked_mul(b) {
                    return Ok(Decimal::from_small(product, scale));
                }
            }
        }
        Decimal::from_wide(
            self.wide() * other.wide(),
            self.scale as u32 + other.scale as u32,
        )
    }

    /// `self / other` with `self.scale() + increment` fractional digits (at most 38), rounded
    /// half away from zero: MariaDB's `/` with `div_precision_increment = increment`.
    pub fn checked_div(&self, other: &Decimal, increment: u32) -> Result<Decimal, DecimalError> {
        if other.is_zero() {
            return Err(DecimalError::DivisionByZero);
        }
        let scale = (self.scale as u32 + increment.min(MAX_SCALE)).min(MAX_SCALE);
        // quotient × 10^-scale = (a × 10^-sa) / (b × 10^-sb)
        //   ⇒ quotient = a × 10^(scale + sb - sa) / b, where scale + sb - sa <= 38 + 38.
        let shift = scale + other.scale as u32;
        let num = if shift >= self.scale as u32 {
            self.wide() * pow10(shift - self.scale as u32)
        } else {
            return Decimal::from_wide(
                div_round(self.wide(), other.wide() * pow10(self.scale as u32 - shift)),
                scale,
            );
        };
        Decimal::from_wide(div_round(num, other.wide()), scale)
    }

    /// `self DIV other`: the quotient truncated toward zero, as an integer (scale 0).
    pub fn checked_div_trunc(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        if other.is_zero() {
            return Err(DecimalError::DivisionByZero);
        }
        let (a, b, _) = self.aligned(other);
        Decimal::from_wide(a / b, 0)
    }

    /// `self MOD other`: the remainder of the division truncated toward zero, with the sign
    /// of `self` and the larger scale (MariaDB's `%` on decimals).
    pub fn checked_rem(&self, other: &Decimal) -> Result<Decimal, DecimalError> {
        if other.is_zero() {
            return Err(DecimalError::DivisionByZero);
        }
        let (a, b, scale) = self.aligned(other);
        Decimal::from_wide(a % b, scale)
    }

    /// The value rounded half away from zero to `digits` fractional digits (negative: to
    /// tens, hundreds, …), with scale `max(digits, 0)`; unchanged when it has no more digits
    /// than that. MariaDB's `ROUND(x, digits)` on a decimal.
    pub fn round_dp(&self, digits: i32) -> Result<Decimal, DecimalError> {
        self.cut(digits, true)
    }

    /// As [`Decimal::round_dp`], truncating toward zero: MariaDB's `TRUNCATE(x, digits)`.
    pub fn truncate_dp(&self, digits: i32) -> Result<Decimal, DecimalError> {
        self.cut(digits, false)
    }

    fn cut(&self, digits: i32, round: bool) -> Result<Decimal, DecimalError> {
        let scale = self.scale as i32;
        if digits >= scale {
            return Ok(*self);
        }
        let drop = (scale - digits).min(MAX_POW10 as i32) as u32;
        let kept = drop_digits(self.wide(), drop, round);
        if digits >= 0 {
            Decimal::from_wide(kept, digits as u32)
        } else {
            let back = (-digits).min(MAX_POW10 as i32) as u32;
            if kept == Wide::ZERO {
                return Ok(Decimal::ZERO);
            }
            if back > MAX_DIGITS {
                return Err(DecimalError::Overflow);
            }
            Decimal::from_wide(kept * pow10(back), 0)
        }
    }

    /// The largest integer not above the value (scale 0): MariaDB's `FLOOR`.
    pub fn floor(&self) -> Result<Decimal, DecimalError> {
        let scale = self.scale as u32;
        let cut = Decimal::from_wide(drop_digits(self.wide(), scale, false), 0)?;
        if self.is_negative() && cut.wide() * pow10(scale) != self.wide() {
            return cut.checked_sub(&Decimal::ONE);
        }
        Ok(cut)
    }

    /// The smallest integer not below the value (scale 0): MariaDB's `CEILING`.
    pub fn ceil(&self) -> Result<Decimal, DecimalError> {
        Ok(self.neg().floor()?.neg())
    }

    /// The value with exactly `scale` fractional digits (at most 38): padded with zeros, or
    /// rounded half away from zero.
    pub fn rescale(&self, scale: u32) -> Result<Decimal, DecimalError> {
        let scale = scale.min(MAX_SCALE);
        let own = self.scale as u32;
        if scale >= own {
            Decimal::from_wide(self.wide() * pow10(scale - own), scale)
        } else {
            Decimal::from_wide(drop_digits(self.wide(), own - scale, true), scale)
        }
    }

    /// The value as a DECIMAL(precision, scale) column stores it: rounded half away from zero
    /// to `scale` digits, an overflow when its integer part needs more than
    /// `precision - scale` digits.
    pub fn to_column(&self, precision: u32, scale: u32) -> Result<Decimal, DecimalError> {
        let stored = self.rescale(scale)?;
        if stored.integer_digits() > precision.saturating_sub(scale) {
            return Err(DecimalError::Overflow);
        }
        Ok(stored)
    }

    /// Whether the value fits a DECIMAL(precision, scale) column without rounding.
    pub fn fits(&self, precision: u32, scale: u32) -> bool {
        self.normalized().scale as u32 <= scale
            && self.integer_digits() <= precision.saturating_sub(scale)
    }

    /// The largest value of DECIMAL(precision, scale): `99…9.9…9`.
    pub fn max_of(precision: u32, scale: u32) -> Decimal {
        let precision = precision.min(MAX_DIGITS);
        let scale = scale.min(MAX_SCALE).min(precision);
        Decimal {
            unscaled: (pow10(precision) - Wide::ONE).as_::<Narrow>(),
            scale: scale as u8,
        }
    }

    /// Reads a decimal number: `[+-]digits[.digits][e[+-]digits]` (either digit run may be
    /// empty, not both), nothing else around it. Fractional digits past 38 are rounded half
    /// away from zero; more than 81 significant digits is an overflow.
    pub fn parse(text: &str) -> Result<Decimal, DecimalError> {
        match Decimal::parse_prefix(text) {
            Some((value, used)) if used == text.len() => value,
            _ => Err(DecimalError::Invalid),
        }
    }

    /// Reads the longest decimal number at the start of `text` (after no whitespace) and
    /// says how many bytes it used; `None` when no digit starts it. An exponent marker that
    /// no digit follows is not part of the number (`1e` reads `1` and uses one byte).
    pub fn parse_prefix(text: &str) -> Option<(Result<Decimal, DecimalError>, usize)> {
        let bytes = text.as_bytes();
        let mut pos = 0;
        let negative = take_sign(bytes, &mut pos);
        let mut digits: Vec<u8> = Vec::new();
        let mut any_digit = false;
        while let Some(&b) = bytes.get(pos).filter(|b| b.is_ascii_digit()) {
            any_digit = true;
            if !(digits.is_empty() && b == b'0') {
                digits.push(b - b'0');
            }
            pos += 1;
        }
        let mut fraction = 0i64;
        if bytes.get(pos) == Some(&b'.') {
            let after_point = pos + 1;
            let mut p = after_point;
            while let Some(&b) = bytes.get(p).filter(|b| b.is_ascii_digit()) {
                digits.push(b - b'0');
                fraction += 1;
                p += 1;
            }
            if any_digit || p > after_point {
                any_digit = true;
                pos = p;
            }
        }
        if !any_digit {
            return None;
        }
        let mut exponent = 0i64;
        if matches!(bytes.get(pos), Some(b'e' | b'E')) {
            let mut p = pos + 1;
            let exp_negative = take_sign(bytes, &mut p);
            let start = p;
            let mut magnitude = 0i64;
            while let Some(&b) = bytes.get(p).filter(|b| b.is_ascii_digit()) {
                // Saturate: any exponent past a million says the same as a million.
                magnitude = (magnitude * 10 + (b - b'0') as i64).min(1_000_000);
                p += 1;
            }
            if p > start {
                exponent = if exp_negative { -magnitude } else { magnitude };
                pos = p;
            }
        }
        Some((
            Decimal::from_parsed(negative, digits, exponent - fraction),
            pos,
        ))
    }

    /// `digits × 10^exponent`, where `digits` may start with zeros.
    fn from_parsed(
        negative: bool,
        mut digits: Vec<u8>,
        exponent: i64,
    ) -> Result<Decimal, DecimalError> {
        let first = digits.iter().position(|&d| d != 0);
        let Some(first) = first else {
            return Ok(Decimal {
                unscaled: Narrow::ZERO,
                scale: (-exponent).clamp(0, MAX_SCALE as i64) as u8,
            });
        };
        digits.drain(..first);
        let mut scale = -exponent;
        if scale > MAX_SCALE as i64 {
            // Drop the digits past 38 fractional ones, rounding half away from zero.
            let drop = (scale - MAX_SCALE as i64) as usize;
            let round_up = drop <= digits.len() && digits[digits.len() - drop] >= 5;
            digits.truncate(digits.len().saturating_sub(drop));
            scale = MAX_SCALE as i64;
            if round_up {
                let mut i = digits.len();
                loop {
                    if i == 0 {
                        digits.insert(0, 1);
                        break;
                    }
                    i -= 1;
                    if digits[i] == 9 {
                        digits[i] = 0;
                    } else {
                        digits[i] += 1;
                        break;
                    }
                }
            }
        }
        if scale < 0 {
            let zeros = (-scale) as usize;
            if digits.len() + zeros > MAX_DIGITS as usize {
                return Err(DecimalError::Overflow);
            }
            digits.resize(digits.len() + zeros, 0);
            scale = 0;
        }
        Decimal::from_digits(negative, &digits, scale as u32)
    }
}

impl Default for Decimal {
    fn default() -> Decimal {
        Decimal::ZERO
    }
}

impl FromStr for Decimal {
    type Err = DecimalError;
    fn from_str(text: &str) -> Result<Decimal, DecimalError> {
        Decimal::parse(text)
    }
}

impl From<i64> for Decimal {
    fn from(v: i64) -> Decimal {
        Decimal::from_i64(v)
    }
}

impl From<u64> for Decimal {
    fn from(v: u64) -> Decimal {
        Decimal::from_u64(v)
    }
}

impl std::ops::Neg for Decimal {
    type Output = Decimal;
    fn neg(self) -> Decimal {
        Decimal::neg(&self)
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Decimal) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        if self.scale == other.scale {
            return self.unscaled.cmp(&other.unscaled);
        }
        let (a, b, _) = self.aligned(other);
        a.cmp(&b)
    }
}

impl Hash for Decimal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let n = self.normalized();
        n.unscaled.hash(state);
        n.scale.hash(state);
    }
}

impl fmt::Display for Decimal {
    /// MariaDB's text: no exponent, exactly `scale` fractional digits, `0.5` not `.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Up to 38 digits (every stored DECIMAL(38,s) and most results) the magnitude is a
        // u128, whose formatting is several times faster than the wide integer's.
        let digits = match self.unscaled_i128() {
            Some(v) => v.unsigned_abs().to_string(),
            None => self.unscaled.unsigned_abs().to_string(),
        };
        let scale = self.scale as usize;
        let mut text = String::with_capacity(digits.len() + scale + 3);
        if self.is_negative() {
            text.push('-');
        }
        if scale == 0 {
            text.push_str(&digits);
        } else if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            text.push_str(int);
            text.push('.');
            text.push_str(frac);
        } else {
            text.push_str("0.");
            text.extend(std::iter::repeat_n('0', scale - digits.len()));
            text.push_str(&digits);
        }
        f.pad(&text)
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({self})")
    }
}

#[cfg(test)]
#[path = "decimal_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "decimal_props.rs"]
mod props;
