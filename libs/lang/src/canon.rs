//! The canonical text of a syntax tree, for fingerprints: what serde's
//! derived `Serialize` of the tree says, written as compact JSON-like text
//! with every [`crate::span::Span`] left out, so that where the text sits,
//! its layout and its comments do not count.
//!
//! A struct is `{value,...}`: its fields by position, in declaration order
//! (their names are not written: they would double the text, and the
//! fields of a type are fixed, so positions tell them apart). A sequence is
//! `[a,b]`, a variant its name followed by its value (`Int(1)`,
//! `Binary{...}`, `"Left"` when it has none), a string is JSON-escaped, a
//! float `f` and its bits, a missing value `null`.

use std::fmt::Display;

use serde::ser::{self, Serialize};

/// The canonical text of `value`.
pub fn canonical<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Canon(Vec::with_capacity(512));
    // Writing into memory cannot fail, and nothing here returns an error.
    let _ = value.serialize(&mut out);
    out.0
}

struct Canon(Vec<u8>);

/// Never made: writing the canonical text cannot fail.
#[derive(Debug)]
pub struct Never;

impl Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("canonical text")
    }
}

impl std::error::Error for Never {}

impl ser::Error for Never {
    fn custom<T: Display>(_: T) -> Self {
        Never
    }
}

/// A struct, sequence, tuple or map being written: its separators, and
/// whether it is a span (written as nothing).
struct Compound<'a> {
    canon: &'a mut Canon,
    first: bool,
    skip: bool,
    close: u8,
}

impl Canon {
    /// A string, quoted and JSON-escaped (names need no escape).
    fn text(&mut self, s: &str) {
        if s.bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
        {
            self.0.push(b'"');
            self.0.extend_from_slice(s.as_bytes());
            self.0.push(b'"');
        } else {
            // A `str` cannot fail to serialise.
            let _ = serde_json::to_writer(&mut self.0, s);
        }
    }

    fn number(&mut self, v: impl Display) {
        use std::io::Write as _;
        // Writing into memory cannot fail.
        let _ = write!(self.0, "{v}");
    }

    /// A variant's name, then its fields in `open`..`close`.
    fn variant(&mut self, variant: &str, open: u8, close: u8) -> Compound<'_> {
        self.0.extend_from_slice(variant.as_bytes());
        self.open(open, close)
    }

    fn open(&mut self, open: u8, close: u8) -> Compound<'_> {
        self.0.push(open);
        Compound {
            canon: self,
            first: true,
            skip: false,
            close,
        }
    }
}

impl Compound<'_> {
    /// Write `value`, after a comma unless first; nothing at all when the
    /// value writes nothing (a span).
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) {
        if self.skip {
            return;
        }
        let at = self.canon.0.len();
        if !self.first {
            self.canon.0.push(b',');
        }
        let before = self.canon.0.len();
        let _ = value.serialize(&mut *self.canon);
        if self.canon.0.len() == before {
            self.canon.0.truncate(at);
        } else {
            self.first = false;
        }
    }

    fn end(self) -> Result<(), Never> {
        if !self.skip {
            self.canon.0.push(self.close);
        }
        Ok(())
    }
}

/// Numbers written as their widest type.
macro_rules! widened {
    ($($method:ident($t:ty) => $wide:ident,)*) => {
        $(fn $method(self, v: $t) -> Result<(), Never> {
            self.$wide(v.into())
        })*
    };
}

impl<'a> ser::Serializer for &'a mut Canon {
    type Ok = ();
    type Error = Never;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Never> {
        self.0.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    widened! {
        serialize_i8(i8) => serialize_i64,
        serialize_i16(i16) => serialize_i64,
        serialize_i32(i32) => serialize_i64,
        serialize_u8(u8) => serialize_u64,
        serialize_u16(u16) => serialize_u64,
        serialize_u32(u32) => serialize_u64,
        serialize_f32(f32) => serialize_f64,
    }
    fn serialize_i64(self, v: i64) -> Result<(), Never> {
        self.number(v);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Never> {
        self.number(v);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Never> {
        self.0.push(b'f');
        self.number(v.to_bits());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Never> {
        self.text(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Never> {
        self.text(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Never> {
        let mut seq = self.open(b'[', b']');
        for b in v {
            seq.item(b);
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), Never> {
        self.0.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Never> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Never> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Never> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Never> {
        self.text(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        // `Variant(value)`: the variant is written even when its value is a
        // span (written as nothing).
        self.0.extend_from_slice(variant.as_bytes());
        self.0.push(b'(');
        value.serialize(&mut *self)?;
        self.0.push(b')');
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, Never> {
        Ok(self.open(b'[', b']'))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, Never> {
        Ok(self.open(b'[', b']'))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, Never> {
        Ok(self.open(b'[', b']'))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Never> {
        Ok(self.variant(variant, b'[', b']'))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, Never> {
        Ok(self.open(b'{', b'}'))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Compound<'a>, Never> {
        if name == "Span" {
            return Ok(Compound {
                canon: self,
                first: true,
                skip: true,
                close: b'}',
            });
        }
        Ok(self.open(b'{', b'}'))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, Never> {
        Ok(self.variant(variant, b'{', b'}'))
    }
}

macro_rules! compound {
    ($trait:ident, $method:ident) => {
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Never;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Never> {
                self.item(value);
                Ok(())
            }
            fn end(self) -> Result<(), Never> {
                Compound::end(self)
            }
        }
    };
}

compound!(SerializeSeq, serialize_element);
compound!(SerializeTuple, serialize_element);
compound!(SerializeTupleStruct, serialize_field);
compound!(SerializeTupleVariant, serialize_field);

macro_rules! fields {
    ($trait:ident) => {
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Never;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                _: &'static str,
                value: &T,
            ) -> Result<(), Never> {
                self.item(value);
                Ok(())
            }
            fn end(self) -> Result<(), Never> {
                Compound::end(self)
            }
        }
    };
}

fields!(SerializeStruct);
fields!(SerializeStructVariant);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Never> {
        self.item(key);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Never> {
        self.canon.0.push(b':');
        let _ = value.serialize(&mut *self.canon);
        Ok(())
    }
    fn end(self) -> Result<(), Never> {
        Compound::end(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_their_fields_leave_no_trace() {
        let a = crate::parser::parse(crate::FileId(0), "model m { from s select { x = 1 } }").0;
        let b = crate::parser::parse(
            crate::FileId(3),
            "model   m {\n  # c\n  from s\n  select { x = 1 }\n}",
        )
        .0;
        assert_eq!(canonical(&a.decls), canonical(&b.decls));
        let text = String::from_utf8(canonical(&a.decls)).expect("utf-8");
        assert!(!text.contains("span") && !text.contains("start"), "{text}");
        assert!(text.starts_with(r#"[Model({{"m"},false,null,["#), "{text}");
        // Variants whose only field is a span stay apart.
        let nonnull = crate::parser::parse(crate::FileId(0), "contract C { a: int64 nonnull }").0;
        let unique = crate::parser::parse(crate::FileId(0), "contract C { a: int64 unique }").0;
        assert_ne!(canonical(&nonnull.decls), canonical(&unique.decls));
    }
}
