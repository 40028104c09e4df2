//! information_schema.VIEWS, and the rows views add to information_schema.TABLES.

use super::{databases, grants, text, Narrow};
use crate::catalog::privileges::Privs;
use crate::catalog::views::ViewDef;
use crate::error::SqlError;
use crate::exec::env::ExecEnv;
use crate::plan::info_schema::is_schema;
use crate::value::Value;
use myriad_storage as st;

/// The views the account sees in each database `narrow` keeps, with their definitions.
fn stored_views(
    env: &ExecEnv,
    narrow: &Narrow,
) -> Result<Vec<(String, String, ViewDef)>, SqlError> {
    let grants = grants(env);
    let storage = env.engine.catalog.storage();
    let mut out = Vec::new();
    for db in databases(env, narrow) {
        if is_schema(&db) {
            continue;
        }
        let Ok(names) = env.engine.catalog.views(&db) else {
            continue;
        };
        for name in names {
            crate::interrupt::tick()?;
            let visible = grants.is_all() || grants.any_on_table_or_column(&db, &name);
            if !(narrow.keeps_table(&name) && visible) {
                continue;
            }
            // Dropped since the listing: not shown.
            if let Some(def) = crate::catalog::views::read(storage, &db, &name)? {
                out.push((db.clone(), name, def));
            }
        }
    }
    Ok(out)
}

/// TABLES' row of each view, as MariaDB shows one: type VIEW, comment VIEW, the rest NULL.
pub(super) fn view_table_rows(env: &ExecEnv, narrow: &Narrow) -> Result<Vec<st::Row>, SqlError> {
    Ok(stored_views(env, narrow)?
        .into_iter()
        .map(|(db, name, _)| {
            let mut row = vec![text("def"), text(&db), text(&name), text("VIEW")];
            row.extend(std::iter::repeat_n(Value::Null, 16));
            row.extend([text("VIEW"), Value::Null, Value::Null]);
            row
        })
        .collect())
}

/// VIEWS: a row per view. The definition shows to an account that holds SHOW VIEW and
/// SELECT on the view (or is its definer), as MariaDB; a view whose SELECT this server
/// cannot print as MariaDB does makes the statement answer 1235.
pub(super) fn view_rows(env: &ExecEnv, narrow: &Narrow) -> Result<Vec<st::Row>, SqlError> {
    let grants = grants(env);
    let current = {
        use crate::expr::Env;
        env.current_user()
    };
    let mut rows = Vec::new();
    for (db, name, def) in stored_views(env, narrow)? {
        let Some(definition) = &def.canonical else {
            return Err(SqlError::not_supported(
                "information_schema.VIEWS of a view whose SELECT this server cannot print as \
                 MariaDB does",
            ));
        };
        let definer = format!("{}@{}", def.definer_user, def.definer_host);
        let held = grants.in_database(&db).union(grants.on_table(&db, &name));
        let shown = grants.is_all()
            || definer == current
            || held.contains(Privs::SHOW_VIEW.union(Privs::SELECT));
        rows.push(vec![
            text("def"),
            text(&db),
            text(&name),
            text(if shown { definition } else { "" }),
            text(&def.check_option),
            text(if crate::plan::view::is_updatable(&def) {
                "YES"
            } else {
                "NO"
            }),
            text(&definer),
            text(&def.security),
            text(&def.character_set_client),
            text(&def.collation_connection),
            text(&def.algorithm),
        ]);
    }
    Ok(rows)
}
