//! Byte offsets in a text and LSP positions (line, character), in the
//! encoding negotiated with the client: UTF-16 code units by default, as
//! the protocol requires, or UTF-8 bytes when the client offers it.
//! Positions out of range are clamped, never an error.

use lsp_types::{Position, Range};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// The start of each line of a text.
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
    encoding: Encoding,
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str, encoding: Encoding) -> LineIndex<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            text,
            starts,
            encoding,
        }
    }

    /// The position of byte `offset` (clamped to the text, and back to the
    /// start of a character it falls inside).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|s| *s <= offset) - 1;
        let prefix = &self.text[self.starts[line]..offset];
        let character = match self.encoding {
            Encoding::Utf8 => prefix.len(),
            Encoding::Utf16 => prefix.encode_utf16().count(),
        };
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end))
    }

    /// The byte offset of `position`: a line past the end is the end of the
    /// text, a character past the end of its line the end of the line.
    pub fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(self.text.len(), |next| next - 1);
        let line = &self.text[start..end];
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= position.character as usize {
                return start + i;
            }
            units += match self.encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_counts_surrogate_pairs_twice() {
        let text = "a\n\u{e9}\u{1F600}x\n";
        let idx = LineIndex::new(text, Encoding::Utf16);
        let x = text.find('x').expect("x");
        assert_eq!(idx.position(x), Position::new(1, 3));
        assert_eq!(idx.offset(Position::new(1, 3)), x);
        let utf8 = LineIndex::new(text, Encoding::Utf8);
        assert_eq!(utf8.position(x), Position::new(1, 6));
        assert_eq!(utf8.offset(Position::new(1, 6)), x);
    }

    #[test]
    fn out_of_range_positions_are_clamped() {
        let text = "ab\ncd";
        let idx = LineIndex::new(text, Encoding::Utf16);
        assert_eq!(idx.offset(Position::new(0, 99)), 2);
        assert_eq!(idx.offset(Position::new(9, 0)), text.len());
        assert_eq!(idx.position(99), Position::new(1, 2));
        // Inside a character: back to its start.
        let e = LineIndex::new("\u{e9}", Encoding::Utf8);
        assert_eq!(e.position(1), Position::new(0, 0));
    }
}
