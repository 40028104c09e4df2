//! SQL values as they cross the engine boundary (results and prepared-statement
//! parameters): the workspace's one value type, defined with its text forms in
//! `myriad_types`.

pub use myriad_types::Value;
