//! Privileges with MariaDB's names, held per account at three levels: global (`ON *.*`),
//! per database (`ON db.*`, the name a pattern with `%` and `_` as in MariaDB) and per table
//! (`ON db.t`).
//!
//! A set of privileges is a bit set in MariaDB's own order of privileges, which is also the
//! order SHOW GRANTS lists them in. What a statement may do in database `db` is the union
//! of the account's global privileges and those of every database grant whose pattern
//! matches `db`; on table `db`.`t`, that and the table's own grant.
//!
//! Column grants (`GRANT SELECT (a, b) ON db.t`) are kept beside the table grants: a
//! table with column grants always has a table entry too (its privileges possibly none),
//! as MariaDB keeps a `tables_priv` row for it, which holds the GRANT OPTION of both.
//!
//! The privileges of stored programs are not kept yet: they answer ER_NOT_SUPPORTED_YET.

/// A set of privileges.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Privs(pub u64);

/// Each privilege's name and bit, in MariaDB's order.
pub const NAMES: &[(&str, u64)] = &[
    ("SELECT", 1 << 0),
    ("INSERT", 1 << 1),
    ("UPDATE", 1 << 2),
    ("DELETE", 1 << 3),
    ("CREATE", 1 << 4),
    ("DROP", 1 << 5),
    ("RELOAD", 1 << 6),
    ("SHUTDOWN", 1 << 7),
    ("PROCESS", 1 << 8),
    ("FILE", 1 << 9),
    ("REFERENCES", 1 << 11),
    ("INDEX", 1 << 12),
    ("ALTER", 1 << 13),
    ("SHOW DATABASES", 1 << 14),
    ("SUPER", 1 << 15),
    ("CREATE TEMPORARY TABLES", 1 << 16),
    ("LOCK TABLES", 1 << 17),
    ("EXECUTE", 1 << 18),
    ("REPLICATION SLAVE", 1 << 19),
    ("BINLOG MONITOR", 1 << 20),
    ("CREATE VIEW", 1 << 21),
    ("SHOW VIEW", 1 << 22),
    ("CREATE ROUTINE", 1 << 23),
    ("ALTER ROUTINE", 1 << 24),
    ("CREATE USER", 1 << 25),
    ("EVENT", 1 << 26),
    ("TRIGGER", 1 << 27),
    ("CREATE TABLESPACE", 1 << 28),
    ("DELETE HISTORY", 1 << 29),
    ("SET USER", 1 << 30),
    ("FEDERATED ADMIN", 1 << 31),
    ("CONNECTION ADMIN", 1 << 32),
    ("READ_ONLY ADMIN", 1 << 33),
    ("REPLICATION SLAVE ADMIN", 1 << 34),
    ("REPLICATION MASTER ADMIN", 1 << 35),
    ("BINLOG ADMIN", 1 << 36),
    ("BINLOG REPLAY", 1 << 37),
    ("SLAVE MONITOR", 1 << 38),
];

/// Other names MariaDB accepts for a privilege.
const ALIASES: &[(&str, &str)] = &[("REPLICATION CLIENT", "BINLOG MONITOR")];

/// WITH GRANT OPTION, kept beside the privileges (never listed among them).
pub const GRANT_OPTION: u64 = 1 << 10;

const fn bit(name: &str) -> u64 {
    let mut i = 0;
    while i < NAMES.len() {
        if const_eq(NAMES[i].0, name) {
            return NAMES[i].1;
        }
        i += 1;
    }
    panic!("no such privilege")
}

const fn const_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Privs {
    pub const NONE: Privs = Privs(0);
    pub const SELECT: Privs = Privs(bit("SELECT"));
    pub const INSERT: Privs = Privs(bit("INSERT"));
    pub const UPDATE: Privs = Privs(bit("UPDATE"));
    pub const REFERENCES: Privs = Privs(bit("REFERENCES"));
    pub const DELETE: Privs = Privs(bit("DELETE"));
    pub const CREATE: Privs = Privs(bit("CREATE"));
    pub const DROP: Privs = Privs(bit("DROP"));
    pub const RELOAD: Privs = Privs(bit("RELOAD"));
    pub const SHUTDOWN: Privs = Privs(bit("SHUTDOWN"));
    pub const PROCESS: Privs = Privs(bit("PROCESS"));
    pub const INDEX: Privs = Privs(bit("INDEX"));
    pub const ALTER: Privs = Privs(bit("ALTER"));
    pub const LOCK_TABLES: Privs = Privs(bit("LOCK TABLES"));
    pub const CREATE_VIEW: Privs = Privs(bit("CREATE VIEW"));
    pub const SHOW_VIEW: Privs = Privs(bit("SHOW VIEW"));
    pub const FILE: Privs = Privs(bit("FILE"));
    pub const SHOW_DATABASES: Privs = Privs(bit("SHOW DATABASES"));
    pub const SUPER: Privs = Privs(bit("SUPER"));
    pub const BINLOG_ADMIN: Privs = Privs(bit("BINLOG ADMIN"));
    pub const CREATE_USER: Privs = Privs(bit("CREATE USER"));
    pub const CONNECTION_ADMIN: Privs = Privs(bit("CONNECTION ADMIN"));
    pub const READ_ONLY_ADMIN: Privs = Privs(bit("READ_ONLY ADMIN"));
    pub const GRANT: Privs = Privs(GRANT_OPTION);

    /// The privileges a column grant may hold.
    pub const COLUMN: Privs =
        Privs(bit("SELECT") | bit("INSERT") | bit("UPDATE") | bit("REFERENCES"));

    /// `ALL [PRIVILEGES]` at global level: every privilege (not GRANT OPTION).
    pub const ALL_GLOBAL: Privs = Privs({
        let mut all = 0;
        let mut i = 0;
        while i < NAMES.len() {
            all |= NAMES[i].1;
            i += 1;
        }
        all
    });

    /// `ALL [PRIVILEGES]` at database level: the privileges a database grant may hold,
    /// those of a table and the ones that apply to a database's other objects.
    pub const ALL_DATABASE: Privs = Privs(
        Privs::ALL_TABLE.0
            | bit("CREATE TEMPORARY TABLES")
            | bit("LOCK TABLES")
            | bit("EXECUTE")
            | bit("CREATE ROUTINE")
            | bit("ALTER ROUTINE")
            | bit("EVENT"),
    );

    /// `ALL [PRIVILEGES]` at table level.
    pub const ALL_TABLE: Privs = Privs(
        bit("SELECT")
            | bit("INSERT")
            | bit("UPDATE")
            | bit("DELETE")
            | bit("CREATE")
            | bit("DROP")
            | bit("REFERENCES")
            | bit("INDEX")
            | bit("ALTER")
            | bit("CREATE VIEW")
            | bit("SHOW VIEW")
            | bit("TRIGGER")
            | bit("DELETE HISTORY"),
    );

    pub fn contains(self, other: Privs) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn intersects(self, other: Privs) -> bool {
        self.0 & other.0 != 0
    }

    pub fn union(self, other: Privs) -> Privs {
        Privs(self.0 | other.0)
    }

    pub fn without(self, other: Privs) -> Privs {
        Privs(self.0 & !other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The privilege called `name` (upper-case words, one space apart).
    pub fn named(name: &str) -> Option<Privs> {
        let name = ALIASES
            .iter()
            .find(|(alias, _)| *alias == name)
            .map_or(name, |(_, real)| real);
        NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| Privs(*b))
    }

    /// The names of the privileges held, in MariaDB's order (GRANT OPTION left out).
    pub fn names(self) -> Vec<&'static str> {
        NAMES
            .iter()
            .filter(|(_, b)| self.0 & b != 0)
            .map(|(n, _)| *n)
            .collect()
    }

    /// The list SHOW GRANTS prints: ALL PRIVILEGES when every privilege of the level is
    /// held, else the names, else USAGE.
    pub fn grant_text(self, all: Privs) -> String {
        let held = self.without(Privs::GRANT);
        if held.contains(all) {
            "ALL PRIVILEGES".into()
        } else if held.is_empty() {
            "USAGE".into()
        } else {
            held.names().join(", ")
        }
    }
}

/// An account's grants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// ON *.*
    pub global: Privs,
    /// ON `pattern`.* and its privileges, in the order granted.
    pub databases: Vec<(String, Privs)>,
    /// ON `db`.`table` and its privileges, in the order granted.
    pub tables: Vec<(String, String, Privs)>,
    /// Column grants, in the order granted; each table named has an entry in `tables`.
    pub columns: Vec<ColumnGrant>,
}

/// The privileges held on one column (`GRANT SELECT (column) ON db.table`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnGrant {
    pub database: String,
    pub table: String,
    /// As the table spells it.
    pub column: String,
    pub privs: Privs,
}

impl ColumnGrant {
    fn is_on(&self, db: &str, table: &str) -> bool {
        self.database == db && self.table.eq_ignore_ascii_case(table)
    }
}

/// Where a grant applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level<'a> {
    Global,
    Database(&'a str),
    Table(&'a str, &'a str),
}

impl Grants {
    /// These grants and `other`'s together (an account's and its enabled role's).
    pub fn with(&self, other: &Grants) -> Grants {
        let mut all = self.clone();
        all.global = all.global.union(other.global);
        all.databases.extend(other.databases.iter().cloned());
        all.tables.extend(other.tables.iter().cloned());
        all.columns.extend(other.columns.iter().cloned());
        all
    }

    /// The column grants on table `db`.`table`: each column and its privileges.
    pub fn columns_on<'g>(
        &'g self,
        db: &'g str,
        table: &'g str,
    ) -> impl Iterator<Item = (&'g str, Privs)> + 'g {
        self.columns
            .iter()
            .filter(move |c| c.is_on(db, table))
            .map(|c| (c.column.as_str(), c.privs))
    }

    /// The privileges held on column `column` of `db`.`table`: the table's and the
    /// column's own.
    pub fn on_column(&self, db: &str, table: &str, column: &str) -> Privs {
        self.columns_on(db, table)
            .filter(|(c, _)| c.eq_ignore_ascii_case(column))
            .fold(self.on_table(db, table), |acc, (_, p)| acc.union(p))
    }

    /// The kinds of column privilege held on some column of `db`.`table`.
    pub fn column_kinds(&self, db: &str, table: &str) -> Privs {
        self.columns_on(db, table)
            .fold(Privs::NONE, |acc, (_, p)| acc.union(p))
    }

    /// Add the column privileges `columns` (each column as the table spells it) on
    /// `db`.`table`.
    pub fn grant_columns(&mut self, db: &str, table: &str, columns: &[(String, Privs)]) {
        if columns.is_empty() {
            return;
        }
        self.grant(Level::Table(db, table), Privs::NONE);
        for (column, privs) in columns {
            let held = self
                .columns
                .iter_mut()
                .find(|c| c.is_on(db, table) && c.column.eq_ignore_ascii_case(column));
            match held {
                Some(c) => c.privs = c.privs.union(*privs),
                None => self.columns.push(ColumnGrant {
                    database: db.to_string(),
                    table: table.to_string(),
                    column: column.clone(),
                    privs: *privs,
                }),
            }
        }
    }

    /// Take the column privileges `columns` away on `db`.`table`; false when the table
    /// held no grant at all (MariaDB's ER_NONEXISTING_TABLE_GRANT).
    /// A column named that has no column grant is as missing, as in MariaDB; nothing
    /// changes then.
    pub fn revoke_columns(&mut self, db: &str, table: &str, columns: &[(String, Privs)]) -> bool {
        let granted = |name: &str| {
            self.columns_on(db, table)
                .any(|(c, _)| c.eq_ignore_ascii_case(name))
        };
        if !self.has_table_entry(db, table) || !columns.iter().all(|(c, _)| granted(c)) {
            return false;
        }
        for (column, privs) in columns {
            for c in self.columns.iter_mut() {
                if c.is_on(db, table) && c.column.eq_ignore_ascii_case(column) {
                    c.privs = c.privs.without(*privs);
                }
            }
        }
        self.tidy_table(db, table);
        true
    }

    /// Whether the account has an entry for table `db`.`table` (table or column grants).
    pub fn has_table_entry(&self, db: &str, table: &str) -> bool {
        self.tables
            .iter()
            .any(|(d, n, _)| d == db && n.eq_ignore_ascii_case(table))
    }

    /// Drop the column grants of `db`.`table` left empty, then its table entry when it
    /// holds nothing and no column grant is left.
    fn tidy_table(&mut self, db: &str, table: &str) {
        self.columns
            .retain(|c| !(c.is_on(db, table) && c.privs.is_empty()));
        if self.columns.iter().any(|c| c.is_on(db, table)) {
            return;
        }
        self.tables
            .retain(|(d, n, p)| !(d == db && n.eq_ignore_ascii_case(table) && p.is_empty()));
    }

    /// Everything, with GRANT OPTION (the first root account).
    pub fn all() -> Grants {
        Grants {
            global: Privs::ALL_GLOBAL.union(Privs::GRANT),
            ..Grants::default()
        }
    }

    /// Whether every global privilege is held: such an account passes every check.
    pub fn is_all(&self) -> bool {
        self.global.contains(Privs::ALL_GLOBAL)
    }

    /// The privileges held in database `db`.
    pub fn in_database(&self, db: &str) -> Privs {
        self.databases
            .iter()
            .filter(|(pattern, _)| database_matches(pattern, db))
            .fold(self.global, |acc, (_, p)| acc.union(*p))
    }

    /// The privileges held on table `db`.`table`.
    pub fn on_table(&self, db: &str, table: &str) -> Privs {
        self.tables
            .iter()
            .filter(|(d, t, _)| d == db && t.eq_ignore_ascii_case(table))
            .fold(self.in_database(db), |acc, (_, _, p)| acc.union(*p))
    }

    /// Whether a privilege that applies to a database's objects is held in `db`, on the
    /// database or on one of its tables (what USE and SHOW DATABASES ask): a global
    /// PROCESS or RELOAD is not one.
    pub fn any_in_database(&self, db: &str) -> bool {
        self.in_database(db).intersects(Privs::ALL_DATABASE)
            || self
                .tables
                .iter()
                .any(|(d, _, p)| d == db && !p.without(Privs::GRANT).is_empty())
            || self.columns.iter().any(|c| c.database == db)
    }

    /// Whether a table-level privilege is held on table `db`.`table` (SHOW CREATE TABLE).
    pub fn any_on_table(&self, db: &str, table: &str) -> bool {
        self.on_table(db, table).intersects(Privs::ALL_DATABASE)
    }

    /// Whether a privilege is held on table `db`.`table` or on one of its columns (SHOW
    /// COLUMNS, SHOW TABLES, information_schema).
    pub fn any_on_table_or_column(&self, db: &str, table: &str) -> bool {
        self.any_on_table(db, table) || !self.column_kinds(db, table).is_empty()
    }

    /// Add `privs` at `level`.
    pub fn grant(&mut self, level: Level, privs: Privs) {
        match level {
            Level::Global => self.global = self.global.union(privs),
            Level::Database(db) => match self.databases.iter_mut().find(|(p, _)| p == db) {
                Some((_, held)) => *held = held.union(privs),
                None => self.databases.push((db.to_string(), privs)),
            },
            Level::Table(db, t) => match self
                .tables
                .iter_mut()
                .find(|(d, n, _)| d == db && n.eq_ignore_ascii_case(t))
            {
                Some((_, _, held)) => *held = held.union(privs),
                None => self.tables.push((db.to_string(), t.to_string(), privs)),
            },
        }
    }

    /// Take `privs` away at `level`; false when the level held no grant at all (MariaDB's
    /// ER_NONEXISTING_GRANT).
    pub fn revoke(&mut self, level: Level, privs: Privs) -> bool {
        match level {
            Level::Global => {
                self.global = self.global.without(privs);
                true
            }
            Level::Database(db) => {
                let Some(i) = self.databases.iter().position(|(p, _)| p == db) else {
                    return false;
                };
                let left = self.databases[i].1.without(privs);
                if left.is_empty() {
                    self.databases.remove(i);
                } else {
                    self.databases[i].1 = left;
                }
                true
            }
            Level::Table(db, t) => {
                let Some(i) = self
                    .tables
                    .iter()
                    .position(|(d, n, _)| d == db && n.eq_ignore_ascii_case(t))
                else {
                    return false;
                };
                // A table-level REVOKE takes the privilege from every column too.
                self.tables[i].2 = self.tables[i].2.without(privs);
                for c in self.columns.iter_mut().filter(|c| c.is_on(db, t)) {
                    c.privs = c.privs.without(privs);
                }
                self.tidy_table(db, t);
                true
            }
        }
    }
}

/// Does database `db` match the pattern of a database grant (`%`, `_`, `\` escapes)?
/// Database names compare case-sensitively, as on a case-sensitive file system.
pub fn database_matches(pattern: &str, db: &str) -> bool {
    if !pattern.contains(['%', '_']) {
        return pattern == db;
    }
    crate::expr::eval::like_match(
        db.as_bytes(),
        pattern.as_bytes(),
        b'\\',
        myriad_types::Collation::Utf8mb4Bin,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_mariadbs_order() {
        let p = Privs::named("UPDATE")
            .unwrap()
            .union(Privs::named("SELECT").unwrap())
            .union(Privs::named("REPLICATION CLIENT").unwrap());
        assert_eq!(p.names(), vec!["SELECT", "UPDATE", "BINLOG MONITOR"]);
        assert_eq!(
            Privs::ALL_GLOBAL.grant_text(Privs::ALL_GLOBAL),
            "ALL PRIVILEGES"
        );
        assert_eq!(Privs::GRANT.grant_text(Privs::ALL_GLOBAL), "USAGE");
        assert!(!Privs::ALL_GLOBAL.intersects(Privs::GRANT));
        assert!(Privs::ALL_GLOBAL.contains(Privs::ALL_DATABASE));
    }

    #[test]
    fn database_grants_add_to_global_ones() {
        let mut g = Grants::default();
        g.grant(Level::Global, Privs::PROCESS);
        g.grant(Level::Database("app\\_1"), Privs::SELECT);
        g.grant(Level::Database("shop%"), Privs::INSERT);
        g.grant(Level::Table("crm", "Leads"), Privs::UPDATE);
        assert_eq!(g.in_database("app_1"), Privs::PROCESS.union(Privs::SELECT));
        assert_eq!(g.in_database("appx1"), Privs::PROCESS);
        assert!(g.in_database("shop_eu").contains(Privs::INSERT));
        assert!(
            !g.any_in_database("other"),
            "a global PROCESS opens no database"
        );
        assert!(g.on_table("crm", "leads").contains(Privs::UPDATE));
        assert!(!g.on_table("crm", "other").contains(Privs::UPDATE));
        assert!(g.any_in_database("crm"), "a table grant opens its database");
        assert!(g.revoke(Level::Database("app\\_1"), Privs::SELECT));
        assert!(
            !g.revoke(Level::Database("app\\_1"), Privs::SELECT),
            "no grant left there"
        );
        assert!(g.revoke(Level::Table("crm", "LEADS"), Privs::UPDATE));
        assert!(g.tables.is_empty());
        assert_eq!(g.databases.len(), 1);
    }

    #[test]
    fn column_grants_keep_a_table_entry_and_go_with_table_revokes() {
        let mut g = Grants::default();
        let cols = |list: &[(&str, Privs)]| -> Vec<(String, Privs)> {
            list.iter().map(|(c, p)| (c.to_string(), *p)).collect()
        };
        g.grant_columns(
            "app",
            "t",
            &cols(&[
                ("a", Privs::SELECT),
                ("b", Privs::SELECT),
                ("a", Privs::UPDATE),
            ]),
        );
        assert_eq!(g.tables, vec![("app".into(), "t".into(), Privs::NONE)]);
        assert_eq!(
            g.on_column("app", "T", "A"),
            Privs::SELECT.union(Privs::UPDATE)
        );
        assert_eq!(g.on_column("app", "t", "c"), Privs::NONE);
        assert_eq!(
            g.column_kinds("app", "t"),
            Privs::SELECT.union(Privs::UPDATE)
        );
        assert!(
            g.any_in_database("app"),
            "a column grant opens its database"
        );
        assert!(g.any_on_table_or_column("app", "t"));
        assert!(!g.any_on_table("app", "t"), "no table-level privilege");
        assert!(
            !g.revoke_columns("app", "t", &cols(&[("c", Privs::SELECT)])),
            "a column without a grant"
        );
        assert!(g.revoke_columns("app", "t", &cols(&[("b", Privs::SELECT)])));
        assert_eq!(g.columns.len(), 1);
        // A table-level REVOKE takes the privilege from the columns too.
        assert!(g.revoke(Level::Table("app", "t"), Privs::SELECT));
        assert_eq!(g.on_column("app", "t", "a"), Privs::UPDATE);
        assert!(g.revoke(Level::Table("app", "t"), Privs::UPDATE));
        assert!(g.tables.is_empty() && g.columns.is_empty());
        assert!(!g.revoke_columns("app", "t", &cols(&[("a", Privs::SELECT)])));
    }
}
