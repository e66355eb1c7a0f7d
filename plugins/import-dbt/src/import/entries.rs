//! The end of an import: the module files assembled, and the report's
//! entry for each model and each join.

use super::assemble::{assemble, relative};
use super::{Import, Options, State, DBT, PIPELINE};
use crate::names;
use crate::profile::{Kind, STRATA_SCHEMA};
use crate::report::{ModelEntry, Reason, Status, TargetEntry};

impl State<'_> {
    /// The files and the report.
    pub(super) fn finish(self, options: &Options) -> Import {
        let State {
            project,
            mut report,
            decls,
            source_texts,
            seed_paths,
            by_name,
            outcomes,
            seed_tests,
            audit,
            seed_blocks,
            reader,
            ..
        } = self;
        let root_name = {
            let base = format!("{}.strata", project.name);
            if by_name.contains_key(project.name.as_str())
                || project.name == "_sources"
                || project.name == "_tests"
                || names::refusal(&project.name).is_some()
            {
                "main.strata".to_string()
            } else {
                base
            }
        };
        report.root = root_name.clone();
        let out_dir = options
            .output
            .clone()
            .unwrap_or_else(|| project.root.clone());
        report.target = reader.warehouse.as_ref().map(|w| {
            let file = match &w.kind {
                Kind::DuckDb { path, .. } => relative(&out_dir, path),
                Kind::Postgres { .. } => String::new(),
            };
            let (url, password_env) = w.toml_target(&file);
            TargetEntry {
                name: DBT.into(),
                url,
                password_env,
                schema: STRATA_SCHEMA.into(),
                from: w.at.clone(),
            }
        });
        let assembled = assemble(
            project,
            &outcomes,
            &source_texts,
            &seed_tests,
            &seed_blocks,
            &seed_paths,
            &decls,
            &root_name,
            &out_dir,
            report.target.is_some(),
        );
        report.pipeline = assembled.seeds_pipeline.then(|| PIPELINE.into());

        for (i, m) in project.models.iter().enumerate() {
            let o = &outcomes[i];
            let status = o.status.unwrap_or(Status::NeedsReview);
            let mut reasons = o.reasons.clone();
            if status == Status::NeedsReview && reasons.is_empty() {
                reasons.push(Reason::new("not converted", m.rel.clone(), 0));
            }
            report.models.push(ModelEntry {
                name: m.name.clone(),
                status,
                reasons,
                notes: o.notes.clone(),
                file: m.rel.clone(),
                strata_file: (status == Status::Converted).then(|| {
                    format!(
                        "{}.strata",
                        assembled.file_of.get(&m.name).unwrap_or(&m.name)
                    )
                }),
                helpers: o
                    .plans
                    .iter()
                    .filter(|p| p.name != m.name)
                    .map(|p| p.name.clone())
                    .collect(),
                in_pipeline: assembled.in_pipeline.contains(&m.name),
                declared_as_source: o.declared_as_source,
            });
        }
        if let Some(a) = &audit {
            report.joins = super::fanout::entries(a, &project.models, &outcomes);
        }
        report.summarize();
        Import {
            files: assembled.files,
            report,
        }
    }
}
