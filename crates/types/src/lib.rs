//! The one place a value's meaning is defined, shared by storage, sql and protocol: values,
//! decimals, dates and times with MariaDB's formatting and comparison rules, and the table
//! of error codes with their SQLSTATE and message.

pub mod errors;

pub use errors::ErrorCode;
