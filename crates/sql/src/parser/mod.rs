//! Statement text as tokens: the MySQL dialect of sqlparser's tokenizer and parser, the split
//! of a COM_QUERY text into statements with the map from token positions to text offsets,
//! and the long literal lists taken out before the tokenizer or sqlparser sees them. Nothing here knows what a
//! statement means: the statement compilers in [`crate::plan`] read these tokens.

pub mod const_lists;
pub mod dialect;
pub mod source;
pub mod text_lists;
pub mod versioned;
