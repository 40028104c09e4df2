//! Statement text to statements: splitting, the hand-written parsers and the sqlparser call.

pub mod const_lists;
pub mod dialect;
pub mod from_ast;
pub mod key_cache_parse;
pub mod source;
pub mod statements;
