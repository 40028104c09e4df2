//! The expression compiler: sqlparser AST to [`Expr`].

mod elements;
mod forms;
mod introspect;
mod outer;
mod row_subquery;
mod rows;
mod typed_text;
use outer::outer_column;

use crate::error::SqlError;
use crate::expr::collation::{comparison, Derivation, Derived};
use crate::expr::eval::ArithOp;
use crate::expr::text::*;
use crate::expr::*;
use crate::value::Value;
use myriad_types::decimal::Decimal;
use myriad_types::errors::ER_INCORRECT_GLOBAL_LOCAL_VAR;
use sqlparser::ast::{self, BinaryOperator};
use sqlparser::tokenizer::Span;

/// An aggregate call that reached the expression compiler: the query planners take every
/// aggregate out of the places it may stand (select list, HAVING, ORDER BY), so this one
/// stands where MariaDB refuses it with 1111 (WHERE, GROUP BY, inside another aggregate).
/// Only the forms the planners take out are recognised; other forms keep their errors.
fn misplaced_aggregate(name: &str, f: &ast::Function) -> bool {
    let ast::FunctionArguments::List(list) = &f.args else {
        return false;
    };
    let one_arg = matches!(
        list.args.as_slice(),
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(_))]
    );
    let star = matches!(
        list.args.as_slice(),
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)]
    );
    match name {
        "GROUP_CONCAT" => !list.args.is_empty(),
        "COUNT" => one_arg || star || (list.args.len() > 1 && list.duplicate_treatment.is_some()),
        "SUM" | "MIN" | "MAX" | "AVG" => one_arg,
        _ => false,
    }
}

impl Compiler<'_> {
    pub fn compile(&self, e: &ast::Expr) -> Result<Expr, SqlError> {
        use ast::Expr as E;
        crate::depth::check_stack()?;
        Ok(match e {
            E::Value(v) => self.value(v)?,
            E::Nested(inner) => self.compile(inner)?,
            E::Identifier(id) => self.identifier(None, id)?,
            E::CompoundIdentifier(parts) => self.compound(parts)?,
            E::UnaryOp { op, expr } => self.unary(op, expr)?,
            E::BinaryOp {
                left,
                op: BinaryOperator::Assignment,
                right,
            } => self.assignment(left, right)?,
            E::BinaryOp { left, op, right } => self.binary(left, op, right)?,
            E::IsNull(x) | E::IsUnknown(x) => self.is_null(x, false)?,
            E::IsNotNull(x) | E::IsNotUnknown(x) => self.is_null(x, true)?,
            E::IsTrue(x) => self.is_bool(x, true, false)?,
            E::IsNotTrue(x) => self.is_bool(x, true, true)?,
            E::IsFalse(x) => self.is_bool(x, false, false)?,
            E::IsNotFalse(x) => self.is_bool(x, false, true)?,
            E::InList {
                expr,
                list,
                negated,
            } => self.in_list(expr, list, *negated)?,
            E::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let mut expr = self.compile(expr)?;
                let mut bounds = [self.compile(low)?, self.compile(high)?];
                self.compared(&mut expr, &mut bounds);
                let [low, high] = bounds;
                Expr::Between {
                    collation: self.comparing([&expr, &low, &high], "between")?,
                    expr: Box::new(expr),
                    low: Box::new(low),
                    high: Box::new(high),
                    negated: *negated,
                }
            }
            E::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char,
            } => self.like(expr, pattern, escape_char.as_deref(), *negated)?,
            E::RLike {
                negated,
                expr,
                pattern,
                ..
            } => self.regexp(expr, pattern, *negated)?,
            E::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.case(operand.as_deref(), conditions, else_result.as_deref())?,
            E::Function(f) => self.function(f)?,
            E::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => self.substring(e, expr, substring_from.as_deref(), substring_for.as_deref())?,
            E::Trim {
                trim_where,
                trim_what,
                expr,
                trim_characters,
            } => self.trim(
                e,
                trim_where.as_ref(),
                trim_what.as_deref(),
                expr,
                trim_characters.is_some(),
            )?,
            E::Position { expr, r#in } => self.call(
                Func::Locate,
                "locate",
                vec![self.compile(expr)?, self.compile(r#in)?],
            )?,
            E::Ceil { expr, .. } => self.call(Func::Ceil, "ceiling", vec![self.compile(expr)?])?,
            E::Floor { expr, .. } => self.call(Func::Floor, "floor", vec![self.compile(expr)?])?,
            E::Cast {
                expr, data_type, ..
            } => {
                let to = cast_target(data_type)?;
                let operand = match to {
                    CastTo::Char { .. } => self.text_operand(self.compile(expr)?),
                    _ => self.compile(expr)?,
                };
                let cast = Expr::Cast {
                    expr: Box::new(operand.cast_operand(to)),
                    to,
                };
                if is_binary_type(data_type) {
                    binary(cast, Derivation::Implicit)
                } else {
                    cast
                }
            }
            E::Convert {
                expr,
                data_type,
                charset,
                ..
            } => self.convert(e, expr, data_type.as_ref(), charset.as_ref())?,
            E::Collate { expr, collation } => Expr::Collate {
                expr: Box::new(self.compile(expr)?),
                collation: collation_named(&collation.to_string())?,
                derivation: Derivation::Explicit,
            },
            E::TypedString(ts) => self.typed_string(e, ts)?,
            E::Subquery(q) => Expr::Subquery(self.expr_subquery(q)?),
            E::InSubquery {
                expr,
                subquery,
                negated,
            } => self.in_subquery(expr, subquery, *negated)?,
            // A row where a value is needed.
            E::Tuple(_) => return Err(rows::err_width(1)),
            E::Exists { subquery, negated } => Expr::Exists {
                query: self.expr_subquery(subquery)?,
                negated: *negated,
            },
            E::Prefixed { prefix, value } => self.introduced(&prefix.value, value)?,
            other => return Err(SqlError::not_supported(&format!("expression {other}"))),
        })
    }

    /// A string literal with a character set introducer (`_binary'..'`, `_utf8mb4 X'..'`):
    /// the literal's bytes as they are. Values carry no character set, so only the
    /// character sets whose bytes need no conversion are accepted.
    pub(crate) fn introduced(&self, charset: &str, value: &ast::Expr) -> Result<Expr, SqlError> {
        let known = ["_binary", "_utf8mb4", "_utf8", "_utf8mb3"];
        if !known.iter().any(|k| k.eq_ignore_ascii_case(charset)) {
            return Err(SqlError::not_supported(&format!(
                "character set introducer {charset}"
            )));
        }
        let literal = match value {
            ast::Expr::Value(v) => self.value(v)?,
            other => return Err(err_syntax(&other.to_string())),
        };
        // A hex literal is a binary string unless its introducer names text, and a string
        // only (never a number) under an introducer.
        let literal = match literal {
            Expr::Collate { expr, .. } => *expr,
            Expr::HexLiteral(bytes) => Expr::Literal(Value::Bytes(bytes)),
            other => other,
        };
        Ok(if charset.eq_ignore_ascii_case("_binary") {
            binary(literal, Derivation::Coercible)
        } else {
            literal
        })
    }

    /// `@@cache.variable`, compiled by the statement compiler, which knows the key caches.
    fn structured(&self, scope: VarScope, cache: &str, variable: &str) -> Result<Expr, SqlError> {
        match self.ctx {
            Some(ctx) => ctx.structured(scope, cache, variable),
            None => Err(crate::system::sysvars::err_unknown(&format!(
                "{cache}.{variable}"
            ))),
        }
    }

    /// The constants of a literal list taken out before sqlparser, when `list` is the
    /// placeholder that stands for one.
    pub(crate) fn const_list(&self, list: &[ast::Expr]) -> Option<Result<Vec<Expr>, SqlError>> {
        use crate::parser::text_lists::{self, Literal};
        use sqlparser::tokenizer::Token;
        let [ast::Expr::Value(v)] = list else {
            return None;
        };
        let ast::Value::Placeholder(p) = &v.value else {
            return None;
        };
        if let Some(n) = text_lists::list_index(p) {
            let map = self.map?;
            let list = map.lists.get(n)?;
            // Sized once: grown by doubling, a million constants would briefly hold the
            // old vector beside the new one.
            let mut out = Vec::with_capacity(list.len);
            for item in text_lists::items(map.source(), list) {
                let value = match item.literal {
                    Literal::Number(text) => ast::Value::Number(text.to_string(), false),
                    Literal::Str(s) => ast::Value::SingleQuotedString(s.to_string()),
                    Literal::Null => ast::Value::Null,
                };
                match self.list_item(value, Span::empty(), item.negative) {
                    Ok(x) => out.push(x),
                    Err(e) => return Some(Err(e)),
                }
            }
            return Some(Ok(out));
        }
        let source = self.lists?;
        let range = source
            .lists
            .get(crate::parser::const_lists::list_index(p)?)?
            .clone();
        let items = crate::parser::const_lists::items(&source.tokens[range]).map(|item| {
            let value = match &item.token.token {
                Token::Number(text, long) => ast::Value::Number(text.clone(), *long),
                Token::SingleQuotedString(s) => ast::Value::SingleQuotedString(s.clone()),
                _ => ast::Value::Null,
            };
            self.list_item(value, item.token.span, item.negative)
        });
        Some(items.collect())
    }

    /// One constant of a literal list, through the rules of any literal.
    fn list_item(
        &self,
        value: ast::Value,
        span: sqlparser::tokenizer::Span,
        negative: bool,
    ) -> Result<Expr, SqlError> {
        let number = matches!(value, ast::Value::Number(..));
        let literal = self.value(&value.with_span(span))?;
        if negative {
            negate(literal, number)
        } else {
            Ok(literal)
        }
    }

    pub(crate) fn value(&self, v: &ast::ValueWithSpan) -> Result<Expr, SqlError> {
        use ast::Value as V;
        Ok(match &v.value {
            V::Number(text, _) => Expr::Literal(number_literal(text)?),
            V::SingleQuotedString(s) | V::DoubleQuotedString(s) | V::NationalStringLiteral(s) => {
                Expr::Literal(Value::Bytes(s.clone().into_bytes()))
            }
            V::EscapedStringLiteral(s) | V::UnicodeStringLiteral(s) => {
                Expr::Literal(Value::Bytes(s.clone().into_bytes()))
            }
            V::HexStringLiteral(h) => return self.hex_literal(h, v.span),
            V::SingleQuotedByteStringLiteral(bits) => Expr::HexLiteral(
                crate::expr::hex::bytes_of_bits(bits).ok_or_else(|| err_syntax(bits))?,
            ),
            V::Boolean(b) => Expr::Literal(Value::Int(i64::from(*b))),
            V::Null => Expr::Literal(Value::Null),
            V::Placeholder(p) if p == "?" => {
                let at = (v.span.start.line, v.span.start.column);
                Expr::Param(*self.placeholders.get(&at).ok_or_else(|| err_syntax("?"))?)
            }
            other => return Err(err_syntax(&other.to_string())),
        })
    }

    /// `0x41` (a hexadecimal literal: a number in numeric context) or `X'41'` (a binary
    /// string, whose digits must come in pairs); which one was written is read from the
    /// statement's text at `span`. A bare `0x` is a name, as in MariaDB.
    fn hex_literal(&self, digits: &str, span: Span) -> Result<Expr, SqlError> {
        let quoted = self.map.is_some_and(|map| {
            span.start.line > 0
                && matches!(
                    map.source()
                        .as_bytes()
                        .get(map.offset(span.start.line, span.start.column)),
                    Some(b'x' | b'X')
                )
        });
        if quoted && digits.len() % 2 == 1 {
            return Err(err_syntax(&format!("X'{digits}'")));
        }
        if !quoted && digits.is_empty() {
            return self.identifier(None, &ast::Ident::new("0x"));
        }
        let bytes = crate::expr::hex::bytes_of_hex(digits).ok_or_else(|| err_syntax(digits))?;
        Ok(if quoted {
            binary(Expr::Literal(Value::Bytes(bytes)), Derivation::Coercible)
        } else {
            Expr::HexLiteral(bytes)
        })
    }

    pub(crate) fn identifier(
        &self,
        table: Option<&str>,
        id: &ast::Ident,
    ) -> Result<Expr, SqlError> {
        let name = id.value.as_str();
        if id.quote_style.is_none() {
            if let Some(bits) = crate::expr::hex::bit_digits_of_word(name) {
                // `0b101`, which the tokenizer reads as a name.
                let bytes =
                    crate::expr::hex::bytes_of_bits(bits).ok_or_else(|| err_syntax(name))?;
                return Ok(Expr::HexLiteral(bytes));
            }
            if let Some(var) = name.strip_prefix("@@") {
                return self.system_var(VarScope::Default, var);
            }
            if let Some(user) = name.strip_prefix('@') {
                return Ok(Expr::UserVar(
                    user.trim_matches(['`', '\'', '"']).to_ascii_lowercase(),
                ));
            }
        }
        let found = self.scope.resolve(table, name);
        if let (Err(e), Some(outer)) = (&found, self.outer) {
            if e.code == myriad_types::errors::ER_BAD_FIELD_ERROR.code {
                if let Some(x) = outer_column(outer, table, name)? {
                    return Ok(x);
                }
            }
        }
        match found {
            Ok(i) => Ok(self.column_ref(i)),
            Err(e) if table.is_none() && id.quote_style.is_none() => {
                let Some(func) = super::func_names::niladic(name) else {
                    return Err(e);
                };
                self.call(func, name, Vec::new())
            }
            Err(e) => Err(e),
        }
    }

    pub(crate) fn compound(&self, parts: &[ast::Ident]) -> Result<Expr, SqlError> {
        let first = &parts[0];
        let written_scope = || match first.value[2..].to_ascii_lowercase().as_str() {
            "session" | "local" => Some(VarScope::Session),
            "global" => Some(VarScope::Global),
            _ => None,
        };
        if first.quote_style.is_none() && first.value.starts_with("@@") && parts.len() == 2 {
            let Some(scope) = written_scope() else {
                // @@cache.variable: a structured key cache variable.
                return self.structured(VarScope::Default, &first.value[2..], &parts[1].value);
            };
            return self.system_var(scope, &parts[1].value);
        }
        if first.quote_style.is_none() && first.value.starts_with("@@") && parts.len() == 3 {
            if let Some(scope) = written_scope() {
                // @@global.cache.variable
                return self.structured(scope, &parts[1].value, &parts[2].value);
            }
        }
        match parts {
            [table, column] => self.identifier(Some(&table.value), column),
            [_db, table, column] => self.identifier(Some(&table.value), column),
            _ => Err(err_syntax(
                &parts
                    .iter()
                    .map(|p| p.value.as_str())
                    .collect::<Vec<_>>()
                    .join("."),
            )),
        }
    }

    pub(crate) fn system_var(&self, scope: VarScope, name: &str) -> Result<Expr, SqlError> {
        let index = crate::system::sysvars::lookup(name)
            .ok_or_else(|| crate::system::sysvars::err_unknown(name))?;
        let def = crate::system::sysvars::def(index);
        match (scope, def.scope) {
            (VarScope::Session, crate::system::sysvars::Scope::Global) => Err(SqlError::new(
                ER_INCORRECT_GLOBAL_LOCAL_VAR,
                format!("Variable '{}' is a GLOBAL variable", def.name),
            )),
            (VarScope::Global, crate::system::sysvars::Scope::Session) => Err(SqlError::new(
                ER_INCORRECT_GLOBAL_LOCAL_VAR,
                format!("Variable '{}' is a SESSION variable", def.name),
            )),
            _ => Ok(Expr::SysVar { scope, index }),
        }
    }

    pub(crate) fn binary(
        &self,
        left: &ast::Expr,
        op: &BinaryOperator,
        right: &ast::Expr,
    ) -> Result<Expr, SqlError> {
        if let Some(date_arith) = self.interval_arith(left, op, right) {
            return date_arith;
        }
        if let Some(rows) = self.row_comparison(left, op, right) {
            return rows;
        }
        let mut l = Box::new(self.compile(left)?);
        let mut r = Box::new(self.compile(right)?);
        let comparison = rows::is_comparison(op);
        if comparison {
            self.compared(&mut l, std::slice::from_mut(&mut *r));
        } else if !matches!(op, BinaryOperator::StringConcat if self.pipes_as_concat) {
            // Arithmetic, bit operators and logic take numbers.
            l.make_numeric();
            r.make_numeric();
        }
        let arithmetic = matches!(
            op,
            BinaryOperator::Plus
                | BinaryOperator::Minus
                | BinaryOperator::Multiply
                | BinaryOperator::Divide
                | BinaryOperator::Modulo
                | BinaryOperator::MyIntegerDivide
        );
        if arithmetic {
            for operand in [&mut l, &mut r] {
                if let Expr::Arith { intermediate, .. } = operand.as_mut() {
                    *intermediate = true;
                }
            }
        }
        let arith = |kind, l: Box<Expr>, r: Box<Expr>| Expr::Arith {
            op: kind,
            text: arith_text(left, &l, op, right, &r),
            left: l,
            right: r,
            intermediate: false,
        };
        let cmp = |op, left: Box<Expr>, right: Box<Expr>| -> Result<Expr, SqlError> {
            Ok(Expr::Cmp {
                op,
                collation: self.comparing([&*left, &*right], cmp_name(op))?,
                left,
                right,
            })
        };
        Ok(match op {
            BinaryOperator::Plus => arith(ArithOp::Add, l, r),
            BinaryOperator::Minus => arith(ArithOp::Sub, l, r),
            BinaryOperator::Multiply => arith(ArithOp::Mul, l, r),
            BinaryOperator::Divide => arith(ArithOp::Div, l, r),
            BinaryOperator::Modulo => arith(ArithOp::Mod, l, r),
            BinaryOperator::MyIntegerDivide | BinaryOperator::DuckIntegerDivide => {
                arith(ArithOp::IntDiv, l, r)
            }
            BinaryOperator::Eq => cmp(CmpOp::Eq, l, r)?,
            BinaryOperator::NotEq => cmp(CmpOp::NotEq, l, r)?,
            BinaryOperator::Lt => cmp(CmpOp::Lt, l, r)?,
            BinaryOperator::LtEq => cmp(CmpOp::LtEq, l, r)?,
            BinaryOperator::Gt => cmp(CmpOp::Gt, l, r)?,
            BinaryOperator::GtEq => cmp(CmpOp::GtEq, l, r)?,
            BinaryOperator::Spaceship => cmp(CmpOp::NullSafeEq, l, r)?,
            BinaryOperator::And => Expr::And(l, r),
            BinaryOperator::Or => Expr::Or(l, r),
            BinaryOperator::StringConcat if self.pipes_as_concat => {
                self.call(Func::Concat, "concat", vec![*l, *r])?
            }
            BinaryOperator::StringConcat => Expr::Or(l, r),
            BinaryOperator::Xor => Expr::Xor(l, r),
            BinaryOperator::BitwiseAnd
            | BinaryOperator::BitwiseOr
            | BinaryOperator::BitwiseXor
            | BinaryOperator::PGBitwiseXor
            | BinaryOperator::PGBitwiseShiftLeft
            | BinaryOperator::PGBitwiseShiftRight => Expr::Bit {
                op: op.clone(),
                left: l,
                right: r,
            },
            other => return Err(SqlError::not_supported(&format!("operator {other}"))),
        })
    }

    pub(crate) fn function(&self, f: &ast::Function) -> Result<Expr, SqlError> {
        if f.over.is_some() {
            // A table SELECT takes its window functions out of the select list and ORDER
            // BY before compiling them (plan::query::window); anywhere else they are not
            // built.
            return Err(SqlError::not_supported(
                "window functions outside a SELECT's select list and ORDER BY",
            ));
        }
        if f.filter.is_some() || !f.within_group.is_empty() || f.null_treatment.is_some() {
            return Err(err_syntax(&f.to_string()));
        }
        let name = f.name.to_string().to_ascii_uppercase();
        if WINDOW_ONLY_FUNCTIONS.contains(&name.as_str()) {
            // MariaDB's grammar knows these only with OVER.
            return Err(err_syntax(&f.to_string()));
        }
        // ORDER BY, SEPARATOR, LIMIT inside the parentheses belong to GROUP_CONCAT only
        // (MariaDB: 1064); never ignored.
        if let ast::FunctionArguments::List(list) = &f.args {
            if let Some(clause) = list.clauses.first().filter(|_| name != "GROUP_CONCAT") {
                return Err(err_syntax(&clause.to_string()));
            }
        }
        if misplaced_aggregate(&name, f) {
            return Err(SqlError::new(
                myriad_types::errors::ER_INVALID_GROUP_FUNC_USE,
                "Invalid use of group function",
            ));
        }
        if matches!(name.as_str(), "COUNT" | "SUM" | "MIN" | "MAX" | "AVG") {
            // An aggregate of another shape than MariaDB's grammar has (`COUNT(a, b)`).
            return Err(err_syntax(&f.to_string()));
        }
        if name == "ROW" {
            // A row where a value is needed; ROW of fewer than two values is no row.
            return Err(match rows::is_row(&ast::Expr::Function(f.clone())) {
                true => rows::err_width(1),
                false => err_syntax(&f.to_string()),
            });
        }
        let args: Vec<&ast::Expr> = match &f.args {
            ast::FunctionArguments::None => Vec::new(),
            ast::FunctionArguments::List(list) => list
                .args
                .iter()
                .map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => Ok(x),
                    _ => Err(err_syntax(&a.to_string())),
                })
                .collect::<Result<_, _>>()?,
            ast::FunctionArguments::Subquery(_) => {
                return Err(SqlError::not_supported("subqueries"))
            }
        };
        if let Some(op) = (args.iter().position(|a| rows::is_row(a)))
            .and_then(|position| rows::row_argument_operation(&name, position))
        {
            return Err(rows::err_row_operand(op));
        }
        if let Some(date_arith) = self.date_add_function(&name, f, &args) {
            return date_arith;
        }
        if let ast::FunctionArguments::List(using) = &f.parameters {
            return self.char_using(&name, using, &args);
        }
        if let Some(which) = introspect::Introspect::by_name(&name) {
            let [arg] = args.as_slice() else {
                return Err(err_param_count(&name));
            };
            return self.introspect(which, self.compile(arg)?);
        }
        if name == "DATE" {
            return self.date_of(f, &args);
        }
        let (func, min, max) = Func::by_name(&name).ok_or_else(|| err_function(&name))?;
        if func == Func::Char && args.is_empty() {
            // CHAR() is a form of MariaDB's grammar, which needs an argument.
            return Err(err_syntax(&f.to_string()));
        }
        if args.len() < min || args.len() > max {
            if (matches!(func, Func::DatePart(_)) && DatePart::is_keyword(&name))
                || func == Func::Time
            {
                return Err(err_syntax(&f.to_string()));
            }
            return Err(err_param_count(&name));
        }
        let mut args: Vec<Expr> = args
            .into_iter()
            .map(|a| self.compile(a))
            .collect::<Result<_, _>>()?;
        if matches!(func, Func::Now | Func::SysDate | Func::CurTime) {
            if let Some(precision) = args.pop() {
                fractional_seconds(&name, precision)?;
            }
        }
        self.call(func, &name, args)
    }

    /// A call of `func` (`name` in errors) with its arguments' collation.
    pub(crate) fn call(&self, func: Func, name: &str, args: Vec<Expr>) -> Result<Expr, SqlError> {
        let args = self.text_operands(func, self.function_args(func, args));
        let operands = args.iter();
        let collation = match func {
            // The functions that compare or search strings: a conflict is an error.
            Func::Strcmp
            | Func::NullIf
            | Func::Greatest
            | Func::Least
            | Func::Field
            | Func::Locate
            | Func::Instr
            | Func::SubstringIndex
            | Func::FindInSet
            | Func::Regexp
            | Func::RegexpInstr
            | Func::RegexpSubstr
            | Func::RegexpReplace => self.comparing(operands, &name.to_ascii_lowercase())?,
            _ => self.comparing(operands, name).unwrap_or_default(),
        };
        if func == Func::FindInSet {
            if let Some(e) = elements::set_member(&args, collation) {
                return Ok(e);
            }
        }
        Ok(Expr::Call {
            func,
            args,
            collation,
        })
    }

    /// An expression's collation in this scope.
    pub(crate) fn derived(&self, e: &Expr) -> Derived {
        e.collation(&self.scope.collations)
    }

    /// The collation `operands` compare under, for the operation `op`. Folded as they
    /// come (a statement compiles this per comparison); only a conflict lists them all,
    /// for its error.
    pub(crate) fn comparing<'e>(
        &self,
        operands: impl IntoIterator<Item = &'e Expr> + Clone,
        op: &str,
    ) -> Result<Collation, SqlError> {
        let mut acc: Option<Derived> = None;
        for e in operands.clone() {
            let d = self.derived(e);
            acc = match acc.map_or(Some(d), |a| a.combine(d)) {
                Some(c) => Some(c),
                None => {
                    let all: Vec<Derived> = operands.into_iter().map(|e| self.derived(e)).collect();
                    return comparison(&all, op);
                }
            };
        }
        Ok(acc.map_or(Collation::default(), |d| d.collation))
    }
}

/// A comparison operator as MariaDB names it in errors.
fn cmp_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::NotEq => "<>",
        CmpOp::Lt => "<",
        CmpOp::LtEq => "<=",
        CmpOp::Gt => ">",
        CmpOp::GtEq => ">=",
        CmpOp::NullSafeEq => "<=>",
    }
}

/// `e` as a binary string at `derivation`.
pub(crate) fn binary(e: Expr, derivation: Derivation) -> Expr {
    Expr::Collate {
        expr: Box::new(e),
        collation: Collation::Binary,
        derivation,
    }
}

/// Whether a CAST or CONVERT target is a binary string (`BINARY`, `BINARY(n)`).
pub(crate) fn is_binary_type(dt: &ast::DataType) -> bool {
    matches!(dt, ast::DataType::Binary(_) | ast::DataType::Varbinary(_))
}

/// The collation `COLLATE name` names: 1235 for one of MariaDB's utf8 collations that
/// this server does not implement, 1253 for a collation of another character set (text
/// here is utf8mb4), 1273 for a name MariaDB does not know.
pub(crate) fn collation_named(name: &str) -> Result<Collation, SqlError> {
    let name = name.trim_matches(['`', '\'', '"']);
    if let Some(c) = Collation::by_name(name) {
        return Ok(c);
    }
    let lower = name.to_ascii_lowercase();
    let utf8 = ["utf8mb4_", "utf8mb3_", "utf8_"]
        .iter()
        .any(|p| lower.starts_with(p));
    let collation_like = ["_ci", "_cs", "_bin"].iter().any(|s| lower.ends_with(s));
    if utf8 && collation_like {
        return Err(SqlError::not_supported(&format!("COLLATE {lower}")));
    }
    if collation_like {
        return Err(SqlError::new(
            myriad_types::errors::ER_COLLATION_CHARSET_MISMATCH,
            format!("COLLATION '{name}' is not valid for CHARACTER SET 'utf8mb4'"),
        ));
    }
    Err(SqlError::new(
        myriad_types::errors::ER_UNKNOWN_COLLATION,
        format!("Unknown collation: '{name}'"),
    ))
}

/// The precision argument of NOW(n) and SYSDATE(n): 0 (the same as none), else an error
/// rather than a time without its fraction. A DATETIME result carries no fractional
/// precision yet, so n from 1 to 6 is not supported; over 6 is MariaDB's error 1426.
fn fractional_seconds(name: &str, precision: Expr) -> Result<(), SqlError> {
    let digits = match precision {
        Expr::Literal(Value::Int(n)) => u64::try_from(n).ok(),
        Expr::Literal(Value::UInt(n)) => Some(n),
        _ => None,
    };
    match digits {
        Some(0) => Ok(()),
        Some(n @ 1..=6) => Err(SqlError::not_supported(&format!(
            "{}({n}): fractional seconds",
            name.to_ascii_uppercase()
        ))),
        Some(n) => Err(SqlError::new(
            myriad_types::errors::ER_TOO_BIG_PRECISION,
            format!(
                "Too big precision {n} specified for '{}'. Maximum is 6",
                name.to_ascii_lowercase()
            ),
        )),
        None => Err(err_syntax(name)),
    }
}

/// `-x`: a literal is negated at compile time (as MySQL reads `-5` as one literal).
/// `number` says that `inner` was written as a number, so that a decimal literal too wide
/// for [`Decimal`] (kept as its digits) negates exactly.
pub(crate) fn negate(inner: Expr, number: bool) -> Result<Expr, SqlError> {
    Ok(match inner {
        Expr::Literal(Value::UInt(u)) if u <= 1 << 63 => {
            Expr::Literal(Value::Int((u as i128).wrapping_neg() as i64))
        }
        Expr::Literal(Value::UInt(u)) => Expr::Literal(Value::Decimal(Decimal::from_u64(u).neg())),
        Expr::Literal(Value::Int(i)) if i != i64::MIN => Expr::Literal(Value::Int(-i)),
        Expr::Literal(Value::Decimal(d)) => Expr::Literal(Value::Decimal(-d)),
        Expr::Literal(Value::Double(f)) => Expr::Literal(Value::Double(-f)),
        Expr::Literal(Value::Bytes(digits)) if number => {
            let text = String::from_utf8_lossy(&digits);
            crate::expr::decimal::literal(&format!("-{text}"))
                .map(Expr::Literal)
                .map_err(|_| err_syntax(&text))?
        }
        other => Expr::Neg(Box::new(other)),
    })
}

/// Functions that exist only as window functions (with OVER).
const WINDOW_ONLY_FUNCTIONS: [&str; 11] = [
    "ROW_NUMBER",
    "RANK",
    "DENSE_RANK",
    "PERCENT_RANK",
    "CUME_DIST",
    "NTILE",
    "LAG",
    "LEAD",
    "FIRST_VALUE",
    "LAST_VALUE",
    "NTH_VALUE",
];
