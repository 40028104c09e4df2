//! Databases and tables as the SQL layer sees them: the three virtual system schemas in
//! front of the storage catalog (a directory per database, a file per table).
//!
//! Everything that lists, creates or drops a database goes through here, and every storage
//! error becomes a MySQL error in [`storage_error`], so the rest of the SQL layer never
//! matches on storage errors itself.

pub mod account_options;
pub mod accounts;
pub mod auth_plugins;
pub mod charset;
pub mod info_schema;
pub mod mysql_schema;
pub mod privileges;
pub mod proxies;
pub mod references;
pub mod roles;
pub mod tls_require;
pub mod views;

use crate::error::SqlError;
use myriad_storage::{Storage, StorageConfig, StorageError};
use myriad_types::errors::{
    ER_BAD_DB_ERROR, ER_CHECKREAD, ER_DBACCESS_DENIED_ERROR, ER_DB_CREATE_EXISTS, ER_DUP_ENTRY,
    ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT, ER_NOT_KEYFILE, ER_NO_SUCH_TABLE, ER_PARSE_ERROR,
    ER_TABLE_DEF_CHANGED, ER_TABLE_EXISTS_ERROR, ER_TOO_BIG_ROWSIZE,
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, ER_UNKNOWN_ERROR, ER_WRONG_DB_NAME,
};
use std::path::Path;

/// Schemas every server shows, with no directory behind them.
pub const SYSTEM_SCHEMAS: &[&str] = &["information_schema", "mysql", "performance_schema"];

pub struct Catalog {
    storage: Storage,
    references: references::References,
}

pub fn is_system(name: &str) -> bool {
    SYSTEM_SCHEMAS.iter().any(|s| s.eq_ignore_ascii_case(name))
}

pub fn err_unknown_database(name: &str) -> SqlError {
    SqlError::new(ER_BAD_DB_ERROR, format!("Unknown database '{name}'"))
}

/// MySQL's error for a storage error.
pub fn storage_error(e: StorageError) -> SqlError {
    let message = e.to_string();
    match e {
        StorageError::DuplicateKey { .. } => SqlError::new(ER_DUP_ENTRY, message),
        StorageError::NoSuchDatabase(d) => err_unknown_database(&d),
        StorageError::DatabaseExists(_) => SqlError::new(ER_DB_CREATE_EXISTS, message),
        StorageError::NoSuchTable(..) => SqlError::new(ER_NO_SUCH_TABLE, message),
        StorageError::TableExists(..) => SqlError::new(ER_TABLE_EXISTS_ERROR, message),
        StorageError::InvalidDefinition(m) => SqlError::new(ER_PARSE_ERROR, m),
        StorageError::TypeMismatch(m) => SqlError::new(ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, m),
        StorageError::TooBig(m) => {
            SqlError::new(ER_TOO_BIG_ROWSIZE, format!("Row size too large: {m}"))
        }
        // A wait that a KILL, max_statement_time or a departed client cut short ends like
        // a timeout in the caches: say why it really ended.
        StorageError::LockWaitTimeout => crate::interrupt::check().err().unwrap_or_else(|| {
            SqlError::new(
                ER_LOCK_WAIT_TIMEOUT,
                "Lock wait timeout exceeded; try restarting transaction",
            )
        }),
        // Met another statement's page: the statement runs again after waiting for it
        // (`Session::retry_after_conflict`), unless it cannot, when the wait is the error.
        StorageError::Busy => SqlError::new(
            ER_LOCK_WAIT_TIMEOUT,
            "Lock wait timeout exceeded; try restarting transaction",
        ),
        StorageError::Deadlock => SqlError::new(
            ER_LOCK_DEADLOCK,
            "Deadlock found when trying to get lock; try restarting transaction",
        ),
        StorageError::Corrupt(m) => {
            SqlError::new(ER_NOT_KEYFILE, format!("Index for table is corrupt: {m}"))
        }
        StorageError::Io(e) => io_error(&e, "datadir"),
        StorageError::ChangedSinceSnapshot(_) => SqlError::new(ER_CHECKREAD, message),
        StorageError::Stale => SqlError::new(
            ER_TABLE_DEF_CHANGED,
            "Table definition has changed, please retry transaction",
        ),
    }
}

/// MariaDB's error for an operating-system error from the engine: ER_DISK_FULL for a full
/// file system (as `handler::print_error` gives for ENOSPC; InnoDB's ER_RECORD_FILE_FULL
/// "The table is full" is its answer to a tablespace that cannot grow, which is not where
/// our writes fail: ours fail in the shared redo log, before any table is changed), else
/// ER_GET_ERRNO with the errno and its text.
/// MariaDB's error for an I/O failure in `place` (the datadir, a temporary folder): 1021
/// for a full disk, 1030 with the errno and its text for any other.
pub(crate) fn io_error(e: &std::io::Error, place: &str) -> SqlError {
    use crate::error::{ER_DISK_FULL, ER_GET_ERRNO};
    let text = |n: i32| {
        let full = std::io::Error::from_raw_os_error(n).to_string();
        match full.find(" (os error") {
            Some(at) => full[..at].to_string(),
            None => full,
        }
    };
    match e.raw_os_error() {
        Some(n) if myriad_storage::is_disk_full(e) => SqlError::new(
            ER_DISK_FULL,
            format!(
                "Disk full ({place}); waiting for someone to free some space... \
                 (errno: {n} \"{}\")",
                text(n)
            ),
        ),
        Some(n) => SqlError::new(
            ER_GET_ERRNO,
            format!("Got error {n} \"{}\" from storage engine myriad", text(n)),
        ),
        None => SqlError::new(
            ER_GET_ERRNO,
            format!("Got error \"{e}\" from storage engine myriad"),
        ),
    }
}

impl Catalog {
    pub fn open(datadir: &Path, config: StorageConfig) -> Result<Catalog, SqlError> {
        myriad_storage::create_private_dir(datadir).map_err(|e| {
            SqlError::new(
                ER_UNKNOWN_ERROR,
                format!("cannot create datadir {}: {e}", datadir.display()),
            )
        })?;
        let storage = Storage::open(StorageConfig {
            datadir: datadir.to_path_buf(),
            ..config
        })
        .map_err(|e| {
            SqlError::new(
                ER_UNKNOWN_ERROR,
                format!("cannot open the storage in {}: {e}", datadir.display()),
            )
        })?;
        Ok(Catalog {
            storage,
            references: references::References::default(),
        })
    }

    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The FOREIGN KEY constraints of `database` (see [`references`]).
    pub fn references(
        &self,
        database: &str,
    ) -> Result<std::sync::Arc<references::DatabaseReferences>, SqlError> {
        self.references.of(&self.storage, database)
    }

    /// A table of `database` is about to get a FOREIGN KEY constraint (see [`references`]).
    pub fn mark_foreign_keys(&self, database: &str) -> Result<(), SqlError> {
        self.references.mark(&self.storage, database)
    }

    /// A DDL statement changed tables of `database` (see [`references`]).
    pub fn tables_changed(&self, database: &str) {
        self.references.changed(database)
    }

    pub fn database_exists(&self, name: &str) -> bool {
        is_system(name) || (!name.is_empty() && self.storage.database_exists(name))
    }

    /// Every database, system schemas included, sorted by name.
    pub fn databases(&self) -> Vec<String> {
        let mut names: Vec<String> = SYSTEM_SCHEMAS.iter().map(|s| s.to_string()).collect();
        names.extend(
            self.storage
                .list_databases()
                .unwrap_or_default()
                .into_iter()
                .filter(|n| !is_system(n)),
        );
        names.sort();
        names
    }

    /// CREATE DATABASE; Ok(false) when it exists (the caller decides between error and note).
    pub fn create_database(
        &self,
        name: &str,
        collation: myriad_storage::Collation,
    ) -> Result<bool, SqlError> {
        if self.database_exists(name) {
            return Ok(false);
        }
        match self.storage.create_database_collated(name, collation) {
            Ok(()) => Ok(true),
            Err(StorageError::DatabaseExists(_)) => Ok(false),
            Err(StorageError::InvalidDefinition(_)) => Err(SqlError::new(
                ER_WRONG_DB_NAME,
                format!("Incorrect database name '{name}'"),
            )),
            Err(e) => Err(storage_error(e)),
        }
    }

    /// DROP DATABASE; Ok(None) when it does not exist, else the number of tables dropped.
    pub fn drop_database(&self, name: &str) -> Result<Option<u64>, SqlError> {
        if is_system(name) {
            return Err(SqlError::new(
                ER_DBACCESS_DENIED_ERROR,
                format!("Access denied for user to database '{name}'"),
            ));
        }
        if !self.database_exists(name) {
            return Ok(None);
        }
        // Views count as MariaDB counts them: among the tables dropped.
        let tables = self
            .storage
            .list_tables(name)
            .map(|t| t.len() as u64)
            .unwrap_or(0)
            + self
                .storage
                .list_views(name)
                .map(|v| v.len() as u64)
                .unwrap_or(0);
        match self.storage.drop_database(name) {
            Ok(()) => Ok(Some(tables)),
            Err(StorageError::NoSuchDatabase(_)) => Ok(None),
            Err(e) => Err(storage_error(e)),
        }
    }

    /// Views of a database, sorted (none in the system schemas).
    pub fn views(&self, database: &str) -> Result<Vec<String>, SqlError> {
        if is_system(database) && !self.storage.database_exists(database) {
            return Ok(Vec::new());
        }
        self.storage.list_views(database).map_err(storage_error)
    }

    /// Tables of a database, sorted (none in the system schemas yet).
    pub fn tables(&self, database: &str) -> Result<Vec<String>, SqlError> {
        if is_system(database) && !self.storage.database_exists(database) {
            return Ok(Vec::new());
        }
        self.storage.list_tables(database).map_err(storage_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_list_drop() {
        let dir = tempfile::tempdir().unwrap();
        let catalog = Catalog::open(dir.path(), StorageConfig::default()).unwrap();
        assert_eq!(catalog.databases(), SYSTEM_SCHEMAS);
        let general = myriad_storage::Collation::Utf8mb4GeneralCi;
        assert!(catalog.create_database("shop", general).unwrap());
        assert!(!catalog.create_database("shop", general).unwrap());
        assert!(catalog.database_exists("shop"));
        assert_eq!(
            catalog.databases(),
            ["information_schema", "mysql", "performance_schema", "shop"]
        );
        assert_eq!(catalog.drop_database("shop").unwrap(), Some(0));
        assert_eq!(catalog.drop_database("shop").unwrap(), None);
        assert!(!catalog.database_exists("shop"));
        assert!(catalog.database_exists("MYSQL"));
        assert!(catalog.tables("mysql").unwrap().is_empty());
    }

    #[test]
    fn io_errors_map_to_mariadb_codes() {
        let full = storage_error(StorageError::Io(std::io::Error::from_raw_os_error(28)));
        assert_eq!(full.code, crate::error::ER_DISK_FULL.code);
        assert_eq!(
            full.message,
            "Disk full (datadir); waiting for someone to free some space... \
             (errno: 28 \"No space left on device\")"
        );
        let eio = storage_error(StorageError::Io(std::io::Error::from_raw_os_error(5)));
        assert_eq!(eio.code, crate::error::ER_GET_ERRNO.code);
        assert_eq!(
            eio.message,
            "Got error 5 \"Input/output error\" from storage engine myriad"
        );
        let other = storage_error(StorageError::Io(std::io::Error::other("gone")));
        assert_eq!(other.code, crate::error::ER_GET_ERRNO.code);
    }
}
