//! Bounded recursion: a client controls how deep a statement nests (`1+1+...+1`, an ORM's
//! `id=0 OR id=1 OR ...`, `f(f(f(...)))`), and every stage that walks a statement recurses
//! over it. A recursion the thread's stack cannot hold aborts the whole process, so depth is
//! bounded twice, and a statement past either bound fails with error 1436
//! (ER_STACK_OVERRUN_NEED_MORE) on its own connection:
//!
//! 1. **Before parsing** ([`check_tokens`]): sqlparser bounds its own recursive descent (50
//!    levels), but it builds a chain of left-associative operators in a loop, so
//!    `1+1+...+1` with a million terms parses into a tree a million levels deep, and even
//!    dropping that tree recurses once per level. A statement with more tokens than
//!    [`MAX_EXPRESSION_DEPTH`] has its operator tokens counted along every path of
//!    parentheses (a comma starts a new expression); over the bound, it is refused before a
//!    tree exists. Statements with fewer tokens cannot nest deeper than they are long, so
//!    the common case costs one length comparison.
//! 2. **While recursing** ([`check_stack`]): expression compilation and evaluation check
//!    the stack they have left at every level and refuse to go on with less than
//!    [`STACK_RED_ZONE_BYTES`]. Threads that run statements are started with
//!    [`THREAD_STACK_BYTES`], sized so that a tree at the first bound still evaluates.

use crate::error::{SqlError, ER_STACK_OVERRUN_NEED_MORE};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The deepest expression a statement may hold, counted in operators along one path of
/// parentheses. It admits OR chains of a couple of thousand terms (about 2,000 `=` and
/// 2,000 `OR` tokens), far more than hand-written SQL nests; MariaDB's own parser stops
/// well before ten thousand levels.
pub const MAX_EXPRESSION_DEPTH: usize = 4_096;

/// How deep sqlparser's recursive descent may go (parentheses, function calls, subqueries,
/// unary operators each take a level). sqlparser's own default is 50; MariaDB's parser
/// accepts far deeper nesting. A level costs sqlparser a few kilobytes of stack, so 256
/// levels stay well inside [`THREAD_STACK_BYTES`].
pub const PARSER_RECURSION_LIMIT: usize = 256;

/// The error for sqlparser's refusal to nest deeper than [`PARSER_RECURSION_LIMIT`], or
/// None for its other (syntax) errors.
pub fn parser_error(e: &sqlparser::parser::ParserError) -> Option<SqlError> {
    matches!(e, sqlparser::parser::ParserError::RecursionLimitExceeded).then(|| {
        SqlError::new(
            ER_STACK_OVERRUN_NEED_MORE,
            format!(
                "Thread stack overrun: the statement nests parentheses, function calls or \
                 subqueries more than {PARSER_RECURSION_LIMIT} levels deep"
            ),
        )
    })
}

/// The stack a thread that runs statements is given. Compiling and evaluating one level of
/// expression takes up to about a kilobyte of stack in an optimised build, and a few in a
/// debug build; 16 MiB holds [`MAX_EXPRESSION_DEPTH`] levels with room to spare. Only the
/// pages a statement touches are ever backed by memory.
pub const THREAD_STACK_BYTES: usize = 16 << 20;

/// The stack kept free below the deepest recursion: what one evaluation step that does not
/// recurse (a function call into formatting, decimal arithmetic, a collation) may use.
pub const STACK_RED_ZONE_BYTES: usize = 256 << 10;

/// Refuse to recurse further when less than [`STACK_RED_ZONE_BYTES`] of the current
/// thread's stack is left. A thread whose stack bounds are unknown is not checked.
#[inline]
pub fn check_stack() -> Result<(), SqlError> {
    match stacker::remaining_stack() {
        Some(left) if left < STACK_RED_ZONE_BYTES => Err(stack_overrun(left)),
        _ => Ok(()),
    }
}

fn stack_overrun(left_bytes: usize) -> SqlError {
    SqlError::new(
        ER_STACK_OVERRUN_NEED_MORE,
        format!(
            "Thread stack overrun: {left_bytes} bytes left of the thread's stack, and \
             {STACK_RED_ZONE_BYTES} bytes needed. The statement nests too deeply; write long \
             OR chains as IN lists, or split the expression"
        ),
    )
}

fn too_deep(depth: usize) -> SqlError {
    SqlError::new(
        ER_STACK_OVERRUN_NEED_MORE,
        format!(
            "Thread stack overrun: the statement nests {depth} operators deep, more than the \
             {MAX_EXPRESSION_DEPTH} this server evaluates. Write long OR chains as IN lists, \
             or split the expression"
        ),
    )
}

/// Refuse a statement whose tokens could build an expression deeper than
/// [`MAX_EXPRESSION_DEPTH`] (see the module documentation).
pub fn check_tokens(tokens: &[TokenWithSpan]) -> Result<(), SqlError> {
    if tokens.len() <= MAX_EXPRESSION_DEPTH {
        return Ok(());
    }
    match depth_bound(tokens) {
        depth if depth > MAX_EXPRESSION_DEPTH => Err(too_deep(depth)),
        _ => Ok(()),
    }
}

/// One open parenthesis: the operators of the current comma-separated expression, the
/// deepest group closed inside it, and the deepest expression finished at this level.
#[derive(Default, Clone, Copy)]
struct Level {
    operators: usize,
    deepest_group: usize,
    deepest: usize,
}

impl Level {
    fn finished(&self) -> usize {
        self.deepest.max(self.operators + self.deepest_group)
    }
}

/// An upper bound on the depth of the expression trees a parser builds from `tokens`:
/// each parser loop that deepens a tree consumes an operator, and a parenthesised group
/// hangs one level below the expression around it.
fn depth_bound(tokens: &[TokenWithSpan]) -> usize {
    let mut stack = vec![Level::default()];
    for t in tokens {
        match &t.token {
            Token::LParen | Token::LBracket => stack.push(Level::default()),
            Token::RParen | Token::RBracket if stack.len() > 1 => {
                let group = stack.pop().map_or(0, |l| l.finished()) + 1;
                let top = stack
                    .last_mut()
                    .expect("the outermost level is never popped");
                top.deepest_group = top.deepest_group.max(group);
            }
            Token::Comma => {
                let top = stack
                    .last_mut()
                    .expect("the outermost level is never popped");
                top.deepest = top.finished();
                top.operators = 0;
                top.deepest_group = 0;
            }
            token if is_operator(token) => {
                stack
                    .last_mut()
                    .expect("the outermost level is never popped")
                    .operators += 1;
            }
            _ => {}
        }
    }
    // A group left open still hangs below the expression around it (the parser builds it
    // before it finds the parenthesis missing).
    while stack.len() > 1 {
        let group = stack.pop().map_or(0, |l| l.finished()) + 1;
        let top = stack
            .last_mut()
            .expect("the outermost level is never popped");
        top.deepest_group = top.deepest_group.max(group);
    }
    stack[0].finished()
}

/// Tokens that may start one more iteration of a parser's operator loop: symbols, and the
/// words MySQL uses as operators. Counting a few more than the parser uses only lowers the
/// bound's precision, never its safety.
fn is_operator(token: &Token) -> bool {
    match token {
        Token::Word(w) if w.quote_style.is_none() => [
            "AND", "OR", "XOR", "NOT", "IS", "LIKE", "ILIKE", "RLIKE", "REGEXP", "BETWEEN", "IN",
            "DIV", "MOD", "COLLATE", "SOUNDS", "ESCAPE", "MEMBER", "INTERVAL", "BINARY", "CASE",
            "WHEN", "THEN", "ELSE",
        ]
        .iter()
        .any(|k| w.value.eq_ignore_ascii_case(k)),
        Token::Word(_)
        | Token::Number(..)
        | Token::SingleQuotedString(_)
        | Token::DoubleQuotedString(_)
        | Token::NationalStringLiteral(_)
        | Token::HexStringLiteral(_)
        | Token::Placeholder(_)
        | Token::Period
        | Token::Whitespace(_)
        | Token::SemiColon
        | Token::EOF => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::dialect::MyriadDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn bound(sql: &str) -> usize {
        let tokens = Tokenizer::new(&MyriadDialect::default(), sql)
            .tokenize_with_location()
            .unwrap()
            .into_iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect::<Vec<_>>();
        depth_bound(&tokens)
    }

    #[test]
    fn chains_count_their_operators() {
        assert_eq!(bound("SELECT 1"), 0);
        assert_eq!(bound("SELECT 1+1+1"), 2);
        assert_eq!(bound("SELECT a FROM t WHERE id=0 OR id=1 OR id=2"), 5);
    }

    #[test]
    fn commas_start_new_expressions_and_groups_nest() {
        assert_eq!(bound("SELECT 1+1, 2+2+2"), 2);
        assert_eq!(bound("INSERT INTO t VALUES (1+1, 2), (3, 4)"), 2);
        assert_eq!(bound("SELECT ((1+1)+1)+1"), 5);
        assert_eq!(bound("SELECT f(1+1+1)"), 3);
        assert_eq!(bound("SELECT (((1)))"), 3);
    }

    #[test]
    fn long_lists_pass_and_long_chains_are_refused() {
        let list = (0..10_000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",");
        assert!(bound(&format!("SELECT 1 IN ({list})")) <= 3);
        let chain = vec!["1"; MAX_EXPRESSION_DEPTH + 2].join("+");
        assert!(bound(&format!("SELECT {chain}")) > MAX_EXPRESSION_DEPTH);
    }

    #[test]
    fn unbalanced_parentheses_do_not_panic() {
        assert!(bound("SELECT 1))) + 1") >= 1);
        assert!(bound("SELECT ((((1+1") >= 5);
    }
}
