//! A breaking change as an E030 diagnostic, and the new version's own
//! diagnostics, pointing into the source map both versions share.

use strata_codes as codes;
use strata_lang::Diagnostic;

use super::change::{describe_downstream, Change, Kind};
use super::pair::Pair;

impl Pair<'_> {
    /// A diagnostic of the new version, pointing into the shared map.
    pub fn new_diagnostic(&self, d: &Diagnostic) -> Diagnostic {
        let mut d = d.clone();
        d.span = self.new.span(d.span);
        for l in &mut d.labels {
            l.span = self.new.span(l.span);
        }
        d
    }

    /// The E030 diagnostic of a breaking change: at the change in the new
    /// version (or where it was, for a removal), with where it was and who
    /// reads it in the old version.
    pub fn diagnostic(&self, c: &Change) -> Option<Diagnostic> {
        let why = c.breaking.as_ref()?;
        let what = match &c.column {
            Some(col) => format!("{} {}.{}", c.kind.as_str(), c.node.name, col),
            None => format!("{} {}: {}", c.node.kind.as_str(), c.node.name, c.detail),
        };
        let primary = c.new_span.or(c.old_span)?;
        let mut d = Diagnostic::new(&codes::E030, primary, format!("breaking change: {what}"))
            .with_label(c.detail.clone());
        if let (Some(old), Some(_)) = (c.old_span, c.new_span) {
            d = d.with_secondary(old, "before");
        }
        const SHOWN: usize = 4;
        for r in c.readers.iter().take(SHOWN) {
            d = d.with_secondary(
                self.old.span(r.span),
                format!(
                    "{} {} reads {} here ({})",
                    r.reader.kind.as_str(),
                    r.reader.name,
                    r.column.column,
                    r.how
                ),
            );
        }
        if c.readers.len() > SHOWN {
            d = d.with_note(format!("and {} more reads", c.readers.len() - SHOWN));
        }
        d = d.with_note(why.clone());
        if !c.downstream.is_empty() {
            d = d.with_note(format!("reaches {}", describe_downstream(&c.downstream)));
        }
        let help = match c.kind {
            Kind::Removed | Kind::Renamed | Kind::Retyped => {
                "keep the old one beside the new one until every consumer has moved to it, \
                 then remove it in a later change"
            }
            Kind::Promise | Kind::JoinRemoved => {
                "keep the promise (make it true by construction: `dedup by` the key upstream), \
                 or tell the consumers that rows may now repeat"
            }
            _ => "if the consumers can take it, change them first; otherwise keep the promise",
        };
        Some(d.with_help(help))
    }
}
