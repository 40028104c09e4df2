//! A grammar fuzzer for the SQL entry point: statements built from random expressions,
//! wrapped level after level in every construct that nests (operators on either side,
//! parentheses, calls, unary operators, CASE, IN lists, BETWEEN, subqueries), up to thousands
//! of levels and long chains. Each statement must come back as a result or an error on its
//! own session, which then still answers: never a panic, a stack overflow or an abort (an
//! abort ends this test process, which fails the test). Cases are bounded, so the run is.

mod common;

use proptest::prelude::*;

/// One leaf operand: literals of each kind, a column of `t`, NULL.
fn leaf(pick: u8) -> &'static str {
    const LEAVES: &[&str] = &[
        "1",
        "0",
        "-7",
        "2.5",
        "1e3",
        "'x'",
        "'12'",
        "NULL",
        "a",
        "b",
        "t.a",
        "TRUE",
        "18446744073709551615",
        "x'41'",
    ];
    LEAVES[pick as usize % LEAVES.len()]
}

/// Wrap `inner` in one more level of the construct `kind` picks.
fn wrap(inner: String, kind: u8, pick: u8) -> String {
    const BINARY: &[&str] = &[
        "+", "-", "*", "/", "DIV", "%", "=", "<>", "<", ">=", "<=>", "AND", "OR", "XOR", "&", "|",
        "^", "<<", "LIKE",
    ];
    const CALLS: &[&str] = &[
        "abs",
        "concat('a', ",
        "coalesce(NULL, ",
        "ifnull(",
        "upper",
        "length",
        "hex",
        "greatest(1, ",
        "round(",
        "-",
    ];
    let op = BINARY[pick as usize % BINARY.len()];
    let other = leaf(pick);
    match kind % 12 {
        0 | 1 => format!("{inner} {op} {other}"),
        2 => format!("{other} {op} {inner}"),
        3 => format!("({inner})"),
        4 => {
            let call = CALLS[pick as usize % CALLS.len()];
            match call {
                "-" => format!("-{inner}"),
                c if c.ends_with(' ') => format!("{c}{inner})"),
                "ifnull(" | "round(" => format!("{call}{inner}, 1)"),
                c => format!("{c}({inner})"),
            }
        }
        5 => format!("NOT {inner}"),
        6 => format!(
            "CASE WHEN {inner} THEN {other} ELSE {inner_short} END",
            inner_short = other
        ),
        7 => format!("{inner} IN (1, 2, {other})"),
        8 => format!("{inner} BETWEEN 0 AND {other}"),
        9 => format!("(SELECT {inner})"),
        10 => format!("{inner} IS NULL"),
        _ => format!("~{inner}"),
    }
}

fn build(steps: &[(u8, u8)], chain: usize, chain_op: u8) -> String {
    let mut expr = leaf(steps.first().map_or(0, |s| s.1)).to_string();
    for &(kind, pick) in steps {
        expr = wrap(expr, kind, pick);
    }
    // A long flat chain, as generators and ORMs write them.
    for i in 0..chain {
        let suffix = wrap(String::new(), 0, chain_op.wrapping_add((i % 3) as u8));
        expr.push_str(&suffix);
    }
    expr
}

fn statements(expr: &str) -> [String; 4] {
    [
        format!("SELECT {expr}"),
        format!("SELECT a FROM t WHERE {expr}"),
        format!("SELECT count(*), sum(a) FROM t GROUP BY b HAVING {expr}"),
        format!("UPDATE t SET b = 'y' WHERE a = 99 AND ({expr})"),
    ]
}

/// One engine for every case (opening one per case would dominate the run).
static ENGINE: std::sync::OnceLock<common::TestEngine> = std::sync::OnceLock::new();

fn fresh_engine() -> common::TestEngine {
    let t = common::engine();
    let mut s = common::session(&t.engine);
    common::exec_ok(&mut s, "CREATE DATABASE f");
    common::exec_ok(&mut s, "USE f");
    common::exec_ok(&mut s, "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(20))");
    common::exec_ok(
        &mut s,
        "INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, '12')",
    );
    t
}

fn check(steps: Vec<(u8, u8)>, chain: usize, chain_op: u8) {
    let expr = build(&steps, chain, chain_op);
    std::thread::Builder::new()
        .stack_size(myriad_sql::depth::THREAD_STACK_BYTES)
        .spawn(move || {
            let mut s = common::session(&ENGINE.get_or_init(fresh_engine).engine);
            common::exec_ok(&mut s, "USE f");
            for sql in statements(&expr) {
                // A result or an error: both are answers. What must not happen is a panic
                // or an abort, and the session must go on answering.
                let _ = s.execute(&sql, false);
                assert_eq!(common::scalar(&mut s, "SELECT count(*) FROM t"), "3");
            }
        })
        .expect("a statement thread")
        .join()
        .expect("the statements were answered without a panic");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Mixed nesting, a few levels to a few hundred.
    #[test]
    fn nested_expressions_are_answered(steps in prop::collection::vec((any::<u8>(), any::<u8>()), 0..400)) {
        check(steps, 0, 0);
    }

    /// Long chains of operators under a little nesting: thousands of terms, past the bound.
    #[test]
    fn long_chains_are_answered(
        steps in prop::collection::vec((any::<u8>(), any::<u8>()), 0..8),
        chain in 0usize..6000,
        op in any::<u8>(),
    ) {
        check(steps, chain, op);
    }
}
