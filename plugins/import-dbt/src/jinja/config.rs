//! The Jinja of YAML: dbt renders the strings of dbt_project.yml's configs
//! (`+enabled: "{{ var('x', true) }}"`, a seed's `column_types`) and of
//! sources (`schema: "{{ var('github_schema', 'github') }}"`, `identifier:`)
//! when it reads the project, with the vars of the package they belong to.
//! Hooks are left as they are (dbt renders them when it runs them).

use std::sync::Arc;

use minijinja::{Environment, ErrorKind, UndefinedBehavior, Value};
use serde_json::{Map, Value as Json};

use crate::project::Project;

/// Render the Jinja of the project's configs and sources in place. A
/// string that does not render is kept as written (what reads it says why
/// it cannot use it).
pub fn render_project_yaml(project: &mut Project) {
    let adapter = project.adapter.clone();
    let root_vars = Arc::new(project.vars.clone());
    render_tree(&mut project.models_config, &root_vars, &adapter);
    render_tree(&mut project.seeds_config, &root_vars, &adapter);
    render_tree(&mut project.tests_config, &root_vars, &adapter);
    let mut package_vars = Vec::new();
    for p in project.packages.values_mut() {
        let vars = Arc::new(p.vars.clone());
        render_tree(&mut p.models_config, &vars, &adapter);
        package_vars.push((format!("{}/", p.rel), vars));
    }
    for t in project.props.sources.values_mut() {
        let vars = package_vars
            .iter()
            .find(|(rel, _)| t.loc.file.starts_with(rel.as_str()))
            .map_or(&root_vars, |(_, v)| v);
        for field in [&mut t.schema, &mut t.identifier] {
            if let Some(text) = field.as_mut() {
                if let Ok(Json::String(s)) = render(text, vars, &adapter) {
                    *text = s.trim().to_string();
                }
            }
        }
    }
}

fn render_tree(tree: &mut Json, vars: &Arc<Map<String, Json>>, adapter: &str) {
    match tree {
        Json::Object(m) => {
            for (k, v) in m.iter_mut() {
                if !k.contains("hook") {
                    render_tree(v, vars, adapter);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(|v| render_tree(v, vars, adapter)),
        Json::String(s) => {
            if let Ok(v) = render(s, vars, adapter) {
                *tree = v;
            }
        }
        _ => {}
    }
}

/// One string rendered: `true`/`false` become booleans, as dbt's native
/// rendering of configs gives them; text without Jinja is unchanged.
fn render(text: &str, vars: &Arc<Map<String, Json>>, adapter: &str) -> Result<Json, ()> {
    if !text.contains("{{") && !text.contains("{%") {
        return Ok(Json::String(text.to_string()));
    }
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(100_000));
    let v = vars.clone();
    env.add_function(
        "var",
        move |name: String, default: Option<Value>| -> Result<Value, minijinja::Error> {
            match (v.get(&name), default) {
                (Some(x), _) => Ok(Value::from_serialize(x)),
                (None, Some(d)) => Ok(d),
                (None, None) => Err(minijinja::Error::new(
                    ErrorKind::InvalidOperation,
                    format!("var('{name}') is not set"),
                )),
            }
        },
    );
    env.add_global(
        "target",
        Value::from_serialize(serde_json::json!({"type": adapter, "name": "dev"})),
    );
    let out = env.render_str(text, ()).map_err(|_| ())?;
    Ok(match out.trim() {
        "True" | "true" => Json::Bool(true),
        "False" | "false" => Json::Bool(false),
        _ => Json::String(out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn configs_render_with_their_vars() {
        let vars = Arc::new(
            json!({"load": false, "schema": "raw"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        let mut tree = json!({
            "+enabled": "{{ var('load', true) }}",
            "+schema": "{{ var('schema') }}_x",
            "+column_types": {"id": "{%- if target.type == 'bigquery' -%} INT64 {%- else -%} bigint {%- endif -%}"},
            "+post-hook": "{{ this }}",
            "+alias": "{{ var('nope') }}",
        });
        render_tree(&mut tree, &vars, "duckdb");
        assert_eq!(
            tree,
            json!({
                "+enabled": false,
                "+schema": "raw_x",
                "+column_types": {"id": "bigint"},
                "+post-hook": "{{ this }}",
                "+alias": "{{ var('nope') }}",
            })
        );
    }
}
