//! The checker's types.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Int64,
    Float64,
    Decimal(u32, u32),
    /// Money with its currency (default `USD`).
    Money(String),
    String,
    Bool,
    Date,
    Timestamp,
    Uuid,
    Json,
    Array(Box<Type>),
    /// The type of `null` and of failed casts.
    Unknown,
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int64 => f.write_str("int64"),
            Type::Float64 => f.write_str("float64"),
            Type::Decimal(p, s) => write!(f, "decimal({p},{s})"),
            Type::Money(c) => write!(f, "money({c})"),
            Type::String => f.write_str("string"),
            Type::Bool => f.write_str("bool"),
            Type::Date => f.write_str("date"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::Uuid => f.write_str("uuid"),
            Type::Json => f.write_str("json"),
            Type::Array(t) => write!(f, "array<{t}>"),
            Type::Unknown => f.write_str("unknown"),
        }
    }
}

impl serde::Serialize for Type {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
