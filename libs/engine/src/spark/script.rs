//! Splitting a script into statements: Spark runs one statement per
//! request.

/// The statements of a script, split at `;` outside strings, quoted names
/// and comments (Spark runs one statement per request).
pub(super) fn statements(sql: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut chars) = (0, sql.char_indices().peekable());
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' | '"' | '`' => {
                while let Some((_, d)) = chars.next() {
                    if d == '\\' && c != '`' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            '-' if chars.peek().map(|&(_, d)| d) == Some('-') => {
                for (_, d) in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            ';' => {
                out.push(&sql[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&sql[start..]);
    out.into_iter()
        .filter(|s| {
            s.lines()
                .map(|l| l.split("--").next().unwrap_or("").trim())
                .any(|l| !l.is_empty())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_split_outside_strings_names_and_comments() {
        assert_eq!(
            statements(
                "CREATE TABLE a (x STRING); -- one; two\nINSERT INTO `b;c` VALUES ('d;\\'e');\n\n"
            ),
            vec![
                "CREATE TABLE a (x STRING)",
                " -- one; two\nINSERT INTO `b;c` VALUES ('d;\\'e')"
            ]
        );
        assert_eq!(statements("SELECT 1"), vec!["SELECT 1"]);
        assert!(statements(" ; -- nothing\n").is_empty());
    }
}
