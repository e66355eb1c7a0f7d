//! A model's pins as its contract: `nonnull`, `unique`, `primary_key`
//! (both) and `enum`, named after the model.

use std::collections::BTreeMap;

use strata_lang::ir;

use crate::names::quote;
use crate::promises::Pin;
use crate::types;

/// The contract of a model's pins.
pub(super) fn contract_text(
    model: &str,
    pins: &BTreeMap<String, Vec<Pin>>,
    cols: &[ir::Column],
) -> String {
    let mut s = format!("contract {} {{\n", contract_name(model));
    for c in cols {
        let Some(p) = pins.get(c.name.as_str()) else {
            continue;
        };
        let Some(ty) = types::declared(&c.ty) else {
            continue;
        };
        let nonnull = p.contains(&Pin::Nonnull);
        let unique = p.contains(&Pin::Unique);
        let mut flags = Vec::new();
        match (nonnull, unique) {
            (true, true) => flags.push("primary_key".to_string()),
            (true, false) => flags.push("nonnull".to_string()),
            (false, true) => flags.push("unique".to_string()),
            _ => {}
        }
        for pin in p {
            if let Pin::Enum(values) = pin {
                flags.push(format!(
                    "enum {{ {} }}",
                    values
                        .iter()
                        .map(|v| quote(v))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        s.push_str(&format!(
            "  {}: {ty} {}\n",
            crate::names::written(&c.name),
            flags.join(" ")
        ));
    }
    s.push_str("}\n");
    s
}

/// The contract of model `stg_orders`: `StgOrders`.
pub fn contract_name(model: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in model.chars() {
        if c == '_' {
            upper = true;
            continue;
        }
        if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'C');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_names() {
        assert_eq!(contract_name("stg_orders"), "StgOrders");
        assert_eq!(contract_name("customers"), "Customers");
    }
}
