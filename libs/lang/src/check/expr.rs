//! Typing expressions: literals, operators, unification, casts and calls
//! against the function catalog.

use strata_codes as codes;

use crate::ast::{Arg, BinOp, Call, Expr, ExprKind, Nulls, UnaryOp, WindowKey};
use crate::catalog::{self, ArgKind, Function, Returns};
use crate::diag::Diagnostic;
use crate::ir::{Literal, SortKey, TCall, TExpr, TExprKind, TWindow};
use crate::span::Span;
use crate::types::{unify_all, Type};

use super::model::ModelChecker;
use super::scope::{merge, Sources};

/// The type of a checked expression.
#[derive(Clone, Debug)]
pub struct Ty {
    pub ty: Type,
    pub nullable: bool,
    /// `(input, column)` pairs the value reads (lineage).
    pub sources: Sources,
    /// Whether the value contains an aggregate call (outside windows).
    pub aggregate: bool,
    /// The resolved expression (its type is `ty`/`nullable`).
    pub node: TExprKind,
}

impl Ty {
    pub fn new(ty: Type, nullable: bool) -> Ty {
        Ty {
            ty,
            nullable,
            sources: Sources::default(),
            aggregate: false,
            node: TExprKind::Lit(Literal::Null),
        }
    }

    pub fn with_node(mut self, node: TExprKind) -> Ty {
        self.node = node;
        self
    }

    /// The typed expression this value is. It is moved out (a value's tree
    /// goes into exactly one place of the IR): `node` is left empty.
    pub fn texpr(&mut self) -> TExpr {
        TExpr {
            kind: std::mem::replace(&mut self.node, TExprKind::Lit(Literal::Null)),
            ty: self.ty.clone(),
            nullable: self.nullable,
        }
    }
}

/// Where an expression appears; decides whether windows are allowed and
/// names the place in E065 messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A select/derive/aggregate output outside a group body: windows allowed.
    Output,
    Filter,
    Let,
    Sort,
    GroupKey,
    Join,
    Dedup,
    /// Arguments of an aggregate output inside a group body.
    GroupBody,
}

impl Place {
    fn name(self) -> &'static str {
        match self {
            Place::Output => "select/derive/aggregate outputs",
            Place::Filter => "filter",
            Place::Let => "let",
            Place::Sort => "sort",
            Place::GroupKey => "group key",
            Place::Join => "join condition",
            Place::Dedup => "dedup by",
            Place::GroupBody => "group body",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct ExprCtx {
    pub place: Place,
    pub in_window: bool,
}

impl ExprCtx {
    pub fn at(place: Place) -> ExprCtx {
        ExprCtx {
            place,
            in_window: false,
        }
    }
}

impl ModelChecker<'_> {
    /// Type an expression. `None` means an error was reported inside it (or it
    /// depends on something that already failed); callers stay silent then.
    pub fn infer(&mut self, e: &Expr, ctx: ExprCtx) -> Option<Ty> {
        match &e.kind {
            ExprKind::Int(v) => {
                Some(Ty::new(Type::Int64, false).with_node(TExprKind::Lit(Literal::Int(*v))))
            }
            ExprKind::Float(_, text) => Some(
                Ty::new(Type::Float64, false)
                    .with_node(TExprKind::Lit(Literal::Float(text.clone()))),
            ),
            ExprKind::Str(v) => Some(
                Ty::new(Type::String, false).with_node(TExprKind::Lit(Literal::Str(v.clone()))),
            ),
            ExprKind::Bool(v) => {
                Some(Ty::new(Type::Bool, false).with_node(TExprKind::Lit(Literal::Bool(*v))))
            }
            ExprKind::Null => {
                Some(Ty::new(Type::Unknown, true).with_node(TExprKind::Lit(Literal::Null)))
            }
            ExprKind::Template(_) => {
                self.error(
                    Diagnostic::new(
                        &codes::E055,
                        e.span,
                        "string interpolation `${...}` is only allowed in fn bodies, not in a model expression",
                    )
                    .with_help("write a plain string literal, or build the text with concat(...)"),
                );
                None
            }
            ExprKind::List(_) | ExprKind::Comprehension { .. } => {
                self.error(
                    Diagnostic::new(
                        &codes::E055,
                        e.span,
                        "list values are only allowed in fn bodies, not in a model expression",
                    )
                    .with_help("to test membership write `x == a or x == b`; for an array value use array_construct(...)"),
                );
                None
            }
            ExprKind::Model(_) => {
                self.error(Diagnostic::new(
                    &codes::E055,
                    e.span,
                    "a model value is only allowed in fn bodies, not in a model expression",
                ));
                None
            }
            ExprKind::Star => {
                self.error(
                    Diagnostic::new(&codes::E064, e.span, "'*' is only valid as count(*)")
                        .with_label("stray `*`"),
                );
                None
            }
            ExprKind::Column { qualifier, name } => {
                let entry = self.resolve_column(qualifier.as_ref(), name)?;
                Some(entry)
            }
            ExprKind::Unary { op, operand } => {
                let mut t = self.infer(operand, ctx)?;
                self.unary_operand(*op, &t.ty, e.span)?;
                let node = TExprKind::Unary {
                    op: *op,
                    operand: Box::new(t.texpr()),
                };
                Some(
                    match op {
                        UnaryOp::Not => Ty {
                            ty: Type::Bool,
                            ..t
                        },
                        UnaryOp::Neg => t,
                    }
                    .with_node(node),
                )
            }
            ExprKind::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => {
                let l = self.infer(lhs, ctx);
                let r = self.infer(rhs, ctx);
                let (l, r) = (l?, r?);
                self.binary(*op, *op_span, e.span, l, r)
            }
            ExprKind::Call(call) => self.call(call, e.span, ctx),
        }
    }

    fn binary(&mut self, op: BinOp, op_span: Span, span: Span, l: Ty, r: Ty) -> Option<Ty> {
        let (ty, nullable) =
            self.binary_type(op, op_span, span, &l.ty, &r.ty, l.nullable || r.nullable)?;
        let aggregate = l.aggregate || r.aggregate;
        let mut sources = l.sources;
        merge(&mut sources, &r.sources);
        let node = TExprKind::Binary {
            op,
            lhs: Box::new(TExpr {
                kind: l.node,
                ty: l.ty,
                nullable: l.nullable,
            }),
            rhs: Box::new(TExpr {
                kind: r.node,
                ty: r.ty,
                nullable: r.nullable,
            }),
        };
        Some(Ty {
            ty,
            nullable,
            sources,
            aggregate,
            node,
        })
    }

    /// The result type and nullability of `lt op rt`, or `None` after
    /// reporting why the operation is invalid.
    fn binary_type(
        &mut self,
        op: BinOp,
        op_span: Span,
        span: Span,
        lt: &Type,
        rt: &Type,
        nullable: bool,
    ) -> Option<(Type, bool)> {
        let mk = |ty: Type, nullable: bool| (ty, nullable);
        if op.is_comparison() {
            if lt.is_unknown() || rt.is_unknown() {
                return Some(mk(Type::Bool, true));
            }
            if (lt.is_numeric() && rt.is_numeric()) || lt == rt {
                return Some(mk(Type::Bool, nullable));
            }
            let mut d =
                Diagnostic::new(&codes::E051, span, format!("cannot compare {lt} with {rt}"))
                    .with_secondary(
                        op_span,
                        format!("`{}` needs comparable operands", op.symbol()),
                    );
            if matches!(lt, Type::Money(_)) && rt.is_numeric() {
                d = d.with_help(format!(
                    "money is not numeric in comparisons; cast the number: cast(<n>, \"money\"), or compare with a money column of currency {}",
                    match lt {
                        Type::Money(c) => c.as_str(),
                        _ => "USD",
                    }
                ));
            } else if matches!(rt, Type::Money(_)) && lt.is_numeric() {
                d = d.with_help(
                    "money is not numeric in comparisons; cast the number: cast(<n>, \"money\")",
                );
            } else if (*lt == Type::TimestampTz && rt.is_temporal())
                || (*rt == Type::TimestampTz && lt.is_temporal())
            {
                d = d.with_help(
                    "a timestamptz is an instant, a timestamp a wall-clock time: convert one side, \
                     to_utc(x) or at_time_zone(x, \"Europe/Madrid\") for a timestamp, \
                     from_utc(t) for a timestamptz",
                );
            }
            self.error(d);
            return None;
        }
        match op {
            BinOp::And | BinOp::Or => {
                if *lt == Type::Bool && *rt == Type::Bool {
                    return Some(mk(Type::Bool, nullable));
                }
                self.error(
                    Diagnostic::new(
                        &codes::E052,
                        span,
                        format!(
                            "'{}' requires bool operands, got {lt} and {rt}",
                            op.symbol()
                        ),
                    )
                    .with_secondary(op_span, "this operator"),
                );
                None
            }
            BinOp::Concat => {
                if *lt == Type::String && *rt == Type::String {
                    return Some(mk(Type::String, nullable));
                }
                self.unsupported(op, op_span, span, lt, rt)
            }
            BinOp::Add if *lt == Type::String && *rt == Type::String => {
                Some(mk(Type::String, nullable))
            }
            _ => match arithmetic(op, lt, rt) {
                Ok(t) => Some(mk(t, nullable)),
                Err(Some(msg)) => {
                    self.error(
                        Diagnostic::new(&codes::E053, span, msg)
                            .with_secondary(op_span, "this operator")
                            .with_help("convert one side with cast(x, \"money(EUR)\")-style domains upstream, or keep one currency per expression"),
                    );
                    None
                }
                Err(None) => self.unsupported(op, op_span, span, lt, rt),
            },
        }
    }

    /// `-x` needs a number or money (`null` too). The reference leaves the
    /// operand unchecked and then cannot compile it; we report it here, at
    /// its span. (`not x` on a non-bool is kept: the SQL reads it as
    /// `not (x <> 0)`, like any non-bool condition.)
    fn unary_operand(&mut self, op: UnaryOp, t: &Type, span: Span) -> Option<()> {
        if op == UnaryOp::Not || t.is_numeric_arg() || t.is_unknown() {
            return Some(());
        }
        self.error(
            Diagnostic::new(
                &codes::E053,
                span,
                format!("unary minus needs a number or money, got {t}"),
            )
            .with_help("negate a numeric value; to reverse a sort order write `sort { x desc }`"),
        );
        None
    }

    fn unsupported<T>(
        &mut self,
        op: BinOp,
        op_span: Span,
        span: Span,
        lt: &Type,
        rt: &Type,
    ) -> Option<T> {
        let mut d = Diagnostic::new(
            &codes::E053,
            span,
            format!("unsupported operation {} on {lt} and {rt}", op.symbol()),
        )
        .with_secondary(op_span, "this operator");
        if matches!(lt, Type::Money(_)) || matches!(rt, Type::Money(_)) {
            d = d.with_help("money only adds to, subtracts from and divides by money of the same currency; multiply by a number, or cast the number: cast(1, \"money\")");
        } else if lt.is_temporal() || rt.is_temporal() {
            d = d.with_help("use date_add(d, days: n), date_sub(...) or date_diff(a, b, day) for date arithmetic");
        }
        self.error(d);
        None
    }

    /// Resolve and type a call (catalog functions, `cast`, windows).
    fn call(&mut self, call: &Call, span: Span, ctx: ExprCtx) -> Option<Ty> {
        let name = call.name.name.as_str();
        if name == "cast" {
            return self.cast(call, span, ctx);
        }
        let Some(func) = catalog::lookup(name) else {
            // Still check the arguments, for their own errors.
            for a in &call.args {
                let _ = self.infer(&a.value, ctx);
            }
            let mut d = Diagnostic::new(
                &codes::E059,
                call.name.span,
                format!("unknown function '{name}'"),
            );
            if let Some(s) =
                crate::suggest::closest(name, catalog::functions().map(|f| f.name).chain(["cast"]))
            {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            self.error(d);
            return None;
        };

        // Window placement.
        let mut arg_ctx = ctx;
        let mut window = None;
        if let Some(w) = &call.over {
            if ctx.in_window {
                self.error(Diagnostic::new(
                    &codes::E065,
                    w.span,
                    "a window cannot appear inside a window",
                ));
                return None;
            }
            if ctx.place != Place::Output {
                let msg = if ctx.place == Place::GroupBody {
                    format!("aggregate {name}() cannot take over(...) inside a group body")
                } else {
                    format!(
                        "over(...) is only allowed in select/derive/aggregate outputs, not in {} (found {name})",
                        ctx.place.name()
                    )
                };
                self.error(
                    Diagnostic::new(&codes::E065, w.span, msg)
                        .with_help("compute the window in a select of an upstream model, then filter or sort on that column downstream"),
                );
                return None;
            }
            if !func.window {
                let windowed: Vec<&str> = catalog::functions()
                    .filter(|f| f.window)
                    .map(|f| f.name)
                    .collect();
                self.error(Diagnostic::new(
                    &codes::E065,
                    w.span,
                    format!(
                        "{name}() is not a window function: only {} take over(...)",
                        windowed.join(", ")
                    ),
                ));
                return None;
            }
            if name == "count"
                && call
                    .args
                    .iter()
                    .any(|a| matches!(a.value.kind, ExprKind::Star))
            {
                self.error(
                    Diagnostic::new(&codes::E064, span, "count(*) cannot take over(...)")
                        .with_help("write count() over (...)"),
                );
                return None;
            }
            if call.distinct {
                self.error(Diagnostic::new(
                    &codes::E096,
                    span,
                    "count(distinct x) cannot take over(...)",
                ));
                return None;
            }
            arg_ctx.in_window = true;
            let mut ok = true;
            let mut partition_by = Vec::new();
            let mut sort = Vec::new();
            for p in &w.partition_by {
                match self.infer(p, arg_ctx) {
                    Some(mut t) => partition_by.push(t.texpr()),
                    None => ok = false,
                }
            }
            for k in &w.sort {
                match self.infer(&k.expr, arg_ctx) {
                    Some(mut t) => sort.push(SortKey {
                        expr: t.texpr(),
                        desc: k.desc,
                        nulls_first: k.nulls == Some(Nulls::First),
                    }),
                    None => ok = false,
                }
            }
            if !ok {
                return None;
            }
            let frame = match &w.frame {
                Some(f) => match super::frame::check(func, f, &sort) {
                    Ok(f) => Some(f),
                    Err(d) => {
                        self.error(d);
                        return None;
                    }
                },
                None => None,
            };
            window = Some(Box::new(TWindow {
                partition_by,
                sort,
                frame,
            }));
        } else if func.window && !func.aggregate {
            self.error(
                Diagnostic::new(
                    &codes::E065,
                    span,
                    format!("{name}() is a window function: it needs over(...)"),
                )
                .with_help(format!(
                    "say which rows it runs over, e.g. `{name}() over (partition_by: [k], sort: [x])`"
                )),
            );
            return None;
        } else if func.aggregate && !self.in_group {
            self.error(
                Diagnostic::new(
                    &codes::E056,
                    span,
                    format!("aggregate {name}() only allowed inside group body"),
                )
                .with_help("aggregate inside `group { keys } ( aggregate { n = count() } )`, or use a window: count() over (partition_by: [k])"),
            );
            return None;
        }

        // distinct and keyword arguments.
        if call.distinct {
            if name != "count" {
                self.error(Diagnostic::new(
                    &codes::E096,
                    span,
                    format!("distinct is only allowed in count(distinct x), not in {name}()"),
                ));
                return None;
            }
            if call.args.len() != 1 || matches!(call.args[0].value.kind, ExprKind::Star) {
                self.error(Diagnostic::new(
                    &codes::E096,
                    span,
                    "count(distinct ...) takes exactly one expression (not *)",
                ));
                return None;
            }
        }
        let order = self.call_order(func, call, span, arg_ctx)?;
        let is_date_add = name == "date_add" || name == "date_sub";
        if !is_date_add {
            if let Some(a) = call.args.iter().find(|a| a.name.is_some()) {
                let at = a
                    .name
                    .as_ref()
                    .map_or(a.value.span, |n| n.span.to(a.value.span));
                self.error(Diagnostic::new(
                    &codes::E072,
                    at,
                    "keyword arguments are only allowed as date_add/date_sub units",
                ));
                return None;
            }
        }

        // Arity.
        let nargs = call.args.len();
        let star_count =
            name == "count" && nargs == 1 && matches!(call.args[0].value.kind, ExprKind::Star);
        if nargs < func.min_args || func.max_args.is_some_and(|m| nargs > m) {
            self.error(
                Diagnostic::new(
                    &codes::E062,
                    span,
                    format!("{name}() {}", func.arity_text()),
                )
                .with_help(format!("{}: {}", func.signature, func.summary)),
            );
            return None;
        }
        if name == "json_build" && !nargs.is_multiple_of(2) {
            self.error(Diagnostic::new(
                &codes::E062,
                span,
                "json_build() takes key, value pairs (an even number of arguments)",
            ));
            return None;
        }

        // Arguments.
        let mut args: Vec<Ty> = Vec::with_capacity(nargs);
        let mut failed = false;
        for a in &call.args {
            if star_count {
                args.push(Ty::new(Type::Unknown, false));
                continue;
            }
            match self.infer(&a.value, arg_ctx) {
                Some(t) => args.push(t),
                None => failed = true,
            }
        }
        if failed {
            return None;
        }
        let mut sources = Sources::default();
        for a in &args {
            merge(&mut sources, &a.sources);
        }
        let sort = order
            .into_iter()
            .map(|(mut t, key)| {
                merge(&mut sources, &t.sources);
                SortKey {
                    expr: t.texpr(),
                    desc: key.desc,
                    nulls_first: key.nulls == Some(Nulls::First),
                }
            })
            .collect();
        let ty = self.call_result(func, call, span, &args)?;
        let aggregate = (func.aggregate && call.over.is_none()) || args.iter().any(|a| a.aggregate);
        let node = {
            let targs = if star_count {
                vec![TExpr {
                    kind: TExprKind::Star,
                    ty: Type::Unknown,
                    nullable: false,
                }]
            } else {
                args.iter_mut().map(Ty::texpr).collect()
            };
            let unit = if is_date_add {
                call.args
                    .get(1)
                    .and_then(|a| a.name.as_ref())
                    .map(|n| n.name.clone())
            } else {
                None
            };
            TExprKind::Call(Box::new(TCall {
                name: crate::Name::new(name),
                distinct: call.distinct,
                args: targs,
                unit,
                window,
                sort,
            }))
        };
        Some(Ty {
            sources,
            aggregate,
            node,
            ..ty
        })
    }

    /// The typed keys of an ordered aggregate's `sort: [..]`, which it
    /// needs (without one, the engine's reading order would decide the
    /// result); E072 for a sort on any other function.
    fn call_order<'c>(
        &mut self,
        func: &Function,
        call: &'c Call,
        span: Span,
        ctx: ExprCtx,
    ) -> Option<Vec<(Ty, &'c WindowKey)>> {
        let name = func.name;
        let Some(sort) = &call.sort else {
            if func.ordered {
                self.error(
                    Diagnostic::new(
                        &codes::E072,
                        span,
                        format!("{name}() needs sort: [..], the order of its values"),
                    )
                    .with_help(format!(
                        "without one, the order the engine reads the rows in would decide the result: `{}`",
                        func.example
                    )),
                );
                return None;
            }
            return Some(Vec::new());
        };
        if !func.ordered {
            let ordered: Vec<&str> = catalog::functions()
                .filter(|f| f.ordered)
                .map(|f| f.name)
                .collect();
            let mut d = Diagnostic::new(
                &codes::E072,
                sort.span,
                format!(
                    "{name}() takes no sort: [..] (only {} take one: the order of their values)",
                    ordered.join(", ")
                ),
            );
            if func.window {
                d = d.with_help(format!(
                    "to order the rows of a window, write `{name}(..) over (sort: [..])`"
                ));
            }
            self.error(d);
            return None;
        }
        if sort.keys.is_empty() {
            self.error(Diagnostic::new(
                &codes::E072,
                sort.span,
                format!("{name}() sort: [..] needs at least one key"),
            ));
            return None;
        }
        let mut keys = Vec::with_capacity(sort.keys.len());
        let mut ok = true;
        for k in &sort.keys {
            match self.infer(&k.expr, ctx) {
                Some(t) => keys.push((t, k)),
                None => ok = false,
            }
        }
        ok.then_some(keys)
    }

    /// The one type of `values` (unknown when all are), or E058 naming
    /// `what` when two differ.
    fn unified<'v>(
        &mut self,
        values: impl Iterator<Item = &'v Ty>,
        nullable: bool,
        span: Span,
        what: &str,
    ) -> Option<Ty> {
        match unify_all(values.map(|v| &v.ty)) {
            Ok(t) => Some(Ty::new(t.unwrap_or(Type::Unknown), nullable)),
            Err((a, b)) => {
                self.error(Diagnostic::new(
                    &codes::E058,
                    span,
                    format!("{what} mismatch ({a}, {b})"),
                ));
                None
            }
        }
    }

    /// Special validators, argument kinds and the result type of a call whose
    /// arguments are typed.
    fn call_result(&mut self, func: &Function, call: &Call, span: Span, args: &[Ty]) -> Option<Ty> {
        let name = func.name;
        let arg_span = |i: usize| call.args.get(i).map_or(span, |a| a.value.span);
        let any_null = args.iter().any(|a| a.nullable);
        // Only the first argument's type and nullability (not its tree).
        let a1 = args.first().map(|a| Ty::new(a.ty.clone(), a.nullable));

        match name {
            "coalesce" => {
                let nullable = args.iter().all(|a| a.nullable);
                return self.unified(args.iter(), nullable, span, "coalesce() type");
            }
            "if" => {
                self.condition(&args[0], arg_span(0), "if")?;
                let nullable = args[1].nullable || args[2].nullable;
                return self.unified(args[1..3].iter(), nullable, span, "if() branch type");
            }
            "case" => {
                let has_else = args.len() % 2 == 1;
                let pairs = args.len() / 2;
                let mut values: Vec<&Ty> = Vec::new();
                for i in 0..pairs {
                    self.condition(&args[2 * i], arg_span(2 * i), "case")?;
                    values.push(&args[2 * i + 1]);
                }
                if has_else {
                    values.push(&args[args.len() - 1]);
                }
                let nullable = !has_else || values.iter().any(|v| v.nullable);
                return self.unified(values.into_iter(), nullable, span, "case() value type");
            }
            "greatest" | "least" => {
                // Nulls are skipped: null only when every argument is.
                let nullable = args.iter().all(|a| a.nullable);
                return self.unified(
                    args.iter(),
                    nullable,
                    span,
                    &format!("{name}() argument type"),
                );
            }
            "mod" => {
                for (i, a) in args.iter().enumerate() {
                    if !a.ty.is_unknown() && !a.ty.is_numeric_arg() {
                        self.kind_error(name, i, ArgKind::Num, &a.ty, arg_span(i));
                        return None;
                    }
                }
                let ty = match arithmetic(BinOp::Mod, &args[0].ty, &args[1].ty) {
                    Ok(t) => t,
                    Err(_) => Type::Unknown,
                };
                return Some(Ty::new(ty, any_null));
            }
            "array_agg" => {
                let t = &args[0].ty;
                if t.is_unknown() || matches!(t, Type::Array(_)) {
                    self.error(Diagnostic::new(
                        &codes::E063,
                        arg_span(0),
                        format!(
                            "array_agg() argument must be a non-array, non-null value, got {t}"
                        ),
                    ));
                    return None;
                }
                return Some(Ty::new(Type::Array(Box::new(t.clone())), true));
            }
            "array_construct" | "list" => {
                return match unify_all(args.iter().map(|a| &a.ty)) {
                    Ok(Some(t)) if is_array_element(&t) => {
                        if args.iter().all(|a| a.ty.is_unknown() || a.ty == t) {
                            Some(Ty::new(Type::Array(Box::new(t)), false))
                        } else {
                            self.error(Diagnostic::new(
                                &codes::E063,
                                span,
                                format!("{name}() elements must all have the same type"),
                            ));
                            None
                        }
                    }
                    Ok(Some(t)) => {
                        self.error(Diagnostic::new(
                            &codes::E063,
                            span,
                            format!("{name}() elements must be a supported scalar type, got {t}"),
                        ));
                        None
                    }
                    Ok(None) => {
                        self.error(Diagnostic::new(
                            &codes::E063,
                            span,
                            format!("{name}() needs at least one non-null element"),
                        ));
                        None
                    }
                    Err((a, b)) => {
                        self.error(Diagnostic::new(
                            &codes::E063,
                            span,
                            format!("{name}() elements must all have the same type ({a}, {b})"),
                        ));
                        None
                    }
                };
            }
            "json_build" => {
                for i in (0..call.args.len()).step_by(2) {
                    let ok =
                        matches!(&call.args[i].value.kind, ExprKind::Str(k) if is_simple_key(k));
                    if !ok {
                        self.error(Diagnostic::new(
                            &codes::E074,
                            arg_span(i),
                            "json_build() keys must be string literals matching [A-Za-z_][A-Za-z0-9_]*",
                        ));
                        return None;
                    }
                }
                return Some(Ty::new(Type::Json, true));
            }
            _ => {}
        }

        if name == "string_agg" && !matches!(call.args[1].value.kind, ExprKind::Str(_)) {
            self.error(Diagnostic::new(
                &codes::E063,
                arg_span(1),
                "string_agg() separator must be a string literal, e.g. \", \"",
            ));
            return None;
        }
        if name == "percentile_cont" || name == "percentile_disc" {
            let fraction = match call.args[1].value.kind {
                ExprKind::Int(v) => Some(v as f64),
                ExprKind::Float(v, _) => Some(v),
                _ => None,
            };
            if !fraction.is_some_and(|v| (0.0..=1.0).contains(&v)) {
                self.error(
                    Diagnostic::new(
                        &codes::E063,
                        arg_span(1),
                        format!("{name}() fraction must be a number literal between 0 and 1"),
                    )
                    .with_help(format!("e.g. `{name}(x, 0.9)` for the 90th percentile")),
                );
                return None;
            }
        }
        if name == "strftime" || name == "strptime" {
            // The format is translated for each dialect: a literal of known codes.
            let format = match &call.args[1].value.kind {
                ExprKind::Str(f) if name == "strftime" => catalog::format::parse(f),
                ExprKind::Str(f) => catalog::format::parse_for_reading(f),
                _ => Err(format!(
                    "{name}() format must be a string literal, e.g. \"%Y-%m-%d\""
                )),
            };
            if let Err(why) = format {
                self.error(Diagnostic::new(&codes::E063, arg_span(1), why));
                return None;
            }
        }

        // Collection functions on a null first argument.
        if name.starts_with("array_") && name != "array_prepend" && args[0].ty.is_unknown() {
            self.error(Diagnostic::new(
                &codes::E063,
                arg_span(0),
                format!("{name}() argument 1 must be an array, got null"),
            ));
            return None;
        }
        if name == "array_prepend" && args.get(1).is_some_and(|a| a.ty.is_unknown()) {
            self.error(Diagnostic::new(
                &codes::E063,
                arg_span(1),
                "array_prepend() argument 2 must be an array, got null",
            ));
            return None;
        }

        // Date functions: the unit argument.
        if name == "date_add" || name == "date_sub" {
            if !args[0].ty.is_unknown() && !args[0].ty.is_temporal() {
                self.kind_error(name, 0, ArgKind::Temporal, &args[0].ty, arg_span(0));
                return None;
            }
            let unit = &call.args[1];
            let Some(kw) = &unit.name else {
                self.error(
                    Diagnostic::new(
                        &codes::E072,
                        arg_span(1),
                        format!("{name}() requires a unit kwarg, e.g. days: 1"),
                    )
                    .with_help(format!("write {name}(d, days: 7)")),
                );
                return None;
            };
            if !catalog::DATE_ADD_UNITS.contains(&kw.name.as_str()) {
                self.error(Diagnostic::new(
                    &codes::E071,
                    kw.span,
                    format!(
                        "{name}() unit '{}' is not supported (have: {})",
                        kw.name,
                        catalog::DATE_ADD_UNITS.join(", ")
                    ),
                ));
                return None;
            }
            if !args[1].ty.is_unknown() && args[1].ty != Type::Int64 {
                self.kind_error(name, 1, ArgKind::Int, &args[1].ty, arg_span(1));
                return None;
            }
            return Some(Ty::new(args[0].ty.clone(), any_null));
        }
        if matches!(name, "date_trunc" | "date_diff" | "date_part") {
            let (unit_index, units) = match name {
                "date_trunc" => (1, catalog::DATE_TRUNC_UNITS),
                "date_part" => (1, catalog::DATE_PART_UNITS),
                _ => (2, catalog::DATE_DIFF_UNITS),
            };
            for (i, a) in args.iter().enumerate().take(unit_index) {
                if !a.ty.is_unknown() && !a.ty.is_temporal() {
                    self.kind_error(name, i, ArgKind::Temporal, &a.ty, arg_span(i));
                    return None;
                }
            }
            let ExprKind::Str(unit) = &call.args[unit_index].value.kind else {
                self.error(Diagnostic::new(
                    &codes::E072,
                    arg_span(unit_index),
                    format!("{name}() unit must be a unit word or string, e.g. {name}(..., month)"),
                ));
                return None;
            };
            if !units.contains(&unit.as_str()) {
                self.error(Diagnostic::new(
                    &codes::E071,
                    arg_span(unit_index),
                    format!(
                        "{name}() unit '{unit}' is not supported (have: {})",
                        units.join(", ")
                    ),
                ));
                return None;
            }
            if name == "date_part" {
                return Some(Ty::new(Type::Int64, args[0].nullable));
            }
            if name == "date_trunc" {
                return Some(Ty::new(args[0].ty.clone(), args[0].nullable));
            }
            let (a, b) = (&args[0].ty, &args[1].ty);
            if !a.is_unknown() && !b.is_unknown() && a != b {
                self.error(Diagnostic::new(
                    &codes::E073,
                    span,
                    format!(
                        "date_diff() arguments must have the same temporal type, got {a} and {b}"
                    ),
                ));
                return None;
            }
            return Some(Ty::new(Type::Int64, args[0].nullable || args[1].nullable));
        }

        // JSON keys and paths.
        if matches!(name, "json_get" | "json_value") {
            if let ExprKind::Str(k) = &call.args[1].value.kind {
                if !is_simple_key(k) {
                    self.error(Diagnostic::new(
                        &codes::E074,
                        arg_span(1),
                        format!("{name}() key '{k}' must be a simple identifier; use json_path(j, \"$.a.b\") for nested access"),
                    ));
                    return None;
                }
            }
        }
        if name == "json_path" {
            let ok = matches!(&call.args[1].value.kind, ExprKind::Str(p) if is_simple_json_path(p));
            if !ok {
                self.error(Diagnostic::new(
                    &codes::E074,
                    arg_span(1),
                    "json_path() path must be a string literal like \"$.a.b[0]\" ($ then .name or [n] steps)",
                ));
                return None;
            }
        }

        // Per-argument kinds.
        for (i, a) in args.iter().enumerate() {
            let kind = func.kind_of(i);
            if !a.ty.is_unknown() && !kind_accepts(kind, &a.ty) {
                self.kind_error(name, i, kind, &a.ty, arg_span(i));
                return None;
            }
        }

        // Array element checks and results.
        let elem = |t: &Type| match t {
            Type::Array(e) => Some((**e).clone()),
            _ => None,
        };
        match name {
            "array_contains" | "array_append" | "array_remove" | "array_index_of"
            | "array_prepend" => {
                // The array and the element: array_prepend takes them the other way round.
                let (arr, val) = if name == "array_prepend" {
                    (1, 0)
                } else {
                    (0, 1)
                };
                let e = elem(&args[arr].ty)?;
                let v = &args[val].ty;
                if !v.is_unknown() && *v != e {
                    self.error(Diagnostic::new(
                        &codes::E063,
                        arg_span(val),
                        format!("{name}() argument {} must be {e}, got {v}", val + 1),
                    ));
                    return None;
                }
                return Some(match name {
                    "array_contains" => Ty::new(Type::Bool, any_null),
                    "array_index_of" => Ty::new(Type::Int64, true),
                    _ => Ty::new(args[arr].ty.clone(), true),
                });
            }
            "array_concat" => {
                if !args[1].ty.is_unknown() && args[0].ty != args[1].ty {
                    self.error(Diagnostic::new(
                        &codes::E063,
                        span,
                        format!(
                            "array_concat() arguments must have the same array type, got {} and {}",
                            args[0].ty, args[1].ty
                        ),
                    ));
                    return None;
                }
                return Some(Ty::new(args[0].ty.clone(), any_null));
            }
            "array_sort" => return Some(Ty::new(args[0].ty.clone(), true)),
            "array_get" => return Some(Ty::new(elem(&args[0].ty)?, true)),
            "json_value" => return Some(Ty::new(Type::String, true)),
            "date_diff" => {}
            _ => {}
        }

        let a1 = a1.unwrap_or_else(|| Ty::new(Type::Unknown, true));
        Some(match func.returns {
            Returns::Int64NonNull => Ty::new(Type::Int64, false),
            Returns::Int64A1 => Ty::new(Type::Int64, a1.nullable),
            Returns::Int64Any => Ty::new(Type::Int64, any_null),
            Returns::Float64Any => Ty::new(Type::Float64, any_null),
            Returns::DateA1 => Ty::new(Type::Date, a1.nullable),
            Returns::DateAny => Ty::new(Type::Date, any_null),
            Returns::TimestampAny => Ty::new(Type::Timestamp, any_null),
            Returns::TimestampNullable => Ty::new(Type::Timestamp, true),

            Returns::TimestampTzA1 => Ty::new(Type::TimestampTz, a1.nullable),
            Returns::SumA1 => Ty::new(a1.ty.sum(), a1.nullable),
            Returns::Int64Nullable => Ty::new(Type::Int64, true),
            Returns::Float64A1 => Ty::new(Type::Float64, a1.nullable),
            Returns::StringA1 => Ty::new(Type::String, a1.nullable),
            Returns::StringAny => Ty::new(Type::String, any_null),
            Returns::StringNullable => Ty::new(Type::String, true),
            Returns::StringArrayAny => Ty::new(Type::Array(Box::new(Type::String)), any_null),
            Returns::BoolAny => Ty::new(Type::Bool, any_null),
            Returns::BoolNullable => Ty::new(Type::Bool, true),
            Returns::SameA1 => Ty::new(a1.ty, a1.nullable),
            Returns::SameNullable => Ty::new(a1.ty, true),
            Returns::SameAny => Ty::new(a1.ty, any_null),
            Returns::JsonNullable => Ty::new(Type::Json, true),
            Returns::Special => Ty::new(a1.ty, a1.nullable),
        })
    }

    fn kind_error(&mut self, name: &str, i: usize, kind: ArgKind, got: &Type, span: Span) {
        self.error(Diagnostic::new(
            &codes::E063,
            span,
            format!(
                "{name}() argument {} must be {}, got {got}",
                i + 1,
                kind.describe()
            ),
        ));
    }

    /// `if`/`case` conditions must be bool (E090).
    fn condition(&mut self, t: &Ty, span: Span, func: &str) -> Option<()> {
        if t.ty == Type::Bool || t.ty.is_unknown() {
            return Some(());
        }
        self.error(Diagnostic::new(
            &codes::E090,
            span,
            format!("{func}() condition must be bool, got {}", t.ty),
        ));
        None
    }

    /// `cast(x, "type")`.
    fn cast(&mut self, call: &Call, span: Span, ctx: ExprCtx) -> Option<Ty> {
        if call.over.is_some() {
            self.error(Diagnostic::new(
                &codes::E065,
                span,
                "cast() is not a window function",
            ));
            return None;
        }
        if let Some(Arg { name: Some(n), .. }) = call.args.iter().find(|a| a.name.is_some()) {
            self.error(Diagnostic::new(
                &codes::E072,
                n.span,
                "keyword arguments are only allowed as date_add/date_sub units",
            ));
            return None;
        }
        if call.args.len() != 2 {
            self.error(
                Diagnostic::new(&codes::E062, span, "cast() takes exactly 2 arguments")
                    .with_help("write cast(expr, \"type\"), e.g. cast(amount, \"float64\")"),
            );
            return None;
        }
        let mut value = self.infer(&call.args[0].value, ctx)?;
        let target = &call.args[1].value;
        let ExprKind::Str(type_name) = &target.kind else {
            self.error(
                Diagnostic::new(
                    &codes::E063,
                    target.span,
                    "cast() type must be a string literal naming a type",
                )
                .with_help("write the type in quotes: cast(x, \"int64\")"),
            );
            return None;
        };
        let ty = match self.env.cast_target(type_name) {
            Ok(t) => t,
            Err(msg) => {
                self.error(Diagnostic::new(&codes::E063, target.span, msg));
                return None;
            }
        };
        let node = TExprKind::Cast {
            expr: Box::new(value.texpr()),
            to: ty.clone(),
        };
        Some(Ty {
            ty,
            nullable: value.nullable,
            sources: value.sources,
            aggregate: value.aggregate,
            node,
        })
    }
}

/// Result type of an arithmetic operator; `Err(Some(msg))` for a currency
/// mismatch, `Err(None)` when the operation is unsupported.
fn arithmetic(op: BinOp, l: &Type, r: &Type) -> Result<Type, Option<String>> {
    use Type::*;
    match (l, r) {
        (Money(a), Money(b)) => {
            if a != b {
                return Err(Some(format!(
                    "currency mismatch: {l} vs {r} -- mixed currencies are a compile error"
                )));
            }
            match op {
                BinOp::Div => Ok(Float64),
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Mod => Ok(l.clone()),
                _ => Err(None),
            }
        }
        (Money(_), n) if op == BinOp::Mul && n.is_numeric() => Ok(l.clone()),
        (n, Money(_)) if op == BinOp::Mul && n.is_numeric() => Ok(r.clone()),
        (Money(_), _) | (_, Money(_)) => Err(None),
        _ if l.is_numeric() && r.is_numeric() => {
            if op == BinOp::Div {
                return Ok(Float64);
            }
            Ok(match (l, r) {
                (Int64, Int64) => Int64,
                (Float32, Float32) => Float32,
                _ if l.is_float() || r.is_float() => Float64,
                _ => match (l.as_decimal(), r.as_decimal()) {
                    (Some(a), Some(b)) => decimal_arithmetic(op, a, b),
                    _ => Float64,
                },
            })
        }
        _ => Err(None),
    }
}

/// The exact type of `a op b` for decimals (an int64 is a `decimal(19,0)`),
/// the SQL standard's rule that DuckDB, PostgreSQL (whose numeric is
/// unbounded) and Spark compute within: `+`/`-` keep the larger scale and
/// one more integer digit than the larger operand; `*` adds precisions and
/// scales; `%` is no larger than its smaller operand. Capped at 38 digits
/// ([`crate::types::decimal`]). The SQL casts each result to this type, and
/// widens an operand where an engine would compute in fewer digits.
pub(crate) fn decimal_arithmetic(op: BinOp, (p1, s1): (u32, u32), (p2, s2): (u32, u32)) -> Type {
    let (i1, i2) = (p1.saturating_sub(s1), p2.saturating_sub(s2));
    match op {
        BinOp::Mul => crate::types::decimal(p1 + p2, s1 + s2),
        BinOp::Mod => {
            let s = s1.max(s2);
            crate::types::decimal(i1.min(i2) + s, s)
        }
        _ => {
            let s = s1.max(s2);
            crate::types::decimal(i1.max(i2) + s + 1, s)
        }
    }
}

fn kind_accepts(kind: ArgKind, t: &Type) -> bool {
    match kind {
        ArgKind::Any => true,
        ArgKind::Num => t.is_numeric_arg(),
        ArgKind::Str => *t == Type::String,
        ArgKind::Int => *t == Type::Int64,
        ArgKind::Temporal => t.is_temporal(),
        ArgKind::Json => *t == Type::Json,
        ArgKind::Array => matches!(t, Type::Array(_)),
        ArgKind::Bool => *t == Type::Bool,
        ArgKind::Timestamp => *t == Type::Timestamp,
        ArgKind::TimestampTz => *t == Type::TimestampTz,
    }
}

fn is_array_element(t: &Type) -> bool {
    !matches!(t, Type::Unknown)
}

fn is_simple_key(k: &str) -> bool {
    let mut chars = k.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `$` followed by `.name` or `[n]` steps.
fn is_simple_json_path(p: &str) -> bool {
    let Some(mut rest) = p.strip_prefix('$') else {
        return false;
    };
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if !is_simple_key(&r[..end]) {
                return false;
            }
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else {
                return false;
            };
            if end == 0 || !r[..end].chars().all(|c| c.is_ascii_digit()) {
                return false;
            }
            rest = &r[end + 1..];
        } else {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths() {
        assert!(is_simple_json_path("$"));
        assert!(is_simple_json_path("$.a.b[0]"));
        assert!(!is_simple_json_path("$..a"));
        assert!(!is_simple_json_path("$[*]"));
        assert!(!is_simple_json_path("a.b"));
    }

    #[test]
    fn arithmetic_table() {
        let usd = Type::Money(Box::new("USD".into()));
        let eur = Type::Money(Box::new("EUR".into()));
        assert_eq!(
            arithmetic(BinOp::Add, &Type::Int64, &Type::Int64),
            Ok(Type::Int64)
        );
        assert_eq!(
            arithmetic(BinOp::Div, &Type::Int64, &Type::Int64),
            Ok(Type::Float64)
        );
        assert_eq!(
            arithmetic(BinOp::Add, &Type::Int64, &Type::Float64),
            Ok(Type::Float64)
        );
        // Decimals as DuckDB types them (measured with typeof()):
        // (10,2) + (12,4) is DECIMAL(13,4); (38,2) - (12,4) DECIMAL(38,4);
        // (10,2) + bigint DECIMAL(22,2); (10,2) * bigint DECIMAL(29,2);
        // (20,4) * (20,4) DECIMAL(38,8).
        let dec = |p, s| Type::Decimal(p, s);
        let cases = [
            (BinOp::Add, dec(10, 2), dec(12, 4), dec(13, 4)),
            (BinOp::Sub, dec(38, 2), dec(12, 4), dec(38, 4)),
            (BinOp::Add, dec(10, 2), Type::Int64, dec(22, 2)),
            (BinOp::Mul, dec(10, 2), Type::Int64, dec(29, 2)),
            (BinOp::Mul, dec(16, 4), dec(16, 4), dec(32, 8)),
            (BinOp::Mul, dec(20, 4), dec(20, 4), dec(38, 8)),
            (BinOp::Mod, dec(16, 4), dec(10, 2), dec(12, 4)),
            (BinOp::Div, dec(16, 4), dec(10, 2), Type::Float64),
            (BinOp::Add, dec(10, 2), Type::Float64, Type::Float64),
            (BinOp::Add, Type::Float32, Type::Float32, Type::Float32),
            (BinOp::Mul, Type::Float32, Type::Int64, Type::Float64),
            (BinOp::Add, Type::Float32, Type::Float64, Type::Float64),
        ];
        for (op, l, r, want) in cases {
            assert_eq!(arithmetic(op, &l, &r), Ok(want), "{l} {op:?} {r}");
        }
        // a - b * c of decimal(16,4): b * c is (32,8), then one more digit.
        let bc = arithmetic(BinOp::Mul, &dec(16, 4), &dec(16, 4));
        assert_eq!(bc, Ok(dec(32, 8)));
        assert_eq!(
            arithmetic(BinOp::Sub, &dec(16, 4), &dec(32, 8)),
            Ok(dec(33, 8))
        );
        assert_eq!(
            arithmetic(BinOp::Sub, &Type::TimestampTz, &Type::Timestamp),
            Err(None)
        );
        assert_eq!(arithmetic(BinOp::Add, &usd, &usd), Ok(usd.clone()));
        assert_eq!(arithmetic(BinOp::Div, &usd, &usd), Ok(Type::Float64));
        assert_eq!(arithmetic(BinOp::Mul, &Type::Int64, &usd), Ok(usd.clone()));
        assert_eq!(arithmetic(BinOp::Add, &usd, &Type::Int64), Err(None));
        assert!(matches!(arithmetic(BinOp::Add, &usd, &eur), Err(Some(_))));
        assert_eq!(arithmetic(BinOp::Add, &Type::Date, &Type::Int64), Err(None));
    }
}
