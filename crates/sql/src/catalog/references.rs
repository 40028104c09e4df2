//! Which tables reference which: the FOREIGN KEY constraints of one database, gathered
//! from its tables' definitions and kept until a DDL statement changes one of its tables.
//!
//! A constraint lives in its child table's definition only, so that creating, altering or
//! dropping a child rewrites no other table. A write to a parent must still find the
//! constraints that name it: the first such question about a database reads the
//! definitions of its tables (through the definition cache) and keeps the answer, so a
//! server with a million tables reads only the databases it writes, once per change.
//! Constraints never cross databases (a reference into another database is refused when
//! it is declared), so one database's definitions hold every constraint on its tables.
//!
//! Every DDL statement that creates, alters, renames or drops a table of a database calls
//! [`References::changed`] for it after it ran; an answer gathered while a change was under
//! way carries the older generation and is not kept.
//!
//! Only a database the storage marks as having constraints (`Storage::mark_foreign_keys`,
//! done before a table gets its first one) is looked through: in any other, no definition
//! is read, and a write or DDL statement pays one lookup in this map.

use crate::error::SqlError;
use myriad_storage::{ForeignKeyDef, Storage, StorageError};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// One constraint, with the table it belongs to (the child).
#[derive(Debug, Clone)]
pub struct Reference {
    pub child: String,
    pub fk: ForeignKeyDef,
}

/// The FOREIGN KEY constraints of one database.
#[derive(Debug, Default)]
pub struct DatabaseReferences {
    all: Vec<Reference>,
}

impl DatabaseReferences {
    /// The constraints whose parent is `table` (self references included).
    pub fn referencing<'a>(&'a self, table: &'a str) -> impl Iterator<Item = &'a Reference> + 'a {
        self.all.iter().filter(move |r| r.fk.parent_table == table)
    }

    /// The constraints whose parent is `table`, declared by another table.
    pub fn from_others<'a>(&'a self, table: &'a str) -> impl Iterator<Item = &'a Reference> + 'a {
        self.referencing(table).filter(move |r| r.child != table)
    }

    /// The constraints `table` declares (as the child).
    pub fn all_of<'a>(&'a self, table: &'a str) -> impl Iterator<Item = &'a Reference> + 'a {
        self.all.iter().filter(move |r| r.child == table)
    }

    /// Whether a constraint of the database is named `name` (names are unique in a
    /// database, ignoring case).
    pub fn has_name(&self, name: &str) -> bool {
        self.all
            .iter()
            .any(|r| r.fk.name.eq_ignore_ascii_case(name))
    }

    /// Whether the database has no constraint at all.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }
}

#[derive(Default)]
struct Entry {
    generation: u64,
    known: Option<Arc<DatabaseReferences>>,
    /// Whether the database is marked (None: not asked yet).
    marked: Option<bool>,
}

/// The server's map of databases to their constraints (see the module doc).
#[derive(Default)]
pub struct References {
    databases: Mutex<HashMap<String, Entry>>,
}

impl References {
    /// The constraints of `database`, gathered now unless known since its last change.
    pub fn of(
        &self,
        storage: &Storage,
        database: &str,
    ) -> Result<Arc<DatabaseReferences>, SqlError> {
        let generation = {
            let mut map = self.databases.lock();
            let entry = map.entry(database.to_string()).or_default();
            if let Some(known) = &entry.known {
                return Ok(Arc::clone(known));
            }
            let marked = *entry
                .marked
                .get_or_insert_with(|| storage.has_foreign_keys(database));
            if !marked {
                return Ok(Arc::new(DatabaseReferences::default()));
            }
            entry.generation
        };
        let gathered = Arc::new(gather(storage, database)?);
        let mut map = self.databases.lock();
        let entry = map.entry(database.to_string()).or_default();
        if entry.generation == generation {
            entry.known = Some(Arc::clone(&gathered));
        }
        Ok(gathered)
    }

    /// A table of `database` is about to get a FOREIGN KEY constraint: mark the database
    /// (durably) so that its constraints are looked for from now on.
    pub fn mark(&self, storage: &Storage, database: &str) -> Result<(), SqlError> {
        storage
            .mark_foreign_keys(database)
            .map_err(crate::catalog::storage_error)?;
        let mut map = self.databases.lock();
        let entry = map.entry(database.to_string()).or_default();
        entry.marked = Some(true);
        entry.generation += 1;
        entry.known = None;
        Ok(())
    }

    /// A DDL statement changed tables of `database`: forget what was gathered.
    pub fn changed(&self, database: &str) {
        let mut map = self.databases.lock();
        let entry = map.entry(database.to_string()).or_default();
        entry.generation += 1;
        entry.known = None;
        // DROP DATABASE takes the mark with the directory.
        entry.marked = None;
    }
}

fn gather(storage: &Storage, database: &str) -> Result<DatabaseReferences, SqlError> {
    let mut all = Vec::new();
    let tables = match storage.list_tables(database) {
        Ok(tables) => tables,
        Err(StorageError::NoSuchDatabase(_)) => return Ok(DatabaseReferences::default()),
        Err(e) => return Err(crate::catalog::storage_error(e)),
    };
    for table in tables {
        let def = match storage.table_def_unkept(database, &table) {
            Ok(def) => def,
            // Dropped since it was listed: its constraints went with it.
            Err(StorageError::NoSuchTable(..)) => continue,
            Err(e) => return Err(crate::catalog::storage_error(e)),
        };
        for fk in &def.foreign_keys {
            all.push(Reference {
                child: table.clone(),
                fk: fk.clone(),
            });
        }
    }
    Ok(DatabaseReferences { all })
}
