//! Resolving and type-checking a loaded module into the typed IR: the
//! declaration tables, domains, model dependency order, each model, the
//! contracts and the declarative tests. Every error of the module is
//! reported, each at its span, in source order.

mod expr;
mod model;
mod scope;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

use strata_codes as codes;

use crate::hash::FastMap as HashMap;
use std::path::PathBuf;

use crate::ast::{self, Annotation, Decl, ExprKind, FieldDef, TypeRef, TypeRefKind};
use crate::diag::{sort_diagnostics, Diagnostic};
use crate::ir::{self, Column};
use crate::load::{self, LoadOptions, Loaded};
use crate::span::SourceMap;
use crate::types::Type;

/// The result of checking a module: its files, the typed IR and every
/// diagnostic, in source order.
#[derive(Debug, Default)]
pub struct Checked {
    pub sources: SourceMap,
    pub module: ir::Module,
    pub diagnostics: Vec<Diagnostic>,
    /// The comments of every file of the module, in file then source order
    /// (`strata lint` reads its suppression comments from them).
    pub comments: Vec<ast::Comment>,
    /// Root files that could not be read: `(path, reason)`.
    pub io_errors: Vec<(PathBuf, String)>,
    /// What the hook of [`check_files_with`] made of each model of
    /// `module.models`, in that order (empty without a hook).
    pub model_texts: Vec<String>,
}

/// A hook [`check_files_with`] calls with each model as soon as it is
/// checked, on the thread that checked it, and the columns of the model's
/// contract (when it names a declared one): text about the model, made
/// while the model is fresh in that thread's cache and while other models
/// are still being checked (`strata check` writes its report this way).
pub type OnModel<'a> = &'a (dyn Fn(&ir::Model, Option<&[Column]>) -> String + Sync);

/// What a check computes beyond the IR and its diagnostics.
#[derive(Clone, Copy)]
struct Extras<'a> {
    /// Each model's fingerprint.
    fingerprints: bool,
    on_model: Option<OnModel<'a>>,
    /// [`LoadOptions::outputs_only`].
    outputs_only: bool,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Check one module given as text. `path` names it in diagnostics and is the
/// base directory for its imports.
pub fn check_text(path: impl Into<PathBuf>, text: &str) -> Checked {
    let path = path.into();
    let options = LoadOptions::default();
    check_loaded(
        load::load_text_with(path.clone(), text, &options, true),
        Extras::all(),
    )
    .unwrap_or_else(|| check_text_fully_parsed(path, text))
}

/// Check the module made of the given root files (each with its imports).
///
/// Model bodies are skimmed while loading and parsed just before each model
/// is checked (see [`crate::parser::parse_deferred`]); when one does not
/// parse, the module is loaded again with every body parsed, so the
/// diagnostics are always those of a full parse.
pub fn check_files(paths: &[PathBuf], options: &LoadOptions) -> Checked {
    check_files_extra(paths, options, None)
}

/// [`check_files`], calling `on_model` with each model as it is checked
/// (see [`OnModel`]); what it returns is in [`Checked::model_texts`].
pub fn check_files_with(paths: &[PathBuf], options: &LoadOptions, on_model: OnModel) -> Checked {
    check_files_extra(paths, options, Some(on_model))
}

fn check_files_extra(
    paths: &[PathBuf],
    options: &LoadOptions,
    on_model: Option<OnModel>,
) -> Checked {
    let extras = Extras {
        fingerprints: !options.skip_fingerprints,
        on_model,
        outputs_only: options.outputs_only,
    };
    check_loaded(load::load_files_with(paths, options, true), extras)
        .unwrap_or_else(|| check_parsed(load::load_files(paths, options), extras))
}

impl Extras<'_> {
    /// Fingerprints, no hook.
    fn all() -> Self {
        Extras {
            fingerprints: true,
            on_model: None,
            outputs_only: false,
        }
    }
}

/// [`check_text`] without skimming model bodies: what it must always equal
/// (the fuzz test compares the two).
pub fn check_text_fully_parsed(path: impl Into<PathBuf>, text: &str) -> Checked {
    check_parsed(
        load::load_text(path.into(), text, &LoadOptions::default()),
        Extras::all(),
    )
}

/// Check a module loaded without skimming.
fn check_parsed(loaded: Loaded, extras: Extras) -> Checked {
    // Only a skimmed body can fail to parse at check time.
    check_loaded(loaded, extras).unwrap_or_default()
}

/// Compute the fingerprint of every model of a module checked with
/// [`LoadOptions::skip_fingerprints`]: the fingerprints a check computes.
/// The files are parsed again, in full, from the text the check read.
pub fn fill_fingerprints(checked: &mut Checked) {
    let mut files: Vec<crate::span::FileId> =
        checked.module.models.iter().map(|m| m.span.file).collect();
    files.sort_unstable();
    files.dedup();
    let parsed: Vec<ast::File> = files
        .iter()
        .map(|&id| crate::parser::parse(id, &checked.sources.get(id).text).0)
        .collect();
    // A model of the IR is the declaration at its span.
    let decls: HashMap<BodyKey, &ast::ModelDecl> = parsed
        .iter()
        .flat_map(|f| &f.decls)
        .filter_map(|d| match d {
            Decl::Model(m) => Some((body_key(m), m)),
            _ => None,
        })
        .collect();
    // In dependency order: each model after the models it reads.
    let mut done: HashMap<String, String> = HashMap::default();
    for model in &mut checked.module.models {
        let Some(m) = decls.get(&(model.span.file, model.span.start)) else {
            continue;
        };
        model.fingerprint = crate::fingerprint::model_fingerprint(m, model, |name| {
            done.get(name).map(String::as_str)
        });
        done.insert(model.name.clone(), model.fingerprint.clone());
    }
}

/// A checked model's schema, for the models that read it.
#[derive(Clone, Debug)]
pub struct ModelResult {
    /// Shared by every model that reads it.
    pub columns: Arc<Vec<Column>>,
    /// The schema is complete (see `ir::Model::schema_complete`).
    pub ok: bool,
    /// The model's fingerprint (part of its readers' fingerprints).
    pub fingerprint: String,
}

/// Declaration tables of a module (first declaration of a name wins; later
/// ones are reported as E025).
pub struct Env<'a> {
    pub sources: HashMap<&'a str, &'a ast::SourceDecl>,
    /// Resolved columns: `None` when a column type failed to resolve,
    /// `Some(None)` when the source declares no columns.
    source_cols: HashMap<&'a str, Option<Option<Arc<Vec<Column>>>>>,
    pub contracts: HashMap<&'a str, &'a ast::ContractDecl>,
    contract_cols: HashMap<&'a str, Option<Vec<Column>>>,
    pub domains: HashMap<&'a str, Option<Type>>,
    /// Each model's position in dependency order (its index among the
    /// models in declaration order until `prepare` has ordered them).
    pub models: HashMap<&'a str, usize>,
    /// The result of the model at each position, set once it is checked.
    /// A model is checked after every model it reads.
    model_results: Vec<OnceLock<ModelResult>>,
    /// Whether each model's fingerprint is computed, and the hook for each
    /// checked model.
    extras: Extras<'a>,
    /// What the hook made of the model at each position.
    model_texts: Vec<OnceLock<String>>,
}

impl<'a> Env<'a> {
    pub fn source_columns(&self, name: &str) -> Option<Option<&Arc<Vec<Column>>>> {
        match self.source_cols.get(name) {
            Some(Some(cols)) => Some(cols.as_ref()),
            _ => None,
        }
    }

    pub fn contract_columns(&self, name: &str) -> Option<&Vec<Column>> {
        self.contract_cols.get(name).and_then(Option::as_ref)
    }

    pub fn model_result(&self, name: &str) -> Option<&ModelResult> {
        self.result_at(*self.models.get(name)?)
    }

    /// The result of the model at position `pos` in dependency order, once
    /// it is checked.
    pub fn result_at(&self, pos: usize) -> Option<&ModelResult> {
        self.model_results.get(pos)?.get()
    }

    /// The type a `cast(x, "name")` produces.
    pub fn cast_target(&self, name: &str) -> Result<Type, String> {
        let name = name.trim();
        if let Some(t) = Type::from_scalar_name(name) {
            return Ok(t);
        }
        if name == "array" || name.starts_with("array(") || name.starts_with("array<") {
            return Err(
                "cast() cannot produce an array; build arrays with array_construct(...)".into(),
            );
        }
        if name == "decimal" {
            return Err("cast() to decimal needs a precision and scale: write cast(x, \"decimal(18,2)\") or declare a domain".into());
        }
        if let Some(args) = name
            .strip_prefix("decimal(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let parts: Vec<&str> = args.split(',').map(str::trim).collect();
            if let [p, s] = parts.as_slice() {
                if let (Ok(p), Ok(s)) = (p.parse::<u32>(), s.parse::<u32>()) {
                    return Ok(Type::Decimal(p, s));
                }
            }
            return Err(format!("cast() type '{name}' is not a valid decimal(p,s)"));
        }
        if let Some(cur) = name
            .strip_prefix("money(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let cur = cur.trim();
            if !cur.is_empty() && cur.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return Ok(Type::Money(Box::new(cur.to_string())));
            }
        }
        if let Some(Some(t)) = self.domains.get(name) {
            return Ok(t.clone());
        }
        // The reference gives an unknown type for any other name.
        Ok(Type::Unknown)
    }
}

/// Check a loaded module, with the `extras` asked for; `None` when a skimmed
/// body does not parse, or does not name the inputs the skim noted (load it
/// again without skimming).
fn check_loaded(mut loaded: Loaded, extras: Extras) -> Option<Checked> {
    let mut diags = loaded.diagnostics.clone();
    let bodies = take_model_bodies(&mut loaded);
    let (module, model_texts) = build_module(&loaded, bodies, extras, &mut diags)?;
    sort_diagnostics(&mut diags);
    diags.dedup();
    let mut comments: Vec<ast::Comment> = loaded
        .files
        .iter()
        .flat_map(|(_, f)| f.comments.iter().cloned())
        .collect();
    // By file, in the text's order: a file loaded in parts has its imports'
    // files between its parts.
    comments.sort_by_key(|c| (c.span.file, c.span.start));
    Some(Checked {
        sources: loaded.sources,
        module,
        diagnostics: diags,
        comments,
        io_errors: loaded.io_errors,
        model_texts,
    })
}

fn duplicate(kind: &str, name: &ast::Ident, first: &ast::Ident) -> Diagnostic {
    Diagnostic::new(
        &codes::E025,
        name.span,
        format!("{kind} '{}' is declared more than once", name.name),
    )
    .with_secondary(first.span, "first declared here")
    .with_help(format!("rename or remove one of the two {kind}s"))
}

/// Where a model declaration's body is kept while the module is checked:
/// the file and start of the declaration.
type BodyKey = (crate::span::FileId, u32);

fn body_key(m: &ast::ModelDecl) -> BodyKey {
    (m.span.file, m.span.start)
}

/// A model's body while the module is checked: its clauses, or where to
/// parse them (the loader skimmed it, see
/// [`crate::parser::parse_deferred`]).
enum Body {
    Items(Vec<ast::Item>),
    /// The body's text, braces included.
    Deferred(crate::span::Span),
    /// Skimmed, and parsed ahead without success (see [`Body::into_items`]).
    Unparsable,
}

impl Body {
    /// Its clauses, parsed if it was skimmed; `None` when a skimmed body does
    /// not parse or names other `inputs` than the skim noted.
    fn into_items(self, sources: &SourceMap, inputs: &[ast::Ident]) -> Option<Vec<ast::Item>> {
        match self {
            Body::Items(items) => Some(items),
            Body::Deferred(span) => {
                let text = &sources.get(span.file).text;
                let items = crate::parser::parse_body(span.file, text, span)?;
                ast::model_inputs(&items).eq(inputs.iter()).then_some(items)
            }
            Body::Unparsable => None,
        }
    }
}

/// The models' bodies while the module is checked, in declaration order,
/// shared by the threads that check it. Each is parsed once, by the first
/// thread to get to it: a helper parses them in order while the main thread
/// prepares the check (dependency order, queue), then the checking threads
/// take them as they check their models.
struct Bodies {
    index: HashMap<BodyKey, usize>,
    /// The inputs each body names, in clause order (from the skim for a
    /// skimmed body): apart from the bodies, so that the dependency order is
    /// computed while bodies are parsed.
    inputs: Vec<Vec<ast::Ident>>,
    cells: Vec<Mutex<Option<Body>>>,
    /// The next body to parse ahead.
    ahead: std::sync::atomic::AtomicUsize,
}

impl Bodies {
    fn len(&self) -> usize {
        self.cells.len()
    }

    /// The inputs the body at `key` names, in order.
    fn inputs(&self, key: &BodyKey) -> &[ast::Ident] {
        self.index
            .get(key)
            .and_then(|&i| self.inputs.get(i))
            .map_or(&[], Vec::as_slice)
    }

    fn lock(&self, i: usize) -> Option<std::sync::MutexGuard<'_, Option<Body>>> {
        Some(
            self.cells
                .get(i)?
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Parse the next skimmed body ahead of its check; `false` once every
    /// body has been looked at.
    fn parse_ahead(&self, sources: &SourceMap) -> bool {
        let i = self.ahead.fetch_add(1, Ordering::Relaxed);
        let Some(mut body) = self.lock(i) else {
            return false;
        };
        if let Some(Body::Deferred(_)) = &*body {
            if let Some(skimmed) = body.take() {
                *body = Some(match skimmed.into_items(sources, &self.inputs[i]) {
                    Some(items) => Body::Items(items),
                    None => Body::Unparsable,
                });
            }
        }
        true
    }

    /// The clauses of body `i`, taken (parsed now if need be); `None` when
    /// it does not parse (see [`Body::into_items`]).
    fn take(&self, i: usize, sources: &SourceMap) -> Option<Vec<ast::Item>> {
        let body = self.lock(i).and_then(|mut b| b.take());
        body.map_or(Some(Vec::new()), |b| b.into_items(sources, &self.inputs[i]))
    }
}

/// Move every model's clauses out of the syntax tree, or note where to parse
/// them when the loader skimmed them. Each model's body is parsed (if
/// skimmed) just before the model is checked, or while the check is prepared
/// for the first ones (see [`Bodies`]), and dropped right after its check,
/// so the syntax of a large module and its whole IR are never in memory
/// together.
fn take_model_bodies(loaded: &mut Loaded) -> Bodies {
    // Room for all of them at once: the lists are large, and growing them
    // moves them (into fresh memory, each time).
    let models = loaded
        .files
        .iter()
        .flat_map(|(_, f)| &f.decls)
        .filter(|d| matches!(d, Decl::Model(_)))
        .count();
    let mut index = HashMap::with_capacity_and_hasher(models, Default::default());
    let mut inputs = Vec::with_capacity(models);
    let mut cells = Vec::with_capacity(models);
    // The skimmed bodies come in the order of the models' declarations, so
    // each is the next one. From the first model that is not (a body that
    // was parsed, not skimmed, or an order the loader never makes), the rest
    // are looked up by key.
    let mut deferred = std::mem::take(&mut loaded.deferred)
        .into_iter()
        .flat_map(|(file, bodies)| {
            bodies
                .into_iter()
                .map(move |(start, body)| ((file, start), body))
        })
        .peekable();
    let mut by_key: HashMap<BodyKey, crate::parser::DeferredBody> = HashMap::default();
    let mut skimmed = |key: BodyKey| {
        if by_key.is_empty() {
            if deferred.peek().is_some_and(|(next, _)| *next == key) {
                return deferred.next().map(|(_, body)| body);
            }
            by_key.extend(deferred.by_ref());
        }
        by_key.remove(&key)
    };
    for (_, file) in &mut loaded.files {
        for d in &mut file.decls {
            if let Decl::Model(m) = d {
                let (body, names) = match skimmed(body_key(m)) {
                    Some(deferred) => (Body::Deferred(deferred.span), deferred.inputs),
                    None => {
                        let items = std::mem::take(&mut m.items);
                        let names = ast::model_inputs(&items).cloned().collect();
                        (Body::Items(items), names)
                    }
                };
                index.insert(body_key(m), cells.len());
                inputs.push(names);
                cells.push(Mutex::new(Some(body)));
            }
        }
    }
    Bodies {
        index,
        inputs,
        cells,
        ahead: std::sync::atomic::AtomicUsize::new(0),
    }
}

/// What the threads checking the models share, and what the module's IR is
/// made of afterwards.
struct Prepared<'a> {
    env: Env<'a>,
    order: Vec<Ordered<'a>>,
    queue: Queue,
    source_order: Vec<&'a ast::SourceDecl>,
    contract_order: Vec<&'a ast::ContractDecl>,
    pipelines: Vec<&'a ast::PipelineDecl>,
    tests: Vec<&'a ast::TestDecl>,
}

/// Check every declaration of a loaded module: its IR, or `None` when a
/// skimmed body does not parse.
///
/// A large module is checked on several threads. The helpers start first
/// and parse model bodies ahead while this thread prepares the check
/// (declarations, source columns, dependency order, the queue of models);
/// then every thread checks models as their inputs are checked.
fn build_module(
    loaded: &Loaded,
    bodies: Bodies,
    extras: Extras,
    diags: &mut Vec<Diagnostic>,
) -> Option<(ir::Module, Vec<String>)> {
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(bodies.len() / MODELS_PER_THREAD)
        .clamp(1, 8);
    let sources = &loaded.sources;
    let prepared: OnceLock<Prepared> = OnceLock::new();
    // Set when the preparation fails: the helpers then stop.
    let stop = std::sync::atomic::AtomicBool::new(false);
    // What each helper found.
    let theirs: Vec<OnceLock<Vec<Diagnostic>>> = (1..threads).map(|_| OnceLock::new()).collect();
    let mine = std::thread::scope(|s| {
        // A helper that cannot start leaves its share to the others.
        let mut helpers = Vec::with_capacity(theirs.len());
        for slot in &theirs {
            let help = || loop {
                if let Some(p) = prepared.get() {
                    return check_worker(&p.env, sources, &p.order, &p.queue, &bodies);
                }
                if stop.load(Ordering::Relaxed) {
                    return Vec::new();
                }
                // With every body parsed, wait for the queue (a
                // preparation takes about a millisecond at 2,000 models).
                if !bodies.parse_ahead(sources) {
                    std::thread::yield_now();
                }
            };
            let builder = std::thread::Builder::new();
            helpers.extend(crate::threads::spawn_into(s, builder, slot, help));
        }
        // However this thread leaves, the helpers stop waiting for it.
        let _stop = SetOnDrop(&stop);
        match prepare(loaded, &bodies, extras, diags) {
            Some(p) => {
                let p = prepared.get_or_init(|| p);
                let mine = check_worker(&p.env, sources, &p.order, &p.queue, &bodies);
                // Every model is checked: the helpers are returning.
                for helper in &helpers {
                    helper.finish(crate::threads::FINISH);
                }
                mine
            }
            None => {
                stop.store(true, Ordering::Relaxed);
                Vec::new()
            }
        }
    });
    let found = std::iter::once(mine).chain(theirs.into_iter().filter_map(OnceLock::into_inner));
    let Prepared {
        mut env,
        queue,
        source_order,
        contract_order,
        pipelines,
        tests,
        ..
    } = prepared.into_inner()?;
    diags.extend(found.into_iter().flatten());
    let state = queue
        .state
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    if state.failed {
        return None;
    }
    // In place: a slot is as large as a model.
    let mut ir_models: Vec<ir::Model> = state
        .slots
        .into_iter()
        .filter_map(|s| match s {
            Slot::Done(model) => Some(model),
            Slot::Body(_) | Slot::Taken => None,
        })
        .collect();
    // Every checker is done: each schema is the IR's again (moved back, as
    // nothing else holds it any more).
    for (model, result) in ir_models.iter_mut().zip(env.model_results.iter_mut()) {
        if let Some(r) = result.take() {
            model.columns = Arc::try_unwrap(r.columns).unwrap_or_else(|c| c.as_ref().clone());
        }
    }

    let ir_tests = tests
        .iter()
        .map(|t| check_test(t, &env, &ir_models, diags))
        .collect();
    let ir_pipelines = pipelines.iter().map(|p| pipeline(p, diags)).collect();
    let model_texts = std::mem::take(&mut env.model_texts)
        .into_iter()
        .filter_map(OnceLock::into_inner)
        .collect();

    let module = ir::Module {
        sources: source_order
            .iter()
            .map(|s| ir::Source {
                name: s.name.name.to_string(),
                span: s.span,
                args: s
                    .args
                    .iter()
                    .map(|kv| (kv.key.name.to_string(), kv.value.clone()))
                    .collect(),
                columns: env
                    .source_columns(&s.name.name)
                    .and_then(|c| c.map(|c| c.as_ref().clone())),
                column_spans: s.columns.iter().flatten().map(|f| f.span).collect(),
            })
            .collect(),
        contracts: contract_order
            .iter()
            .map(|c| ir::Contract {
                name: c.name.name.to_string(),
                span: c.span,
                columns: env
                    .contract_columns(&c.name.name)
                    .cloned()
                    .unwrap_or_default(),
            })
            .collect(),
        models: ir_models,
        pipelines: ir_pipelines,
        tests: ir_tests,
    };
    Some((module, model_texts))
}

/// Sets its flag when dropped.
struct SetOnDrop<'a>(&'a std::sync::atomic::AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Everything before the models are checked: the declarations by name (E025
/// for repeats), domains, source and contract columns, the models in
/// dependency order and the queue they are checked from. `None` when the
/// body of a model declared twice does not parse.
fn prepare<'a>(
    loaded: &'a Loaded,
    bodies: &Bodies,
    extras: Extras<'a>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Prepared<'a>> {
    let mut sources: HashMap<&str, &ast::SourceDecl> = HashMap::default();
    let mut contracts: HashMap<&str, &ast::ContractDecl> = HashMap::default();
    let mut domain_decls: HashMap<&str, &ast::DomainDecl> = HashMap::default();
    // Each model's index in `model_order`, then its position in dependency
    // order.
    let mut models: HashMap<&str, usize> = HashMap::default();
    let mut source_order = Vec::new();
    let mut contract_order = Vec::new();
    let mut model_order = Vec::new();
    let mut pipelines = Vec::new();
    let mut tests = Vec::new();

    for decl in loaded.decls() {
        match decl {
            Decl::Source(s) => match sources.get(s.name.name.as_str()) {
                Some(first) => diags.push(duplicate("source", &s.name, &first.name)),
                None => {
                    sources.insert(&s.name.name, s);
                    source_order.push(s);
                }
            },
            Decl::Contract(c) => match contracts.get(c.name.name.as_str()) {
                Some(first) => diags.push(duplicate("contract", &c.name, &first.name)),
                None => {
                    contracts.insert(&c.name.name, c);
                    contract_order.push(c);
                }
            },
            Decl::Domain(d) => match domain_decls.get(d.name.name.as_str()) {
                Some(first) => diags.push(duplicate("domain", &d.name, &first.name)),
                None => {
                    domain_decls.insert(&d.name.name, d);
                }
            },
            Decl::Model(m) => match models.get(m.name.name.as_str()) {
                Some(&first) => {
                    let first: &ast::ModelDecl = model_order[first];
                    diags.push(duplicate("model", &m.name, &first.name));
                }
                None => {
                    models.insert(&m.name.name, model_order.len());
                    model_order.push(m);
                }
            },
            Decl::Pipeline(p) => pipelines.push(p),
            Decl::Test(t) => tests.push(t),
            Decl::Generator(e) => diags.push(
                Diagnostic::new(
                    &codes::E060,
                    e.span,
                    "compile-time generators are not supported by this version of strata",
                )
                .with_help("write the generated models out as plain `model` declarations"),
            ),
            Decl::Import(_) | Decl::Fn(_) => {}
        }
    }

    // Domains, eagerly (E078 for unknown names and cycles).
    let mut domains: HashMap<&str, Option<Type>> = HashMap::default();
    let mut domain_names: Vec<&&ast::DomainDecl> = domain_decls.values().collect();
    domain_names.sort_by_key(|d| (d.span.file, d.span.start));
    for d in domain_names {
        let mut visiting = Vec::new();
        resolve_domain(d, &domain_decls, &mut domains, &mut visiting, diags);
    }

    let mut env = Env {
        sources,
        source_cols: HashMap::default(),
        contracts,
        contract_cols: HashMap::default(),
        domains,
        models,
        model_results: Vec::new(),
        extras,
        model_texts: Vec::new(),
    };

    // Source and contract columns.
    for s in &source_order {
        let cols = s
            .columns
            .as_ref()
            .map(|fields| resolve_fields(fields, &env, diags).map(Arc::new));
        let cols = match cols {
            None => Some(None),
            Some(Some(c)) => Some(Some(c)),
            Some(None) => None,
        };
        env.source_cols.insert(&s.name.name, cols);
    }
    for c in &contract_order {
        let cols = resolve_fields(&c.fields, &env, diags);
        env.contract_cols.insert(&c.name.name, cols);
    }

    // Models in dependency order, checked in parallel as their inputs are.
    let (order, positions) = dependency_order(&model_order, &env.models, bodies, diags);
    for at in env.models.values_mut() {
        *at = positions[*at];
    }
    env.model_results = order.iter().map(|_| OnceLock::new()).collect();
    if env.extras.on_model.is_some() {
        env.model_texts = order.iter().map(|_| OnceLock::new()).collect();
    }
    let slots: Vec<Slot> = order
        .iter()
        .map(|o| {
            bodies
                .index
                .get(&body_key(o.decl))
                .map_or(Slot::Taken, |&i| Slot::Body(i))
        })
        .collect();
    // The bodies left are those of models declared twice (E025): never
    // checked, but a full parse would have reported their syntax errors.
    let mut checked = vec![false; bodies.len()];
    for slot in &slots {
        if let Slot::Body(i) = slot {
            checked[*i] = true;
        }
    }
    for (i, _) in checked.iter().enumerate().filter(|(_, c)| !**c) {
        bodies.take(i, &loaded.sources)?;
    }
    let queue = Queue::new(&order, slots);
    Some(Prepared {
        env,
        order,
        queue,
        source_order,
        contract_order,
        pipelines,
        tests,
    })
}

fn resolve_domain<'a>(
    d: &'a ast::DomainDecl,
    decls: &HashMap<&'a str, &'a ast::DomainDecl>,
    done: &mut HashMap<&'a str, Option<Type>>,
    visiting: &mut Vec<&'a str>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Type> {
    let name = d.name.name.as_str();
    if let Some(t) = done.get(name) {
        return t.clone();
    }
    if visiting.contains(&name) {
        diags.push(Diagnostic::new(
            &codes::E078,
            d.name.span,
            format!("domain cycle involving '{name}'"),
        ));
        for v in visiting.iter() {
            done.insert(v, None);
        }
        return None;
    }
    visiting.push(name);
    let t = resolve_domain_type(&d.ty, decls, done, visiting, diags);
    visiting.pop();
    if !done.contains_key(name) {
        done.insert(name, t.clone());
    }
    done.get(name).cloned().flatten()
}

fn resolve_domain_type<'a>(
    t: &'a TypeRef,
    decls: &HashMap<&'a str, &'a ast::DomainDecl>,
    done: &mut HashMap<&'a str, Option<Type>>,
    visiting: &mut Vec<&'a str>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Type> {
    match &t.kind {
        TypeRefKind::Named(n) => match decls.get(n.as_str()) {
            Some(d) => resolve_domain(d, decls, done, visiting, diags),
            None => {
                diags.push(
                    Diagnostic::new(&codes::E078, t.span, format!("unknown domain '{n}'"))
                        .with_help(format!("declare it with `domain {n} = <type>`")),
                );
                None
            }
        },
        TypeRefKind::Array(inner) => {
            let e = resolve_domain_type(inner, decls, done, visiting, diags)?;
            Some(Type::Array(Box::new(e)))
        }
        _ => builtin_type(&t.kind),
    }
}

fn builtin_type(k: &TypeRefKind) -> Option<Type> {
    Some(match k {
        TypeRefKind::Int64 => Type::Int64,
        TypeRefKind::Float64 => Type::Float64,
        TypeRefKind::String => Type::String,
        TypeRefKind::Bool => Type::Bool,
        TypeRefKind::Date => Type::Date,
        TypeRefKind::Timestamp => Type::Timestamp,
        TypeRefKind::Uuid => Type::Uuid,
        TypeRefKind::Json => Type::Json,
        TypeRefKind::Decimal(p, s) => Type::Decimal(*p, *s),
        TypeRefKind::Money(c) => {
            Type::Money(Box::new(c.clone().unwrap_or_else(|| "USD".to_string())))
        }
        TypeRefKind::Array(_) | TypeRefKind::Named(_) => return None,
    })
}

/// Resolve a field's written type (domains known).
fn resolve_type(
    t: &TypeRef,
    column: &str,
    env: &Env,
    diags: &mut Vec<Diagnostic>,
    in_array: bool,
) -> Option<Type> {
    match &t.kind {
        TypeRefKind::Named(n) => match env.domains.get(n.as_str()) {
            Some(Some(t)) => Some(t.clone()),
            Some(None) => None,
            None if in_array => {
                diags.push(Diagnostic::new(
                    &codes::E063,
                    t.span,
                    format!("array elements must be a supported scalar, parameterized or nested array type, or a declared domain (got '{n}')"),
                ));
                None
            }
            None => {
                let mut d = Diagnostic::new(
                    &codes::E078,
                    t.span,
                    format!("unknown type '{n}' for column '{column}' (declare it with domain {n} = <type>)"),
                );
                let names = crate::lexer::TYPE_KEYWORDS;
                if let Some(s) = crate::suggest::closest(
                    n,
                    names.iter().copied().chain(env.domains.keys().copied()),
                ) {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
                diags.push(d);
                None
            }
        },
        TypeRefKind::Array(inner) => {
            let e = resolve_type(inner, column, env, diags, true)?;
            Some(Type::Array(Box::new(e)))
        }
        k => builtin_type(k),
    }
}

/// Columns of a source or contract; `None` if any type failed to resolve.
fn resolve_fields(
    fields: &[FieldDef],
    env: &Env,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<Column>> {
    let mut out = Vec::new();
    let mut ok = true;
    for f in fields {
        match resolve_type(&f.ty, &f.name.name, env, diags, false) {
            Some(ty) => out.push(field_column(f, ty)),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn field_column(f: &FieldDef, ty: Type) -> Column {
    let mut c = Column {
        name: f.name.name.clone(),
        ty,
        nullable: true,
        unique: false,
        primary_key: false,
        protected: false,
        enum_values: None,
        classification: None,
    };
    for a in &f.annotations {
        match a {
            Annotation::Nonnull(_) => c.nullable = false,
            Annotation::Unique(_) => c.unique = true,
            Annotation::PrimaryKey(_) => {
                c.primary_key = true;
                c.unique = true;
                c.nullable = false;
            }
            Annotation::Protected(_) => c.protected = true,
            Annotation::Enum(values, _) => {
                c.enum_values = Some(Box::new(values.iter().map(|(v, _)| v.clone()).collect()))
            }
            Annotation::Classification(v, _) => c.classification = Some(Box::new(v.clone())),
        }
    }
    c
}

/// Topological order of the `models` (upstream first, otherwise source
/// order), and each one's position in it; models on a dependency cycle are
/// reported (F001) and flagged. `index` gives each model's name its index in
/// `models`.
fn dependency_order<'a>(
    models: &[&'a ast::ModelDecl],
    index: &HashMap<&str, usize>,
    bodies: &Bodies,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<Ordered<'a>>, Vec<usize>) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let deps: Vec<Vec<usize>> = models
        .iter()
        .map(|m| {
            // The inputs that are models: the dependency edges, in clause
            // order.
            bodies
                .inputs(&body_key(m))
                .iter()
                .filter_map(|n| index.get(n.name.as_str()).copied())
                .collect()
        })
        .collect();
    let mut mark = vec![Mark::New; models.len()];
    let mut cyclic = vec![false; models.len()];
    let mut out: Vec<usize> = Vec::with_capacity(models.len());
    for start in 0..models.len() {
        if mark[start] != Mark::New {
            continue;
        }
        // Iterative DFS: (node, next dependency to visit).
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::Active;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&dep) = deps[node].get(*next) {
                *next += 1;
                match mark[dep] {
                    Mark::New => {
                        mark[dep] = Mark::Active;
                        stack.push((dep, 0));
                    }
                    Mark::Active => {
                        // A cycle: dep .. node on the stack.
                        let pos = stack.iter().position(|(n, _)| *n == dep).unwrap_or(0);
                        let members: Vec<usize> = stack[pos..].iter().map(|(n, _)| *n).collect();
                        if !members.iter().any(|&n| cyclic[n]) {
                            let first = members.iter().copied().min().unwrap_or(dep);
                            let names: Vec<&str> = members
                                .iter()
                                .map(|&n| models[n].name.name.as_str())
                                .collect();
                            let mut d = Diagnostic::new(
                                &codes::F001,
                                models[first].name.span,
                                format!(
                                    "model dependency cycle involving '{}'",
                                    models[first].name.name
                                ),
                            );
                            if names.len() == 1 {
                                d = d.with_note(format!(
                                    "'{0}' reads itself; a model named like the source it reads is read as the model",
                                    names[0]
                                ));
                            } else {
                                d = d.with_note(format!(
                                    "cycle: {} -> {}",
                                    names.join(" -> "),
                                    names[0]
                                ));
                            }
                            diags.push(d);
                        }
                        for n in members {
                            cyclic[n] = true;
                        }
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                out.push(node);
                stack.pop();
            }
        }
    }
    // Models depending on a cyclic model are checked with that input poisoned.
    let mut pos = vec![usize::MAX; models.len()];
    for (p, &i) in out.iter().enumerate() {
        pos[i] = p;
    }
    let order = out
        .iter()
        .enumerate()
        .map(|(p, &i)| Ordered {
            decl: models[i],
            cyclic: cyclic[i],
            // Inputs later in the order close a cycle: no result to wait for.
            reads: deps[i].iter().map(|&d| pos[d]).filter(|&d| d < p).collect(),
        })
        .collect();
    (order, pos)
}

/// A model in dependency order.
struct Ordered<'a> {
    decl: &'a ast::ModelDecl,
    /// On a dependency cycle: not checked (F001 says why).
    cyclic: bool,
    /// Positions of the models it reads that come before it (one per read).
    reads: Vec<usize>,
}

/// Models fewer than this per thread are not worth another thread.
const MODELS_PER_THREAD: usize = 256;

impl Queue {
    /// The queue of the models in `order`, with their bodies' places.
    fn new(order: &[Ordered], slots: Vec<Slot>) -> Queue {
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); order.len()];
        let mut waiting = vec![0usize; order.len()];
        for (pos, o) in order.iter().enumerate() {
            waiting[pos] = o.reads.len();
            for &r in &o.reads {
                readers[r].push(pos);
            }
        }
        // Ready models are taken from the end: the earliest first.
        let ready = (0..order.len())
            .rev()
            .filter(|&p| waiting[p] == 0)
            .collect();
        Queue {
            state: Mutex::new(QueueState {
                ready,
                waiting,
                left: order.len(),
                sleeping: 0,
                failed: false,
                slots,
            }),
            wake: Condvar::new(),
            events: AtomicUsize::new(0),
            readers,
        }
    }

    /// Note an event (under the state's lock) and wake the threads that
    /// sleep, if any.
    fn signal(&self, state: std::sync::MutexGuard<'_, QueueState>) {
        self.events.fetch_add(1, Ordering::Relaxed);
        // Waking is a system call: only when a thread sleeps.
        let wake = state.sleeping > 0;
        drop(state);
        if wake {
            self.wake.notify_all();
        }
    }
}

/// How long a checking thread with no model ready spins for one (the other
/// threads are checking the models it waits for) before it sleeps: only the
/// last models of a module keep a thread waiting, for less than this.
const SPIN: std::time::Duration = std::time::Duration::from_millis(1);

/// A model's place in the queue: where its body is until a worker takes it,
/// then its IR once checked (so the IR is gathered in dependency order
/// without a copy).
// As large as the IR on purpose: the slots become the IR's list in place.
#[allow(clippy::large_enum_variant)]
enum Slot {
    /// The model's body is [`Bodies`] number `.0`.
    Body(usize),
    Taken,
    Done(ir::Model),
}

struct Queue {
    state: Mutex<QueueState>,
    /// Signalled when a model becomes ready or the last one is done.
    wake: Condvar,
    /// Counts those events (and a failure), for a thread that waits for one
    /// spinning (see [`check_worker`]).
    events: AtomicUsize,
    /// The positions of the models reading each model.
    readers: Vec<Vec<usize>>,
}

struct QueueState {
    /// Models whose inputs are all checked, not yet taken.
    ready: Vec<usize>,
    /// Per model, how many of the models it reads are not checked yet.
    waiting: Vec<usize>,
    /// Models not checked yet.
    left: usize,
    /// A skimmed body did not parse: the module is checked again from a full
    /// parse, so the workers stop.
    failed: bool,
    /// Threads waiting for a model to become ready.
    sleeping: usize,
    /// Each model's body, then its IR.
    slots: Vec<Slot>,
}

/// Check ready models until none is left; the diagnostics found.
fn check_worker(
    env: &Env,
    sources: &SourceMap,
    order: &[Ordered],
    queue: &Queue,
    bodies: &Bodies,
) -> Vec<Diagnostic> {
    let lock = || queue.state.lock().unwrap_or_else(PoisonError::into_inner);
    let mut diags = Vec::new();
    loop {
        let (pos, body) = {
            let mut state = lock();
            let mut spun = false;
            loop {
                if state.failed {
                    return diags;
                }
                if let Some(pos) = state.ready.pop() {
                    let body = match std::mem::replace(&mut state.slots[pos], Slot::Taken) {
                        Slot::Body(body) => Some(body),
                        Slot::Taken | Slot::Done(_) => None,
                    };
                    break (pos, body);
                }
                if state.left == 0 {
                    return diags;
                }
                if !spun {
                    // Spin first: another thread is about to make a model
                    // ready, or to finish the last one.
                    spun = true;
                    let seen = queue.events.load(Ordering::Relaxed);
                    drop(state);
                    crate::threads::spin_while(SPIN, || {
                        queue.events.load(Ordering::Relaxed) == seen
                    });
                    state = lock();
                    continue;
                }
                state.sleeping += 1;
                state = queue
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                state.sleeping -= 1;
            }
        };
        let Some(items) = body.map_or(Some(Vec::new()), |i| bodies.take(i, sources)) else {
            let mut state = lock();
            state.failed = true;
            queue.signal(state);
            return diags;
        };
        let (model, result, text) = check_one(env, &order[pos], items, &mut diags);
        // Set once: each position is taken from the queue once.
        let _ = env.model_results[pos].set(result);
        if let (Some(text), Some(slot)) = (text, env.model_texts.get(pos)) {
            let _ = slot.set(text);
        }
        let mut state = lock();
        state.slots[pos] = Slot::Done(model);
        state.left -= 1;
        let mut woke = state.left == 0;
        for &r in &queue.readers[pos] {
            state.waiting[r] -= 1;
            if state.waiting[r] == 0 {
                state.ready.push(r);
                woke = true;
            }
        }
        if woke {
            queue.signal(state);
        }
    }
}

/// Check one model (its body is dropped after); its IR, its result for the
/// models that read it and what the hook made of it.
fn check_one(
    env: &Env,
    o: &Ordered,
    items: Vec<ast::Item>,
    diags: &mut Vec<Diagnostic>,
) -> (ir::Model, ModelResult, Option<String>) {
    let m = &ast::ModelDecl {
        name: o.decl.name.clone(),
        name_quoted: o.decl.name_quoted,
        contract: o.decl.contract.clone(),
        items,
        span: o.decl.span,
    };
    let mut model = if o.cyclic {
        ir::Model {
            name: m.name.name.to_string(),
            span: m.span,
            name_span: m.name.span,
            contract: m.contract.as_ref().map(|c| c.name.to_string()),
            fingerprint: String::new(),
            inputs: Vec::new(),
            columns: Vec::new(),
            output_refs: Vec::new(),
            lineage: Vec::new(),
            joins: Vec::new(),
            attrs: Vec::new(),
            steps: Vec::new(),
            step_spans: Vec::new(),
            ok: false,
            schema_complete: false,
        }
    } else {
        model::ModelChecker::new(env, m, diags).check()
    };
    if env.extras.fingerprints {
        model.fingerprint = crate::fingerprint::model_fingerprint(m, &model, |name| {
            env.model_result(name).map(|r| r.fingerprint.as_str())
        });
    }
    let text = env.extras.on_model.map(|hook| {
        let contract = model.contract.as_deref();
        hook(
            &model,
            contract
                .and_then(|c| env.contract_columns(c))
                .map(Vec::as_slice),
        )
    });
    // The schema moves to the models that read it; it comes back at the end.
    let result = ModelResult {
        columns: Arc::new(std::mem::take(&mut model.columns)),
        ok: model.schema_complete,
        fingerprint: model.fingerprint.clone(),
    };
    (model, result, text)
}

/// Validate a declarative test against its model's output schema.
fn check_test(
    t: &ast::TestDecl,
    env: &Env,
    models: &[ir::Model],
    diags: &mut Vec<Diagnostic>,
) -> ir::Test {
    let find = |name: &str| models.iter().find(|m| m.name == name);
    let out = ir::Test {
        model: t.model.name.to_string(),
        span: t.span,
        checks: t.checks.clone(),
    };
    let Some(model) = find(&t.model.name) else {
        let mut d = Diagnostic::new(
            &codes::E091,
            t.model.span,
            format!("test names unknown model '{}'", t.model.name),
        );
        if let Some(s) = crate::suggest::closest(&t.model.name, env.models.keys().copied()) {
            d = d.with_help(format!("did you mean `{s}`?"));
        }
        diags.push(d);
        return out;
    };
    if !model.ok {
        return out;
    }
    for c in &t.checks {
        if c.target.name == "row_count" {
            if let ast::TestCheckKind::Compare { value, .. } = &c.kind {
                if !matches!(value.kind, ast::TestLitKind::Int(_)) {
                    diags.push(Diagnostic::new(
                        &codes::E094,
                        value.span,
                        "row_count compares with an integer literal",
                    ));
                }
            }
            continue;
        }
        let Some(col) = model
            .columns
            .iter()
            .rev()
            .find(|col| col.name == c.target.name)
        else {
            let mut d = Diagnostic::new(
                &codes::E092,
                c.target.span,
                format!(
                    "test on '{}' names unknown column '{}'",
                    model.name, c.target.name
                ),
            );
            if let Some(s) = crate::suggest::closest(
                &c.target.name,
                model.columns.iter().map(|c| c.name.as_str()),
            ) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            diags.push(d);
            continue;
        };
        match &c.kind {
            ast::TestCheckKind::Compare { value, .. } => {
                let lit = match &value.kind {
                    ast::TestLitKind::Int(_) => Type::Int64,
                    ast::TestLitKind::Float(..) => Type::Float64,
                    ast::TestLitKind::Str(_) => Type::String,
                    ast::TestLitKind::Bool(_) => Type::Bool,
                    ast::TestLitKind::Null => Type::Unknown,
                };
                if lit != col.ty {
                    let mut d = Diagnostic::new(
                        &codes::E094,
                        value.span,
                        format!(
                            "test literal is {lit} but column '{}' is {}",
                            col.name, col.ty
                        ),
                    );
                    if lit.is_unknown() {
                        d = d.with_help("null cannot be compared in a test; declare the column nonnull in a contract to check for missing values");
                    }
                    diags.push(d);
                }
            }
            ast::TestCheckKind::In { model: rm, column } => {
                let Some(r) = find(&rm.name) else {
                    let mut d = Diagnostic::new(
                        &codes::E101,
                        rm.span,
                        format!("referential test names unknown model '{}'", rm.name),
                    );
                    if let Some(s) = crate::suggest::closest(&rm.name, env.models.keys().copied()) {
                        d = d.with_help(format!("did you mean `{s}`?"));
                    }
                    diags.push(d);
                    continue;
                };
                if r.ok && !r.columns.iter().any(|c| c.name == column.name) {
                    diags.push(Diagnostic::new(
                        &codes::E102,
                        column.span,
                        format!(
                            "referential test names unknown column '{}.{}'",
                            rm.name, column.name
                        ),
                    ));
                }
            }
        }
    }
    out
}

fn pipeline(p: &ast::PipelineDecl, diags: &mut Vec<Diagnostic>) -> ir::Pipeline {
    let mut models = Vec::new();
    for e in &p.models {
        match &e.kind {
            ExprKind::Column { qualifier: None, name } => models.push(name.name.to_string()),
            ExprKind::Str(s) => models.push(s.clone()),
            _ => diags.push(
                Diagnostic::new(
                    &codes::E060,
                    e.span,
                    "only model names are supported in a pipeline's models (compile-time generators are not supported by this version)",
                )
                .with_help("list the model names"),
            ),
        }
    }
    ir::Pipeline {
        name: p.name.name.to_string(),
        span: p.span,
        env: p.env.as_ref().map(|e| e.name.to_string()),
        models,
        sources: p
            .sources
            .iter()
            .map(|s| {
                (
                    s.source.name.to_string(),
                    s.args
                        .iter()
                        .map(|kv| (kv.key.name.to_string(), kv.value.clone()))
                        .collect(),
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
