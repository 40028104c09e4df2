//! Databases as directories under the datadir, as MySQL lays them out.
//!
//! This is the small stand-in the SQL layer uses until the storage catalog owns databases:
//! everything that lists, creates or drops a database goes through here, so switching to
//! the storage catalog touches only this module. The three system schemas are virtual.

use crate::error::SqlError;
use std::path::{Path, PathBuf};

/// Schemas every server shows, with no directory behind them.
pub const SYSTEM_SCHEMAS: &[&str] = &["information_schema", "mysql", "performance_schema"];

/// MySQL's limit on identifier length.
const NAME_LEN_MAX: usize = 64;

pub struct Catalog {
    datadir: PathBuf,
}

fn is_system(name: &str) -> bool {
    SYSTEM_SCHEMAS.iter().any(|s| s.eq_ignore_ascii_case(name))
}

/// ER_WRONG_DB_NAME (1102) for names that cannot be a directory.
fn check_name(name: &str) -> Result<(), SqlError> {
    let bad = name.is_empty()
        || name.len() > NAME_LEN_MAX
        || name.ends_with(' ')
        || name.contains(['/', '\\', '\0'])
        || name == "."
        || name == ".."
        || name.starts_with('#');
    if bad {
        return Err(SqlError::new(
            1102,
            "42000",
            format!("Incorrect database name '{name}'"),
        ));
    }
    Ok(())
}

pub fn err_unknown_database(name: &str) -> SqlError {
    SqlError::new(1049, "42000", format!("Unknown database '{name}'"))
}

impl Catalog {
    pub fn open(datadir: &Path) -> Result<Catalog, SqlError> {
        std::fs::create_dir_all(datadir).map_err(|e| {
            SqlError::new(
                1105,
                "HY000",
                format!("cannot create datadir {}: {e}", datadir.display()),
            )
        })?;
        Ok(Catalog {
            datadir: datadir.to_path_buf(),
        })
    }

    pub fn database_exists(&self, name: &str) -> bool {
        is_system(name) || (check_name(name).is_ok() && self.datadir.join(name).is_dir())
    }

    /// Every database, system schemas included, sorted by name.
    pub fn databases(&self) -> Vec<String> {
        let mut names: Vec<String> = SYSTEM_SCHEMAS.iter().map(|s| s.to_string()).collect();
        if let Ok(entries) = std::fs::read_dir(&self.datadir) {
            for entry in entries.flatten() {
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                if entry.path().is_dir()
                    && check_name(&name).is_ok()
                    && !is_system(&name)
                    && !name.starts_with('.')
                {
                    names.push(name);
                }
            }
        }
        names.sort();
        names
    }

    /// CREATE DATABASE; Ok(false) when it exists (the caller decides between error and note).
    pub fn create_database(&self, name: &str) -> Result<bool, SqlError> {
        check_name(name)?;
        if self.database_exists(name) {
            return Ok(false);
        }
        let path = self.datadir.join(name);
        std::fs::create_dir(&path).map_err(|e| {
            SqlError::new(
                1006,
                "HY000",
                format!("Can't create database '{name}' (errno: {e})"),
            )
        })?;
        if let Ok(dir) = std::fs::File::open(&self.datadir) {
            let _ = dir.sync_all();
        }
        Ok(true)
    }

    /// DROP DATABASE; Ok(false) when it does not exist.
    pub fn drop_database(&self, name: &str) -> Result<bool, SqlError> {
        if is_system(name) {
            return Err(SqlError::new(
                1044,
                "42000",
                format!("Access denied for user to database '{name}'"),
            ));
        }
        if !self.database_exists(name) {
            return Ok(false);
        }
        std::fs::remove_dir_all(self.datadir.join(name)).map_err(|e| {
            SqlError::new(
                1010,
                "HY000",
                format!("Error dropping database '{name}' (errno: {e})"),
            )
        })?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_list_drop() {
        let dir = tempfile::tempdir().unwrap();
        let catalog = Catalog::open(dir.path()).unwrap();
        assert_eq!(catalog.databases(), SYSTEM_SCHEMAS);
        assert!(catalog.create_database("shop").unwrap());
        assert!(!catalog.create_database("shop").unwrap());
        assert!(catalog.database_exists("shop"));
        assert_eq!(
            catalog.databases(),
            ["information_schema", "mysql", "performance_schema", "shop"]
        );
        assert_eq!(catalog.create_database("a/b").unwrap_err().code, 1102);
        assert!(catalog.drop_database("shop").unwrap());
        assert!(!catalog.drop_database("shop").unwrap());
        assert!(!catalog.database_exists("shop"));
        assert!(catalog.database_exists("MYSQL"));
    }
}
