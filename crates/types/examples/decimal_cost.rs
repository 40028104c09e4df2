//! Prints the size of a Decimal and of a Value, and the time of DECIMAL arithmetic on
//! 30-digit and 65-digit operands:
//! `cargo run -p myriad-types --release --example decimal_cost`.

use myriad_types::{Decimal, Value};
use std::hint::black_box;
use std::time::Instant;

/// Operations timed per measurement: enough for a stable mean on one core.
const OPERATIONS: u32 = 1_000_000;

fn time(name: &str, mut f: impl FnMut() -> Decimal) {
    let start = Instant::now();
    for _ in 0..OPERATIONS {
        black_box(f());
    }
    let ns = start.elapsed().as_nanos() as f64 / f64::from(OPERATIONS);
    println!("{name:<18} {ns:>8.1} ns/op");
}

fn main() {
    println!("size_of::<Decimal>() = {}", std::mem::size_of::<Decimal>());
    println!("size_of::<Value>()   = {}", std::mem::size_of::<Value>());
    let pairs = [
        (
            "30 digits",
            "12345678901234567890.1234567891",
            "98765432109876543210.9876543211",
        ),
        (
            "65 digits",
            "12345678901234567890123456789012345.123456789012345678901234567890",
            "98765432109876543210987654321098765.987654321098765432109876543210",
        ),
    ];
    for (label, a, b) in pairs {
        let (a, b): (Decimal, Decimal) = (a.parse().unwrap(), b.parse().unwrap());
        // A factor of 38 digits keeps every product within 81 digits.
        let factor: Decimal = "1.2345678901234567890123456789012345678".parse().unwrap();
        time(&format!("{label}: add"), || {
            a.checked_add(black_box(&b)).unwrap()
        });
        time(&format!("{label}: mul"), || {
            a.checked_mul(black_box(&factor)).unwrap()
        });
        time(&format!("{label}: div"), || {
            a.checked_div(black_box(&b), 4).unwrap()
        });
        time(&format!("{label}: parse"), || {
            black_box(a.to_string()).parse().unwrap()
        });
    }
}
