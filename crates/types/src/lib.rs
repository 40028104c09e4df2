//! The one place a value's meaning is defined, shared by storage, sql and protocol: values,
//! collations, decimals, dates and times with MariaDB's formatting and comparison rules, and the table
//! of error codes with their SQLSTATE and message.

pub mod auth;
pub mod collation;
pub mod datetime;
pub mod decimal;
pub mod interval;
pub mod tls;
pub mod value;

pub use collation::Collation;
pub use datetime::{Date, DateTime, Time};
pub use decimal::{Decimal, DecimalError};
pub use value::{format_double, write_double, Value};
pub mod errors;

pub use errors::ErrorCode;
