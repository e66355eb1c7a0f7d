//! Top-level declarations, fields and types.

use super::{or_list, Lazy, PResult, Parser, Text, TOP_KEYWORDS};
use crate::ast::*;
use crate::lexer::TokenKind;
use crate::span::Span;
use crate::suggest::close_words;

/// Column annotations (flags) after a field's type.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "nonnull",
    "unique",
    "primary_key",
    "protected",
    "enum",
    "classification",
];

impl Parser<'_> {
    pub(super) fn top_decl(&mut self) -> PResult<Decl> {
        match self.kind().clone() {
            TokenKind::Keyword("import") => self.import_decl().map(Decl::Import),
            TokenKind::Keyword("source") => self.source_decl().map(Decl::Source),
            TokenKind::Keyword("contract") => self.contract_decl().map(Decl::Contract),
            TokenKind::Keyword("domain") => self.domain_decl().map(Decl::Domain),
            TokenKind::Keyword("model") => {
                let kw = self.bump();
                self.model_rest(kw, false).map(Decl::Model)
            }
            TokenKind::Keyword("pipeline") => self.pipeline_decl().map(Decl::Pipeline),
            TokenKind::Keyword("test") => self.test_decl().map(Decl::Test),
            TokenKind::Keyword("fn") => self.fn_decl().map(|f| Decl::Fn(Box::new(f))),
            TokenKind::Ident(name) if self.is_sym_at(1, "(") => {
                let span = self.bump();
                self.call_rest(Ident {
                    name: crate::Name::new(name),
                    span,
                })
                .map(Decl::Generator)
            }
            other => {
                let f = self.unexpected(
                    "a declaration (source, contract, domain, model, pipeline, test, fn, import) \
                     or a generator call",
                );
                let word = match &other {
                    TokenKind::Ident(n) => Some(*n),
                    TokenKind::Keyword(k) | TokenKind::TypeKeyword(k) => Some(*k),
                    _ => None,
                };
                let close = word
                    .map(|w| close_words(w, TOP_KEYWORDS))
                    .unwrap_or_default();
                Err(if close.is_empty() {
                    f
                } else {
                    f.with_help(format!("did you mean {}?", or_list(&close)))
                })
            }
        }
    }

    fn import_decl(&mut self) -> PResult<ImportDecl> {
        let kw = self.bump();
        let mut path = vec![self.module_name("a module name after 'import'")?];
        while self.eat_sym(".").is_some() {
            path.push(self.module_name("a module name after '.'")?);
        }
        Ok(ImportDecl {
            path,
            span: self.since(kw),
        })
    }

    /// One part of an import's path: a name that is a file or directory
    /// name (a quoted one, `` `my-module` ``, holds no `/`, `\` or `.`).
    fn module_name(&mut self, what: &str) -> PResult<Ident> {
        let tok = self.peek().clone();
        let name = self.ident(what)?;
        if name.name.contains(['/', '\\', '.']) {
            return Err(self
                .fail_at(
                    &tok,
                    format!(
                        "module name '{}' holds a path separator or '.': it must name a file or directory in its directory",
                        crate::lexer::shorten(&name.name, 40)
                    ),
                )
                .with_help("import a.b reads a/b.strata: write each directory and the file name as its own name"));
        }
        Ok(name)
    }

    fn source_decl(&mut self) -> PResult<SourceDecl> {
        let kw = self.bump();
        let name = self.ident("a source name")?;
        if !self.is_sym("(") {
            let f = self.unexpected(&format!("'(' after source name '{}'", name.name));
            return Err(f.with_help(
                "a source lists its resource arguments in parentheses, e.g. \
                 source s(ns: \"app\", dataset: \"s\") { .. } (they may be empty: s())",
            ));
        }
        self.bump();
        let mut args = Vec::new();
        if self.eat_sym(")").is_none() {
            loop {
                let key = self.ident("an argument name")?;
                self.expect_sym(":", Lazy(|| format!("after '{}'", key.name)))?;
                let (value, quoted, value_span) = match self.kind().clone() {
                    TokenKind::Str(_) => {
                        let (t, s) = self.string_text("a string")?;
                        (t, true, s)
                    }
                    TokenKind::Ident(n) => (n.to_string(), false, self.bump()),
                    _ => {
                        return Err(self.unexpected(&format!(
                            "a string or an identifier as the value of '{}'",
                            key.name
                        )))
                    }
                };
                args.push(KeyValue {
                    key,
                    value,
                    quoted,
                    value_span,
                });
                if self.eat_sym(",").is_some() {
                    continue;
                }
                self.expect_sym(")", "or ',' in the source arguments")?;
                break;
            }
        }
        let mut columns = None;
        let mut columns_span = None;
        // The `columns` word of the first list.
        let mut first_columns = None;
        let mut props = Vec::new();
        if self.eat_sym("{").is_some() {
            loop {
                if self.eat_sym("}").is_some() {
                    break;
                }
                if self.is_ident("columns") && self.is_sym_at(1, ":") && self.is_sym_at(2, "{") {
                    let start = self.bump();
                    self.bump();
                    self.bump();
                    let fields = self.fields_until_brace()?;
                    if self.first_time(&mut first_columns, "columns", "source", start) {
                        columns = Some(fields);
                        columns_span = Some(self.since(start));
                    }
                    self.eat_sym(",");
                    continue;
                }
                let (key, _, key_span) = self.any_text("a source property or '}'")?;
                self.expect_sym(":", Lazy(|| format!("after source property '{key}'")))?;
                let (value, quoted, value_span) =
                    self.any_text(&format!("a value for source property '{key}'"))?;
                props.push(KeyValue {
                    key: Ident {
                        name: key.into(),
                        span: key_span,
                    },
                    value,
                    quoted,
                    value_span,
                });
                self.eat_sym(",");
            }
        }
        Ok(SourceDecl {
            name,
            args,
            columns,
            columns_span,
            props,
            span: self.since(kw),
        })
    }

    fn contract_decl(&mut self) -> PResult<ContractDecl> {
        let kw = self.bump();
        let name = self.ident("a contract name")?;
        self.expect_sym("{", Lazy(|| format!("after contract name '{}'", name.name)))?;
        let fields = self.fields_until_brace()?;
        Ok(ContractDecl {
            name,
            fields,
            span: self.since(kw),
        })
    }

    /// `{ field_def [","] [";"] } "}"` (the `{` already consumed).
    fn fields_until_brace(&mut self) -> PResult<Vec<FieldDef>> {
        let mut fields = Vec::new();
        while self.eat_sym("}").is_none() {
            if self.at_eof() {
                return Err(self.unexpected("a column name or '}'"));
            }
            fields.push(self.field_def()?);
            self.eat_sym(",");
            self.eat_sym(";");
        }
        Ok(fields)
    }

    pub(super) fn field_def(&mut self) -> PResult<FieldDef> {
        let name = self.ident("a column name")?;
        self.expect_sym(":", Lazy(|| format!("after column name '{}'", name.name)))?;
        let ty = self.type_ref()?;
        let mut annotations = Vec::new();
        while let TokenKind::Keyword(k) = self.kind() {
            if !ANNOTATIONS.contains(k) {
                break;
            }
            annotations.push(self.annotation()?);
        }
        Ok(FieldDef {
            span: name.span.to(self.prev),
            name,
            ty,
            annotations,
        })
    }

    fn annotation(&mut self) -> PResult<Annotation> {
        let tok = self.peek().clone();
        self.bump();
        let start = tok.span;
        Ok(match tok.kind {
            TokenKind::Keyword("nonnull") => Annotation::Nonnull(start),
            TokenKind::Keyword("unique") => Annotation::Unique(start),
            TokenKind::Keyword("primary_key") => Annotation::PrimaryKey(start),
            TokenKind::Keyword("protected") => Annotation::Protected(start),
            TokenKind::Keyword("enum") => {
                self.expect_sym("{", "after 'enum'")?;
                let mut values = Vec::new();
                loop {
                    if self.eat_sym("}").is_some() {
                        break;
                    }
                    if self.at_eof() {
                        return Err(self.unexpected("'}' to close the enum values"));
                    }
                    let (v, _, span) = self.any_text("an enum value")?;
                    values.push((v, span));
                    self.eat_sym(",");
                }
                Annotation::Enum(values, self.since(start))
            }
            _ => {
                // classification
                self.expect_sym(":", "after 'classification'")?;
                let value =
                    match self.kind().clone() {
                        TokenKind::Str(_) => self.string_text("a string")?.0,
                        TokenKind::Ident(n) => {
                            self.bump();
                            n.to_string()
                        }
                        _ => return Err(self.unexpected(
                            "a classification (an identifier or a string) after 'classification:'",
                        )),
                    };
                Annotation::Classification(value, self.since(start))
            }
        })
    }

    /// A column type: a type keyword, `decimal(p, s)`, `money[(CUR)]`,
    /// `array(T)` or a domain name.
    pub(super) fn type_ref(&mut self) -> PResult<TypeRef> {
        self.enter()?;
        let r = self.type_ref_inner();
        self.leave();
        r
    }

    fn type_ref_inner(&mut self) -> PResult<TypeRef> {
        let start = self.peek().span;
        let kind = match self.kind().clone() {
            TokenKind::Ident(n) => {
                self.bump();
                TypeRefKind::Named(n.to_string())
            }
            TokenKind::TypeKeyword(k) => {
                self.bump();
                match k {
                    "int64" => TypeRefKind::Int64,
                    "float32" => TypeRefKind::Float32,
                    "float64" => TypeRefKind::Float64,
                    "string" => TypeRefKind::String,
                    "bool" => TypeRefKind::Bool,
                    "date" => TypeRefKind::Date,
                    "timestamp" => TypeRefKind::Timestamp,
                    "timestamptz" => TypeRefKind::TimestampTz,
                    "uuid" => TypeRefKind::Uuid,
                    "json" => TypeRefKind::Json,
                    "decimal" => {
                        self.expect_sym("(", "after 'decimal' (decimal(precision, scale))")?;
                        let p = self.u32_lit("decimal precision")?;
                        self.eat_sym(",");
                        let s = self.u32_lit("decimal scale")?;
                        self.expect_sym(")", "to close decimal(precision, scale)")?;
                        TypeRefKind::Decimal(p, s)
                    }
                    "money" => {
                        if self.eat_sym("(").is_some() {
                            if matches!(self.kind(), TokenKind::Str(_)) {
                                let f = self.unexpected("a currency code such as EUR");
                                return Err(
                                    f.with_help("write the currency without quotes: money(EUR)")
                                );
                            }
                            let cur = self.ident("a currency code such as EUR")?;
                            self.expect_sym(")", "after the currency")?;
                            TypeRefKind::Money(Some(cur.name.to_string()))
                        } else {
                            TypeRefKind::Money(None)
                        }
                    }
                    _ => {
                        // array
                        if !self.is_sym("(") {
                            let f = self.unexpected("'(' after 'array'");
                            return Err(if self.is_sym("<") {
                                f.with_help("array types use parentheses: array(string)")
                            } else {
                                f
                            });
                        }
                        self.bump();
                        let inner = self.type_ref()?;
                        self.expect_sym(")", "to close array(..)")?;
                        TypeRefKind::Array(Box::new(inner))
                    }
                }
            }
            _ => return Err(self.unexpected("a type")),
        };
        Ok(TypeRef {
            kind,
            span: self.since(start),
        })
    }

    fn u32_lit(&mut self, what: &str) -> PResult<u32> {
        let tok = self.peek().clone();
        let (v, _) = self.int(&format!("an integer ({what})"))?;
        u32::try_from(v).map_err(|_| {
            self.fail_at(
                &tok,
                format!("{what} {v} is out of range (0 to {})", u32::MAX),
            )
        })
    }

    fn domain_decl(&mut self) -> PResult<DomainDecl> {
        let kw = self.bump();
        let name = self.ident("a domain name")?;
        self.expect_sym("=", Lazy(|| format!("after domain name '{}'", name.name)))?;
        let ty = self.type_ref()?;
        Ok(DomainDecl {
            name,
            ty,
            span: self.since(kw),
        })
    }

    fn pipeline_decl(&mut self) -> PResult<PipelineDecl> {
        let kw = self.bump();
        let name = self.ident("a pipeline name")?;
        let mut env = None;
        // The `env` and `models` words first given, for a repeated key.
        let mut env_key = None;
        let mut models_key = None;
        if self.is_ident("env") && self.is_sym_at(1, ":") {
            env_key = Some(self.bump());
            self.bump();
            env = Some(self.ident("an environment name after 'env:'")?);
        }
        self.expect_sym("{", Lazy(|| format!("after pipeline name '{}'", name.name)))?;
        let mut models = Vec::new();
        let mut sources = Vec::new();
        loop {
            if self.eat_sym("}").is_some() {
                break;
            }
            let key_tok = self.peek().clone();
            let key = match &key_tok.kind {
                TokenKind::Ident(n) => n.to_string(),
                TokenKind::Keyword(k) | TokenKind::TypeKeyword(k) => k.to_string(),
                _ => return Err(self.unexpected("a pipeline key (models, env, sources) or '}'")),
            };
            match key.as_str() {
                "models" => {
                    let key = self.bump();
                    self.expect_sym(":", "after 'models'")?;
                    self.expect_sym("[", "after 'models:'")?;
                    let mut list = Vec::new();
                    loop {
                        if self.eat_sym("]").is_some() {
                            break;
                        }
                        list.push(self.expr()?);
                        if self.eat_sym(",").is_some() {
                            continue;
                        }
                        self.expect_sym("]", "or ',' in the models list")?;
                        break;
                    }
                    if self.first_time(&mut models_key, "models", "pipeline", key) {
                        models = list;
                    }
                }
                "env" => {
                    let key = self.bump();
                    self.expect_sym(":", "after 'env'")?;
                    let name = self.ident("an environment name after 'env:'")?;
                    if self.first_time(&mut env_key, "env", "pipeline", key) {
                        env = Some(name);
                    }
                }
                "sources" => {
                    self.bump();
                    self.expect_sym(":", "after 'sources'")?;
                    self.expect_sym("{", "after 'sources:'")?;
                    while self.eat_sym("}").is_none() {
                        sources.push(self.source_override()?);
                        self.eat_sym(",");
                    }
                }
                _ => {
                    let f = self.fail_at(
                        &key_tok,
                        format!(
                            "unknown pipeline key '{}' (expected models, env or sources)",
                            crate::lexer::shorten(&key, 40)
                        ),
                    );
                    let close = close_words(&key, &["models", "env", "sources"]);
                    return Err(if close.is_empty() {
                        f
                    } else {
                        f.with_help(format!("did you mean {}?", or_list(&close)))
                    });
                }
            }
            self.eat_sym(",");
        }
        Ok(PipelineDecl {
            name,
            env,
            models,
            sources,
            span: self.since(kw),
        })
    }

    /// `name [: func( key: value, .. )]` in a pipeline's `sources` block.
    fn source_override(&mut self) -> PResult<SourceOverride> {
        let source = self.ident("a source name or '}'")?;
        let mut func = None;
        let mut args = Vec::new();
        if self.eat_sym(":").is_some() {
            let (name, _, span) = self.any_text("an override such as from(dataset: \"..\")")?;
            func = Some(Ident {
                name: name.into(),
                span,
            });
            self.expect_sym("(", "after the override function")?;
            while self.eat_sym(")").is_none() {
                let key = self.ident("an argument name or ')'")?;
                self.expect_sym(":", Lazy(|| format!("after '{}'", key.name)))?;
                let (value, quoted, value_span) =
                    self.any_text(&format!("a value for '{}'", key.name))?;
                args.push(KeyValue {
                    key,
                    value,
                    quoted,
                    value_span,
                });
                self.eat_sym(",");
            }
        }
        Ok(SourceOverride {
            span: self.since(source.span),
            source,
            func,
            args,
        })
    }

    fn test_decl(&mut self) -> PResult<TestDecl> {
        let kw = self.bump();
        let model = self.ident("the name of the model to test")?;
        let name = match self.kind() {
            TokenKind::Str(parts) => {
                let text = crate::lexer::flatten_parts(parts);
                Some((text, self.bump()))
            }
            _ => None,
        };
        if !self.is_sym("{") {
            let f = self.unexpected(&match &name {
                Some(_) => "'{' after the test's name".to_string(),
                None => format!(
                    "'{{' or the test's name (a string) after test model name '{}'",
                    model.name
                ),
            });
            return Err(f);
        }
        self.bump();
        let severity = match self.is_ident("severity") {
            true => Some(self.test_severity()?),
            false => None,
        };
        let mut checks = Vec::new();
        let mut givens = Vec::new();
        loop {
            if self.eat_sym("}").is_some() {
                break;
            }
            let needs_separator = if self.is_kw("expect") {
                let check = self.test_check()?;
                let rows = matches!(check.kind, TestCheckKind::Rows { .. });
                checks.push(check);
                !rows
            } else if self.is_ident("given") {
                givens.push(self.given()?);
                false
            } else if self.is_ident("severity") {
                return Err(self
                    .unexpected("'expect', 'given' or '}' in test body")
                    .with_help("`severity:` comes first in a test body, once"));
            } else {
                let f = self.unexpected("'expect', 'given' or '}' in test body");
                return Err(match self.kind() {
                    TokenKind::Ident(w) if close_words(w, &["given"]).len() == 1 => {
                        f.with_help("did you mean 'given'?")
                    }
                    _ => f,
                });
            };
            if self.eat_sym(";").is_none()
                && needs_separator
                && !self.is_kw("expect")
                && !self.is_ident("given")
                && !self.is_ident("severity")
                && !self.is_sym("}")
            {
                return Err(self.unexpected("';' after the check"));
            }
        }
        Ok(TestDecl {
            model,
            name,
            checks,
            givens,
            severity,
            span: self.since(kw),
        })
    }

    /// `severity: warn|error` at the start of a test body, and its `;`.
    fn test_severity(&mut self) -> PResult<(Severity, Span)> {
        let start = self.bump();
        self.expect_sym(":", "after 'severity'")?;
        let tok = self.peek().clone();
        let value = self.ident("'warn' or 'error' after 'severity:'")?;
        let Some(severity) = Severity::ALL
            .into_iter()
            .find(|s| s.as_str() == value.name.as_str())
        else {
            return Err(self
                .fail_at(&tok, format!("unknown test severity '{}'", crate::lexer::shorten(&value.name, 40)))
                .with_help("a test's severity is `warn` (a failure is reported and never blocks publishing) or `error` (the default: a failure stops the run)"));
        };
        let span = self.since(start);
        self.eat_sym(";");
        Ok((severity, span))
    }

    /// `given input [(col, ..)] { rows }`.
    fn given(&mut self) -> PResult<Given> {
        let kw = self.bump();
        let input =
            self.ident("the name of a source or model the tested model reads, after 'given'")?;
        let (columns, rows) = self.fixture_block(Lazy(|| format!("given {}", input.name)))?;
        Ok(Given {
            input,
            columns,
            rows,
            span: self.since(kw),
        })
    }

    /// `[(col, ..)] { (v, ..) .. }` after `given input` or `expect rows`
    /// (`what`): the column list and the rows. Rows need the column list.
    fn fixture_block(&mut self, what: impl Text) -> PResult<(Option<Vec<Ident>>, Vec<FixtureRow>)> {
        let what = what.text();
        let columns = if self.eat_sym("(").is_some() {
            let mut cols = vec![self.ident("a column name")?];
            while self.eat_sym(",").is_some() {
                if self.is_sym(")") {
                    break;
                }
                cols.push(self.ident("a column name")?);
            }
            self.expect_sym(")", "or ',' in the column list")?;
            Some(cols)
        } else {
            None
        };
        if !self.is_sym("{") {
            let f = self.unexpected(&match columns {
                Some(_) => format!("'{{' and the rows of '{what}'"),
                None => format!("'(' and the column list, or '{{}}' for no rows, after '{what}'"),
            });
            return Err(f);
        }
        self.bump();
        let mut rows = Vec::new();
        loop {
            if self.eat_sym("}").is_some() {
                break;
            }
            if !self.is_sym("(") {
                return Err(self.unexpected("a row '( .. )' or '}'"));
            }
            if columns.is_none() {
                let f = self.unexpected(&format!(
                    "'}}' ('{what}' lists no columns, so it takes no rows)"
                ));
                return Err(f.with_help(format!(
                    "name the columns the rows give before the braces: {what}(col_a, col_b) {{ (1, \"x\") }}"
                )));
            }
            rows.push(self.fixture_row()?);
            self.eat_sym(",");
        }
        Ok((columns, rows))
    }

    /// `(v, ..)`: one row of literal values.
    pub(super) fn fixture_row(&mut self) -> PResult<FixtureRow> {
        let open = self.bump();
        let mut values = Vec::new();
        loop {
            if self.eat_sym(")").is_some() {
                break;
            }
            values.push(self.fixture_value()?);
            if self.eat_sym(",").is_none() {
                self.expect_sym(")", "or ',' in the row")?;
                break;
            }
        }
        Ok(FixtureRow {
            values,
            span: self.since(open),
        })
    }

    /// A literal value of a fixture row: a number (a `-` may precede it),
    /// a string, `true`, `false`, `null` or `[v, ..]`.
    fn fixture_value(&mut self) -> PResult<FixtureValue> {
        self.enter()?;
        let r = self.fixture_value_inner();
        self.leave();
        r
    }

    fn fixture_value_inner(&mut self) -> PResult<FixtureValue> {
        let start = self.peek().span;
        let kind = match self.kind().clone() {
            TokenKind::Int(v) => {
                self.bump();
                FixtureValueKind::Int(v)
            }
            TokenKind::Float(_, _) => {
                let text = self.slice_text(start);
                self.bump();
                FixtureValueKind::Float(text)
            }
            TokenKind::Sym("-") => {
                self.bump();
                let num = self.peek().span;
                match self.kind().clone() {
                    TokenKind::Int(v) => {
                        self.bump();
                        FixtureValueKind::Int(-v)
                    }
                    TokenKind::Float(_, _) => {
                        let text = self.slice_text(num);
                        self.bump();
                        FixtureValueKind::Float(format!("-{text}"))
                    }
                    _ => return Err(self.unexpected("a number after '-'")),
                }
            }
            TokenKind::Str(parts) => {
                self.bump();
                FixtureValueKind::Str(crate::lexer::raw_parts(&parts))
            }
            TokenKind::Keyword("true") => {
                self.bump();
                FixtureValueKind::Bool(true)
            }
            TokenKind::Keyword("false") => {
                self.bump();
                FixtureValueKind::Bool(false)
            }
            TokenKind::Keyword("null") => {
                self.bump();
                FixtureValueKind::Null
            }
            TokenKind::Sym("[") => {
                self.bump();
                let mut items = Vec::new();
                loop {
                    if self.eat_sym("]").is_some() {
                        break;
                    }
                    items.push(self.fixture_value()?);
                    if self.eat_sym(",").is_none() {
                        self.expect_sym("]", "or ',' in the list")?;
                        break;
                    }
                }
                FixtureValueKind::List(items)
            }
            other => {
                let f = self.unexpected("a value (a number, a string, true, false, null or [..])");
                let call = self.is_sym_at(1, "(");
                return Err(match other {
                    TokenKind::Ident(_) | TokenKind::TypeKeyword(_) if call => f.with_help(
                        "fixture rows hold literals only: write a date \"2024-01-31\", a timestamp \"2024-01-31 08:30:00\"",
                    ),
                    TokenKind::Ident(w) => {
                        f.with_help(format!("a string is quoted: \"{}\"", crate::lexer::shorten(w, 40)))
                    }
                    _ => f,
                });
            }
        };
        Ok(FixtureValue {
            kind,
            span: self.since(start),
        })
    }

    /// The source text of a token's span.
    fn slice_text(&self, span: Span) -> String {
        self.text.get(span.range()).unwrap_or("").to_string()
    }

    fn test_check(&mut self) -> PResult<TestCheck> {
        let kw = self.bump();
        let target = self.ident("'row_count', 'rows' or a column name after 'expect'")?;
        if target.name == "rows" && (self.is_sym("(") || self.is_sym("{")) {
            let (columns, rows) = self.fixture_block("expect rows")?;
            return Ok(TestCheck {
                span: self.since(kw),
                target,
                kind: TestCheckKind::Rows { columns, rows },
            });
        }
        let op_tok = self.peek().clone();
        let op = match &op_tok.kind {
            TokenKind::Sym("==") => CompareOp::Eq,
            TokenKind::Sym("!=") => CompareOp::Ne,
            TokenKind::Sym("<") => CompareOp::Lt,
            TokenKind::Sym("<=") => CompareOp::Le,
            TokenKind::Sym(">") => CompareOp::Gt,
            TokenKind::Sym(">=") => CompareOp::Ge,
            TokenKind::Keyword("in") => {
                self.bump();
                let model = self.ident("a model name after 'in'")?;
                self.expect_sym(".", "between the model and the column (model.column)")?;
                let column = self.ident("a column name")?;
                return Ok(TestCheck {
                    span: self.since(kw),
                    target,
                    kind: TestCheckKind::In { model, column },
                });
            }
            _ => {
                let f = self.unexpected(&format!(
                    "a comparison operator (==, !=, <, <=, >, >=) or 'in' after 'expect {}'",
                    target.name
                ));
                return Err(if self.is_sym("=") {
                    f.with_help("use '==' to test equality")
                } else {
                    f
                });
            }
        };
        self.bump();
        let lit_tok = self.peek().clone();
        let kind = match &lit_tok.kind {
            TokenKind::Int(v) => TestLitKind::Int(*v),
            TokenKind::Float(v, t) => TestLitKind::Float(*v, t.to_string()),
            TokenKind::Str(parts) => TestLitKind::Str(crate::lexer::flatten_parts(parts)),
            TokenKind::Keyword("true") => TestLitKind::Bool(true),
            TokenKind::Keyword("false") => TestLitKind::Bool(false),
            TokenKind::Keyword("null") => TestLitKind::Null,
            _ => {
                let f = self.unexpected(&format!(
                    "a literal (number, string, true, false or null) after '{} {}' in expect",
                    target.name,
                    op.symbol()
                ));
                return Err(if self.is_sym("-") {
                    f.with_help("negative literals are not supported in test checks")
                } else {
                    f
                });
            }
        };
        self.bump();
        Ok(TestCheck {
            span: self.since(kw),
            target,
            kind: TestCheckKind::Compare {
                op,
                value: TestLit {
                    kind,
                    span: lit_tok.span,
                },
            },
        })
    }

    fn fn_decl(&mut self) -> PResult<FnDecl> {
        let kw = self.bump();
        let name = self.ident("a function name")?;
        self.expect_sym("(", Lazy(|| format!("after function name '{}'", name.name)))?;
        let mut params = Vec::new();
        if self.eat_sym(")").is_none() {
            loop {
                let p = self.ident("a parameter name")?;
                self.expect_sym(":", Lazy(|| format!("after parameter '{}'", p.name)))?;
                let t = self.fn_type()?;
                params.push((p, t));
                if self.eat_sym(",").is_some() {
                    continue;
                }
                self.expect_sym(")", "or ',' in the parameter list")?;
                break;
            }
        }
        self.expect_sym("->", "and a return type after the parameters")?;
        let ret = self.fn_type()?;
        let (body, braced) = if self.eat_sym("{").is_some() {
            let e = self.expr()?;
            self.expect_sym("}", "to close the function body")?;
            (e, true)
        } else {
            (self.expr()?, false)
        };
        Ok(FnDecl {
            name,
            params,
            ret,
            body,
            braced,
            span: self.since(kw),
        })
    }

    /// `List<T>`, a type keyword or an identifier (never checked).
    fn fn_type(&mut self) -> PResult<FnType> {
        self.enter()?;
        let r = self.fn_type_inner();
        self.leave();
        r
    }

    fn fn_type_inner(&mut self) -> PResult<FnType> {
        match self.kind().clone() {
            TokenKind::Ident(n) => {
                let start = self.bump();
                if n == "List" && self.is_sym("<") {
                    self.bump();
                    let inner = self.fn_type()?;
                    self.expect_sym(">", "to close List<..>")?;
                    return Ok(FnType {
                        text: format!("List<{}>", inner.text),
                        span: self.since(start),
                    });
                }
                Ok(FnType {
                    text: crate::ident::written(n).into_owned(),
                    span: start,
                })
            }
            TokenKind::TypeKeyword(k) => {
                let span = self.bump();
                Ok(FnType {
                    text: k.to_string(),
                    span,
                })
            }
            _ => Err(self.unexpected("a type")),
        }
    }
}
