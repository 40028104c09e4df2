//! View definition files: `<datadir>/<db>/<name>.myv`, one per view, beside the table
//! files whose names they share (a table and a view of one name cannot both exist: the
//! checks run under the catalog lock that table creation and renaming take).
//!
//! The storage keeps a view's definition as opaque bytes (the SQL layer owns their format)
//! and makes each change crash-safe: a new definition is written to a hidden temporary file
//! (`#` names are never listed), synced, renamed over the view's name and the directory
//! synced, so a crash leaves the old definition or the new one, never a torn one.

use crate::{push_encoded_name, sync_dir, Result, Storage, StorageError};
use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// The file name suffix of a view definition.
const VIEW_SUFFIX: &str = ".myv";

impl Storage {
    fn view_path(&self, db: &str, name: &str) -> PathBuf {
        let mut file = String::with_capacity(3 * name.len() + VIEW_SUFFIX.len());
        push_encoded_name(&mut file, name);
        file.push_str(VIEW_SUFFIX);
        self.db_dir(db).join(file)
    }

    /// Whether `db`.`name` is a view.
    pub fn view_exists(&self, db: &str, name: &str) -> bool {
        self.view_path(db, name).is_file()
    }

    /// Store the definition of view `db`.`name`: TableExists when a table has the name, or
    /// a view has it and `replace` is false; durable when this returns.
    pub fn write_view(&self, db: &str, name: &str, definition: &[u8], replace: bool) -> Result<()> {
        crate::check_name("table", name)?;
        let _c = self.inner.catalog.write();
        // Plans that read the view (kept while this count stands) compile again.
        self.inner.ddl_count.fetch_add(1, Ordering::AcqRel);
        let dir = self.db_dir(db);
        if !dir.is_dir() {
            return Err(StorageError::NoSuchDatabase(db.into()));
        }
        let path = self.view_path(db, name);
        if self.table_exists(db, name) || (!replace && path.exists()) {
            return Err(StorageError::TableExists(db.into(), name.into()));
        }
        let mut temp_name = String::from("#view-");
        push_encoded_name(&mut temp_name, name);
        let temp = dir.join(temp_name);
        let written = (|| -> io::Result<()> {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(crate::PRIVATE_FILE_MODE)
                .open(&temp)?;
            file.write_all(definition)?;
            file.sync_all()?;
            fs::rename(&temp, &path)?;
            sync_dir(&dir)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        Ok(written?)
    }

    /// The stored definition of view `db`.`name`, None when there is no such view.
    pub fn read_view(&self, db: &str, name: &str) -> Result<Option<Vec<u8>>> {
        match fs::read(self.view_path(db, name)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Remove view `db`.`name`; Ok(false) when there is none (durable when this returns).
    pub fn drop_view(&self, db: &str, name: &str) -> Result<bool> {
        let _c = self.inner.catalog.write();
        self.inner.ddl_count.fetch_add(1, Ordering::AcqRel);
        match fs::remove_file(self.view_path(db, name)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e.into()),
        }
        sync_dir(&self.db_dir(db))?;
        Ok(true)
    }

    /// The views of a database, sorted.
    pub fn list_views(&self, db: &str) -> Result<Vec<String>> {
        self.names_in_database(db, VIEW_SUFFIX)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Storage, StorageConfig, StorageError};

    #[test]
    fn views_share_the_table_namespace_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let config = || StorageConfig {
            datadir: dir.path().to_path_buf(),
            ..StorageConfig::default()
        };
        let storage = Storage::open(config()).unwrap();
        storage.create_database("d").unwrap();
        storage.write_view("d", "v 1", b"one", false).unwrap();
        assert!(matches!(
            storage.write_view("d", "v 1", b"two", false),
            Err(StorageError::TableExists(..))
        ));
        storage.write_view("d", "v 1", b"two", true).unwrap();
        let def = crate::TableDef {
            columns: vec![crate::ColumnDef::new("a", crate::ColumnType::Double)],
            indexes: Vec::new(),
            options: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
        };
        assert!(matches!(
            storage.create_table("d", "v 1", &def),
            Err(StorageError::TableExists(..))
        ));
        storage.create_table("d", "t", &def).unwrap();
        assert!(matches!(
            storage.write_view("d", "t", b"x", true),
            Err(StorageError::TableExists(..))
        ));
        assert_eq!(storage.list_tables("d").unwrap(), ["t"]);
        drop(storage);
        let storage = Storage::open(config()).unwrap();
        assert_eq!(storage.list_views("d").unwrap(), ["v 1"]);
        assert_eq!(storage.read_view("d", "v 1").unwrap().unwrap(), b"two");
        assert!(storage.drop_view("d", "v 1").unwrap());
        assert!(!storage.drop_view("d", "v 1").unwrap());
        assert_eq!(storage.read_view("d", "v 1").unwrap(), None);
    }
}
