//! Hover: what the name under the cursor is (a node with its schema, a
//! column with its lineage), what an `expect` promise makes `strata run`
//! check, and the summary of each diagnostic's code there; as markdown.

use strata_lang::ast::ItemKind;
use strata_lang::ir;

use super::analysis::Analysis;
use super::index::Target;
use crate::graph::{columns_of, NodeKind};

/// The markdown shown on hover at byte `offset` of the document, if any.
pub fn hover(a: &Analysis, offset: usize) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(t) = describe_expect(a, offset) {
        parts.push(t);
    } else if let Some(o) = a.index().at(a.file, offset) {
        parts.extend(describe_target(a, &o.target));
    } else if let Some(f) = function_at(a.text(a.file), offset) {
        parts.push(format!("`{}`: {}", f.signature, f.summary));
    }
    for d in a.checked.diagnostics.iter().filter(|d| {
        d.span.file == a.file && (d.span.start as usize) <= offset && offset <= d.span.end as usize
    }) {
        if let Some(rule) = strata_rules::find(d.code) {
            parts.push(format!(
                "**{}** ({}): {}",
                rule.code,
                rule.name,
                rule.summary()
            ));
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(parts.join("\n---\n"))
}

/// The catalog function whose name is under `offset`, when a `(` follows
/// it (a call).
fn function_at(text: &str, offset: usize) -> Option<&'static strata_lang::catalog::Function> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let start = text
        .get(..offset)?
        .rfind(|c: char| !word(c))
        .map_or(0, |i| i + 1);
    let end = offset
        + text
            .get(offset..)?
            .find(|c: char| !word(c))
            .unwrap_or(text.len() - offset);
    let after = text.get(end..)?.trim_start();
    match after.starts_with('(') {
        true => strata_lang::catalog::lookup(text.get(start..end)?),
        false => None,
    }
}

fn column_line(c: &ir::Column) -> String {
    let mut flags = vec![if c.nullable { "nullable" } else { "nonnull" }.to_string()];
    if c.primary_key {
        flags.push("primary_key".into());
    } else if c.unique {
        flags.push("unique".into());
    }
    if c.protected {
        flags.push("protected".into());
    }
    if let Some(values) = &c.enum_values {
        flags.push(format!("enum {{ {} }}", values.join(", ")));
    }
    format!("`{}`: {} ({})", c.name, c.ty, flags.join(", "))
}

fn schema(cols: &[ir::Column]) -> String {
    cols.iter()
        .map(|c| format!("- {}\n", column_line(c)))
        .collect()
}

fn describe_target(a: &Analysis, target: &Target) -> Option<String> {
    let module = &a.checked.module;
    match target {
        Target::Node(node) => {
            let cols = columns_of(module, node)?;
            let head = match node.kind {
                NodeKind::Model => {
                    let m = a.model(&node.name)?;
                    let contract = m
                        .contract
                        .as_ref()
                        .map(|c| format!(" -> contract {c}"))
                        .unwrap_or_default();
                    let inputs: Vec<String> =
                        m.inputs.iter().map(|i| format!("`{}`", i.name)).collect();
                    format!(
                        "**model** `{}`{contract}\n\nreads {}\n",
                        node.name,
                        inputs.join(", ")
                    )
                }
                // Where it reads: its own schema's table, or the one named
                // like it.
                NodeKind::Source => {
                    let table = module
                        .sources
                        .iter()
                        .find(|s| s.name == node.name)
                        .map(|s| format!("\n\nreads the table `{}`", s.table))
                        .unwrap_or_default();
                    format!("**source** `{}`{table}\n", node.name)
                }
                kind => format!("**{}** `{}`\n", kind.as_str(), node.name),
            };
            Some(format!("{head}\n{}", schema(cols)))
        }
        Target::Column(node, column) => {
            let cols = columns_of(module, node)?;
            let c = cols.iter().find(|c| c.name == column.as_str())?;
            let mut text = format!(
                "**{}** `{}`\n\n{}\n",
                node.kind.as_str(),
                node.name,
                column_line(c)
            );
            if node.kind == NodeKind::Model {
                if let Some(l) = a
                    .model(&node.name)
                    .and_then(|m| m.lineage.iter().find(|l| l.column == column.as_str()))
                {
                    let from: Vec<String> =
                        l.from.iter().map(|(i, c)| format!("`{i}.{c}`")).collect();
                    let from = if from.is_empty() {
                        "nothing (a literal or count)".to_string()
                    } else {
                        from.join(", ")
                    };
                    text.push_str(&format!("\n{} from {from}\n", l.how.replace('_', " ")));
                }
            }
            Some(text)
        }
    }
}

/// What the run-time check of an `expect` counts.
fn describe_expect(a: &Analysis, offset: usize) -> Option<String> {
    let decl = a.model_decl_at(offset)?;
    let model = a.model(&decl.name.name)?;
    let join = decl
        .items
        .iter()
        .filter_map(|it| match &it.kind {
            ItemKind::Join(j) => Some(j),
            _ => None,
        })
        .find(|j| {
            j.expect
                .as_ref()
                .is_some_and(|e| (e.span.start as usize) <= offset && offset <= e.span.end as usize)
        })?;
    let card = join.expect.as_ref()?.cardinality.as_str();
    let mut text = format!(
        "**expect {card}** on `{} {}`\n\n",
        join.kind.keyword(),
        join.input.name
    );
    let sides: Vec<_> = strata_lang::sql::check_sides(model)
        .filter(|s| s.join_input == join.input.name.as_str())
        .collect();
    if sides.is_empty() {
        text.push_str(
            "no run-time check: the join's `on` cannot be counted (see the diagnostic)\n",
        );
        return Some(text);
    }
    for s in sides {
        let keys: Vec<&str> = s.keys.iter().map(|k| k.as_str()).collect();
        text.push_str(&format!(
            "- `strata run` counts the duplicate key groups of `{}` on ({}); one aborts the run (PinError) and publishes nothing\n",
            s.table,
            keys.join(", ")
        ));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::function_at;

    #[test]
    fn a_source_says_which_table_it_reads() {
        let path = std::path::PathBuf::from("/nowhere/m.strata");
        let text = "source c(schema: \"raw\", table: \"customer\") { columns: { id: int64 } }\n\
                    source o(ns: \"app\") { columns: { id: int64 } }\n\
                    model m { from c join_left o on c.id == o.id }\n";
        let a = super::Analysis::new(&path, [(path.clone(), text.to_string())].into());
        let at = |needle: &str| text.find(needle).unwrap_or(0) + 1;
        let shown = super::hover(&a, at("from c") + 5).unwrap_or_default();
        assert!(
            shown.contains("**source** `c`\n\nreads the table `raw.customer`"),
            "{shown}"
        );
        let shown = super::hover(&a, at("join_left o") + 10).unwrap_or_default();
        assert!(shown.contains("reads the table `o`"), "{shown}");
    }

    #[test]
    fn a_function_name_before_its_parenthesis() {
        let text = "  x = round(amount, 2) + upper (s) + round";
        let at = |needle: &str| text.find(needle).unwrap_or(0) + 1;
        assert_eq!(
            function_at(text, at("round(")).map(|f| f.name),
            Some("round")
        );
        assert_eq!(
            function_at(text, at("upper")).map(|f| f.name),
            Some("upper")
        );
        // Not a call, or not a function.
        assert!(function_at(text, text.len() - 1).is_none());
        assert!(function_at(text, at("amount")).is_none());
    }
}
