//! System variables (declared once, with their on-set effects) and status counters.

pub mod budgets;
pub mod global_effects;
pub mod key_cache_effects;
pub mod status;
pub mod sysvars;
