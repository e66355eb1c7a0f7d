//! `run`/`backfill --openlineage TARGET` (or `[openlineage]` in
//! strata.toml): OpenLineage run events for the lineage tools teams
//! already run (Marquez, DataHub, ...). START before anything runs (an
//! unusable target stops the run there: exit 4, nothing run), COMPLETE or
//! FAIL at the end (when that one cannot be delivered, what the run
//! published stays published; the command exits 4 saying so).
//! Events are appended to a file as JSON lines, or POSTed to an HTTP
//! endpoint as OpenLineage's HTTP transport does (`URL/api/v1/lineage`,
//! `Authorization: Bearer KEY`).

pub mod event;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use strata_lang::ir;
use strata_lifecycle::{inputs, Failure, RunOptions, RunReport};
use strata_plugin::config::Settings;
use strata_plugin::exit;

use crate::args::{config_failure, WarehouseArgs};
pub use event::Facts;

/// The OpenLineage option of `run` and `backfill`.
#[derive(Debug, Clone, clap::Args)]
pub struct OpenLineageArgs {
    /// Send OpenLineage run events (START, then COMPLETE or FAIL) to a
    /// file (JSON lines, appended) or an `http(s)://` endpoint (POSTed to
    /// URL/api/v1/lineage). Default: `[openlineage]` of strata.toml.
    /// Checked before anything runs; see docs/openlineage.md.
    #[arg(long, value_name = "FILE_OR_URL")]
    pub openlineage: Option<String>,
}

/// Where events go.
enum Sink {
    File(PathBuf),
    Http {
        endpoint: String,
        key: Option<String>,
    },
}

/// The events of one run, sent as it goes.
pub struct Emitter {
    sink: Sink,
    namespace: String,
    job: String,
    run: String,
}

impl OpenLineageArgs {
    /// The emitter for a run of `module` (`pipeline` selected), when
    /// events are asked for, by the flag or the project file (`settings`).
    pub fn emitter(
        &self,
        settings: &Settings,
        module: &Path,
        pipeline: Option<&str>,
    ) -> Result<Option<Emitter>, Failure> {
        let project = settings.get().map_err(config_failure)?;
        let table = project.openlineage.clone().unwrap_or_default();
        let base = project.dir().map(Path::to_path_buf).unwrap_or_default();
        let target = match (&self.openlineage, &table.url, &table.file) {
            (Some(t), _, _) => t.clone(),
            (None, Some(url), _) => url.clone(),
            (None, None, Some(file)) => base.join(file).display().to_string(),
            (None, None, None) => return Ok(None),
        };
        let sink = if target.starts_with("http://") || target.starts_with("https://") {
            let key = match &table.api_key_env {
                Some(var) => Some(std::env::var(var).map_err(|_| {
                    Failure::Environment(format!(
                        "[openlineage] api-key-env names ${var}, which is not set; nothing was run"
                    ))
                })?),
                None => None,
            };
            Sink::Http {
                endpoint: endpoint(&target),
                key,
            }
        } else if target.contains("://") {
            return Err(Failure::Usage(format!(
                "--openlineage {target}: expected a file path or an http(s):// URL"
            )));
        } else {
            Sink::File(PathBuf::from(target))
        };
        Ok(Some(Emitter {
            sink,
            namespace: table.namespace.unwrap_or_else(|| "strata".into()),
            job: event::job_name(module, pipeline),
            run: uuid::Uuid::new_v4().to_string(),
        }))
    }
}

/// OpenLineage's HTTP transport posts to `URL/api/v1/lineage` unless the
/// URL already names that path.
fn endpoint(url: &str) -> String {
    let url = url.trim_end_matches('/');
    match url.ends_with("/api/v1/lineage") {
        true => url.to_string(),
        false => format!("{url}/api/v1/lineage"),
    }
}

/// A URL as messages show it: without a `user:password@` part.
fn shown(url: &str) -> String {
    strata_lifecycle::redact(url)
}

impl Emitter {
    fn now() -> String {
        chrono::DateTime::<chrono::Utc>::from(SystemTime::now())
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }

    fn job(&self) -> event::Job<'_> {
        event::Job {
            namespace: &self.namespace,
            name: &self.job,
            run: &self.run,
        }
    }

    /// START, before anything runs: a target that cannot take it stops
    /// the run (exit 4).
    pub fn start(&self) -> Result<(), Failure> {
        let e = event::event("START", &Self::now(), &self.job(), None);
        self.send(&e)
            .map_err(|why| Failure::Environment(format!("{why}; nothing was run")))
    }

    /// COMPLETE or FAIL, after the run: a failure to deliver it leaves
    /// what the run published in place.
    pub fn finish(&self, facts: &Facts) -> Result<(), Failure> {
        let kind = match facts.failure {
            None => "COMPLETE",
            Some(_) => "FAIL",
        };
        let e = event::event(kind, &Self::now(), &self.job(), Some(facts));
        self.send(&e).map_err(|why| {
            let kept = match facts.report {
                Some(r) if facts.failure.is_none() && !r.run_id.is_empty() => {
                    format!("run {} is published and stays so", r.run_id)
                }
                _ => "the run's outcome is unchanged".to_string(),
            };
            Failure::Environment(format!("{why}; {kept}"))
        })
    }

    fn send(&self, e: &serde_json::Value) -> Result<(), String> {
        let kind = e["eventType"].as_str().unwrap_or("");
        let body = e.to_string();
        match &self.sink {
            Sink::File(path) => std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(path)
                .and_then(|mut f| f.write_all(format!("{body}\n").as_bytes()))
                .map_err(|err| {
                    format!(
                        "cannot write the OpenLineage {kind} event to {}: {err}",
                        path.display()
                    )
                }),
            Sink::Http { endpoint, key } => {
                let agent: ureq::Agent = ureq::Agent::config_builder()
                    .timeout_global(Some(Duration::from_secs(15)))
                    .build()
                    .into();
                let mut req = agent
                    .post(endpoint)
                    .header("Content-Type", "application/json");
                if let Some(k) = key {
                    req = req.header("Authorization", &format!("Bearer {k}"));
                }
                req.send(&body).map(|_| ()).map_err(|err| {
                    format!(
                        "cannot send the OpenLineage {kind} event to {}: {err}",
                        shown(endpoint)
                    )
                })
            }
        }
    }
}

/// Send the end of a run (`opts` as it ran, when it got that far): COMPLETE
/// with `result`'s report, or FAIL with its failure. The warehouse is the
/// one `warehouse` names with the command's `settings`.
pub fn finish(
    emitter: Option<&Emitter>,
    module: &ir::Module,
    opts: Option<&RunOptions>,
    warehouse: &WarehouseArgs,
    settings: &Settings,
    result: Result<&RunReport, &Failure>,
) -> Result<(), Failure> {
    let Some(emitter) = emitter else {
        return Ok(());
    };
    let target = warehouse.target(settings)?;
    let origins = opts
        .and_then(|o| {
            let pipeline = o
                .pipeline
                .as_deref()
                .and_then(|p| module.pipelines.iter().find(|x| x.name == p));
            let dir = o.module_path.parent().unwrap_or(Path::new("."));
            inputs::resolve(module, pipeline, &o.sources, dir).ok()
        })
        .unwrap_or_default();
    emitter.finish(&Facts {
        module,
        target: &target,
        origins: &origins,
        branch: opts.map_or("main", |o| o.branch.as_str()),
        report: result.ok(),
        failure: result.err(),
        backfill: opts.and_then(|o| o.backfill.as_ref()),
    })
}

/// The command's exit code once the last event was sent: a run that
/// succeeded but whose COMPLETE event was not delivered exits 4 (what it
/// published stays); a failed run keeps its own code. The error is one
/// line on stderr (stdout keeps the run's report, or its JSON).
pub fn exit_code(sent: Result<(), Failure>, code: i32) -> i32 {
    match sent {
        Ok(()) => code,
        Err(f) => {
            let (Failure::Usage(m) | Failure::Environment(m)) = &f else {
                return code;
            };
            eprintln!("error: {m}");
            match code {
                exit::OK => exit::ENVIRONMENT,
                other => other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_transport_path_is_added_once() {
        assert_eq!(endpoint("http://m:5000"), "http://m:5000/api/v1/lineage");
        assert_eq!(endpoint("http://m:5000/"), "http://m:5000/api/v1/lineage");
        assert_eq!(
            endpoint("https://m/x/api/v1/lineage"),
            "https://m/x/api/v1/lineage"
        );
        assert_eq!(
            shown("http://u:secret@m:5000/api"),
            "http://u:***@m:5000/api"
        );
    }
}
