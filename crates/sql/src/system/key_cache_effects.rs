//! The on-set effects of the key cache variables on the storage's block caches.

use crate::system::global_effects::as_u64;
use crate::system::sysvars::VarValue;
use myriad_cache::Knob;
use myriad_storage::Storage;

/// React to `SET GLOBAL name = value` (called by [`super::global_effects::apply`]). Returns whether
/// `name` is a key cache variable.
pub(crate) fn apply(storage: &Storage, name: &str, value: &VarValue) -> bool {
    let cache = storage.key_cache();
    let n = as_u64(value);
    match name {
        "key_buffer_size" => {
            // A resize fails only when it cannot move a block (an I/O error writing a dirty
            // victim); the blocks it could not move are retired by the clock later.
            if let Err(e) = storage
                .key_caches()
                .set_size(myriad_storage::DEFAULT_KEY_CACHE, n)
            {
                eprintln!("myriad: key_buffer_size resize: {e}");
            }
        }
        "key_cache_division_limit" => cache.set_division_limit(n),
        "key_cache_age_threshold" => cache.set_age_threshold(n),
        "key_cache_segments" | "key_cache_block_size" => {
            // A refusal (of a new segment count) is reported by `default_cache_note`.
            let _ = storage
                .key_caches()
                .configure(myriad_storage::DEFAULT_KEY_CACHE, knob(name, n));
        }
        _ => return false,
    }
    true
}

/// The structured variable `name` (one of [`STRUCTURED`] but the size) set to `n`.
pub(crate) fn knob(name: &str, n: u64) -> Knob {
    match name {
        "key_cache_division_limit" => Knob::DivisionLimit(n),
        "key_cache_age_threshold" => Knob::AgeThreshold(n),
        "key_cache_segments" => Knob::Segments(n),
        _ => Knob::ReadUnit(n),
    }
}
