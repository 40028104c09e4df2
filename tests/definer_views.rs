//! SQL SECURITY DEFINER and INVOKER views on myriad and on MariaDB 10.11 in the same test,
//! through the real `mariadb` client: a DEFINER view's tables are read with its definer's
//! privileges, an INVOKER view's with the reader's; naming another account as DEFINER
//! needs SUPER or SET USER; a definer that does not exist gets MariaDB's note and errors.
//! Every step's output must be the same on both servers.

mod common;

use common::mariadb::assert_steps_as_in_mariadb;

/// The steps: (as whom, statements). `root` runs as root; the others log in with `pw`.
const STEPS: &[(&str, &str)] = &[
    (
        "root",
        "CREATE DATABASE vd; CREATE TABLE vd.t (a INT, b INT); INSERT INTO vd.t VALUES (1, 2); \
         CREATE USER vu IDENTIFIED BY 'pw'; CREATE USER vo IDENTIFIED BY 'pw'; \
         CREATE USER vs IDENTIFIED BY 'pw'; GRANT SELECT ON vd.t TO vo; \
         GRANT SUPER ON *.* TO vs; GRANT CREATE VIEW, SELECT ON vd.* TO vs",
    ),
    (
        "root",
        "CREATE DEFINER = vo@'%' VIEW vd.v_definer AS SELECT a FROM vd.t; \
         CREATE DEFINER = vo@'%' SQL SECURITY INVOKER VIEW vd.v_invoker AS SELECT a FROM vd.t; \
         CREATE DEFINER = vu@'%' VIEW vd.v_powerless AS SELECT a FROM vd.t; \
         CREATE DEFINER = vo@'%' VIEW vd.v_nested AS SELECT a FROM vd.v_invoker",
    ),
    (
        "root",
        "CREATE DEFINER = ghost@'%' VIEW vd.v_ghost AS SELECT a FROM vd.t; SHOW WARNINGS",
    ),
    (
        "root",
        "GRANT SELECT ON vd.v_definer TO vu; GRANT SELECT ON vd.v_invoker TO vu; \
         GRANT SELECT ON vd.v_powerless TO vu; GRANT SELECT ON vd.v_nested TO vu; \
         GRANT SELECT ON vd.v_ghost TO vu; GRANT CREATE VIEW ON vd.* TO vu",
    ),
    ("vu", "SELECT * FROM vd.v_definer"),
    ("vu", "SELECT * FROM vd.v_invoker"),
    ("vu", "SELECT * FROM vd.v_powerless"),
    ("vu", "SELECT * FROM vd.v_nested"),
    ("vu", "SELECT * FROM vd.v_ghost"),
    ("vs", "SELECT * FROM vd.v_ghost"),
    ("vu", "SELECT * FROM vd.t"),
    (
        "vu",
        "SELECT a FROM vd.v_definer WHERE a IN (SELECT a FROM vd.v_definer)",
    ),
    ("vu", "SELECT (SELECT COUNT(*) FROM vd.v_definer)"),
    ("vu", "SELECT * FROM vd.v_definer JOIN vd.v_invoker"),
    ("vu", "SELECT * FROM vd.v_definer JOIN vd.t"),
    // Naming another account as the definer needs SUPER or SET USER.
    (
        "vu",
        "CREATE DEFINER = vo@'%' VIEW vd.v_stolen AS SELECT 1 AS x",
    ),
    (
        "vu",
        "CREATE DEFINER = vu@'%' VIEW vd.v_own AS SELECT 1 AS x",
    ),
    (
        "vu",
        "CREATE DEFINER = CURRENT_USER VIEW vd.v_own2 AS SELECT 1 AS x",
    ),
    (
        "vs",
        "CREATE DEFINER = vo@'%' VIEW vd.v_granted AS SELECT a FROM vd.t",
    ),
    ("root", "GRANT SELECT ON vd.v_granted TO vu"),
    ("vu", "SELECT * FROM vd.v_granted"),
    ("root", "REVOKE SELECT ON vd.t FROM vo"),
    ("vu", "SELECT * FROM vd.v_definer"),
    ("root", "DROP USER vo"),
    ("vu", "SELECT * FROM vd.v_definer"),
    ("vs", "SELECT * FROM vd.v_definer"),
];

#[test]
fn definer_views_read_with_their_definers_privileges_as_in_mariadb() {
    assert_steps_as_in_mariadb(
        STEPS,
        &[
            "vu: SELECT * FROM vd.v_definer\n  -> 1",
            "vu: SELECT * FROM vd.v_invoker\n  -> ERROR 1356",
            "vu: CREATE DEFINER = vo@'%' VIEW vd.v_stolen AS SELECT 1 AS x\n  -> ERROR 1227",
        ],
    );
}
