//! A bank-transfer workload across kill -9 rounds: writers move money between accounts in
//! transactions (locking reads, two updates, a row in a ledger), REPEATABLE READ readers
//! sum the accounts and count the ledger twice per transaction. Every reader finds the
//! total and the same count both times; after each kill -9 and restart, every transfer
//! acknowledged is in the ledger, none whose COMMIT was never sent is, and each account's
//! balance is exactly what the ledger says.

mod common;

use common::{exec_all, first_row, Server};
use mysql_async::prelude::Queryable;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const ACCOUNTS: i64 = 50;
const OPENING: i64 = 1_000;
const WRITERS: i64 = 4;
const READERS: usize = 2;
const ROUNDS: usize = 3;

/// What a writer did: transfers acknowledged, and those whose COMMIT was sent (the
/// acknowledged ones and the one the kill may have cut off).
#[derive(Default)]
struct Sent {
    acknowledged: BTreeSet<i64>,
    commit_sent: BTreeSet<i64>,
}

async fn writer(opts: mysql_async::Opts, id: i64, first: i64, stop: Arc<AtomicBool>) -> Sent {
    let mut sent = Sent::default();
    let Ok(mut conn) = mysql_async::Conn::new(opts).await else {
        return sent;
    };
    let mut n = first;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let tid = id * 1_000_000 + n;
        let from = 1 + (tid * 7) % ACCOUNTS;
        let to = 1 + (tid * 13 + 5) % ACCOUNTS;
        if from == to {
            continue;
        }
        let amount = 1 + tid % 9;
        let steps = [
            "BEGIN".to_string(),
            format!("SELECT balance FROM bank.accounts WHERE id IN ({from}, {to}) FOR UPDATE"),
            format!("UPDATE bank.accounts SET balance = balance - {amount} WHERE id = {from}"),
            format!("UPDATE bank.accounts SET balance = balance + {amount} WHERE id = {to}"),
            format!("INSERT INTO bank.ledger VALUES ({tid}, {from}, {to}, {amount})"),
        ];
        let mut failed = false;
        for sql in steps {
            if conn.query_drop(sql).await.is_err() {
                failed = true;
                break;
            }
        }
        if failed {
            // The server went away (the kill), or a lock wait or deadlock ended the
            // statement: the transaction is not committed.
            if conn.query_drop("ROLLBACK").await.is_err() {
                return sent;
            }
            continue;
        }
        sent.commit_sent.insert(tid);
        match conn.query_drop("COMMIT").await {
            Ok(()) => {
                sent.acknowledged.insert(tid);
            }
            Err(_) => return sent,
        }
    }
    sent
}

/// REPEATABLE READ transactions reading the total and the ledger twice: how many ran.
async fn reader(opts: mysql_async::Opts, stop: Arc<AtomicBool>) -> usize {
    let Ok(mut conn) = mysql_async::Conn::new(opts).await else {
        return 0;
    };
    let mut checked = 0;
    while !stop.load(Ordering::Relaxed) {
        let read = async {
            conn.query_drop("BEGIN").await?;
            let total: Option<i64> = conn
                .query_first("SELECT CAST(SUM(balance) AS SIGNED) FROM bank.accounts")
                .await?;
            let count: Option<i64> = conn.query_first("SELECT COUNT(*) FROM bank.ledger").await?;
            let one: Option<i64> = conn
                .query_first("SELECT balance FROM bank.accounts WHERE id = 1")
                .await?;
            tokio::time::sleep(Duration::from_millis(5)).await;
            let again: Option<i64> = conn
                .query_first("SELECT CAST(SUM(balance) AS SIGNED) FROM bank.accounts")
                .await?;
            let count_again: Option<i64> =
                conn.query_first("SELECT COUNT(*) FROM bank.ledger").await?;
            let one_again: Option<i64> = conn
                .query_first("SELECT balance FROM bank.accounts WHERE id = 1")
                .await?;
            conn.query_drop("COMMIT").await?;
            Ok::<_, mysql_async::Error>((total, again, count, count_again, one, one_again))
        };
        let Ok((total, again, count, count_again, one, one_again)) = read.await else {
            return checked; // the kill
        };
        assert_eq!(total, Some(ACCOUNTS * OPENING), "a reader's total");
        assert_eq!(again, total, "the total read again in one transaction");
        assert_eq!(
            count_again, count,
            "the ledger counted again in one transaction"
        );
        assert_eq!(one_again, one, "a balance read again in one transaction");
        checked += 1;
    }
    checked
}

/// After a restart: the ledger holds every acknowledged transfer and nothing whose COMMIT
/// was never sent, and the balances are the ledger's sums.
async fn check_recovered(server: &Server, acknowledged: &BTreeSet<i64>, sent: &BTreeSet<i64>) {
    let mut conn = server.connect_root().await;
    let ledger: Vec<(i64, i64, i64, i64)> = conn
        .query("SELECT tid, src, dst, amount FROM bank.ledger")
        .await
        .expect("ledger");
    let present: BTreeSet<i64> = ledger.iter().map(|r| r.0).collect();
    let lost: Vec<_> = acknowledged.difference(&present).collect();
    assert!(lost.is_empty(), "acknowledged transfers lost: {lost:?}");
    let unsent: Vec<_> = present.difference(sent).collect();
    assert!(
        unsent.is_empty(),
        "transfers never committed are present: {unsent:?}"
    );
    let mut expected: BTreeMap<i64, i64> = (1..=ACCOUNTS).map(|a| (a, OPENING)).collect();
    for (_, from, to, amount) in &ledger {
        *expected.get_mut(from).unwrap() -= amount;
        *expected.get_mut(to).unwrap() += amount;
    }
    let balances: BTreeMap<i64, i64> = conn
        .query::<(i64, i64), _>("SELECT id, balance FROM bank.accounts")
        .await
        .expect("balances")
        .into_iter()
        .collect();
    assert_eq!(balances, expected, "balances against the ledger");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn transfers_keep_the_total_for_readers_and_across_kill_9() {
    let mut server = Server::start(&[]);
    let mut conn = server.connect_root().await;
    let values: Vec<String> = (1..=ACCOUNTS)
        .map(|a| format!("({a}, {OPENING})"))
        .collect();
    exec_all(
        &mut conn,
        &[
            "CREATE DATABASE bank",
            "CREATE TABLE bank.accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL)",
            "CREATE TABLE bank.ledger (tid BIGINT PRIMARY KEY, src INT, dst INT, amount INT)",
            &format!("INSERT INTO bank.accounts VALUES {}", values.join(",")),
        ],
    )
    .await;
    drop(conn);
    let (mut acknowledged, mut sent) = (BTreeSet::new(), BTreeSet::new());
    for round in 0..ROUNDS {
        let stop = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let first = round as i64 * 100_000;
                tokio::spawn(writer(server.root_opts(), w, first, Arc::clone(&stop)))
            })
            .collect();
        let readers: Vec<_> = (0..READERS)
            .map(|_| tokio::spawn(reader(server.root_opts(), Arc::clone(&stop))))
            .collect();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let dir = server.into_dir(); // kill -9 under load
        stop.store(true, Ordering::Relaxed);
        let mut round_acknowledged = 0;
        for w in writers {
            let done = w.await.expect("writer");
            round_acknowledged += done.acknowledged.len();
            acknowledged.extend(done.acknowledged);
            sent.extend(done.commit_sent);
        }
        let mut checked = 0;
        for r in readers {
            checked += r.await.expect("reader");
        }
        eprintln!("round {round}: {round_acknowledged} transfers acknowledged, {checked} reader transactions");
        assert!(
            round_acknowledged > 0,
            "round {round}: no transfer acknowledged"
        );
        assert!(checked > 0, "round {round}: no reader transaction finished");
        server = Server::start_in(dir, &[]);
        check_recovered(&server, &acknowledged, &sent).await;
    }
    let mut conn = server.connect_root().await;
    let total: i64 = first_row(
        &mut conn,
        "SELECT CAST(SUM(balance) AS SIGNED) FROM bank.accounts",
    )
    .await;
    assert_eq!(total, ACCOUNTS * OPENING);
}
