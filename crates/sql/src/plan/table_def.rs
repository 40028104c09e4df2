//! Table definitions from CREATE TABLE: columns, types, defaults and keys.

use crate::catalog::storage_error;
use crate::error::SqlError;
use crate::expr::text::ConstEnv;
use crate::expr::ColumnScope;
use crate::expr::Compiler;
use crate::plan::show_create::*;
use crate::plan::stored::*;
use myriad_storage as st;
use myriad_types::errors::{
    ER_INVALID_DEFAULT, ER_KEY_COLUMN_DOES_NOT_EXIST, ER_MULTIPLE_PRI_KEY, ER_TOO_BIG_FIELDLENGTH,
    ER_TOO_BIG_PRECISION, ER_WRONG_AUTO_KEY, ER_WRONG_FIELD_SPEC,
};
use sqlparser::ast;

// ---- compiling ----

/// A compiler for expressions over one table.
pub fn table_compiler<'a>(base: &Compiler<'a>, scope: &'a ColumnScope) -> Compiler<'a> {
    Compiler { scope, ..*base }
}

/// CREATE TABLE's definition from sqlparser's AST, in a database whose tables default to
/// `db_collation`.
pub fn table_def(
    ct: &ast::CreateTable,
    database: &str,
    db_collation: st::Collation,
    compiler: &Compiler,
) -> Result<st::TableDef, SqlError> {
    let mut options = table_options(ct);
    check_engine(&options)?;
    let default_collation = match named_collation(&options)? {
        Some(c) => c,
        None => {
            // Kept as the table's own option, so that SHOW CREATE TABLE names it.
            if db_collation != st::Collation::default() {
                options.push(("COLLATE".to_string(), db_collation.name().to_string()));
            }
            db_collation
        }
    };
    let mut columns = Vec::new();
    let mut indexes: Vec<st::IndexDef> = Vec::new();
    let mut primary: Option<Vec<usize>> = None;
    for (position, c) in ct.columns.iter().enumerate() {
        let (def, is_primary, is_unique) = column_from_ast(c, default_collation, compiler)?;
        if is_primary {
            primary = Some(vec![position]);
        }
        if is_unique {
            indexes.push(st::IndexDef {
                name: c.name.value.clone(),
                kind: st::IndexKind::Unique,
                columns: vec![position],
            });
        }
        columns.push(def);
    }
    let position_of = |name: &str, columns: &[st::ColumnDef]| -> Result<usize, SqlError> {
        columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                SqlError::new(
                    ER_KEY_COLUMN_DOES_NOT_EXIST,
                    format!("Key column '{name}' doesn't exist in table"),
                )
            })
    };
    let index_columns =
        |cols: &[ast::IndexColumn], columns: &[st::ColumnDef]| -> Result<Vec<usize>, SqlError> {
            cols.iter()
                .map(|ic| match &ic.column.expr {
                    ast::Expr::Identifier(id) => position_of(&id.value, columns),
                    ast::Expr::Function(f) => position_of(&f.name.to_string(), columns),
                    other => Err(crate::expr::err_syntax(&other.to_string())),
                })
                .collect()
        };
    // A UNIQUE or plain index: named as written, or else after its first column.
    let index = |name: Option<&ast::Ident>,
                 kind: st::IndexKind,
                 cols: &[ast::IndexColumn],
                 columns: &[st::ColumnDef]|
     -> Result<st::IndexDef, SqlError> {
        let cols = index_columns(cols, columns)?;
        let name = name.map_or_else(|| columns[cols[0]].name.clone(), |n| n.value.clone());
        Ok(st::IndexDef {
            name,
            kind,
            columns: cols,
        })
    };
    for constraint in &ct.constraints {
        match constraint {
            ast::TableConstraint::PrimaryKey(pk) => {
                if primary.is_some() {
                    return Err(SqlError::new(
                        ER_MULTIPLE_PRI_KEY,
                        "Multiple primary key defined",
                    ));
                }
                let cols = index_columns(&pk.columns, &columns)?;
                for &c in &cols {
                    columns[c].nullable = false;
                }
                primary = Some(cols);
            }
            ast::TableConstraint::Unique(u) => {
                let name = u.index_name.as_ref().or(u.name.as_ref());
                indexes.push(index(name, st::IndexKind::Unique, &u.columns, &columns)?);
            }
            ast::TableConstraint::Index(ix) => {
                let name = ix.name.as_ref();
                indexes.push(index(
                    name,
                    st::IndexKind::NonUnique,
                    &ix.columns,
                    &columns,
                )?);
            }
            // Gathered below, once the columns and keys are known.
            ast::TableConstraint::Check(_) | ast::TableConstraint::ForeignKey(_) => {}
            other => return Err(SqlError::not_supported(&format!("constraint {other}"))),
        }
    }
    let checks = crate::plan::checks::declared(ct, &columns, compiler)?;
    if !checks.is_empty() && ct.query.is_some() {
        return Err(SqlError::not_supported(
            "CHECK constraints in CREATE TABLE ... SELECT",
        ));
    }
    if let Some(cols) = primary {
        indexes.insert(
            0,
            st::IndexDef {
                name: "PRIMARY".into(),
                kind: st::IndexKind::Primary,
                columns: cols,
            },
        );
    }
    // Index names must be unique; MySQL suffixes _2, _3 for unnamed duplicates.
    for i in 1..indexes.len() {
        let base = indexes[i].name.clone();
        let mut n = 2;
        while indexes[..i]
            .iter()
            .any(|x| x.name.eq_ignore_ascii_case(&indexes[i].name))
        {
            indexes[i].name = format!("{base}_{n}");
            n += 1;
        }
    }
    let foreign_keys =
        crate::plan::foreign_keys::declared(ct, (database, &options), &columns, &mut indexes)?;
    if columns.iter().filter(|c| c.auto_increment).count() > 1
        || columns.iter().enumerate().any(|(i, c)| {
            c.auto_increment && !indexes.iter().any(|ix| ix.columns.first() == Some(&i))
        })
    {
        return Err(SqlError::new(ER_WRONG_AUTO_KEY,
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        ));
    }
    order_indexes(&mut indexes);
    let def = st::TableDef {
        columns,
        indexes,
        options,
        checks,
        foreign_keys,
    };
    // CREATE TABLE ... SELECT adds the query's columns first (see `from_ast`).
    if ct.query.is_none() {
        def.validate().map_err(storage_error)?;
    }
    Ok(def)
}

/// The engines a CREATE TABLE may name: myriad's one engine stands in for those a MariaDB
/// dump names for ordinary tables. Any other name is MariaDB's 1286, as in MariaDB where
/// the engine is not loaded (CSV, MERGE, BLACKHOLE, SEQUENCE ... would behave otherwise).
const ACCEPTED_ENGINES: &[&str] = &["InnoDB", "MyISAM", "Aria", "MEMORY", "HEAP"];

/// Whether a table of these options is an InnoDB table in MariaDB (its ENGINE says so, or
/// names none, InnoDB being the default): the engine name decides what MariaDB would do
/// that differs by engine (FOREIGN KEY constraints, which ALTER TABLE copies the rows).
pub(crate) fn is_innodb(options: &[(String, String)]) -> bool {
    options
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("ENGINE"))
        .is_none_or(|(_, v)| v.eq_ignore_ascii_case("InnoDB"))
}

fn check_engine(options: &[(String, String)]) -> Result<(), SqlError> {
    for (key, value) in options {
        if !key.eq_ignore_ascii_case("ENGINE") {
            continue;
        }
        let name = value.trim_matches(|c| c == '\'' || c == '"' || c == '`');
        if !ACCEPTED_ENGINES
            .iter()
            .any(|e| e.eq_ignore_ascii_case(name))
        {
            return Err(SqlError::new(
                myriad_types::errors::ER_UNKNOWN_STORAGE_ENGINE,
                format!("Unknown storage engine '{name}'"),
            ));
        }
    }
    Ok(())
}

/// CREATE TABLE's options as (name, value) texts (`ENGINE`, `DEFAULT CHARSET`, ...).
fn table_options(ct: &ast::CreateTable) -> Vec<(String, String)> {
    let mut options = Vec::new();
    if let ast::CreateTableOptions::Plain(list) | ast::CreateTableOptions::With(list) =
        &ct.table_options
    {
        for o in list {
            let text = o.to_string();
            match text.split_once('=') {
                Some((k, v)) => options.push((k.trim().to_string(), v.trim().to_string())),
                None => match text.split_once(' ') {
                    Some((k, v)) if !k.is_empty() => {
                        options.push((k.trim().to_string(), v.trim().to_string()))
                    }
                    _ => options.push((text, String::new())),
                },
            }
        }
    }
    options
}

/// A table's default collation, from its options: `COLLATE`, else the default of
/// `CHARSET` (a character set other than utf8mb4's and binary is stored as utf8mb4 with
/// its general collation), else utf8mb4_general_ci.
pub(crate) fn table_collation(options: &[(String, String)]) -> Result<st::Collation, SqlError> {
    Ok(named_collation(options)?.unwrap_or_default())
}

/// The collation options name with `COLLATE` or `CHARSET`, as [`table_collation`] reads
/// them; None when they name neither.
fn named_collation(options: &[(String, String)]) -> Result<Option<st::Collation>, SqlError> {
    let value = |names: &[&str]| {
        options.iter().find_map(|(k, v)| {
            let k = k.to_ascii_uppercase();
            let k = k.trim_start_matches("DEFAULT").trim();
            names.contains(&k).then(|| v.trim_matches(['\'', '"', '`']))
        })
    };
    if let Some(name) = value(&["COLLATE"]) {
        return stored_collation(name).map(Some);
    }
    Ok(value(&["CHARSET", "CHARACTER SET"])
        .map(|cs| st::Collation::of_charset(cs, true).unwrap_or_default()))
}

/// The collation a column or table declared with `COLLATE name` stores its text under.
/// Text is stored as utf8mb4 whatever its declared character set, so any `_bin`
/// collation is utf8mb4_bin (the same order on the characters it holds) and any other
/// case-insensitive one is utf8mb4_general_ci (docs/compatibility.md lists where their
/// orders differ); a case-sensitive one (`_cs`) is not supported (1235).
fn stored_collation(name: &str) -> Result<st::Collation, SqlError> {
    let name = name.trim_matches(['`', '\'', '"']);
    let lower = name.to_ascii_lowercase();
    match st::Collation::by_name(name) {
        Some(c) => Ok(c),
        None if lower.ends_with("_bin") => Ok(st::Collation::Utf8mb4Bin),
        None if lower.ends_with("_ci") => Ok(st::Collation::Utf8mb4GeneralCi),
        None => crate::expr::compile::collation_named(name),
    }
}

/// The collation a text column's options give it (`CHARACTER SET`, `COLLATE`), else
/// `default`, the table's: 1253 for a collation of another character set.
fn column_collation(
    options: &[ast::ColumnOptionDef],
    default: st::Collation,
) -> Result<st::Collation, SqlError> {
    let mut charset = None;
    let mut collation = None;
    for o in options {
        match &o.option {
            ast::ColumnOption::CharacterSet(name) => charset = Some(name.to_string()),
            ast::ColumnOption::Collation(name) => {
                collation = Some(stored_collation(&name.to_string())?)
            }
            _ => {}
        }
    }
    let charset = charset.map(|cs| cs.trim_matches(['`', '\'', '"']).to_ascii_lowercase());
    match (charset, collation) {
        (Some(cs), Some(c))
            if st::Collation::of_charset(&cs, true).is_some_and(|d| d.charset() != c.charset()) =>
        {
            Err(SqlError::new(
                myriad_types::errors::ER_COLLATION_CHARSET_MISMATCH,
                format!(
                    "COLLATION '{}' is not valid for CHARACTER SET '{cs}'",
                    c.name()
                ),
            ))
        }
        (_, Some(c)) => Ok(c),
        (Some(cs), None) => Ok(st::Collation::of_charset(&cs, true).unwrap_or_default()),
        (None, None) => Ok(default),
    }
}

/// A text type (CHAR, VARCHAR, TEXT) with `collation`; the `binary` collation makes it
/// the binary type of the same size (BINARY, VARBINARY, BLOB), as in MariaDB.
fn with_collation(ty: st::ColumnType, collation: st::Collation) -> st::ColumnType {
    use st::ColumnType as T;
    match (ty, collation) {
        (T::Text { size, .. }, st::Collation::Binary) => T::Blob { size },
        (T::Char { len, .. }, collation) => T::Char { len, collation },
        (T::Varchar { len, .. }, collation) => T::Varchar { len, collation },
        (T::Text { size, .. }, collation) => T::Text { size, collation },
        (T::Enum { elements, .. }, collation) => T::Enum {
            elements,
            collation,
        },
        (T::Set { elements, .. }, collation) => T::Set {
            elements,
            collation,
        },
        (other, _) => other,
    }
}

/// One column of CREATE TABLE or ALTER TABLE ADD COLUMN (`table_collation`: the table's
/// default): its definition, and whether it is declared PRIMARY KEY or UNIQUE inline.
pub fn column_from_ast(
    c: &ast::ColumnDef,
    table_collation: st::Collation,
    compiler: &Compiler,
) -> Result<(st::ColumnDef, bool, bool), SqlError> {
    let mut primary = false;
    let mut unique = false;
    let ty = column_type(&c.data_type, &c.name.value)?;
    let ty = match ty.collation() {
        // Text types take their collation from their options or the table.
        st::Collation::Utf8mb4GeneralCi => {
            with_collation(ty, column_collation(&c.options, table_collation)?)
        }
        _ => ty,
    };
    check_elements(&ty, &c.name.value)?;
    let mut def = st::ColumnDef::new(&c.name.value, ty);
    let mut default_expr = None;
    for option in &c.options {
        match &option.option {
            ast::ColumnOption::Null => def.nullable = true,
            ast::ColumnOption::NotNull => def.nullable = false,
            ast::ColumnOption::Default(e) if crate::plan::timestamps::is_current_timestamp(e) => {
                def.default_now = true
            }
            ast::ColumnOption::Default(e) => default_expr = Some(e.clone()),
            ast::ColumnOption::OnUpdate(e) => {
                crate::plan::timestamps::on_update(&mut def, e)?;
            }
            ast::ColumnOption::PrimaryKey(_) => {
                def.nullable = false;
                primary = true;
            }
            ast::ColumnOption::Unique(_) => unique = true,
            ast::ColumnOption::DialectSpecific(tokens)
                if tokens
                    .iter()
                    .any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")) =>
            {
                def.auto_increment = true
            }
            ast::ColumnOption::Comment(text) => def.comment = text.clone(),
            ast::ColumnOption::CharacterSet(_) | ast::ColumnOption::Collation(_) => {}
            // See `checks` and `foreign_keys`: the table's definition keeps them.
            ast::ColumnOption::Check(_) | ast::ColumnOption::ForeignKey(_) => {}
            other => return Err(SqlError::not_supported(&format!("column option {other}"))),
        }
    }
    crate::plan::timestamps::check_column(&def)?;
    if let Some(e) = default_expr {
        set_default(&mut def, &e, compiler)?;
    }
    Ok((def, primary, unique))
}

/// `DEFAULT e` of column `def`: its value as stored (a NULL default on a NOT NULL column,
/// or a value the column cannot hold, is 1067; one that reads the clock other than as
/// CURRENT_TIMESTAMP is not built).
pub(crate) fn set_default(
    def: &mut st::ColumnDef,
    e: &ast::Expr,
    compiler: &Compiler,
) -> Result<(), SqlError> {
    let expr = compiler.compile(e)?.stored_in(&def.ty);
    let mut w = Vec::new();
    let v = expr.eval(&mut ConstEnv::default_value(&mut w, 0), &[])?;
    // A default that reads the clock other than as CURRENT_TIMESTAMP itself
    // (`NOW() + INTERVAL 1 DAY`) would need evaluating per insert.
    if v != expr.eval(
        &mut ConstEnv::default_value(&mut Vec::new(), DISTANT_MICROS),
        &[],
    )? {
        return Err(SqlError::not_supported(
            "a DEFAULT expression that reads the clock, other than CURRENT_TIMESTAMP",
        ));
    }
    if v.is_null() {
        def.default = if def.nullable {
            Some(st::Value::Null)
        } else {
            return Err(SqlError::new(
                ER_INVALID_DEFAULT,
                format!("Invalid default value for '{}'", def.name),
            ));
        };
    } else {
        let target = Target {
            column: def,
            table: None,
            row: 1,
            strict: true,
        };
        let stored = to_stored(&v, &target, &mut w).map_err(|_| {
            SqlError::new(
                ER_INVALID_DEFAULT,
                format!("Invalid default value for '{}'", def.name),
            )
        })?;
        def.default = Some(stored);
    }
    Ok(())
}

pub(crate) fn column_type(dt: &ast::DataType, name: &str) -> Result<st::ColumnType, SqlError> {
    use ast::DataType as D;
    let int = |width, unsigned| st::ColumnType::Int { width, unsigned };
    let char_len = |l: &Option<ast::CharacterLength>, default: u32| match l {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => {
            (*length).min(u32::MAX as u64) as u32
        }
        _ => default,
    };
    let general = st::Collation::Utf8mb4GeneralCi;
    let text = |size| st::ColumnType::Text {
        collation: general,
        size,
    };
    let blob = |size| st::ColumnType::Blob { size };
    Ok(match dt {
        D::TinyInt(_) => int(st::IntWidth::Tiny, false),
        D::TinyIntUnsigned(_) | D::UTinyInt => int(st::IntWidth::Tiny, true),
        D::SmallInt(_) => int(st::IntWidth::Small, false),
        D::SmallIntUnsigned(_) | D::USmallInt => int(st::IntWidth::Small, true),
        D::MediumInt(_) => int(st::IntWidth::Medium, false),
        D::MediumIntUnsigned(_) => int(st::IntWidth::Medium, true),
        D::Int(_) | D::Integer(_) => int(st::IntWidth::Int, false),
        D::IntUnsigned(_) | D::IntegerUnsigned(_) => int(st::IntWidth::Int, true),
        D::BigInt(_) => int(st::IntWidth::Big, false),
        D::BigIntUnsigned(_) | D::UBigInt => int(st::IntWidth::Big, true),
        D::Bool | D::Boolean => int(st::IntWidth::Tiny, false),
        D::Decimal(info)
        | D::Numeric(info)
        | D::Dec(info)
        | D::DecimalUnsigned(info)
        | D::DecUnsigned(info) => {
            let (precision, scale) = match info {
                ast::ExactNumberInfo::None => (10, 0),
                ast::ExactNumberInfo::Precision(p) => (*p, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
            };
            let narrow = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
            crate::expr::decimal::check_type(narrow(precision), narrow(scale), name)?;
            // DECIMAL(0) is DECIMAL(10,0), as in MariaDB.
            let precision = if precision == 0 { 10 } else { precision };
            st::ColumnType::Decimal {
                precision: precision as u8,
                scale: scale as u8,
            }
        }
        D::Float(info) => float_type(info, name)?,
        // REAL is DOUBLE, as in MariaDB without the REAL_AS_FLOAT mode.
        D::Real | D::DoublePrecision | D::Double(ast::ExactNumberInfo::None) => {
            st::ColumnType::Double
        }
        // DOUBLE(p) is no type in MariaDB.
        D::Double(ast::ExactNumberInfo::Precision(_)) => {
            return Err(crate::expr::err_syntax(&dt.to_string()))
        }
        D::Double(ast::ExactNumberInfo::PrecisionAndScale(..)) => {
            return Err(SqlError::not_supported(
                "FLOAT(M,D), DOUBLE(M,D) and REAL(M,D) columns (fixed decimals)",
            ))
        }
        D::FloatUnsigned(_)
        | D::RealUnsigned
        | D::DoubleUnsigned(_)
        | D::DoublePrecisionUnsigned => {
            return Err(SqlError::not_supported("FLOAT and DOUBLE UNSIGNED columns"))
        }
        D::Char(l) | D::Character(l) => st::ColumnType::Char {
            len: char_len(l, 1),
            collation: general,
        },
        D::Varchar(l) | D::CharacterVarying(l) | D::CharVarying(l) | D::Nvarchar(l) => {
            let len = char_len(l, 0);
            if l.is_none() {
                return Err(crate::expr::err_syntax("VARCHAR"));
            }
            st::ColumnType::Varchar {
                len,
                collation: general,
            }
        }
        D::Text => text(st::LobSize::Regular),
        D::TinyText => text(st::LobSize::Tiny),
        D::MediumText => text(st::LobSize::Medium),
        D::LongText => text(st::LobSize::Long),
        // MariaDB's JSON: LONGTEXT of utf8mb4_bin with the constraint json_valid (see
        // `checks`).
        D::JSON => st::ColumnType::Text {
            collation: st::Collation::Utf8mb4Bin,
            size: st::LobSize::Long,
        },
        D::Blob(None) => blob(st::LobSize::Regular),
        D::Blob(Some(bytes)) => blob(st::LobSize::for_bytes(*bytes)),
        D::TinyBlob => blob(st::LobSize::Tiny),
        D::MediumBlob => blob(st::LobSize::Medium),
        D::LongBlob => blob(st::LobSize::Long),
        D::Binary(len) => binary_type(len.unwrap_or(1), false)?,
        D::Varbinary(Some(ast::BinaryLength::IntegerLength { length })) => {
            binary_type(*length, true)?
        }
        D::Varbinary(_) => return Err(crate::expr::err_syntax("VARBINARY")),
        D::Date => st::ColumnType::Date,
        D::Datetime(p) => st::ColumnType::DateTime {
            fsp: fractional_digits(*p, name)?,
        },
        D::Timestamp(p, _) => st::ColumnType::Timestamp {
            fsp: fractional_digits(*p, name)?,
        },
        D::Time(p, ast::TimezoneInfo::None) => st::ColumnType::Time {
            fsp: fractional_digits(*p, name)?,
        },
        D::Enum(members, None) => {
            let names = members
                .iter()
                .map(|m| match m {
                    ast::EnumMember::Name(n) => Ok(n.clone()),
                    ast::EnumMember::NamedValue(..) => {
                        Err(crate::expr::err_syntax(&dt.to_string()))
                    }
                })
                .collect::<Result<Vec<_>, _>>()?;
            st::ColumnType::Enum {
                elements: element_list(names),
                collation: general,
            }
        }
        D::Set(names) => st::ColumnType::Set {
            elements: element_list(names.clone()),
            collation: general,
        },
        other => return Err(SqlError::not_supported(&format!("column type {other}"))),
    })
}

/// An ENUM's or SET's elements as declared: trailing spaces are dropped, as in MariaDB.
fn element_list(names: Vec<String>) -> std::sync::Arc<[String]> {
    names
        .into_iter()
        .map(|n| n.trim_end_matches(' ').to_string())
        .collect()
}

/// MariaDB's checks of an ENUM's or SET's elements under the column's collation: no two
/// the same (1291), a SET of at most 64 (1097) without commas in them (1367).
fn check_elements(ty: &st::ColumnType, name: &str) -> Result<(), SqlError> {
    use myriad_types::errors::{
        ER_DUPLICATED_VALUE_IN_TYPE, ER_ILLEGAL_VALUE_FOR_TYPE, ER_TOO_BIG_SET,
    };
    let Some((list, set)) = ty.elements() else {
        return Ok(());
    };
    let kind = if set { "SET" } else { "ENUM" };
    if set && list.len() > st::elements::SET_MAX_ELEMENTS {
        return Err(SqlError::new(
            ER_TOO_BIG_SET,
            ER_TOO_BIG_SET.message(&[&name]),
        ));
    }
    if !set && list.len() > st::elements::ENUM_MAX_ELEMENTS {
        return Err(SqlError::not_supported(
            "an ENUM of more than 65535 elements",
        ));
    }
    if let Some(bad) = list.iter().find(|e| set && e.contains(',')) {
        let message = ER_ILLEGAL_VALUE_FOR_TYPE.message(&[&"set", bad]);
        return Err(SqlError::new(ER_ILLEGAL_VALUE_FOR_TYPE, message));
    }
    let collation = ty.collation();
    for (i, e) in list.iter().enumerate() {
        if let Some(first) = st::elements::find(&list[..i], collation, e.as_bytes()) {
            let message = ER_DUPLICATED_VALUE_IN_TYPE.message(&[&name, &list[first], &kind]);
            return Err(SqlError::new(ER_DUPLICATED_VALUE_IN_TYPE, message));
        }
    }
    Ok(())
}

/// The fractional seconds of DATETIME(p) or TIMESTAMP(p): 0 to 6 (ER_TOO_BIG_PRECISION,
/// 1426, beyond).
/// `FLOAT` or `FLOAT(p)`: a FLOAT up to 24 bits of precision, a DOUBLE up to 53, error
/// 1063 past it, as in MariaDB; `FLOAT(M,D)` is not built.
fn float_type(info: &ast::ExactNumberInfo, name: &str) -> Result<st::ColumnType, SqlError> {
    match info {
        ast::ExactNumberInfo::None => Ok(st::ColumnType::Float),
        ast::ExactNumberInfo::Precision(p) if *p <= 24 => Ok(st::ColumnType::Float),
        ast::ExactNumberInfo::Precision(p) if *p <= 53 => Ok(st::ColumnType::Double),
        ast::ExactNumberInfo::Precision(_) => Err(SqlError::new(
            ER_WRONG_FIELD_SPEC,
            format!("Incorrect column specifier for column '{name}'"),
        )),
        ast::ExactNumberInfo::PrecisionAndScale(..) => Err(SqlError::not_supported(
            "FLOAT(M,D), DOUBLE(M,D) and REAL(M,D) columns (fixed decimals)",
        )),
    }
}

fn fractional_digits(p: Option<u64>, name: &str) -> Result<u8, SqlError> {
    match p.unwrap_or(0) {
        p if p <= u64::from(st::MAX_FSP) => Ok(p as u8),
        p => Err(SqlError::new(
            ER_TOO_BIG_PRECISION,
            format!(
                "Too big precision {p} specified for '{name}'. Maximum is {}",
                st::MAX_FSP
            ),
        )),
    }
}

/// BINARY(n) and VARBINARY(n): CHAR and VARCHAR of bytes (the `binary` collation), with
/// MariaDB's length limits (ER_TOO_BIG_FIELDLENGTH, 1074).
pub(crate) fn binary_type(len: u64, varying: bool) -> Result<st::ColumnType, SqlError> {
    const BINARY_MAX_BYTES: u64 = 255;
    const VARBINARY_MAX_BYTES: u64 = 65_532;
    let (name, max) = if varying {
        ("VARBINARY", VARBINARY_MAX_BYTES)
    } else {
        ("BINARY", BINARY_MAX_BYTES)
    };
    if len > max {
        return Err(SqlError::new(
            ER_TOO_BIG_FIELDLENGTH,
            format!(
                "Column length too big for column '{name}' (max = {max}); use BLOB or TEXT instead"
            ),
        ));
    }
    let (len, collation) = (len as u32, st::Collation::Binary);
    Ok(if varying {
        st::ColumnType::Varchar { len, collation }
    } else {
        st::ColumnType::Char { len, collation }
    })
}

/// A second clock reading for telling clock-dependent DEFAULT expressions apart: a
/// different year, month, day and time of day from the epoch.
pub(crate) const DISTANT_MICROS: i64 = 1_000_000_000_000_000;
