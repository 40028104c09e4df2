//! The SQL dialect handed to sqlparser: MySQL's, with MySQL's precedence for `XOR` and for
//! the `BINARY` operator.
//!
//! sqlparser 0.63 gives `XOR` the precedence of the bitwise `^`, so `a > 1 XOR b > 2` parsed
//! as `a > (1 XOR b) > 2`. MySQL ranks XOR between AND and OR. It also reads `BINARY x`
//! as a cast of the whole expression after it, so `BINARY 'a' = 'A'` was
//! `BINARY ('a' = 'A')`, true; MySQL casts the operand alone, above every binary operator.
//! Two forms sqlparser does not know are read here: `x SOUNDS LIKE y`, which is
//! `SOUNDEX(x) = SOUNDEX(y)` (as MariaDB builds it), and `TRIM(LEADING FROM x)` (and
//! TRAILING, BOTH) with no remove-string; sqlparser's own TRIM also took `TRIM(LEADING x)`,
//! which MariaDB refuses; and `CHAR(n, ... USING charset)`, whose charset is kept as the
//! call's parameter list (a ClickHouse form MySQL's syntax never produces); and
//! `@name := expr` as an operand (sqlparser ranks `:=` with `=`). This wrapper behaves as [`MySqlDialect`] in every other respect:
//! it reports MySqlDialect's type id (so the parser's MySQL-specific paths apply) and
//! forwards every method MySqlDialect overrides.

use sqlparser::ast::{
    BinaryOperator, CastKind, DataType, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArgumentList, FunctionArguments, Ident, ObjectName, Statement,
};
use sqlparser::dialect::{Dialect, MySqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;
use std::any::TypeId;

#[derive(Debug, Default)]
pub struct MyriadDialect {
    mysql: MySqlDialect,
}

/// Between AND (10) and OR (5) in sqlparser's scale.
const XOR_PRECEDENCE: u8 = 7;

/// `BINARY x`'s operand: above `*` and `/` (40) in sqlparser's scale, below `.` (100).
const BINARY_OPERAND_PRECEDENCE: u8 = 45;

impl Dialect for MyriadDialect {
    fn dialect(&self) -> TypeId {
        TypeId::of::<MySqlDialect>()
    }
    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        match &parser.peek_token_ref().token {
            Token::Word(w) if w.keyword == Keyword::XOR => Some(Ok(XOR_PRECEDENCE)),
            _ if sounds_like_next(parser) => Some(Ok(self.prec_value(Precedence::Like))),
            _ => None,
        }
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        self.mysql.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.mysql.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.mysql.is_delimited_identifier_start(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.mysql.identifier_quote_style(identifier)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        self.mysql.supports_string_literal_backslash_escape()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        self.mysql.supports_string_literal_concatenation()
    }
    fn ignores_wildcard_escapes(&self) -> bool {
        self.mysql.ignores_wildcard_escapes()
    }
    fn supports_numeric_prefix(&self) -> bool {
        self.mysql.supports_numeric_prefix()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        self.mysql.supports_bitwise_shift_operators()
    }
    /// Executable comments that apply were made code before tokenizing
    /// ([`crate::parser::versioned`]); the rest are comments.
    fn supports_multiline_comment_hints(&self) -> bool {
        false
    }
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if sounds_like_next(parser) {
            parser.next_token();
            parser.next_token();
            let right = parser.parse_subexpr(self.prec_value(Precedence::Like));
            return Some(right.map(|right| Expr::BinaryOp {
                left: Box::new(soundex(expr.clone())),
                op: BinaryOperator::Eq,
                right: Box::new(soundex(right)),
            }));
        }
        self.mysql.parse_infix(parser, expr, precedence)
    }
    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        if trim_with_where_next(parser) {
            return Some(trim_with_where(parser));
        }
        if char_call_next(parser) {
            return Some(char_call(parser));
        }
        if assignment_next(parser) {
            return Some(assignment(parser));
        }
        if !matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == Keyword::BINARY)
        {
            return None;
        }
        parser.next_token();
        Some(
            parser
                .parse_subexpr(BINARY_OPERAND_PRECEDENCE)
                .map(|operand| Expr::Cast {
                    kind: CastKind::Cast,
                    expr: Box::new(operand),
                    data_type: DataType::Binary(None),
                    format: None,
                }),
        )
    }
    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        self.mysql.parse_statement(parser)
    }
    fn require_interval_qualifier(&self) -> bool {
        self.mysql.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        self.mysql.supports_limit_comma()
    }
    fn supports_create_table_select(&self) -> bool {
        self.mysql.supports_create_table_select()
    }
    fn supports_insert_set(&self) -> bool {
        self.mysql.supports_insert_set()
    }
    fn supports_user_host_grantee(&self) -> bool {
        self.mysql.supports_user_host_grantee()
    }
    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        self.mysql.is_table_factor_alias(explicit, kw, parser)
    }
    fn supports_table_hints(&self) -> bool {
        self.mysql.supports_table_hints()
    }
    fn requires_single_line_comment_whitespace(&self) -> bool {
        self.mysql.requires_single_line_comment_whitespace()
    }
    fn supports_match_against(&self) -> bool {
        self.mysql.supports_match_against()
    }
    fn supports_select_modifiers(&self) -> bool {
        self.mysql.supports_select_modifiers()
    }
    fn supports_set_names(&self) -> bool {
        self.mysql.supports_set_names()
    }
    fn supports_comma_separated_set_assignments(&self) -> bool {
        self.mysql.supports_comma_separated_set_assignments()
    }
    fn supports_update_order_by(&self) -> bool {
        self.mysql.supports_update_order_by()
    }
    fn supports_data_type_signed_suffix(&self) -> bool {
        self.mysql.supports_data_type_signed_suffix()
    }
    fn supports_cross_join_constraint(&self) -> bool {
        self.mysql.supports_cross_join_constraint()
    }
    fn supports_double_ampersand_operator(&self) -> bool {
        self.mysql.supports_double_ampersand_operator()
    }
    fn supports_binary_kw_as_cast(&self) -> bool {
        self.mysql.supports_binary_kw_as_cast()
    }
    fn supports_comment_optimizer_hint(&self) -> bool {
        self.mysql.supports_comment_optimizer_hint()
    }
    fn supports_constraint_keyword_without_name(&self) -> bool {
        self.mysql.supports_constraint_keyword_without_name()
    }
    fn supports_key_column_option(&self) -> bool {
        self.mysql.supports_key_column_option()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        self.mysql.supports_group_by_with_modifier()
    }
    fn supports_left_associative_joins_without_parens(&self) -> bool {
        self.mysql.supports_left_associative_joins_without_parens()
    }
}

/// Whether the next tokens are `SOUNDS LIKE` (SOUNDS is no keyword of sqlparser's).
fn sounds_like_next(parser: &Parser) -> bool {
    let [first, second] = parser.peek_tokens_ref();
    matches!(&first.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("SOUNDS"))
        && matches!(&second.token, Token::Word(w) if w.keyword == Keyword::LIKE)
}

/// `SOUNDEX(x)`.
fn soundex(x: Expr) -> Expr {
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new("SOUNDEX")]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(x))],
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    })
}

/// Whether the next tokens are `TRIM ( LEADING` (or TRAILING, BOTH).
fn trim_with_where_next(parser: &Parser) -> bool {
    let [name, open, place] = parser.peek_tokens_ref();
    matches!(&name.token, Token::Word(w) if w.keyword == Keyword::TRIM)
        && open.token == Token::LParen
        && matches!(&place.token, Token::Word(w) if matches!(w.keyword, Keyword::LEADING | Keyword::TRAILING | Keyword::BOTH))
}

/// `TRIM(place [remove] FROM x)`, MariaDB's forms with LEADING, TRAILING or BOTH: the
/// remove-string may be left out (a space), FROM may not.
fn trim_with_where(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.next_token();
    parser.next_token();
    let trim_where = parser.parse_trim_where()?;
    let trim_what = if parser.parse_keyword(Keyword::FROM) {
        None
    } else {
        let what = parser.parse_expr()?;
        parser.expect_keyword_is(Keyword::FROM)?;
        Some(Box::new(what))
    };
    let expr = parser.parse_expr()?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Trim {
        expr: Box::new(expr),
        trim_where: Some(trim_where),
        trim_what,
        trim_characters: None,
    })
}

/// Whether the next tokens are `@name :=`.
fn assignment_next(parser: &Parser) -> bool {
    let [name, op] = parser.peek_tokens_ref();
    matches!(&name.token, Token::Word(w) if w.quote_style.is_none()
        && w.value.starts_with('@') && !w.value.starts_with("@@"))
        && op.token == Token::Assignment
}

/// `@name := expr`: as in MariaDB's grammar, the assignment is an operand of whatever
/// precedes it, and its value is a whole expression (`@a := 1 OR 0` assigns 1;
/// `@a := @b := 5` assigns both).
fn assignment(parser: &mut Parser) -> Result<Expr, ParserError> {
    let name = parser.next_token();
    parser.next_token();
    let Token::Word(w) = &name.token else {
        return parser.expected("a user variable", name);
    };
    let mut ident = Ident::new(w.value.clone());
    ident.span = name.span;
    let value = parser.parse_expr()?;
    Ok(Expr::BinaryOp {
        left: Box::new(Expr::Identifier(ident)),
        op: BinaryOperator::Assignment,
        right: Box::new(value),
    })
}

/// Whether the next tokens are `CHAR (`.
fn char_call_next(parser: &Parser) -> bool {
    let [name, open] = parser.peek_tokens_ref();
    matches!(&name.token, Token::Word(w) if w.keyword == Keyword::CHAR && w.quote_style.is_none())
        && open.token == Token::LParen
}

/// `CHAR(n, ... [USING charset])`: a call of CHAR; the charset, when there is one, is the
/// call's parameter list.
fn char_call(parser: &mut Parser) -> Result<Expr, ParserError> {
    let name = parser.next_token();
    parser.next_token();
    let args = parser.parse_comma_separated(Parser::parse_expr)?;
    let parameters = if parser.parse_keyword(Keyword::USING) {
        let charset = parser.parse_identifier()?;
        FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(
                Expr::Identifier(charset),
            ))],
            clauses: Vec::new(),
        })
    } else {
        FunctionArguments::None
    };
    parser.expect_token(&Token::RParen)?;
    let mut ident = Ident::new("CHAR");
    ident.span = name.span;
    Ok(Expr::Function(Function {
        name: ObjectName::from(vec![ident]),
        uses_odbc_syntax: false,
        parameters,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|a| FunctionArg::Unnamed(FunctionArgExpr::Expr(a)))
                .collect(),
            clauses: Vec::new(),
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: Vec::new(),
    }))
}
