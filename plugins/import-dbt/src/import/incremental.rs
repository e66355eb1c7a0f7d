//! A dbt incremental model as a strata `incremental` model, when it is the
//! usual pattern (`sql::incremental`): dbt's strategy on DuckDB is
//! delete+insert with a `unique_key` (strata's `upsert` on it) and append
//! without one; its watermark column is strata's `cdc_column`. Otherwise
//! the model is rebuilt in full, and the report says why.

use serde_json::{Map, Value};

use crate::names::written;
use crate::plan::{ModelPlan, Step};
use crate::sql::incremental::Watermark;

/// How an incremental model merges its new rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Merge {
    /// The upsert keys (`unique_key`); none: append.
    pub keys: Vec<String>,
    pub cdc_column: String,
}

impl Merge {
    /// The merge dbt's config and the model's watermark filter make, or
    /// why there is none.
    pub fn of(config: &Map<String, Value>, watermark: &Watermark) -> Result<Merge, String> {
        let keys = match config.get("unique_key") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(k)) => vec![key(k)?],
            Some(Value::Array(ks)) => ks
                .iter()
                .map(|k| {
                    k.as_str()
                        .ok_or("a unique_key that is not a column name".to_string())
                        .and_then(key)
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("a unique_key that is not a column name".into()),
        };
        let strategy = config.get("incremental_strategy").and_then(Value::as_str);
        let keys = match strategy {
            None | Some("delete+insert" | "merge") => keys,
            Some("append") => Vec::new(),
            Some(s) => return Err(format!("incremental_strategy `{s}`")),
        };
        if keys.is_empty() && watermark.inclusive {
            // dbt appends the rows at the watermark again; strata does not.
            return Err(
                "it appends with `>=`, which adds the rows at the watermark again on each run"
                    .into(),
            );
        }
        Ok(Merge {
            keys,
            cdc_column: watermark.column.clone(),
        })
    }

    /// The clause in `plan`, when the model it translated to can merge:
    /// not grouped, its keys and watermark column among its outputs.
    pub fn clause(&self, plan: &ModelPlan) -> Result<String, String> {
        if plan.steps.iter().any(|s| matches!(s, Step::Group(_))) {
            return Err("the strata model groups its rows".into());
        }
        let has = |c: &str| plan.columns.iter().any(|x| x.eq_ignore_ascii_case(c));
        let col = |c: &str| {
            plan.columns
                .iter()
                .find(|x| x.eq_ignore_ascii_case(c))
                .map(|x| written(x).to_string())
        };
        for c in self.keys.iter().chain([&self.cdc_column]) {
            if !has(c) {
                return Err(format!("`{c}` is not one of its output columns"));
            }
        }
        let cdc = col(&self.cdc_column).unwrap_or_default();
        Ok(if self.keys.is_empty() {
            format!("incremental merge_strategy: append cdc_column: {cdc}")
        } else {
            let keys: Vec<String> = self.keys.iter().filter_map(|k| col(k)).collect();
            format!(
                "incremental merge_strategy: upsert merge_keys: [{}] cdc_column: {cdc}",
                keys.join(", ")
            )
        })
    }

    /// What the report says.
    pub fn describe(&self) -> String {
        let how = if self.keys.is_empty() {
            "appends".to_string()
        } else {
            format!("upserts on {}", self.keys.join(", "))
        };
        format!(
            "materialized incremental in dbt: a strata incremental model that {how} the rows whose {} is above the previous snapshot's greatest (dbt's filter on {{{{ this }}}})",
            self.cdc_column
        )
    }
}

/// What the report says of an incremental model strata rebuilds in full.
pub(super) fn rebuilt_in_full(why: &str) -> String {
    format!("materialized incremental in dbt: converted as a model rebuilt in full ({{% if is_incremental() %}} blocks left out): {why}")
}

/// A `unique_key` that is one column's name.
fn key(k: &str) -> Result<String, String> {
    let k = k.trim();
    let plain = !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        Ok(k.to_lowercase())
    } else {
        Err(format!("the unique_key `{k}` is not one column"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn wm(inclusive: bool) -> Watermark {
        Watermark {
            column: "updated_at".into(),
            inclusive,
        }
    }

    #[test]
    fn dbt_strategies_become_strata_merges() {
        let upsert = Merge::of(&config(json!({"unique_key": "id"})), &wm(true));
        assert_eq!(upsert.map(|m| m.keys), Ok(vec!["id".to_string()]));
        let keys = Merge::of(
            &config(json!({"unique_key": ["a", "b"], "incremental_strategy": "merge"})),
            &wm(false),
        );
        assert_eq!(keys.map(|m| m.keys.len()), Ok(2));
        let append = Merge::of(&config(json!({})), &wm(false));
        assert_eq!(append.map(|m| m.keys), Ok(vec![]));
        assert!(Merge::of(&config(json!({})), &wm(true)).is_err_and(|e| e.contains(">=")));
        assert!(Merge::of(
            &config(json!({"unique_key": "id", "incremental_strategy": "microbatch"})),
            &wm(false)
        )
        .is_err_and(|e| e.contains("microbatch")));
        assert!(Merge::of(&config(json!({"unique_key": "a || b"})), &wm(false)).is_err());
    }

    #[test]
    fn the_clause_needs_its_columns() {
        let mut plan = ModelPlan::new("m", "src");
        plan.columns = vec!["id".into(), "updated_at".into()];
        let m = Merge {
            keys: vec!["id".into()],
            cdc_column: "updated_at".into(),
        };
        assert_eq!(
            m.clause(&plan),
            Ok("incremental merge_strategy: upsert merge_keys: [id] cdc_column: updated_at".into())
        );
        plan.columns = vec!["id".into()];
        assert!(m.clause(&plan).is_err_and(|e| e.contains("updated_at")));
    }
}
