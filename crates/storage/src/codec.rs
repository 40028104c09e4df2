//! Row and definition encodings.
//!
//! Row format (the value stored in the row tree, see `btree`): a null bitmap of
//! `ceil(columns / 8)` bytes (bit set = NULL), then each non-NULL column in order:
//! integers in their declared width (1, 2, 3, 4 or 8 bytes, little-endian, two's
//! complement), DOUBLE/FLOAT as 8 bytes, DECIMAL as its unscaled integer at the column's
//! scale (16 bytes little-endian up to 38 digits, 32 beyond: `decimal_codec`), DATE as
//! 4 bytes (year u16, month, day), DATETIME/TIMESTAMP as 11 bytes (year u16, month, day,
//! hour, minute, second, micros u32), strings and blobs as a LEB128 length and the bytes.
//!
//! Definition format (page 0): a versioned little-endian binary encoding of [`TableDef`]:
//! strings as u32 length + UTF-8, counts as u32, each column's type as a tag byte plus its
//! parameters, the default as an encoded datum.

use crate::decimal_codec::{self, ROW_FORM};
use crate::types::{
    Collation, ColumnDef, ColumnType, Date, DateTime, IndexDef, IndexKind, IntWidth, LobSize,
    StorageError, TableDef, Time, Value, MAX_FSP,
};

fn corrupt(what: &str) -> StorageError {
    StorageError::Corrupt(format!("malformed {what}"))
}

/// Encode a row for storage. Checks arity, NOT NULL and the datum kinds.
pub fn encode_row(def: &TableDef, row: &[Value], out: &mut Vec<u8>) -> Result<(), StorageError> {
    if row.len() != def.columns.len() {
        return Err(StorageError::TypeMismatch(format!(
            "row has {} values for {} columns",
            row.len(),
            def.columns.len()
        )));
    }
    out.clear();
    let bitmap_len = def.columns.len().div_ceil(8);
    out.resize(bitmap_len, 0);
    for (i, (col, d)) in def.columns.iter().zip(row).enumerate() {
        if d.is_null() {
            if !col.nullable {
                return Err(StorageError::TypeMismatch(format!(
                    "Column '{}' cannot be null",
                    col.name
                )));
            }
            out[i / 8] |= 1 << (i % 8);
            continue;
        }
        encode_value(&col.ty, d, out).map_err(|_| {
            StorageError::TypeMismatch(format!(
                "{:?} does not fit column '{}' of type {:?}",
                d, col.name, col.ty
            ))
        })?;
    }
    Ok(())
}

fn encode_value(ty: &ColumnType, d: &Value, out: &mut Vec<u8>) -> Result<(), ()> {
    match (ty, d) {
        (ColumnType::Int { width, unsigned }, Value::Int(_) | Value::UInt(_)) => {
            let bytes = (width.bits() / 8) as usize;
            let raw: u64 = match (d, unsigned) {
                (Value::Int(v), false) => {
                    let (lo, hi) = width.signed_range();
                    if *v < lo || *v > hi {
                        return Err(());
                    }
                    *v as u64
                }
                (Value::UInt(v), true) => {
                    if *v > width.unsigned_max() {
                        return Err(());
                    }
                    *v
                }
                (Value::Int(v), true) if *v >= 0 && (*v as u64) <= width.unsigned_max() => {
                    *v as u64
                }
                (Value::UInt(v), false) if *v <= width.signed_range().1 as u64 => *v,
                _ => return Err(()),
            };
            out.extend_from_slice(&raw.to_le_bytes()[..bytes]);
        }
        (ColumnType::Float | ColumnType::Double, Value::Double(v)) => {
            out.extend_from_slice(&v.to_le_bytes())
        }
        (ColumnType::Decimal { precision, scale }, Value::Decimal(d)) => {
            decimal_codec::encode::<ROW_FORM>(*precision, *scale, d, out).map_err(|_| ())?
        }
        (ColumnType::Date, Value::Date(d)) => {
            out.extend_from_slice(&d.year.to_le_bytes());
            out.extend_from_slice(&[d.month, d.day]);
        }
        (ColumnType::DateTime { .. } | ColumnType::Timestamp { .. }, Value::DateTime(dt)) => {
            out.extend_from_slice(&dt.year.to_le_bytes());
            out.extend_from_slice(&[dt.month, dt.day, dt.hour, dt.minute, dt.second]);
            out.extend_from_slice(&dt.micros.to_le_bytes());
        }
        (ColumnType::Time { .. }, Value::Time(t)) => {
            out.extend_from_slice(&t.total_micros().to_le_bytes())
        }
        (t, Value::Bytes(b)) if t.is_string() => {
            put_varint(out, b.len() as u64);
            out.extend_from_slice(b);
        }
        _ => return Err(()),
    }
    Ok(())
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], StorageError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| corrupt("record"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, StorageError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, StorageError> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().map_err(|_| corrupt("u16"))?,
        ))
    }
    fn u32(&mut self) -> Result<u32, StorageError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().map_err(|_| corrupt("u32"))?,
        ))
    }
    fn varint(&mut self) -> Result<u64, StorageError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7F) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(corrupt("varint"))
    }
    fn string(&mut self) -> Result<String, StorageError> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| corrupt("string"))
    }
}

/// Decode a stored row.
pub fn decode_row(def: &TableDef, bytes: &[u8]) -> Result<Vec<Value>, StorageError> {
    decode_row_columns(def, bytes, None)
}

/// Decode only the columns `wanted` marks (all when None); the others read as NULL. Their
/// bytes are skipped, not copied: a statement that reads one short column of a wide row
/// allocates for that column only.
pub fn decode_row_columns(
    def: &TableDef,
    bytes: &[u8],
    wanted: Option<&[bool]>,
) -> Result<Vec<Value>, StorageError> {
    let bitmap_len = def.columns.len().div_ceil(8);
    let mut r = Reader {
        buf: bytes,
        pos: bitmap_len,
    };
    let bitmap = bytes.get(..bitmap_len).ok_or_else(|| corrupt("row"))?;
    let mut row = Vec::with_capacity(def.columns.len());
    for (i, col) in def.columns.iter().enumerate() {
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            row.push(Value::Null);
            continue;
        }
        if wanted.is_some_and(|w| !w.get(i).copied().unwrap_or(true)) {
            skip_value(&col.ty, &mut r)?;
            row.push(Value::Null);
            continue;
        }
        row.push(decode_value(&col.ty, &mut r)?);
    }
    Ok(row)
}

/// Step over one encoded value (the layout `decode_value` reads).
fn skip_value(ty: &ColumnType, r: &mut Reader<'_>) -> Result<(), StorageError> {
    let n = match ty {
        ColumnType::Int { width, .. } => (width.bits() / 8) as usize,
        ColumnType::Float | ColumnType::Double => 8,
        ColumnType::Decimal { precision, .. } => decimal_codec::width(*precision),
        ColumnType::Date => 4,
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => 11,
        ColumnType::Time { .. } => 8,
        _ => r.varint()? as usize,
    };
    r.take(n)?;
    Ok(())
}

fn decode_value(ty: &ColumnType, r: &mut Reader<'_>) -> Result<Value, StorageError> {
    Ok(match ty {
        ColumnType::Int { width, unsigned } => {
            let bytes = (width.bits() / 8) as usize;
            let mut raw = [0u8; 8];
            raw[..bytes].copy_from_slice(r.take(bytes)?);
            let v = u64::from_le_bytes(raw);
            if *unsigned {
                Value::UInt(v)
            } else {
                let shift = 64 - width.bits();
                Value::Int(((v << shift) as i64) >> shift)
            }
        }
        ColumnType::Float | ColumnType::Double => Value::Double(f64::from_le_bytes(
            r.take(8)?.try_into().map_err(|_| corrupt("double"))?,
        )),
        ColumnType::Decimal { precision, scale } => {
            let bytes = r.take(decimal_codec::width(*precision))?;
            Value::Decimal(decimal_codec::decode_row(*precision, *scale, bytes)?)
        }
        ColumnType::Date => {
            let year = r.u16()?;
            Value::Date(Date {
                year,
                month: r.u8()?,
                day: r.u8()?,
            })
        }
        // The fields are read in the order they are written.
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => Value::DateTime(DateTime {
            year: r.u16()?,
            month: r.u8()?,
            day: r.u8()?,
            hour: r.u8()?,
            minute: r.u8()?,
            second: r.u8()?,
            micros: r.u32()?,
        }),
        ColumnType::Time { .. } => Value::Time(Time::from_total_micros(i64::from_le_bytes(
            r.take(8)?.try_into().map_err(|_| corrupt("time"))?,
        ))),
        _ => {
            let n = r.varint()? as usize;
            Value::Bytes(r.take(n)?.to_vec())
        }
    })
}

/// Text of a value as MySQL prints it in "Duplicate entry '...'": the value's one text
/// form (a DECIMAL carries its column's scale; doubles print as in results), a TIME or
/// DATETIME with the column's digits of fractional seconds.
pub fn format_datum(ty: &ColumnType, d: &Value) -> String {
    match d {
        Value::Time(_) | Value::DateTime(_) => {
            let mut text = Vec::new();
            d.write_text(&mut text, Some(ty.fsp()));
            String::from_utf8_lossy(&text).into_owned()
        }
        other => other.to_text_lossy(),
    }
}

const DEF_FORMAT_VERSION: u8 = 1;

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// An ENUM's or SET's tag, collation, element count and elements.
fn put_elements(out: &mut Vec<u8>, tag: u8, collation: Collation, elements: &[String]) {
    out.extend_from_slice(&[tag, collation_tag(collation)]);
    out.extend_from_slice(&(elements.len() as u32).to_le_bytes());
    for e in elements {
        put_str(out, e);
    }
}

/// What [`put_elements`] wrote after the tag.
fn elements_from(
    r: &mut Reader<'_>,
) -> Result<(Collation, std::sync::Arc<[String]>), StorageError> {
    let collation = collation_from(r.u8()?)?;
    let n = r.u32()? as usize;
    if n > crate::elements::ENUM_MAX_ELEMENTS {
        return Err(corrupt("element count"));
    }
    let elements = (0..n).map(|_| r.string()).collect::<Result<Vec<_>, _>>()?;
    Ok((collation, elements.into()))
}

fn collation_tag(c: Collation) -> u8 {
    match c {
        Collation::Utf8mb4GeneralCi => 0,
        Collation::Utf8mb4Bin => 1,
        Collation::Binary => 2,
    }
}

fn fsp_from(fsp: u8) -> Result<u8, StorageError> {
    if fsp > MAX_FSP {
        return Err(corrupt("fractional seconds precision"));
    }
    Ok(fsp)
}

fn collation_from(tag: u8) -> Result<Collation, StorageError> {
    Ok(match tag {
        0 => Collation::Utf8mb4GeneralCi,
        1 => Collation::Utf8mb4Bin,
        2 => Collation::Binary,
        _ => return Err(corrupt("collation")),
    })
}

fn width_tag(w: IntWidth) -> u8 {
    match w {
        IntWidth::Tiny => 0,
        IntWidth::Small => 1,
        IntWidth::Medium => 2,
        IntWidth::Int => 3,
        IntWidth::Big => 4,
    }
}

/// Serialize a definition for page 0.
pub fn encode_def(def: &TableDef) -> Vec<u8> {
    let mut out = vec![DEF_FORMAT_VERSION];
    out.extend_from_slice(&(def.columns.len() as u32).to_le_bytes());
    for c in &def.columns {
        put_str(&mut out, &c.name);
        match &c.ty {
            ColumnType::Int { width, unsigned } => {
                out.extend_from_slice(&[0, width_tag(*width), *unsigned as u8])
            }
            ColumnType::Decimal { precision, scale } => {
                out.extend_from_slice(&[1, *precision, *scale])
            }
            ColumnType::Float => out.push(2),
            ColumnType::Double => out.push(3),
            ColumnType::Char { len, collation } => {
                out.extend_from_slice(&[4, collation_tag(*collation)]);
                out.extend_from_slice(&len.to_le_bytes());
            }
            ColumnType::Varchar { len, collation } => {
                out.extend_from_slice(&[5, collation_tag(*collation)]);
                out.extend_from_slice(&len.to_le_bytes());
            }
            // TEXT and BLOB keep the tags they had before size classes; the other sizes
            // have their own tags with the size after them.
            ColumnType::Text {
                collation,
                size: LobSize::Regular,
            } => out.extend_from_slice(&[6, collation_tag(*collation)]),
            ColumnType::Blob {
                size: LobSize::Regular,
            } => out.push(7),
            ColumnType::Text { collation, size } => {
                out.extend_from_slice(&[11, collation_tag(*collation), size.tag()])
            }
            ColumnType::Blob { size } => out.extend_from_slice(&[12, size.tag()]),
            ColumnType::Date => out.push(8),
            // Without fractional seconds they keep the tags they had before precisions.
            ColumnType::DateTime { fsp: 0 } => out.push(9),
            ColumnType::Timestamp { fsp: 0 } => out.push(10),
            ColumnType::DateTime { fsp } => out.extend_from_slice(&[13, *fsp]),
            ColumnType::Timestamp { fsp } => out.extend_from_slice(&[14, *fsp]),
            ColumnType::Time { fsp } => out.extend_from_slice(&[15, *fsp]),
            ColumnType::Enum {
                elements,
                collation,
            } => put_elements(&mut out, 16, *collation, elements),
            ColumnType::Set {
                elements,
                collation,
            } => put_elements(&mut out, 17, *collation, elements),
        }
        // Flags: bit 0 nullable, 1 auto_increment, 2 a default follows, 3 DEFAULT
        // CURRENT_TIMESTAMP, 4 ON UPDATE CURRENT_TIMESTAMP (definitions written before bits
        // 3 and 4 existed have them clear).
        out.push(
            c.nullable as u8
                | (c.auto_increment as u8) << 1
                | (c.default.is_some() as u8) << 2
                | (c.default_now as u8) << 3
                | (c.on_update_now as u8) << 4,
        );
        if let Some(d) = &c.default {
            // A one-column row: null bitmap + value.
            let one = TableDef {
                columns: vec![ColumnDef {
                    nullable: true,
                    default: None,
                    ..c.clone()
                }],
                indexes: vec![],
                options: vec![],
                checks: vec![],
                foreign_keys: Vec::new(),
            };
            let mut enc = Vec::new();
            // A default that does not fit its column is stored as NULL (validated by SQL).
            if encode_row(&one, std::slice::from_ref(d), &mut enc).is_err() {
                enc = vec![1];
            }
            out.extend_from_slice(&(enc.len() as u32).to_le_bytes());
            out.extend_from_slice(&enc);
        }
        put_str(&mut out, &c.comment);
    }
    out.extend_from_slice(&(def.indexes.len() as u32).to_le_bytes());
    for ix in &def.indexes {
        put_str(&mut out, &ix.name);
        out.push(match ix.kind {
            IndexKind::Primary => 0,
            IndexKind::Unique => 1,
            IndexKind::NonUnique => 2,
        });
        out.extend_from_slice(&(ix.columns.len() as u32).to_le_bytes());
        for &c in &ix.columns {
            out.extend_from_slice(&(c as u32).to_le_bytes());
        }
    }
    out.extend_from_slice(&(def.options.len() as u32).to_le_bytes());
    for (k, v) in &def.options {
        put_str(&mut out, k);
        put_str(&mut out, v);
    }
    // CHECK constraints come last: a definition written before them ends here, and reads
    // as one without.
    out.extend_from_slice(&(def.checks.len() as u32).to_le_bytes());
    for check in &def.checks {
        put_str(&mut out, &check.name);
        out.push(u8::from(check.column_level));
        put_str(&mut out, &check.text);
    }
    // FOREIGN KEY constraints after them, the same way.
    out.extend_from_slice(&(def.foreign_keys.len() as u32).to_le_bytes());
    for fk in &def.foreign_keys {
        put_str(&mut out, &fk.name);
        put_names(&mut out, &fk.columns);
        put_str(&mut out, &fk.parent_table);
        put_names(&mut out, &fk.parent_columns);
        out.push(fk.on_delete.code());
        out.push(fk.on_update.code());
    }
    out
}

fn put_names(out: &mut Vec<u8>, names: &[String]) {
    out.extend_from_slice(&(names.len() as u32).to_le_bytes());
    for name in names {
        put_str(out, name);
    }
}

impl Reader<'_> {
    fn names(&mut self) -> Result<Vec<String>, StorageError> {
        let n = self.u32()? as usize;
        let mut names = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            names.push(self.string()?);
        }
        Ok(names)
    }

    fn action(&mut self) -> Result<crate::types::ReferentialAction, StorageError> {
        crate::types::ReferentialAction::from_code(self.u8()?)
            .ok_or_else(|| corrupt("foreign key action"))
    }
}

/// Parse a definition from page 0.
pub fn decode_def(bytes: &[u8]) -> Result<TableDef, StorageError> {
    let mut r = Reader { buf: bytes, pos: 0 };
    if r.u8()? != DEF_FORMAT_VERSION {
        return Err(corrupt("definition version"));
    }
    let ncols = r.u32()? as usize;
    let mut columns = Vec::with_capacity(ncols.min(4096));
    for _ in 0..ncols {
        let name = r.string()?;
        let ty = match r.u8()? {
            0 => {
                let width = match r.u8()? {
                    0 => IntWidth::Tiny,
                    1 => IntWidth::Small,
                    2 => IntWidth::Medium,
                    3 => IntWidth::Int,
                    4 => IntWidth::Big,
                    _ => return Err(corrupt("int width")),
                };
                ColumnType::Int {
                    width,
                    unsigned: r.u8()? != 0,
                }
            }
            1 => ColumnType::Decimal {
                precision: r.u8()?,
                scale: r.u8()?,
            },
            2 => ColumnType::Float,
            3 => ColumnType::Double,
            4 => {
                let collation = collation_from(r.u8()?)?;
                ColumnType::Char {
                    collation,
                    len: r.u32()?,
                }
            }
            5 => {
                let collation = collation_from(r.u8()?)?;
                ColumnType::Varchar {
                    collation,
                    len: r.u32()?,
                }
            }
            6 => ColumnType::Text {
                collation: collation_from(r.u8()?)?,
                size: LobSize::Regular,
            },
            7 => ColumnType::Blob {
                size: LobSize::Regular,
            },
            11 => ColumnType::Text {
                collation: collation_from(r.u8()?)?,
                size: LobSize::from_tag(r.u8()?).ok_or_else(|| corrupt("text size"))?,
            },
            12 => ColumnType::Blob {
                size: LobSize::from_tag(r.u8()?).ok_or_else(|| corrupt("blob size"))?,
            },
            8 => ColumnType::Date,
            9 => ColumnType::DateTime { fsp: 0 },
            10 => ColumnType::Timestamp { fsp: 0 },
            13 => ColumnType::DateTime {
                fsp: fsp_from(r.u8()?)?,
            },
            14 => ColumnType::Timestamp {
                fsp: fsp_from(r.u8()?)?,
            },
            15 => ColumnType::Time {
                fsp: fsp_from(r.u8()?)?,
            },
            16 => {
                let (collation, elements) = elements_from(&mut r)?;
                ColumnType::Enum {
                    elements,
                    collation,
                }
            }
            17 => {
                let (collation, elements) = elements_from(&mut r)?;
                ColumnType::Set {
                    elements,
                    collation,
                }
            }
            _ => return Err(corrupt("column type")),
        };
        let flags = r.u8()?;
        let mut col = ColumnDef::new(&name, ty);
        col.nullable = flags & 1 != 0;
        col.auto_increment = flags & 2 != 0;
        col.default_now = flags & 8 != 0;
        col.on_update_now = flags & 16 != 0;
        if flags & 4 != 0 {
            let n = r.u32()? as usize;
            let enc = r.take(n)?;
            let one = TableDef {
                columns: vec![ColumnDef {
                    nullable: true,
                    ..col.clone()
                }],
                indexes: vec![],
                options: vec![],
                checks: vec![],
                foreign_keys: Vec::new(),
            };
            col.default = Some(
                decode_row(&one, enc)?
                    .pop()
                    .ok_or_else(|| corrupt("default"))?,
            );
        }
        col.comment = r.string()?;
        columns.push(col);
    }
    let nidx = r.u32()? as usize;
    let mut indexes = Vec::with_capacity(nidx.min(1024));
    for _ in 0..nidx {
        let name = r.string()?;
        let kind = match r.u8()? {
            0 => IndexKind::Primary,
            1 => IndexKind::Unique,
            2 => IndexKind::NonUnique,
            _ => return Err(corrupt("index kind")),
        };
        let n = r.u32()? as usize;
        let mut cols = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            cols.push(r.u32()? as usize);
        }
        indexes.push(IndexDef {
            name,
            kind,
            columns: cols,
        });
    }
    let nopt = r.u32()? as usize;
    let mut options = Vec::with_capacity(nopt.min(64));
    for _ in 0..nopt {
        options.push((r.string()?, r.string()?));
    }
    let mut checks = Vec::new();
    if r.pos < r.buf.len() {
        let n = r.u32()? as usize;
        for _ in 0..n {
            checks.push(crate::types::CheckDef {
                name: r.string()?,
                column_level: r.u8()? != 0,
                text: r.string()?,
            });
        }
    }
    let mut foreign_keys = Vec::new();
    if r.pos < r.buf.len() {
        let n = r.u32()? as usize;
        for _ in 0..n {
            foreign_keys.push(crate::types::ForeignKeyDef {
                name: r.string()?,
                columns: r.names()?,
                parent_table: r.string()?,
                parent_columns: r.names()?,
                on_delete: r.action()?,
                on_update: r.action()?,
            });
        }
    }
    let def = TableDef {
        columns,
        indexes,
        options,
        checks,
        foreign_keys,
    };
    def.validate()
        .map_err(|e| StorageError::Corrupt(format!("stored definition: {e}")))?;
    Ok(def)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::types::{decimal_from_unscaled, CheckDef};

    /// A definition with most column types and two indexes (also used by other modules' tests).
    pub(crate) fn sample_def() -> TableDef {
        let mut id = ColumnDef::new(
            "id",
            ColumnType::Int {
                width: IntWidth::Int,
                unsigned: true,
            },
        )
        .not_null();
        id.auto_increment = true;
        let mut k = ColumnDef::new(
            "k",
            ColumnType::Int {
                width: IntWidth::Tiny,
                unsigned: false,
            },
        );
        k.default = Some(Value::Int(-3));
        TableDef {
            columns: vec![
                id,
                k,
                ColumnDef::new(
                    "d",
                    ColumnType::Decimal {
                        precision: 10,
                        scale: 2,
                    },
                ),
                ColumnDef::new(
                    "c",
                    ColumnType::Char {
                        len: 120,
                        collation: Collation::Utf8mb4GeneralCi,
                    },
                ),
                ColumnDef::new(
                    "b",
                    ColumnType::Blob {
                        size: LobSize::Long,
                    },
                ),
                ColumnDef {
                    default_now: true,
                    on_update_now: true,
                    ..ColumnDef::new("dt", ColumnType::DateTime { fsp: 0 })
                },
                ColumnDef::new("day", ColumnType::Date),
                ColumnDef::new("f", ColumnType::Double),
                ColumnDef::new(
                    "e",
                    ColumnType::Enum {
                        elements: vec!["x".to_string(), "z'q".to_string()].into(),
                        collation: Collation::Utf8mb4Bin,
                    },
                ),
                ColumnDef {
                    default: Some(Value::Bytes(b"r,b".to_vec())),
                    ..ColumnDef::new(
                        "s",
                        ColumnType::Set {
                            elements: vec!["r".to_string(), "g".to_string(), "b".to_string()]
                                .into(),
                            collation: Collation::Utf8mb4GeneralCi,
                        },
                    )
                },
                ColumnDef::new(
                    "m",
                    ColumnType::Int {
                        width: IntWidth::Medium,
                        unsigned: false,
                    },
                ),
            ],
            indexes: vec![
                IndexDef {
                    name: "PRIMARY".into(),
                    kind: IndexKind::Primary,
                    columns: vec![0],
                },
                IndexDef {
                    name: "k_c".into(),
                    kind: IndexKind::NonUnique,
                    columns: vec![1, 3],
                },
            ],
            options: vec![
                ("ENGINE".into(), "InnoDB".into()),
                ("DEFAULT CHARSET".into(), "utf8mb4".into()),
            ],
            checks: vec![
                CheckDef {
                    name: "k".into(),
                    column_level: true,
                    text: "`k` > 0".into(),
                },
                CheckDef {
                    name: "CONSTRAINT_1".into(),
                    column_level: false,
                    text: "`k` < `id`".into(),
                },
            ],
            foreign_keys: vec![crate::types::ForeignKeyDef {
                name: "t_ibfk_1".into(),
                columns: vec!["k".into(), "c".into()],
                parent_table: "parent".into(),
                parent_columns: vec!["a".into(), "b".into()],
                on_delete: crate::types::ReferentialAction::Cascade,
                on_update: crate::types::ReferentialAction::SetNull,
            }],
        }
    }

    #[test]
    fn fractional_seconds_precisions_round_trip_and_old_tags_read_as_zero() {
        for fsp in 0..=MAX_FSP {
            for ty in [
                ColumnType::DateTime { fsp },
                ColumnType::Timestamp { fsp },
                ColumnType::Time { fsp },
            ] {
                let def = TableDef {
                    columns: vec![ColumnDef::new("t", ty.clone())],
                    indexes: vec![],
                    options: vec![],
                    checks: Vec::new(),
                    foreign_keys: Vec::new(),
                };
                let enc = encode_def(&def);
                assert_eq!(decode_def(&enc).unwrap(), def, "{ty:?}");
            }
        }
        // A definition written before precisions existed: DATETIME and TIMESTAMP tags
        // alone, which are precision 0.
        let old = TableDef {
            columns: vec![ColumnDef::new("t", ColumnType::DateTime { fsp: 0 })],
            indexes: vec![],
            options: vec![],
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        };
        let enc = encode_def(&old);
        assert!(enc.windows(2).any(|w| w == [b't', 9]), "fsp 0 keeps tag 9");
        let mut bad = encode_def(&TableDef {
            columns: vec![ColumnDef::new("t", ColumnType::DateTime { fsp: 6 })],
            indexes: vec![],
            options: vec![],
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        });
        let at = bad
            .windows(2)
            .position(|w| w == [13, 6])
            .expect("tag 13, fsp 6");
        bad[at + 1] = 7;
        assert!(decode_def(&bad).is_err(), "a precision of 7 is damage");
    }

    #[test]
    fn times_round_trip_and_are_skipped_whole() {
        let def = TableDef {
            columns: vec![
                ColumnDef::new("t", ColumnType::Time { fsp: 6 }),
                ColumnDef::new(
                    "n",
                    ColumnType::Int {
                        width: IntWidth::Int,
                        unsigned: false,
                    },
                ),
            ],
            indexes: vec![],
            options: vec![],
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        };
        for micros in [
            -3_020_399_999_999i64,
            -1,
            0,
            93_784_500_000,
            3_020_399_999_999,
        ] {
            let row = vec![Value::Time(Time::from_total_micros(micros)), Value::Int(7)];
            let mut enc = Vec::new();
            encode_row(&def, &row, &mut enc).unwrap();
            assert_eq!(decode_row(&def, &enc).unwrap(), row, "{micros}");
            let wanted = [false, true];
            let projected = decode_row_columns(&def, &enc, Some(&wanted)).unwrap();
            assert_eq!(projected, vec![Value::Null, Value::Int(7)]);
        }
    }

    #[test]
    fn rows_and_definitions_round_trip() {
        let def = sample_def();
        assert_eq!(decode_def(&encode_def(&def)).unwrap(), def);
        let row = vec![
            Value::UInt(7),
            Value::Int(-128),
            Value::Decimal(decimal_from_unscaled(-12345, 2)),
            Value::Bytes("héllo".into()),
            Value::Null,
            Value::DateTime(DateTime {
                year: 2024,
                month: 2,
                day: 29,
                hour: 23,
                minute: 59,
                second: 58,
                micros: 12,
            }),
            Value::Date(Date {
                year: 1999,
                month: 12,
                day: 31,
            }),
            Value::Double(-0.5),
            Value::Bytes(b"z'q".to_vec()),
            Value::Bytes(b"r,b".to_vec()),
            Value::Int(-8_388_608),
        ];
        let mut enc = Vec::new();
        encode_row(&def, &row, &mut enc).unwrap();
        assert_eq!(decode_row(&def, &enc).unwrap(), row);
        // Every projection decodes its columns and reads the others as NULL, whatever
        // kind of value was skipped before them.
        for mask_bits in 0u32..(1 << row.len()) {
            let wanted: Vec<bool> = (0..row.len()).map(|i| mask_bits & (1 << i) != 0).collect();
            let expected: Vec<Value> = row
                .iter()
                .zip(&wanted)
                .map(|(d, &w)| if w { d.clone() } else { Value::Null })
                .collect();
            assert_eq!(
                decode_row_columns(&def, &enc, Some(&wanted)).unwrap(),
                expected
            );
        }
        let mut bad = row.clone();
        bad[1] = Value::Int(128);
        assert!(
            encode_row(&def, &bad, &mut enc).is_err(),
            "TINYINT 128 must not fit"
        );
        bad = row.clone();
        bad[0] = Value::Null;
        assert!(
            encode_row(&def, &bad, &mut enc).is_err(),
            "NULL in NOT NULL"
        );
        assert!(decode_row(&def, &[0xFF]).is_err());
        assert_eq!(
            format_datum(
                &def.columns[2].ty,
                &Value::Decimal(decimal_from_unscaled(-5, 2))
            ),
            "-0.05"
        );
    }
}
