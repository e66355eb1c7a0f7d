//! The JSON an external rule reads on stdin and the JSON it answers on
//! stdout, version [`VERSION`] (docs/external-rules.md documents both).
//!
//! The input is built from the typed IR field by field rather than by
//! serialising the IR, so that the documented schema changes only when the
//! version does.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use strata_lang::ir;
use strata_lang::{Name, SourceMap, Span};

/// The protocol version, in both directions.
pub const VERSION: u64 = 1;

/// The document on the rule's stdin.
#[derive(Serialize)]
pub struct Document<'a> {
    pub version: u64,
    /// The version of the strata that runs the rule.
    pub strata_version: &'static str,
    /// The rule's name (as diagnostics are prefixed with it).
    pub rule: &'a str,
    /// The root file of the module, as given on the command line.
    pub root: String,
    /// Every file of the module (the root and its imports); a span's `file`
    /// is an index into this list.
    pub files: Vec<File<'a>>,
    pub module: Module,
}

#[derive(Serialize)]
pub struct File<'a> {
    pub path: String,
    pub text: &'a str,
}

/// A byte range of one file, with 1-based line and column (in characters)
/// of both ends for convenience.
#[derive(Serialize)]
pub struct SpanJson {
    pub file: u32,
    pub start: u32,
    pub end: u32,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

#[derive(Serialize)]
pub struct Module {
    pub sources: Vec<Source>,
    pub contracts: Vec<Contract>,
    /// In dependency order (upstream first).
    pub models: Vec<Model>,
    pub pipelines: Vec<Pipeline>,
    pub tests: Vec<Test>,
}

#[derive(Serialize)]
pub struct Column {
    pub name: Name,
    #[serde(rename = "type")]
    pub ty: String,
    pub nullable: bool,
    pub unique: bool,
    pub primary_key: bool,
    pub protected: bool,
    #[serde(rename = "enum")]
    pub enum_values: Option<Vec<String>>,
    pub classification: Option<String>,
}

#[derive(Serialize)]
pub struct Source {
    pub name: String,
    pub span: SpanJson,
    pub args: BTreeMap<String, String>,
    /// `null` when the source declares no columns.
    pub columns: Option<Vec<Column>>,
}

#[derive(Serialize)]
pub struct Contract {
    pub name: String,
    pub span: SpanJson,
    pub columns: Vec<Column>,
}

#[derive(Serialize)]
pub struct Model {
    pub name: String,
    /// The whole declaration.
    pub span: SpanJson,
    /// The model's name in its declaration.
    pub name_span: SpanJson,
    /// False when checking the model reported an error: its other fields
    /// may then be incomplete.
    pub ok: bool,
    pub contract: Option<String>,
    pub fingerprint: String,
    pub attributes: BTreeMap<String, String>,
    pub inputs: Vec<ModelInput>,
    /// The output schema, in order.
    pub columns: Vec<Column>,
    pub lineage: Vec<Lineage>,
    pub joins: Vec<Join>,
}

/// One input of a model (`from`, a join, a set operation).
#[derive(Serialize)]
pub struct ModelInput {
    pub name: Name,
    /// `source` or `model`.
    pub kind: &'static str,
    /// `from`, `join` or `set_op`.
    pub role: &'static str,
    pub span: SpanJson,
}

#[derive(Serialize)]
pub struct Lineage {
    pub column: Name,
    pub from: Vec<ColumnOf>,
    /// `passthrough`, `joined`, `derived`, `aggregate`, `group_key`, `literal`.
    pub how: &'static str,
}

#[derive(Serialize)]
pub struct ColumnOf {
    pub input: Name,
    pub column: Name,
}

#[derive(Serialize)]
pub struct Join {
    /// `left`, `inner`, `anti` or `semi`.
    pub kind: &'static str,
    /// The joined input.
    pub input: Name,
    /// The model's `from` input.
    pub left_input: Name,
    /// The join keyword.
    pub span: SpanJson,
    /// The `on` condition.
    pub on_span: SpanJson,
    /// `many_to_one`, `one_to_one` or `null`.
    pub expect: Option<&'static str>,
    pub expect_span: Option<SpanJson>,
    /// The keys the `on` condition equates when it has the shape a
    /// cardinality promise needs (for an unannotated `join_left` /
    /// `join_inner`: the keys `expect many_to_one` would count); else `null`.
    pub keys: Option<Keys>,
}

#[derive(Serialize)]
pub struct Keys {
    /// Left (from-input) columns of the `left == right` pairs.
    pub left: Vec<Name>,
    /// Right columns: those of the pairs, then right-only keys.
    pub right: Vec<Name>,
}

#[derive(Serialize)]
pub struct Pipeline {
    pub name: String,
    pub span: SpanJson,
    pub env: Option<String>,
    pub models: Vec<String>,
    /// Source name -> its override arguments.
    pub sources: BTreeMap<String, BTreeMap<String, String>>,
}

#[derive(Serialize)]
pub struct Test {
    pub model: String,
    pub span: SpanJson,
}

/// Builds the input document's parts, with spans resolved against the
/// module's files.
pub struct Builder<'a> {
    pub sources: &'a SourceMap,
}

impl Builder<'_> {
    pub fn span(&self, span: Span) -> SpanJson {
        let file = self.sources.get(span.file);
        let (line, column) = file.line_col(span.start as usize);
        let (end_line, end_column) = file.line_col(span.end as usize);
        SpanJson {
            file: span.file.0,
            start: span.start,
            end: span.end,
            line,
            column,
            end_line,
            end_column,
        }
    }

    pub fn module(&self, m: &ir::Module) -> Module {
        Module {
            sources: m.sources.iter().map(|s| self.source(s)).collect(),
            contracts: m
                .contracts
                .iter()
                .map(|c| Contract {
                    name: c.name.clone(),
                    span: self.span(c.span),
                    columns: c.columns.iter().map(column).collect(),
                })
                .collect(),
            models: m.models.iter().map(|x| self.model(x)).collect(),
            pipelines: m
                .pipelines
                .iter()
                .map(|p| Pipeline {
                    name: p.name.clone(),
                    span: self.span(p.span),
                    env: p.env.clone(),
                    models: p.models.clone(),
                    sources: p
                        .sources
                        .iter()
                        .map(|(s, args)| (s.clone(), args.iter().cloned().collect()))
                        .collect(),
                })
                .collect(),
            tests: m
                .tests
                .iter()
                .map(|t| Test {
                    model: t.model.clone(),
                    span: self.span(t.span),
                })
                .collect(),
        }
    }

    fn source(&self, s: &ir::Source) -> Source {
        Source {
            name: s.name.clone(),
            span: self.span(s.span),
            args: s.args.iter().cloned().collect(),
            columns: s.columns.as_ref().map(|cs| cs.iter().map(column).collect()),
        }
    }

    fn model(&self, m: &ir::Model) -> Model {
        Model {
            name: m.name.clone(),
            span: self.span(m.span),
            name_span: self.span(m.name_span),
            ok: m.ok,
            contract: m.contract.clone(),
            fingerprint: m.fingerprint.clone(),
            attributes: m.attrs.iter().cloned().collect(),
            inputs: m
                .inputs
                .iter()
                .map(|i| ModelInput {
                    name: i.name.clone(),
                    kind: match i.kind {
                        ir::InputKind::Source => "source",
                        ir::InputKind::Model => "model",
                    },
                    role: match i.role {
                        ir::InputRole::From => "from",
                        ir::InputRole::Join => "join",
                        ir::InputRole::SetOp => "set_op",
                    },
                    span: self.span(i.span),
                })
                .collect(),
            columns: m.columns.iter().map(column).collect(),
            lineage: m
                .lineage
                .iter()
                .map(|l| Lineage {
                    column: l.column.clone(),
                    from: l
                        .from
                        .iter()
                        .map(|(input, column)| ColumnOf {
                            input: input.clone(),
                            column: column.clone(),
                        })
                        .collect(),
                    how: l.how,
                })
                .collect(),
            joins: m.joins.iter().map(|j| self.join(j)).collect(),
        }
    }

    fn join(&self, j: &ir::Join) -> Join {
        Join {
            kind: j.kind.name(),
            input: j.input.clone(),
            left_input: j.left_input.clone(),
            span: self.span(j.keyword_span),
            on_span: self.span(j.on_span),
            expect: j.expect.map(|c| c.as_str()),
            expect_span: j.expect_span.map(|s| self.span(s)),
            keys: j.keys().or(j.implied_keys.as_ref()).map(|k| Keys {
                left: k.left.clone(),
                right: k.right.clone(),
            }),
        }
    }
}

fn column(c: &ir::Column) -> Column {
    Column {
        name: c.name.clone(),
        ty: c.ty.to_string(),
        nullable: c.nullable,
        unique: c.unique,
        primary_key: c.primary_key,
        protected: c.protected,
        enum_values: c.enum_values.as_deref().cloned(),
        classification: c.classification.as_deref().cloned(),
    }
}

/// The document a rule answers on stdout.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub version: u64,
    pub diagnostics: Vec<AnswerDiagnostic>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerDiagnostic {
    /// The rule's own code (letters, digits, `_`, `-`); strata shows it as
    /// `<rule>:<code>`.
    pub code: String,
    pub severity: AnswerSeverity,
    pub message: String,
    pub span: AnswerSpan,
    /// Text under the primary span.
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub help: Option<String>,
    #[serde(default)]
    pub notes: Vec<String>,
    #[serde(default)]
    pub labels: Vec<AnswerLabel>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnswerSeverity {
    Error,
    Warning,
}

/// A span in an answer: `file` (an index into the input's `files`),
/// `start` and `end` byte offsets. Other fields (the `line`/`column` of a
/// span copied from the input) are ignored.
#[derive(Debug, Deserialize)]
pub struct AnswerSpan {
    pub file: u32,
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerLabel {
    pub span: AnswerSpan,
    pub message: String,
}
