//! CREATE VIEW, ALTER VIEW and DROP VIEW as they run: the checks that need the catalog as
//! it is now (does the name hold a table, a view, nothing), the clauses the statement
//! leaves out (CREATE takes MariaDB's defaults, ALTER keeps the view's), and the stored
//! definition (`catalog::views`).

use crate::catalog;
use crate::catalog::privileges::Privs;
use crate::catalog::views::ViewDef;
use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::exec::{note, ok};
use crate::expr::eval::SqlValue;
use crate::expr::eval::Warning;
use crate::expr::Env;
use crate::plan::view::CreateView;
use crate::plan::Stmt;
use crate::result::QueryResult;
use crate::Session;
use crate::Value;
use myriad_storage::StorageError;
use myriad_types::errors::{
    ER_NO_SUCH_TABLE, ER_TABLEACCESS_DENIED_ERROR, ER_TABLE_EXISTS_ERROR, ER_UNKNOWN_VIEW,
    ER_WRONG_OBJECT,
};

fn err_not_a_view(db: &str, name: &str) -> SqlError {
    SqlError::new(
        ER_WRONG_OBJECT,
        format!("'{db}.{name}' is not of type 'VIEW'"),
    )
}

impl Session {
    /// A DEFINER clause naming `user`@`host`: another account than `current` needs SUPER
    /// or SET USER (1227), as in MariaDB, since the view's tables are read with the
    /// definer's privileges; an account that does not exist gets MariaDB's note 1449.
    fn check_definer(
        &self,
        user: &str,
        host: &str,
        current: (&str, &str),
        env: &mut ExecEnv,
    ) -> Result<(), SqlError> {
        if (user, host) != current {
            let grants = self.checked_grants();
            let either = Privs::SUPER.union(Privs::named("SET USER").unwrap_or(Privs::SUPER));
            if !grants.is_all() && grants.global.0 & either.0 == 0 {
                return Err(crate::exec::privileges::global_denied(either));
            }
        }
        if !self.engine.accounts.exists(user, host) {
            let e = SqlError::of(myriad_types::errors::ER_NO_SUCH_USER, &[&user, &host]);
            env.warnings.push(note(e.code, e.message));
        }
        Ok(())
    }

    /// The tables `tables` read through SQL SECURITY DEFINER views of `definer`: the
    /// definer must exist (else MariaDB's 1449 to an account with SUPER, 1045 to others)
    /// and hold SELECT on each table at table level (its column privileges are not looked
    /// at); a denial is a 1142, which the caller turns into the view's 1356.
    pub(super) fn check_definer_reads(
        &self,
        tables: &[(String, String)],
        definer: &(String, String),
    ) -> Result<(), SqlError> {
        let Some(account) = self
            .engine
            .accounts
            .grants_of_account(&definer.0, &definer.1)
        else {
            if self.checked_grants().global.contains(Privs::SUPER) {
                return Err(SqlError::of(
                    myriad_types::errors::ER_NO_SUCH_USER,
                    &[&definer.0, &definer.1],
                ));
            }
            let (_, host) = self.own_account();
            return Err(SqlError::of(
                myriad_types::errors::ER_ACCESS_DENIED_ERROR,
                &[&self.info.user, &host, &"YES"],
            ));
        };
        let grants = &account.grants;
        if grants.is_all() {
            return Ok(());
        }
        let (user, host) = (&self.info.user, &self.info.host);
        for (db, table) in tables {
            if !grants.on_table(db, table).contains(Privs::SELECT) {
                return Err(super::privileges::table_denied(
                    "SELECT", user, host, db, table,
                ));
            }
        }
        Ok(())
    }

    /// CREATE [OR REPLACE] VIEW and ALTER VIEW.
    pub(crate) fn create_view(
        &self,
        v: &CreateView,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let storage = self.engine.catalog.storage();
        let (db, name) = (v.database.as_str(), v.name.as_str());
        if catalog::is_system(db) || !storage.database_exists(db) {
            return Err(catalog::err_unknown_database(db));
        }
        let old = catalog::views::read(storage, db, name)?;
        let is_table = old.is_none() && storage.table_exists(db, name);
        if v.alter && old.is_none() {
            return Err(match is_table {
                true => err_not_a_view(db, name),
                false => SqlError::new(
                    ER_NO_SUCH_TABLE,
                    format!("Table '{db}.{name}' doesn't exist"),
                ),
            });
        }
        if v.or_replace && is_table {
            return Err(err_not_a_view(db, name));
        }
        let exists = SqlError::new(
            ER_TABLE_EXISTS_ERROR,
            format!("Table '{name}' already exists"),
        );
        if !v.alter && !v.or_replace && (old.is_some() || is_table) {
            if v.if_not_exists {
                env.warnings.push(note(exists.code, exists.message));
                return Ok(ok(0));
            }
            return Err(exists);
        }
        // A view that would read itself (OR REPLACE / ALTER over its own name): refused when
        // it is made, with MariaDB's answer (it does not find the view it replaces: 1146).
        if let Some(crate::plan::tables::Made::Query(q)) = &v.reads.made {
            let reads = crate::exec::query_cache::tables_of_query(q.as_ref()).unwrap_or_default();
            if reads.iter().any(|(d, t)| d == db && t == name) {
                return Err(SqlError::new(
                    ER_NO_SUCH_TABLE,
                    format!("Table '{db}.{name}' doesn't exist"),
                ));
            }
        }
        let kept = old.as_ref().filter(|_| v.alter);
        let current = env.current_user();
        let (user, host) = current.rsplit_once('@').unwrap_or((&current, ""));
        if let Some((u, h)) = &v.definer {
            self.check_definer(u, h, (user, host), env)?;
        }
        let (definer_user, definer_host) = match (&v.definer, kept) {
            (Some((u, h)), _) => (u.clone(), h.clone()),
            (None, Some(k)) => (k.definer_user.clone(), k.definer_host.clone()),
            (None, None) => (user.to_string(), host.to_string()),
        };
        let def = ViewDef {
            algorithm: v
                .algorithm
                .clone()
                .or_else(|| kept.map(|k| k.algorithm.clone()))
                .unwrap_or_else(|| "UNDEFINED".into()),
            security: v
                .security
                .clone()
                .or_else(|| kept.map(|k| k.security.clone()))
                .unwrap_or_else(|| "DEFINER".into()),
            definer_user,
            definer_host,
            character_set_client: self.session_text("character_set_client"),
            collation_connection: self.session_text("collation_connection"),
            ..v.def.clone()
        };
        let replace = v.alter || v.or_replace;
        match storage.write_view(db, name, &def.encode(), replace) {
            Ok(()) => Ok(ok(0)),
            Err(StorageError::TableExists(..)) => Err(exists),
            Err(e) => Err(catalog::storage_error(e)),
        }
    }

    /// DROP VIEW: the views named are dropped; the names that are none answer MariaDB's
    /// 4092 (a note with IF EXISTS), a table of the name also warning 1347.
    pub(crate) fn drop_views(
        &self,
        names: &[(String, String)],
        if_exists: bool,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let storage = self.engine.catalog.storage();
        let mut missing = Vec::new();
        for (db, name) in names {
            let dropped = match catalog::is_system(db) {
                true => false,
                false => match storage.drop_view(db, name) {
                    Ok(dropped) => dropped,
                    Err(StorageError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => false,
                    Err(e) => return Err(catalog::storage_error(e)),
                },
            };
            if dropped {
                continue;
            }
            // MariaDB warns of a table named as a view with or without IF EXISTS.
            if storage.table_exists(db, name) {
                env.warnings.push(Warning {
                    level: "Warning",
                    code: ER_WRONG_OBJECT.code,
                    message: format!("'{db}.{name}' is not of type 'VIEW'"),
                });
            }
            missing.push(format!("{db}.{name}"));
        }
        if missing.is_empty() {
            return Ok(ok(0));
        }
        let message = format!("Unknown VIEW: '{}'", missing.join(","));
        if !if_exists {
            return Err(SqlError::new(ER_UNKNOWN_VIEW, message));
        }
        env.warnings.push(note(ER_UNKNOWN_VIEW.code, message));
        Ok(ok(0))
    }
}

impl Session {
    /// SHOW CREATE VIEW (`asked_for_view`), or SHOW CREATE TABLE of a view: MariaDB's text
    /// with the session character sets the view was made with. A view whose SELECT this
    /// server cannot print as MariaDB does answers 1235.
    pub(crate) fn show_create_view(
        &self,
        db: &str,
        name: &str,
        asked_for_view: bool,
        env: &mut ExecEnv,
    ) -> Result<QueryResult, SqlError> {
        let storage = self.engine.catalog.storage();
        let Some(def) = catalog::views::read(storage, db, name)? else {
            if asked_for_view && storage.table_exists(db, name) {
                return Err(err_not_a_view(db, name));
            }
            return Err(SqlError::new(
                ER_NO_SUCH_TABLE,
                format!("Table '{db}.{name}' doesn't exist"),
            ));
        };
        if !asked_for_view {
            // SHOW CREATE TABLE found a view: what SHOW CREATE VIEW needs.
            let grants = self.checked_grants();
            let needed = Privs::SHOW_VIEW.union(Privs::SELECT);
            let held = grants.in_database(db).union(grants.on_table(db, name));
            if !grants.is_all() && !held.contains(needed) {
                let what = match held.contains(Privs::SHOW_VIEW) {
                    true => "SELECT",
                    false => "SHOW VIEW",
                };
                return Err(crate::exec::privileges::table_denied(
                    what,
                    &self.info.user,
                    &self.info.host,
                    db,
                    name,
                ));
            }
        }
        let ctx = self.compile_ctx();
        let current = self.info.database.as_deref();
        let shown = def.canonical.as_ref().and_then(|_| {
            crate::plan::view_text::canonical(&def, db, Some(current.unwrap_or("")), &ctx)
        });
        let Some(select) = shown else {
            return Err(SqlError::not_supported(
                "SHOW CREATE VIEW of a view whose SELECT this server cannot print as MariaDB does",
            ));
        };
        let shown_name = match self.info.database.as_deref() == Some(db) {
            true => format!("`{}`", name.replace('`', "``")),
            false => format!("`{}`.`{}`", db.replace('`', "``"), name.replace('`', "``")),
        };
        let check = match def.check_option.as_str() {
            "NONE" => String::new(),
            option => format!(" WITH {option} CHECK OPTION"),
        };
        let text = format!(
            "CREATE ALGORITHM={} DEFINER=`{}`@`{}` SQL SECURITY {} VIEW {shown_name} AS {select}{check}",
            def.algorithm, def.definer_user, def.definer_host, def.security
        );
        crate::exec::show::listing(
            &[
                ("View", 64),
                ("Create View", 1024),
                ("character_set_client", 32),
                ("collation_connection", 32),
            ],
            vec![vec![
                Value::Bytes(name.as_bytes().to_vec()),
                Value::Bytes(text.into_bytes()),
                Value::text(&def.character_set_client),
                Value::text(&def.collation_connection),
            ]],
            &crate::plan::ShowFilter::None,
            env,
        )
    }

    /// CHECK TABLE of a view: OK when its SELECT still compiles. A view that no longer
    /// does answers 1235 for the statement, where MariaDB lists the SELECT's own error.
    pub(crate) fn check_view(&self, db: &str, name: &str) -> Result<(), SqlError> {
        let storage = self.engine.catalog.storage();
        let Some(def) = catalog::views::read(storage, db, name)? else {
            return Ok(());
        };
        let ctx = self.compile_ctx();
        crate::plan::view::view_ref(&def, db, name, None, &ctx)
            .map(|_| ())
            .map_err(|_| {
                SqlError::not_supported("CHECK TABLE of a view that can no longer be read")
            })
    }

    /// A table-level denial (1142) for a table the statement reads only through a view
    /// answers as MariaDB answers for a view whose tables its reader may not read: 1356
    /// naming the view (its message speaks of the definer or invoker), never the table
    /// under it. `definer` is whose privileges fell short, None for the session's own: the
    /// view named is the first one read with those privileges (an SQL SECURITY DEFINER view
    /// of that definer, or an INVOKER view for the session), else the first one.
    pub(crate) fn denied_behind_view(
        &self,
        stmt: &Stmt,
        denied: SqlError,
        definer: Option<&(String, String)>,
    ) -> SqlError {
        if denied.code != ER_TABLEACCESS_DENIED_ERROR.code {
            return denied;
        }
        let Some(named) = crate::exec::query_cache::named_tables(stmt) else {
            return denied;
        };
        let names = |(db, t): &(String, String)| denied.message.ends_with(&format!("`{db}`.`{t}`"));
        if named.iter().any(names) {
            return denied;
        }
        let storage = self.engine.catalog.storage();
        let views: Vec<&(String, String)> = named
            .iter()
            .filter(|(db, t)| storage.view_exists(db, t))
            .collect();
        let reads_as_denied = |(db, t): &&(String, String)| {
            let Ok(Some(def)) = catalog::views::read(storage, db, t) else {
                return false;
            };
            match definer {
                _ if def.security.eq_ignore_ascii_case("INVOKER") => definer.is_none(),
                Some((u, h)) => def.definer_user == *u && def.definer_host == *h,
                None => false,
            }
        };
        match views
            .iter()
            .copied()
            .find(reads_as_denied)
            .or(views.first().copied())
        {
            Some((db, t)) => catalog::views::err_view_invalid(db, t),
            None => denied,
        }
    }
}
