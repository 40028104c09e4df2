//! RAND: MariaDB's generator, so that `RAND(N)` gives MariaDB's numbers.
//!
//! Two 30-bit states, each step `s1 = (3·s1 + s2) mod M`, `s2 = (s1 + s2 + 33) mod M` with
//! `M = 2^30 − 1`, the result `s1 / M`. `RAND(N)` seeds from N's low 32 bits (N rounded as
//! an integer, NULL as 0): `s1 = N·65537 + 55555555`, `s2 = N·268435457`, both cut to
//! 32 bits, then reduced mod M.
//! - A constant N (a literal, a parameter, a user variable, an expression of those) seeds
//!   one generator per call in the statement, at its first use; each row then takes the
//!   next number ([`crate::expr::Env::seeded_rand`]).
//! - An N that reads the row seeds afresh for every row: the number is a function of N.
//! - `RAND()` takes the next number of the session's generator, seeded when the session
//!   starts ([`crate::expr::Env::rand`]).
//!
//! RAND is not deterministic: a statement that calls it is not cached, and a comparison
//! with it is not an index bound (it is evaluated per row).

const MAX: u64 = 0x3FFF_FFFF;

/// One generator's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandState {
    s1: u64,
    s2: u64,
}

impl RandState {
    /// The generator `RAND(seed)` starts with.
    pub fn seeded(seed: u32) -> RandState {
        let n = u64::from(seed);
        RandState::from_parts(
            (n.wrapping_mul(0x10001).wrapping_add(55_555_555)) as u32,
            n.wrapping_mul(0x1000_0001) as u32,
        )
    }

    /// A generator from two 32-bit seeds (a session's, from the clock and its id).
    pub fn from_parts(s1: u32, s2: u32) -> RandState {
        RandState {
            s1: u64::from(s1) % MAX,
            s2: u64::from(s2) % MAX,
        }
    }

    /// A generator seeded from the clock (a session's RAND()).
    pub fn from_clock() -> RandState {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        RandState::from_parts(nanos as u32, (nanos >> 32) as u32)
    }

    /// The next number, in [0, 1).
    pub fn next_double(&mut self) -> f64 {
        self.s1 = (self.s1 * 3 + self.s2) % MAX;
        self.s2 = (self.s1 + self.s2 + 33) % MAX;
        self.s1 as f64 / MAX as f64
    }
}

/// RAND(N)'s seed from N's value: rounded to an integer, its low 32 bits; NULL is 0.
pub(crate) fn seed_of(v: &crate::value::Value, w: &mut Vec<crate::expr::eval::Warning>) -> u32 {
    use crate::expr::eval::SqlValue;
    v.to_int(w).unwrap_or(0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_sequences_are_mariadbs() {
        // MariaDB 10.11: SELECT rand(N), and rand(7) over three rows.
        for (seed, want) in [
            (0u32, 0.15522042769493574),
            (1, 0.40540353712197724),
            (2, 0.6555866465490187),
            (100, 0.17353134804734155),
            (u32::MAX, 0.9050373219931845),
        ] {
            assert_eq!(RandState::seeded(seed).next_double(), want, "rand({seed})");
        }
        let mut r = RandState::seeded(7);
        let got: Vec<f64> = (0..3).map(|_| r.next_double()).collect();
        assert_eq!(
            got,
            [0.9065021936842261, 0.37600881361962185, 0.16053751777907602]
        );
    }

    #[test]
    fn numbers_stay_in_the_unit_interval() {
        let mut r = RandState::from_parts(u32::MAX, u32::MAX);
        for _ in 0..10_000 {
            let x = r.next_double();
            assert!((0.0..1.0).contains(&x));
        }
    }
}
