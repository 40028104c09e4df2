//! The values and definitions the storage stores: [`Value`], [`ColumnType`], [`TableDef`],
//! and the error type [`StorageError`].
//!
//! Stored values are the workspace's one [`Value`]; the column's [`ColumnType`] says which
//! variant a stored value is:
//!
//! | column type                           | value                                   |
//! |---------------------------------------|-----------------------------------------|
//! | TINYINT..BIGINT signed                | `Int`                                   |
//! | TINYINT..BIGINT UNSIGNED              | `UInt`                                  |
//! | DECIMAL(p,s)                          | `Decimal`, read back with the column's scale |
//! | FLOAT, DOUBLE                         | `Double` (FLOAT rounded to f32 by the SQL layer) |
//! | CHAR, VARCHAR, TEXT (utf8mb4), BLOB   | `Bytes`                                 |
//! | DATE                                  | `Date`                                  |
//! | DATETIME, TIMESTAMP                   | `DateTime`                              |
//! | TIME                                  | `Time`                                  |
//!
//! Index key encoding accepts `Int`/`UInt` interchangeably for integer columns (out of
//! range is an error); other mismatches are [`StorageError::TypeMismatch`].

use std::fmt;
use std::sync::Arc;

pub use myriad_types::{Date, DateTime, Decimal, Time, Value};

/// Parse decimal text (`-12.345`, `+1e3` is not accepted) into the unscaled integer of a
/// DECIMAL with `scale` digits after the point, rounding half away from zero as MySQL
/// does. None when the text is not a decimal number or does not fit in 38 digits.
pub fn unscaled_decimal_from_str(text: &str, scale: u8) -> Option<i128> {
    let text = text.trim();
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (int_part, frac_part) = digits.split_once('.').unwrap_or((digits, ""));
    if (int_part.is_empty() && frac_part.is_empty())
        || !int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut unscaled: i128 = 0;
    for b in int_part.bytes() {
        unscaled = unscaled.checked_mul(10)?.checked_add((b - b'0') as i128)?;
    }
    let frac = frac_part.as_bytes();
    for i in 0..scale as usize {
        let digit = frac.get(i).map_or(0, |b| (b - b'0') as i128);
        unscaled = unscaled.checked_mul(10)?.checked_add(digit)?;
    }
    if frac.get(scale as usize).is_some_and(|b| *b >= b'5') {
        unscaled = unscaled.checked_add(1)?;
    }
    if unscaled >= STORED_DECIMAL_LIMIT {
        return None;
    }
    Some(if negative { -unscaled } else { unscaled })
}

/// 10^38: every stored DECIMAL's unscaled integer is smaller in magnitude (p <= 38).
pub const STORED_DECIMAL_LIMIT: i128 = 10i128.pow(38);

/// A DECIMAL value from its stored unscaled integer and the column's scale (`-5`, 2 is
/// `-0.05`). Every i128 (39 digits at most) with a column scale (at most 38) is a decimal.
pub fn decimal_from_unscaled(unscaled: i128, scale: u8) -> Decimal {
    Decimal::from_i128_scaled(unscaled, scale.into())
        .expect("an i128 with a column scale is a valid decimal")
}

/// The unscaled integer of `d` at `scale` digits after the point, as a DECIMAL column with
/// that scale stores it: None when `d` has more fraction digits than `scale` (the SQL layer
/// rounds to the column first) or when it does not fit an i128.
pub fn decimal_to_unscaled(d: &Decimal, scale: u8) -> Option<i128> {
    if d.scale() > u32::from(scale) {
        return None;
    }
    d.rescale(scale.into()).ok()?.unscaled_i128()
}

/// A row: one datum per column, in the definition's column order.
pub type Row = Vec<Value>;

/// A row's stable identity inside its table (assigned at insert, never reused while the
/// row exists; survives updates).
pub type RowId = u64;

/// How strings of a column compare (and so how index keys order).
pub use myriad_types::Collation;

/// Integer widths, for range checks and SHOW CREATE TABLE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntWidth {
    Tiny,
    Small,
    Medium,
    Int,
    Big,
}

impl IntWidth {
    pub fn bits(self) -> u32 {
        match self {
            IntWidth::Tiny => 8,
            IntWidth::Small => 16,
            IntWidth::Medium => 24,
            IntWidth::Int => 32,
            IntWidth::Big => 64,
        }
    }
    /// Inclusive range of the signed type.
    pub fn signed_range(self) -> (i64, i64) {
        let b = self.bits();
        if b == 64 {
            (i64::MIN, i64::MAX)
        } else {
            (-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1)
        }
    }
    /// Largest value of the unsigned type.
    pub fn unsigned_max(self) -> u64 {
        let b = self.bits();
        if b == 64 {
            u64::MAX
        } else {
            (1u64 << b) - 1
        }
    }
}

/// Column types the SQL layer needs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ColumnType {
    Int {
        width: IntWidth,
        unsigned: bool,
    },
    Decimal {
        precision: u8,
        scale: u8,
    },
    Float,
    Double,
    /// CHAR(n): n characters.
    Char {
        len: u32,
        collation: Collation,
    },
    /// VARCHAR(n): n characters.
    Varchar {
        len: u32,
        collation: Collation,
    },
    /// TINYTEXT, TEXT, MEDIUMTEXT, LONGTEXT.
    Text {
        collation: Collation,
        size: LobSize,
    },
    /// TINYBLOB, BLOB, MEDIUMBLOB, LONGBLOB.
    Blob {
        size: LobSize,
    },
    Date,
    /// DATETIME(fsp): `fsp` digits of fractional seconds, 0 to 6.
    DateTime {
        fsp: u8,
    },
    /// TIMESTAMP(fsp): `fsp` digits of fractional seconds, 0 to 6.
    Timestamp {
        fsp: u8,
    },
    /// TIME(fsp): a signed duration of at most 838:59:59.999999, `fsp` digits of
    /// fractional seconds, 0 to 6.
    Time {
        fsp: u8,
    },
    /// ENUM('a', 'b', ...): one of its elements, stored as the element's text (see
    /// [`crate::elements`]); index keys order by the element's position, 1 for the first,
    /// 0 for the empty string of an invalid value.
    Enum {
        elements: Arc<[String]>,
        collation: Collation,
    },
    /// SET('a', 'b', ...): any of its elements, stored as their text in definition order
    /// joined by commas; index keys order by the bitmask (bit 0 for the first element).
    Set {
        elements: Arc<[String]>,
        collation: Collation,
    },
}

pub use myriad_types::datetime::{truncate_micros, MAX_FSP};

impl ColumnType {
    /// Digits of fractional seconds the type keeps (0 for a type without them).
    pub fn fsp(&self) -> u8 {
        match self {
            ColumnType::DateTime { fsp }
            | ColumnType::Timestamp { fsp }
            | ColumnType::Time { fsp } => *fsp,
            _ => 0,
        }
    }

    /// The collation string comparisons and index keys use (`Binary` for non-strings).
    pub fn collation(&self) -> Collation {
        match self {
            ColumnType::Char { collation, .. }
            | ColumnType::Varchar { collation, .. }
            | ColumnType::Text { collation, .. }
            | ColumnType::Enum { collation, .. }
            | ColumnType::Set { collation, .. } => *collation,
            _ => Collation::Binary,
        }
    }

    /// The collation of a string column (BLOB's is `binary`); None for other types.
    pub fn string_collation(&self) -> Option<Collation> {
        self.is_string().then(|| self.collation())
    }

    pub fn is_string(&self) -> bool {
        matches!(
            self,
            ColumnType::Char { .. }
                | ColumnType::Varchar { .. }
                | ColumnType::Text { .. }
                | ColumnType::Blob { .. }
                | ColumnType::Enum { .. }
                | ColumnType::Set { .. }
        )
    }

    /// The elements of an ENUM or SET column, and whether it is a SET.
    pub fn elements(&self) -> Option<(&Arc<[String]>, bool)> {
        match self {
            ColumnType::Enum { elements, .. } => Some((elements, false)),
            ColumnType::Set { elements, .. } => Some((elements, true)),
            _ => None,
        }
    }
}

/// The size class of a TEXT or BLOB column: the most bytes one value may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LobSize {
    Tiny,
    Regular,
    Medium,
    Long,
}

impl LobSize {
    /// MariaDB's limit per value: 2^8 - 1, 2^16 - 1, 2^24 - 1, 2^32 - 1 bytes. A LONGBLOB
    /// value is bounded in practice by max_allowed_packet, as in MariaDB.
    pub fn max_bytes(self) -> u64 {
        match self {
            LobSize::Tiny => 255,
            LobSize::Regular => 65_535,
            LobSize::Medium => 16_777_215,
            LobSize::Long => 4_294_967_295,
        }
    }
    /// The type name's prefix: `tiny`, ``, `medium`, `long`.
    pub fn prefix(self) -> &'static str {
        match self {
            LobSize::Tiny => "tiny",
            LobSize::Regular => "",
            LobSize::Medium => "medium",
            LobSize::Long => "long",
        }
    }
    /// The smallest size class that holds `bytes` (BLOB(n), TEXT(n)).
    pub fn for_bytes(bytes: u64) -> LobSize {
        [LobSize::Tiny, LobSize::Regular, LobSize::Medium]
            .into_iter()
            .find(|s| bytes <= s.max_bytes())
            .unwrap_or(LobSize::Long)
    }
    pub(crate) fn tag(self) -> u8 {
        match self {
            LobSize::Tiny => 0,
            LobSize::Regular => 1,
            LobSize::Medium => 2,
            LobSize::Long => 3,
        }
    }
    pub(crate) fn from_tag(tag: u8) -> Option<LobSize> {
        Some(match tag {
            0 => LobSize::Tiny,
            1 => LobSize::Regular,
            2 => LobSize::Medium,
            3 => LobSize::Long,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub ty: ColumnType,
    pub nullable: bool,
    /// The default as a datum (None: no DEFAULT clause).
    pub default: Option<Value>,
    pub auto_increment: bool,
    /// `DEFAULT CURRENT_TIMESTAMP`: an insert that gives no value stores the statement's
    /// time (then `default` is None). TIMESTAMP and DATETIME columns only.
    pub default_now: bool,
    /// `ON UPDATE CURRENT_TIMESTAMP`: an update that changes the row and does not assign
    /// this column stores the statement's time. TIMESTAMP and DATETIME columns only.
    pub on_update_now: bool,
    /// Optional COMMENT or other text the SQL layer wants shown back.
    pub comment: String,
}

impl ColumnDef {
    pub fn new(name: &str, ty: ColumnType) -> ColumnDef {
        ColumnDef {
            name: name.to_string(),
            ty,
            nullable: true,
            default: None,
            auto_increment: false,
            default_now: false,
            on_update_now: false,
            comment: String::new(),
        }
    }
    pub fn not_null(mut self) -> ColumnDef {
        self.nullable = false;
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexKind {
    Primary,
    Unique,
    NonUnique,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexDef {
    /// `PRIMARY` for the primary key.
    pub name: String,
    pub kind: IndexKind,
    /// Positions into [`TableDef::columns`], in key order.
    pub columns: Vec<usize>,
}

impl IndexDef {
    pub fn is_unique(&self) -> bool {
        self.kind != IndexKind::NonUnique
    }
}

/// A table's definition, stored in page 0 of its file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableDef {
    pub columns: Vec<ColumnDef>,
    /// The primary key, when present, is the first index.
    pub indexes: Vec<IndexDef>,
    /// Table options as given (`ENGINE=...`, `DEFAULT CHARSET=...`), shown back verbatim.
    pub options: Vec<(String, String)>,
    /// CHECK constraints, in the order they were declared (the SQL layer evaluates them;
    /// the engine only keeps them).
    pub checks: Vec<CheckDef>,
    /// FOREIGN KEY constraints of this table as the child, in the order they were declared
    /// (the SQL layer enforces them; the engine only keeps them).
    pub foreign_keys: Vec<ForeignKeyDef>,
}

/// A CHECK constraint: its name, whether it was declared with a column (then it is named
/// after that column, and shown with it), and its condition as SQL text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckDef {
    pub name: String,
    pub column_level: bool,
    pub text: String,
}

/// A FOREIGN KEY constraint: this table's columns (by name, so that adding or dropping
/// other columns leaves it as it is) must hold a key of the referenced (parent) table's
/// columns, or NULL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKeyDef {
    pub name: String,
    pub columns: Vec<String>,
    pub parent_table: String,
    pub parent_columns: Vec<String>,
    pub on_delete: ReferentialAction,
    pub on_update: ReferentialAction,
}

/// What a change of a parent row does to the child rows that hold its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReferentialAction {
    /// Refuse the change (the default; shown as nothing).
    #[default]
    Restrict,
    /// Refuse the change (as RESTRICT, but shown as written).
    NoAction,
    /// Delete the child rows, or change their key with the parent's.
    Cascade,
    /// Set the child rows' key columns to NULL.
    SetNull,
}

impl ReferentialAction {
    /// Its SQL words.
    pub fn sql(self) -> &'static str {
        match self {
            ReferentialAction::Restrict => "RESTRICT",
            ReferentialAction::NoAction => "NO ACTION",
            ReferentialAction::Cascade => "CASCADE",
            ReferentialAction::SetNull => "SET NULL",
        }
    }

    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_code(code: u8) -> Option<ReferentialAction> {
        [
            ReferentialAction::Restrict,
            ReferentialAction::NoAction,
            ReferentialAction::Cascade,
            ReferentialAction::SetNull,
        ]
        .get(usize::from(code))
        .copied()
    }
}

/// Whether `items[i]` has the name (as `name` reads it) of an earlier item, ignoring ASCII
/// case as MariaDB does for column and key names.
fn named_before<T>(items: &[T], i: usize, name: impl Fn(&T) -> &str) -> bool {
    let own = name(&items[i]);
    items[..i].iter().any(|o| name(o).eq_ignore_ascii_case(own))
}

/// The first item whose name (as `name` reads it) an earlier item has, ignoring ASCII case
/// as MariaDB does for the names of columns, keys, constraints and table aliases.
pub fn first_repeated_name<T>(items: &[T], name: impl Fn(&T) -> &str) -> Option<&T> {
    (0..items.len())
        .find(|&i| named_before(items, i, &name))
        .map(|i| &items[i])
}

impl TableDef {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }
    pub fn index_named(&self, name: &str) -> Option<usize> {
        self.indexes
            .iter()
            .position(|i| i.name.eq_ignore_ascii_case(name))
    }
    pub fn primary_key(&self) -> Option<usize> {
        self.indexes
            .iter()
            .position(|i| i.kind == IndexKind::Primary)
    }
    pub fn auto_increment_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }
    /// Check the definition is one the storage can hold.
    pub fn validate(&self) -> Result<(), StorageError> {
        if self.columns.is_empty() {
            return Err(StorageError::InvalidDefinition(
                "a table needs at least one column".into(),
            ));
        }
        if self.columns.len() > 4096 {
            return Err(StorageError::InvalidDefinition("too many columns".into()));
        }
        for (i, c) in self.columns.iter().enumerate() {
            if named_before(&self.columns, i, |c| &c.name) {
                return Err(StorageError::InvalidDefinition(format!(
                    "duplicate column name '{}'",
                    c.name
                )));
            }
            if let ColumnType::Decimal { precision, scale } = c.ty {
                if !crate::decimal_codec::valid_type(precision, scale) {
                    return Err(StorageError::InvalidDefinition(format!(
                        "DECIMAL({precision},{scale}) unsupported (precision 1..65, scale <= 38 and <= precision)"
                    )));
                }
            }
        }
        if self.columns.iter().filter(|c| c.auto_increment).count() > 1 {
            return Err(StorageError::InvalidDefinition(
                "only one AUTO_INCREMENT column".into(),
            ));
        }
        if self
            .indexes
            .iter()
            .filter(|i| i.kind == IndexKind::Primary)
            .count()
            > 1
        {
            return Err(StorageError::InvalidDefinition(
                "multiple primary keys defined".into(),
            ));
        }
        for fk in &self.foreign_keys {
            let known = |name: &String| self.column_index(name).is_some();
            if fk.columns.is_empty()
                || fk.columns.len() != fk.parent_columns.len()
                || !fk.columns.iter().all(known)
            {
                return Err(StorageError::InvalidDefinition(format!(
                    "foreign key '{}' names no valid column",
                    fk.name
                )));
            }
        }
        for (i, ix) in self.indexes.iter().enumerate() {
            if ix.columns.is_empty() || ix.columns.iter().any(|&c| c >= self.columns.len()) {
                return Err(StorageError::InvalidDefinition(format!(
                    "index '{}' names no valid column",
                    ix.name
                )));
            }
            if named_before(&self.indexes, i, |ix| &ix.name) {
                return Err(StorageError::InvalidDefinition(format!(
                    "duplicate key name '{}'",
                    ix.name
                )));
            }
        }
        Ok(())
    }
}

/// Errors of the storage layer. The SQL layer maps them to MySQL error codes.
#[derive(Debug)]
pub enum StorageError {
    Io(std::io::Error),
    /// A page failed its checksum or a structure is inconsistent: never served.
    Corrupt(String),
    /// ER_DUP_ENTRY (1062): `Duplicate entry '{key}' for key '{index}'`. `index_no` and
    /// `existing_row` locate the conflicting row (for REPLACE and ON DUPLICATE KEY UPDATE).
    DuplicateKey {
        index: String,
        key: String,
        index_no: usize,
        existing_row: RowId,
    },
    /// ER_BAD_DB_ERROR (1049).
    NoSuchDatabase(String),
    /// ER_DB_CREATE_EXISTS (1007).
    DatabaseExists(String),
    /// ER_NO_SUCH_TABLE (1146): (database, table).
    NoSuchTable(String, String),
    /// ER_TABLE_EXISTS_ERROR (1050).
    TableExists(String, String),
    InvalidDefinition(String),
    /// A value does not fit the column (type or NOT NULL); the SQL layer should have caught it.
    TypeMismatch(String),
    /// ER_TOO_BIG_ROWSIZE / ER_TOO_LONG_KEY.
    TooBig(String),
    /// ER_LOCK_WAIT_TIMEOUT (1205).
    LockWaitTimeout,
    /// ER_LOCK_DEADLOCK (1213): waiting for the lock would close a cycle of waits.
    Deadlock,
    /// The table was dropped or altered while this handle was in use; reopen it.
    Stale,
    /// The statement must run again (see `page_claims`): another statement holds a page it
    /// needs, or a page it claimed changed after it read rows from it. What to do first is
    /// in [`crate::take_retry`]. ER_LOCK_WAIT_TIMEOUT (1205) if it reaches a client.
    Busy,
    /// ER_CHECKREAD (1020): a consistent read of a table the reader writes met a page that
    /// others changed after the reader's snapshot (see `snapshot`).
    ChangedSinceSnapshot(String),
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::Io(e) => write!(f, "I/O error: {e}"),
            StorageError::Corrupt(m) => write!(f, "corrupt data: {m}"),
            StorageError::DuplicateKey { index, key, .. } => {
                write!(f, "Duplicate entry '{key}' for key '{index}'")
            }
            StorageError::NoSuchDatabase(d) => write!(f, "Unknown database '{d}'"),
            StorageError::DatabaseExists(d) => {
                write!(f, "Can't create database '{d}'; database exists")
            }
            StorageError::NoSuchTable(d, t) => write!(f, "Table '{d}.{t}' doesn't exist"),
            StorageError::TableExists(_, t) => write!(f, "Table '{t}' already exists"),
            StorageError::InvalidDefinition(m) => write!(f, "invalid table definition: {m}"),
            StorageError::TypeMismatch(m) => write!(f, "value does not fit: {m}"),
            StorageError::TooBig(m) => write!(f, "too big: {m}"),
            StorageError::LockWaitTimeout => write!(f, "Lock wait timeout exceeded"),
            StorageError::Deadlock => write!(f, "Deadlock found when trying to get lock"),
            StorageError::Stale => write!(f, "table definition changed; reopen the table"),
            StorageError::ChangedSinceSnapshot(t) => {
                write!(f, "Record has changed since last read in table '{t}'")
            }
            StorageError::Busy => {
                write!(f, "Lock wait timeout exceeded; try restarting transaction")
            }
        }
    }
}

impl std::error::Error for StorageError {}

impl From<std::io::Error> for StorageError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::InvalidData {
            StorageError::Corrupt(e.to_string())
        } else {
            StorageError::Io(e)
        }
    }
}

pub type Result<T, E = StorageError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::format_datum;

    #[test]
    fn decimals_parse_round_and_print_back() {
        let ty = ColumnType::Decimal {
            precision: 10,
            scale: 2,
        };
        for (text, want) in [
            ("12.345", "12.35"),
            ("-12.344", "-12.34"),
            ("0.5", "0.50"),
            ("-.005", "-0.01"),
            ("7", "7.00"),
        ] {
            let unscaled = unscaled_decimal_from_str(text, 2).unwrap();
            let d = decimal_from_unscaled(unscaled, 2);
            assert_eq!(format_datum(&ty, &Value::Decimal(d)), want, "{text}");
            assert_eq!(decimal_to_unscaled(&d, 2), Some(unscaled), "{text}");
            assert_eq!(decimal_to_unscaled(&d, 3), Some(unscaled * 10), "{text}");
            assert_eq!(decimal_to_unscaled(&d, 1), None, "{text}");
        }
        assert!(unscaled_decimal_from_str("1e3", 2).is_none());
        assert!(unscaled_decimal_from_str("", 2).is_none());
        assert!(unscaled_decimal_from_str(".", 2).is_none());
        assert!(unscaled_decimal_from_str(&"9".repeat(40), 0).is_none());
        let widest = decimal_from_unscaled(STORED_DECIMAL_LIMIT - 1, 0);
        assert_eq!(
            decimal_to_unscaled(&widest, 0),
            Some(STORED_DECIMAL_LIMIT - 1)
        );
        assert_eq!(
            decimal_to_unscaled(&widest, 1),
            None,
            "10^39 does not fit an i128"
        );
    }
}
