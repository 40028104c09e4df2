//! Property tests: every operation of [`Decimal`] against a plain model, an arbitrary-precision
//! unscaled integer (num-bigint) and a scale, with the rounding rules written out directly.

use super::*;
use num_bigint::BigInt;
use proptest::prelude::*;

/// The model of a decimal: `unscaled × 10^-scale`.
#[derive(Clone, Debug)]
struct Model {
    unscaled: BigInt,
    scale: u32,
}

fn ten_pow(n: u32) -> BigInt {
    num_bigint::BigInt::from(10u8).pow(n)
}

/// `num / den` rounded half away from zero.
fn model_div_round(num: &BigInt, den: &BigInt) -> BigInt {
    let q = num / den;
    let r = num - &q * den;
    let twice: BigInt = r.magnitude().clone().into();
    let twice = twice * 2;
    let den_abs: BigInt = den.magnitude().clone().into();
    if r != BigInt::from(0) && twice >= den_abs {
        if (num < &BigInt::from(0)) != (den < &BigInt::from(0)) {
            q - 1
        } else {
            q + 1
        }
    } else {
        q
    }
}

fn model_digits(x: &BigInt) -> u32 {
    if *x == BigInt::from(0) {
        0
    } else {
        x.magnitude().to_string().len() as u32
    }
}

/// What [`Decimal`] must give for the exact `unscaled × 10^-scale`: rounded to scale 38,
/// an overflow past 81 digits.
fn model_fit(unscaled: BigInt, scale: u32) -> Result<Model, DecimalError> {
    let (unscaled, scale) = if scale > MAX_SCALE {
        (
            model_div_round(&unscaled, &ten_pow(scale - MAX_SCALE)),
            MAX_SCALE,
        )
    } else {
        (unscaled, scale)
    };
    if model_digits(&unscaled) > MAX_DIGITS {
        return Err(DecimalError::Overflow);
    }
    Ok(Model { unscaled, scale })
}

fn to_model(d: &Decimal) -> Model {
    let text = d.unscaled.to_string();
    Model {
        unscaled: text.parse().unwrap(),
        scale: d.scale(),
    }
}

/// What the model expects of a division by `divisor`: `model()`, or the division-by-zero
/// error when the divisor is zero (the model would panic).
fn model_or_div_zero(
    divisor: &Decimal,
    model: impl FnOnce() -> Result<Model, DecimalError>,
) -> Result<Model, DecimalError> {
    if divisor.is_zero() {
        Err(DecimalError::DivisionByZero)
    } else {
        model()
    }
}

fn same(got: Result<Decimal, DecimalError>, want: Result<Model, DecimalError>) {
    match (got, want) {
        (Ok(g), Ok(w)) => {
            let g = to_model(&g);
            assert_eq!((g.unscaled, g.scale), (w.unscaled, w.scale));
        }
        (Err(g), Err(w)) => assert_eq!(g, w),
        (g, w) => panic!("decimal gave {g:?}, model gave {w:?}"),
    }
}

/// Decimals of every width: up to 81 digits, scale up to 38, many short ones.
fn decimal() -> impl Strategy<Value = Decimal> {
    let digits = prop_oneof![
        prop::collection::vec(0u8..10, 0..6),
        prop::collection::vec(0u8..10, 0..40),
        prop::collection::vec(0u8..10, 0..=81),
        (1usize..=81).prop_map(|n| vec![9u8; n]),
    ];
    (any::<bool>(), digits, 0u32..=MAX_SCALE).prop_map(|(negative, digits, scale)| {
        Decimal::from_digits(negative, &digits, scale).unwrap()
    })
}

fn model_of(a: &Decimal, b: &Decimal) -> (BigInt, BigInt, u32) {
    let (ma, mb) = (to_model(a), to_model(b));
    let scale = ma.scale.max(mb.scale);
    (
        ma.unscaled * ten_pow(scale - ma.scale),
        mb.unscaled * ten_pow(scale - mb.scale),
        scale,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn add_sub_are_exact(a in decimal(), b in decimal()) {
        let (x, y, scale) = model_of(&a, &b);
        same(a.checked_add(&b), model_fit(&x + &y, scale));
        same(a.checked_sub(&b), model_fit(x - y, scale));
    }

    /// Operands of one scale that fit an i128 take the native paths of add, sub and mul.
    #[test]
    fn native_paths_agree_with_the_model(
        (negative_a, a, negative_b, b, scale) in (
            any::<bool>(),
            prop::collection::vec(0u8..10, 0..=39),
            any::<bool>(),
            prop::collection::vec(0u8..10, 0..=39),
            0u32..=MAX_SCALE,
        )
    ) {
        let a = Decimal::from_digits(negative_a, &a, scale).unwrap();
        let b = Decimal::from_digits(negative_b, &b, scale).unwrap();
        let (x, y, scale) = model_of(&a, &b);
        same(a.checked_add(&b), model_fit(&x + &y, scale));
        same(a.checked_sub(&b), model_fit(&x - &y, scale));
        same(a.checked_mul(&b), model_fit(x * y, 2 * scale));
    }

    #[test]
    fn mul_is_exact_then_rounded_to_38(a in decimal(), b in decimal()) {
        let (ma, mb) = (to_model(&a), to_model(&b));
        same(a.checked_mul(&b), model_fit(ma.unscaled * mb.unscaled, ma.scale + mb.scale));
    }

    #[test]
    fn div_adds_the_increment_and_rounds(a in decimal(), b in decimal(), inc in 0u32..=30) {
        let (ma, mb) = (to_model(&a), to_model(&b));
        if b.is_zero() {
            prop_assert_eq!(a.checked_div(&b, inc), Err(DecimalError::DivisionByZero));
        } else {
            let scale = (ma.scale + inc).min(MAX_SCALE);
            // q = a × 10^(scale + sb - sa) / b, exactly, then rounded.
            let num = ma.unscaled * ten_pow(scale + mb.scale);
            let den = mb.unscaled * ten_pow(ma.scale);
            same(a.checked_div(&b, inc), model_fit(model_div_round(&num, &den), scale));
        }
    }

    #[test]
    fn rem_has_the_dividend_sign(a in decimal(), b in decimal()) {
        let (x, y, scale) = model_of(&a, &b);
        same(a.checked_rem(&b), model_or_div_zero(&b, || model_fit(x % y, scale)));
    }

    #[test]
    fn integer_division_truncates(a in decimal(), b in decimal()) {
        let (x, y, _) = model_of(&a, &b);
        same(a.checked_div_trunc(&b), model_or_div_zero(&b, || model_fit(x / y, 0)));
    }

    #[test]
    fn floor_and_ceil(a in decimal()) {
        let m = to_model(&a);
        let den = ten_pow(m.scale);
        let trunc = &m.unscaled / &den;
        let exact = &trunc * &den == m.unscaled;
        let negative = m.unscaled < BigInt::from(0);
        let floor = if !exact && negative { &trunc - 1 } else { trunc.clone() };
        let ceil = if !exact && !negative { &trunc + 1 } else { trunc };
        same(a.floor(), model_fit(floor, 0));
        same(a.ceil(), model_fit(ceil, 0));
    }

    #[test]
    fn order_and_equality_are_numeric(a in decimal(), b in decimal(), pad in 0u32..=38) {
        let (x, y, _) = model_of(&a, &b);
        prop_assert_eq!(a.cmp(&b), x.cmp(&y));
        prop_assert_eq!(a == b, x == y);
        // The same number at a larger scale is equal and hashes alike.
        if let Ok(wider) = a.rescale(a.scale() + pad) {
            use std::hash::BuildHasher;
            let state = std::collections::hash_map::RandomState::new();
            prop_assert_eq!(wider, a);
            prop_assert_eq!(state.hash_one(wider), state.hash_one(a));
        }
    }

    #[test]
    fn round_and_truncate(a in decimal(), digits in -85i32..=40) {
        let m = to_model(&a);
        let scale = m.scale as i32;
        for (got, round) in [(a.round_dp(digits), true), (a.truncate_dp(digits), false)] {
            if digits >= scale {
                prop_assert_eq!(got.map(|g| g.to_string()), Ok(a.to_string()));
                continue;
            }
            let den = ten_pow((scale - digits) as u32);
            let kept = if round { model_div_round(&m.unscaled, &den) } else { &m.unscaled / &den };
            let want = if digits >= 0 {
                model_fit(kept, digits as u32)
            } else {
                model_fit(kept * ten_pow((-digits) as u32), 0)
            };
            same(got, want);
        }
    }

    #[test]
    fn text_round_trips(a in decimal()) {
        let text = a.to_string();
        let back = Decimal::parse(&text).unwrap();
        prop_assert_eq!(back.to_string(), text.clone());
        prop_assert_eq!(back.scale(), a.scale());
        let m = to_model(&a);
        prop_assert_eq!(a.precision(), model_digits(&m.unscaled).saturating_sub(m.scale) + m.scale);
        // The same number written with an exponent reads back equal.
        let exp = format!("{}e{}", m.unscaled, -(m.scale as i64));
        prop_assert_eq!(Decimal::parse(&exp).unwrap(), a);
    }

    #[test]
    fn bytes_round_trip(a in decimal()) {
        let back = Decimal::from_unscaled_be_bytes(a.unscaled_be_bytes(), a.scale()).unwrap();
        prop_assert_eq!(back.to_string(), a.to_string());
        if let Some(v) = a.unscaled_i128() {
            prop_assert_eq!(Decimal::from_i128_scaled(v, a.scale()).unwrap().to_string(), a.to_string());
        }
    }

    #[test]
    fn column_store_rounds_then_checks_integer_digits(a in decimal(), p in 1u32..=65, s in 0u32..=38) {
        let s = s.min(p);
        let m = to_model(&a);
        let want = if s >= m.scale {
            model_fit(m.unscaled * ten_pow(s - m.scale), s)
        } else {
            model_fit(model_div_round(&m.unscaled, &ten_pow(m.scale - s)), s)
        };
        let want = want.and_then(|w| {
            if model_digits(&w.unscaled).saturating_sub(w.scale) > p - s {
                Err(DecimalError::Overflow)
            } else {
                Ok(w)
            }
        });
        same(a.to_column(p, s), want);
    }

    #[test]
    fn integers_round_trip(v in any::<i64>(), u in any::<u64>()) {
        prop_assert_eq!(Decimal::from_i64(v).to_i64(), Some(v));
        prop_assert_eq!(Decimal::from_u64(u).to_u64(), Some(u));
        prop_assert_eq!(Decimal::from_i64(v).to_string(), v.to_string());
    }

    #[test]
    fn to_integer_rounds_half_away(a in decimal()) {
        let m = to_model(&a);
        let want = model_div_round(&m.unscaled, &ten_pow(m.scale));
        prop_assert_eq!(a.to_i64(), i64::try_from(&want).ok());
        prop_assert_eq!(a.to_u64(), u64::try_from(&want).ok());
    }

    #[test]
    fn doubles_convert_through_shortest_text(v in any::<f64>()) {
        match Decimal::from_f64(v) {
            None => prop_assert!(!v.is_finite()),
            Some(Ok(dec)) => {
                // Nothing lost but digits past scale 38.
                if v.abs() >= 1e-20 {
                    prop_assert_eq!(dec.to_f64(), v);
                }
            }
            Some(Err(e)) => {
                prop_assert_eq!(e, DecimalError::Overflow);
                prop_assert!(v.abs() >= 1e81);
            }
        }
    }
}
