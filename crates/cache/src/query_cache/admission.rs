//! Who may use the cache: the frequency sketch (admission), the per-template verdicts and
//! the whole-cache step-aside. All of it is lock-free: relaxed atomics on fixed arrays, so
//! a lookup that is refused here has cost a few atomic loads and no allocation.

use super::sync::{AtomicU64, AtomicU8, Ordering};

/// Counters of the frequency sketch: 2^16 four-bit-range counters (one byte each, 64 KiB).
/// With two probes per key, a working set of several thousand distinct statements keeps
/// the collision rate low; beyond that the sketch only over-admits, which costs an insert.
const SKETCH_COUNTERS: usize = 1 << 16;

/// A counter saturates here: "seen often" needs no more resolution than that.
const SKETCH_COUNTER_MAX: u8 = 15;

/// Increments after which every counter is halved (TinyLFU's reset), so that evidence of
/// reuse fades: ten increments per counter on average.
const SKETCH_SAMPLE: u64 = (SKETCH_COUNTERS as u64) * 10;

/// Sightings a thread counts locally before adding them to the sketch's shared count.
const SKETCH_BATCH: u64 = 32;

std::thread_local! {
    /// This thread's sightings not yet added to a sketch's shared count (any sketch: the
    /// count only paces the aging).
    static SKETCH_TALLY: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Sightings (including this one) a statement needs before its result is inserted: a
/// statement seen once is most likely never seen again.
pub const ADMIT_AFTER_SIGHTINGS: u8 = 2;

/// The frequency sketch: count-min with two probes over byte counters.
pub struct Sketch {
    counters: Box<[AtomicU8]>,
    increments: AtomicU64,
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch {
            counters: (0..SKETCH_COUNTERS).map(|_| AtomicU8::new(0)).collect(),
            increments: AtomicU64::new(0),
        }
    }
}

impl Sketch {
    fn slots(hash: u64) -> [usize; 2] {
        let mask = SKETCH_COUNTERS as u64 - 1;
        [(hash & mask) as usize, ((hash >> 32) & mask) as usize]
    }

    /// Count one sighting of `hash` and return the estimated sightings, this one included.
    pub fn record(&self, hash: u64) -> u8 {
        let mut estimate = u8::MAX;
        for slot in Self::slots(hash) {
            let previous = self.counters[slot]
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                    (c < SKETCH_COUNTER_MAX).then_some(c + 1)
                })
                .unwrap_or(SKETCH_COUNTER_MAX);
            estimate = estimate.min(previous.saturating_add(1).min(SKETCH_COUNTER_MAX));
        }
        // The sample size is counted in batches of SKETCH_BATCH per thread, so that the
        // shared count is written once per batch rather than by every lookup of every thread.
        let batch = SKETCH_TALLY.with(|tally| {
            let n = tally.get() + 1;
            tally.set(n % SKETCH_BATCH);
            n == SKETCH_BATCH
        });
        if batch {
            let before = self.increments.fetch_add(SKETCH_BATCH, Ordering::Relaxed);
            if before < SKETCH_SAMPLE && before + SKETCH_BATCH >= SKETCH_SAMPLE {
                // The thread that completes the sample ages every counter; concurrent records
                // may lose an increment to the halving, which only delays an admission.
                for c in self.counters.iter() {
                    let _ = c.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some(v / 2));
                }
                self.increments.store(0, Ordering::Relaxed);
            }
        }
        estimate
    }

    /// The estimated sightings of `hash`, without counting one.
    pub fn estimate(&self, hash: u64) -> u8 {
        Self::slots(hash)
            .iter()
            .map(|&s| self.counters[s].load(Ordering::Relaxed))
            .min()
            .unwrap_or(0)
    }

    pub fn clear(&self) {
        for c in self.counters.iter() {
            c.store(0, Ordering::Relaxed);
        }
    }
}

/// Slots of the template table: templates hash into it; two templates that share a slot
/// share a verdict (a collision can only bypass or probe a template early).
const TEMPLATE_SLOTS: usize = 4096;

/// Lookups of one template between two verdicts.
pub const TEMPLATE_VERDICT_LOOKUPS: u64 = 512;

/// A template whose hit ratio over a verdict window is below this (in per mille) stops
/// using the cache: a lookup that almost never hits costs more than it saves.
pub const TEMPLATE_MIN_HIT_PER_MILLE: u64 = 50;

/// The first bypass of a template lasts this long; each further failed probe doubles it up
/// to [`BYPASS_MAX_MS`], and a successful window resets it.
pub const BYPASS_BASE_MS: u64 = 500;
pub const BYPASS_MAX_MS: u64 = 16_000;

/// Lookups (all templates) per whole-cache verdict.
pub const CACHE_VERDICT_LOOKUPS: u64 = 2048;

/// Below this hit ratio (per mille) over a whole-cache window, the cache steps aside for a
/// while (the same back-off as a template): every lookup is then one atomic load.
pub const CACHE_MIN_HIT_PER_MILLE: u64 = 50;

/// Lookups and hits in one word (lookups << 32 | hits), so recording a result is one add.
const LOOKUP_ONE: u64 = 1 << 32;

/// One adaptive verdict: a window of (lookups, hits) and a bypass deadline.
#[derive(Default)]
pub struct Verdict {
    window: AtomicU64,
    bypass_until_ms: AtomicU64,
    backoff_ms: AtomicU64,
}

/// What a verdict window concluded, for the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Open,
    /// The window closed and the subject was sent away (bypassed) until the deadline.
    SteppedAside,
    Kept,
}

impl Verdict {
    /// Whether the subject is bypassed at the time `now_ms` tells, which is asked only when
    /// a bypass was ever set (the clock is not read on the common path).
    pub fn bypassed(&self, now_ms: impl FnOnce() -> u64) -> bool {
        let until = self.bypass_until_ms.load(Ordering::Relaxed);
        until != 0 && until > now_ms()
    }

    /// Count one lookup; the lookup that completes a window decides (and only it reads the
    /// clock, `now_ms`, when it sets a bypass).
    pub fn record(
        &self,
        hit: bool,
        now_ms: impl FnOnce() -> u64,
        window_lookups: u64,
        min_hit_per_mille: u64,
    ) -> Outcome {
        let add = LOOKUP_ONE + u64::from(hit);
        let after = self
            .window
            .fetch_add(add, Ordering::Relaxed)
            .wrapping_add(add);
        let lookups = after >> 32;
        if lookups < window_lookups {
            return Outcome::Open;
        }
        if lookups > window_lookups {
            // Another thread closed this window; ours counts toward nothing (one lookup).
            return Outcome::Open;
        }
        let hits = after & (LOOKUP_ONE - 1);
        self.window.store(0, Ordering::Relaxed);
        if hits * 1000 < lookups * min_hit_per_mille {
            let backoff = self
                .backoff_ms
                .load(Ordering::Relaxed)
                .clamp(BYPASS_BASE_MS, BYPASS_MAX_MS);
            self.bypass_until_ms
                .store(now_ms() + backoff, Ordering::Relaxed);
            self.backoff_ms
                .store((backoff * 2).min(BYPASS_MAX_MS), Ordering::Relaxed);
            Outcome::SteppedAside
        } else {
            self.backoff_ms.store(BYPASS_BASE_MS, Ordering::Relaxed);
            Outcome::Kept
        }
    }

    pub fn reset(&self) {
        self.window.store(0, Ordering::Relaxed);
        self.bypass_until_ms.store(0, Ordering::Relaxed);
        self.backoff_ms.store(BYPASS_BASE_MS, Ordering::Relaxed);
    }
}

/// One verdict per template slot.
pub struct Templates {
    slots: Box<[Verdict]>,
}

impl Default for Templates {
    fn default() -> Self {
        Templates {
            slots: (0..TEMPLATE_SLOTS).map(|_| Verdict::default()).collect(),
        }
    }
}

impl Templates {
    pub fn slot(&self, template: u64) -> &Verdict {
        &self.slots[(template % TEMPLATE_SLOTS as u64) as usize]
    }

    /// Templates bypassed at `now_ms` (a pass over the slots: for SHOW STATUS only).
    pub fn bypassed(&self, now_ms: u64) -> u64 {
        self.slots.iter().filter(|v| v.bypassed(|| now_ms)).count() as u64
    }

    pub fn reset(&self) {
        for v in self.slots.iter() {
            v.reset();
        }
    }
}

#[cfg(all(test, not(feature = "shuttle")))]
mod tests {
    use super::*;

    #[test]
    fn a_statement_is_admitted_on_its_second_sighting() {
        let sketch = Sketch::default();
        assert_eq!(sketch.record(42), 1);
        assert_eq!(sketch.record(42), 2);
        assert_eq!(sketch.estimate(7), 0);
    }

    #[test]
    fn counters_saturate_and_age() {
        let sketch = Sketch::default();
        for _ in 0..100 {
            sketch.record(9);
        }
        assert_eq!(sketch.estimate(9), SKETCH_COUNTER_MAX);
        for n in 0..SKETCH_SAMPLE {
            sketch.record(1_000_000 + n);
        }
        assert!(
            sketch.estimate(9) < SKETCH_COUNTER_MAX,
            "counters are halved after a sample"
        );
    }

    #[test]
    fn a_cold_template_is_bypassed_then_probed_again_with_growing_backoff() {
        let v = Verdict::default();
        let mut now = 1_000;
        for _ in 0..TEMPLATE_VERDICT_LOOKUPS - 1 {
            assert_eq!(
                v.record(false, || now, TEMPLATE_VERDICT_LOOKUPS, 50),
                Outcome::Open
            );
        }
        assert_eq!(
            v.record(false, || now, TEMPLATE_VERDICT_LOOKUPS, 50),
            Outcome::SteppedAside
        );
        assert!(v.bypassed(|| now + BYPASS_BASE_MS - 1));
        assert!(!v.bypassed(|| now + BYPASS_BASE_MS));
        now += BYPASS_BASE_MS;
        for _ in 0..TEMPLATE_VERDICT_LOOKUPS {
            v.record(false, || now, TEMPLATE_VERDICT_LOOKUPS, 50);
        }
        assert!(
            v.bypassed(|| now + BYPASS_BASE_MS),
            "the second bypass lasts twice as long"
        );
        now += 2 * BYPASS_BASE_MS;
        // A hot window keeps it and resets the back-off.
        for _ in 0..TEMPLATE_VERDICT_LOOKUPS {
            v.record(true, || now, TEMPLATE_VERDICT_LOOKUPS, 50);
        }
        assert!(!v.bypassed(|| now));
    }
}
