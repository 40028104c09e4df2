//! The statements sysbench's oltp_*.lua scripts send, in the way they send them (schema,
//! bulk insert, CREATE INDEX, prepared point and range selects, updates, deletes,
//! re-inserts), checked against a simple model of the table.

mod common;
use common::*;
use myriad_sql::{QueryResult, Value};

const ROWS: u64 = 300;

fn c_of(id: u64) -> String {
    format!("{id:011}-c-{}", id * 7 % 13)
}

#[test]
fn oltp_statements_agree_with_a_model() {
    let t = engine();
    let mut s = session(&t.engine);
    exec_ok(&mut s, "CREATE DATABASE sbtest");
    s.use_database("sbtest").unwrap();
    exec_ok(
        &mut s,
        "CREATE TABLE sbtest1(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  \
         c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */",
    );
    let values: Vec<String> = (1..=ROWS)
        .map(|id| format!("({}, '{}', 'pad-{id}')", id % 50, c_of(id)))
        .collect();
    exec_ok(
        &mut s,
        &format!("INSERT INTO sbtest1(k, c, pad) VALUES {}", values.join(",")),
    );
    exec_ok(&mut s, "CREATE INDEX k_1 ON sbtest1(k)");
    assert_eq!(error_code(&mut s, "CREATE INDEX k_1 ON sbtest1(k)"), 1061);
    let mut model: Vec<(u64, i64, String)> = (1..=ROWS)
        .map(|id| (id, (id % 50) as i64, c_of(id)))
        .collect();

    let point = s.prepare("SELECT c FROM sbtest1 WHERE id=?").unwrap();
    // COM_STMT_PREPARE describes the result columns (libmariadb sizes its buffers from them).
    assert_eq!(point.columns.len(), 1);
    assert_eq!(point.columns[0].name, "c");
    assert_eq!(point.columns[0].column_type, myriad_sql::ColumnType::String);
    let range = s
        .prepare("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?")
        .unwrap();
    let sum = s
        .prepare("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?")
        .unwrap();
    let ordered = s
        .prepare("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c")
        .unwrap();
    let distinct = s
        .prepare("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c")
        .unwrap();
    let update_k = s.prepare("UPDATE sbtest1 SET k=k+1 WHERE id=?").unwrap();
    let update_c = s.prepare("UPDATE sbtest1 SET c=? WHERE id=?").unwrap();
    let delete = s.prepare("DELETE FROM sbtest1 WHERE id=?").unwrap();
    let insert = s
        .prepare("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)")
        .unwrap();
    let points = s
        .prepare("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (?, ?, ?)")
        .unwrap();

    let run = |s: &mut myriad_sql::Session, id: u32, params: &[Value]| -> Vec<Vec<Value>> {
        match s.execute_prepared(id, params).unwrap() {
            QueryResult::Rows { rows, .. } => rows.to_vec(),
            QueryResult::Ok { .. } => Vec::new(),
        }
    };
    let text = |v: &Value| common::text(v).unwrap_or_default();
    let mut seed = 12345u64;
    let mut next = |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound + 1
    };
    for round in 0..200 {
        exec_ok(&mut s, "BEGIN");
        let id = next(ROWS);
        let got = run(&mut s, point.statement_id, &[Value::Int(id as i64)]);
        let want: Vec<String> = model
            .iter()
            .filter(|r| r.0 == id)
            .map(|r| r.2.clone())
            .collect();
        assert_eq!(
            got.iter().map(|r| text(&r[0])).collect::<Vec<_>>(),
            want,
            "point select {id}"
        );

        let lo = next(ROWS);
        let hi = lo + 9;
        let in_range: Vec<&(u64, i64, String)> =
            model.iter().filter(|r| r.0 >= lo && r.0 <= hi).collect();
        let got = run(
            &mut s,
            range.statement_id,
            &[Value::Int(lo as i64), Value::Int(hi as i64)],
        );
        assert_eq!(got.len(), in_range.len(), "range {lo}..{hi}");
        let got = run(
            &mut s,
            sum.statement_id,
            &[Value::Int(lo as i64), Value::Int(hi as i64)],
        );
        let want_sum: i64 = in_range.iter().map(|r| r.1).sum();
        let got_sum = if in_range.is_empty() {
            "NULL".to_string()
        } else {
            text(&got[0][0])
        };
        assert_eq!(
            got_sum,
            if in_range.is_empty() {
                "NULL".to_string()
            } else {
                want_sum.to_string()
            }
        );
        let mut want_c: Vec<String> = in_range.iter().map(|r| r.2.clone()).collect();
        want_c.sort();
        let got = run(
            &mut s,
            ordered.statement_id,
            &[Value::Int(lo as i64), Value::Int(hi as i64)],
        );
        assert_eq!(got.iter().map(|r| text(&r[0])).collect::<Vec<_>>(), want_c);
        want_c.dedup();
        let got = run(
            &mut s,
            distinct.statement_id,
            &[Value::Int(lo as i64), Value::Int(hi as i64)],
        );
        assert_eq!(got.iter().map(|r| text(&r[0])).collect::<Vec<_>>(), want_c);

        let ks = [next(50) as i64, next(50) as i64, next(50) as i64];
        let got = run(&mut s, points.statement_id, &ks.map(Value::Int));
        assert_eq!(
            got.len(),
            model.iter().filter(|r| ks.contains(&r.1)).count(),
            "k IN {ks:?}"
        );

        let id = next(ROWS);
        run(&mut s, update_k.statement_id, &[Value::Int(id as i64)]);
        if let Some(r) = model.iter_mut().find(|r| r.0 == id) {
            r.1 += 1;
        }
        let id = next(ROWS);
        let c = format!("round-{round}");
        run(
            &mut s,
            update_c.statement_id,
            &[Value::Bytes(c.clone().into_bytes()), Value::Int(id as i64)],
        );
        if let Some(r) = model.iter_mut().find(|r| r.0 == id) {
            r.2 = c;
        }
        let id = next(ROWS);
        run(&mut s, delete.statement_id, &[Value::Int(id as i64)]);
        model.retain(|r| r.0 != id);
        let c = c_of(id);
        run(
            &mut s,
            insert.statement_id,
            &[
                Value::Int(id as i64),
                Value::Int(7),
                Value::Bytes(c.clone().into_bytes()),
                Value::Bytes(b"p".to_vec()),
            ],
        );
        model.push((id, 7, c));
        exec_ok(&mut s, "COMMIT");
    }
    assert_eq!(
        scalar(&mut s, "SELECT COUNT(*) FROM sbtest1"),
        model.len().to_string()
    );
    // The prepared plan follows DDL: dropping the index recompiles it.
    exec_ok(&mut s, "DROP INDEX k_1 ON sbtest1");
    let got = run(
        &mut s,
        points.statement_id,
        &[Value::Int(7), Value::Int(8), Value::Int(9)],
    );
    assert_eq!(
        got.len(),
        model.iter().filter(|r| [7, 8, 9].contains(&r.1)).count()
    );
    exec_ok(&mut s, "DROP TABLE IF EXISTS sbtest1");
}
