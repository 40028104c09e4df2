use super::*;

fn d(text: &str) -> Decimal {
    Decimal::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn display_keeps_the_scale() {
    assert_eq!(d("1.50").to_string(), "1.50");
    assert_eq!(d("-0.05").to_string(), "-0.05");
    assert_eq!(d(".5").to_string(), "0.5");
    assert_eq!(d("5.").to_string(), "5");
    assert_eq!(d("000123.4500").to_string(), "123.4500");
    assert_eq!(d("1.5e2").to_string(), "150");
    assert_eq!(d("1.5E-2").to_string(), "0.015");
    assert_eq!(d("-0").to_string(), "0");
}

#[test]
fn arithmetic_matches_mariadb() {
    // Each expected text is what MariaDB 10.11 printed for the same expression.
    assert_eq!(
        d("2").checked_div(&d("3"), 4).unwrap().to_string(),
        "0.6667"
    );
    assert_eq!(
        d("-2").checked_div(&d("3"), 4).unwrap().to_string(),
        "-0.6667"
    );
    assert_eq!(
        d("1.00").checked_div(&d("3"), 4).unwrap().to_string(),
        "0.333333"
    );
    assert_eq!(
        d("1.0000000000000000000000000000000000000")
            .checked_div(&d("7"), 4)
            .unwrap()
            .to_string(),
        "0.14285714285714285714285714285714285714"
    );
    let nines = "9".repeat(65);
    assert_eq!(
        d(&nines).checked_add(&d("1")).unwrap().to_string(),
        format!("1{}", "0".repeat(65))
    );
    assert_eq!(
        d(&nines)
            .checked_mul(&d("9999999999999999"))
            .unwrap()
            .to_string(),
        "999999999999999899999999999999999999999999999999999999999999999990000000000000001"
    );
    assert_eq!(
        d(&nines).checked_mul(&d(&nines)),
        Err(DecimalError::Overflow)
    );
    let tiny = "0.00000000000000000000000000000000000004";
    assert_eq!(
        d(tiny).checked_mul(&d("0.1")).unwrap().to_string(),
        format!("0.{}", "0".repeat(38))
    );
    let tiny = "-0.00000000000000000000000000000000000005";
    assert_eq!(
        d(tiny).checked_mul(&d("0.1")).unwrap().to_string(),
        format!("-0.{}1", "0".repeat(37))
    );
    assert_eq!(
        d("1").checked_div(&d("0"), 4),
        Err(DecimalError::DivisionByZero)
    );
}

#[test]
fn round_and_truncate_go_half_away_from_zero() {
    assert_eq!(d("2.5").round_dp(0).unwrap().to_string(), "3");
    assert_eq!(d("-2.5").round_dp(0).unwrap().to_string(), "-3");
    assert_eq!(d("1.2345").round_dp(3).unwrap().to_string(), "1.235");
    assert_eq!(d("-1.2345").truncate_dp(3).unwrap().to_string(), "-1.234");
    assert_eq!(d("12345").round_dp(-2).unwrap().to_string(), "12300");
    assert_eq!(d("12355").truncate_dp(-1).unwrap().to_string(), "12350");
}

#[test]
fn equality_is_numeric() {
    assert_eq!(d("1.0"), d("1.00"));
    assert!(d("-1.5") < d("-1.49"));
    use std::hash::BuildHasher;
    let state = std::collections::hash_map::RandomState::new();
    assert_eq!(state.hash_one(d("1.0")), state.hash_one(d("1.000")));
}
