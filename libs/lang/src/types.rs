//! The checker's types.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Int64,
    /// A 4-byte float (`REAL`, `FLOAT4`, Spark's `FLOAT`).
    Float32,
    Float64,
    Decimal(u32, u32),
    /// Money with its currency (default `USD`). Boxed: a type is in every
    /// column and typed expression, and without the box it is 24 bytes
    /// instead of 16 for this rare case.
    Money(Box<String>),
    String,
    Bool,
    Date,
    Timestamp,
    /// An instant (`TIMESTAMP WITH TIME ZONE`): compared and stored as UTC;
    /// its wall-clock time in a zone comes from `at_time_zone`/`to_utc`.
    TimestampTz,
    Uuid,
    Json,
    Array(Box<Type>),
    /// The type of `null` and of failed casts.
    Unknown,
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = self.plain_name() {
            return f.write_str(name);
        }
        match self {
            Type::Decimal(p, s) => write!(f, "decimal({p},{s})"),
            Type::Money(c) => write!(f, "money({c})"),
            Type::Array(t) => write!(f, "array<{t}>"),
            _ => Ok(()),
        }
    }
}

impl serde::Serialize for Type {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Type {
    /// The name of a type without parameters, as displayed (`int64`, ...);
    /// `None` for decimal, money and arrays. Lets output code skip the
    /// formatting machinery for the common types.
    pub fn plain_name(&self) -> Option<&'static str> {
        Some(match self {
            Type::Int64 => "int64",
            Type::Float32 => "float32",
            Type::Float64 => "float64",
            Type::String => "string",
            Type::Bool => "bool",
            Type::Date => "date",
            Type::Timestamp => "timestamp",
            Type::TimestampTz => "timestamptz",
            Type::Uuid => "uuid",
            Type::Json => "json",
            Type::Unknown => "unknown",
            Type::Decimal(..) | Type::Money(_) | Type::Array(_) => return None,
        })
    }

    /// Numeric for comparisons and arithmetic: int64, float32, float64,
    /// decimal (not money).
    pub fn is_numeric(&self) -> bool {
        matches!(
            self,
            Type::Int64 | Type::Float32 | Type::Float64 | Type::Decimal(..)
        )
    }

    /// The type of a sum of values of this type, as DuckDB types `SUM`:
    /// `decimal(p,s)` widens to `decimal(38,s)` (a sum of many values
    /// needs more integer digits than each), a float to float64; int64 and
    /// money stay.
    pub fn sum(&self) -> Type {
        match self {
            Type::Decimal(_, s) => decimal(MAX_DECIMAL_PRECISION, *s),
            Type::Float32 => Type::Float64,
            t => t.clone(),
        }
    }

    /// float32 or float64.
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float32 | Type::Float64)
    }

    /// The exact decimal that holds every value of an exact numeric type:
    /// `decimal(p,s)` itself, int64 as `decimal(19,0)` (as DuckDB, Spark and
    /// the SQL standard widen a bigint), money as `decimal(38,2)`.
    pub fn as_decimal(&self) -> Option<(u32, u32)> {
        match self {
            Type::Decimal(p, s) => Some((*p, *s)),
            Type::Int64 => Some((19, 0)),
            _ => None,
        }
    }

    /// Numeric for function argument kinds (`sum`, `avg`): also money.
    pub fn is_numeric_arg(&self) -> bool {
        self.is_numeric() || matches!(self, Type::Money(_))
    }

    /// A date or a wall-clock timestamp: what the calendar functions take.
    /// A `timestamptz` is an instant: its calendar parts depend on a time
    /// zone, so it goes through `to_utc` or `at_time_zone` first.
    pub fn is_temporal(&self) -> bool {
        matches!(self, Type::Date | Type::Timestamp)
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Type::Unknown)
    }

    /// The scalar type names `cast(x, "name")` and `domain` accept without
    /// parameters.
    pub fn from_scalar_name(name: &str) -> Option<Type> {
        Some(match name {
            "int64" => Type::Int64,
            "float32" => Type::Float32,
            "float64" => Type::Float64,
            "string" => Type::String,
            "bool" => Type::Bool,
            "date" => Type::Date,
            "timestamp" => Type::Timestamp,
            "timestamptz" => Type::TimestampTz,
            "uuid" => Type::Uuid,
            "json" => Type::Json,
            "money" => Type::Money(Box::new("USD".to_string())),
            _ => return None,
        })
    }
}

/// The largest decimal precision of DuckDB, Spark, Snowflake and
/// BigQuery's NUMERIC family alike.
pub const MAX_DECIMAL_PRECISION: u32 = 38;

/// `decimal(p,s)` within [`MAX_DECIMAL_PRECISION`]: a wider result keeps
/// its scale and loses integer digits, as DuckDB's does (a value that does
/// not fit is then an overflow error on every engine, never a silent
/// truncation).
pub fn decimal(p: u32, s: u32) -> Type {
    let s = s.min(MAX_DECIMAL_PRECISION);
    Type::Decimal(p.clamp(s.max(1), MAX_DECIMAL_PRECISION), s)
}

/// Least upper bound used by `coalesce`, `if`, `case` and set operations
/// (`None` when the types do not unify).
pub fn unify(a: &Type, b: &Type) -> Option<Type> {
    if a == b {
        return Some(a.clone());
    }
    // Decimals (and a decimal with an int64) unify to a decimal that holds
    // both: the larger scale and the larger count of integer digits.
    if matches!(a, Type::Decimal(..)) || matches!(b, Type::Decimal(..)) {
        if let (Some((p1, s1)), Some((p2, s2))) = (a.as_decimal(), b.as_decimal()) {
            let s = s1.max(s2);
            return Some(decimal(
                p1.saturating_sub(s1).max(p2.saturating_sub(s2)) + s,
                s,
            ));
        }
    }
    let dec_or_money = |t: &Type| matches!(t, Type::Decimal(..) | Type::Money(_));
    if dec_or_money(a) && b.is_numeric_arg() {
        return Some(a.clone());
    }
    if dec_or_money(b) && a.is_numeric_arg() {
        return Some(b.clone());
    }
    if a.is_numeric() && b.is_numeric() {
        // Two different float types, or a float and an int64: float64
        // (float32 only when both are).
        if a.is_float() || b.is_float() {
            return Some(Type::Float64);
        }
        if matches!(a, Type::Decimal(..)) || matches!(b, Type::Decimal(..)) {
            return Some(Type::Decimal(38, 2));
        }
        return Some(Type::Int64);
    }
    None
}

/// Unify a list of types, skipping `unknown` ones (the `null` literal).
/// `Ok(None)` when every type is unknown; `Err((a, b))` on the first pair that
/// does not unify.
pub fn unify_all<'a>(
    types: impl IntoIterator<Item = &'a Type>,
) -> Result<Option<Type>, (Type, Type)> {
    let mut acc: Option<Type> = None;
    for t in types {
        if t.is_unknown() {
            continue;
        }
        acc = Some(match acc {
            None => t.clone(),
            Some(a) => match unify(&a, t) {
                Some(u) => u,
                None => return Err((a, t.clone())),
            },
        });
    }
    Ok(acc)
}

/// Whether an inferred type satisfies a contract's declared type: equal, or
/// an int64 value for a numeric contract type.
pub fn contract_compatible(declared: &Type, inferred: &Type) -> bool {
    declared == inferred || (declared.is_numeric() && *inferred == Type::Int64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unify_follows_reference_order() {
        let usd = Type::Money(Box::new("USD".into()));
        let eur = Type::Money(Box::new("EUR".into()));
        assert_eq!(unify(&Type::Int64, &Type::Int64), Some(Type::Int64));
        assert_eq!(
            unify(&Type::Float64, &Type::Decimal(10, 2)),
            Some(Type::Decimal(10, 2))
        );
        assert_eq!(
            unify(&Type::Decimal(10, 2), &Type::Decimal(12, 4)),
            Some(Type::Decimal(12, 4))
        );
        assert_eq!(
            unify(&Type::Decimal(10, 2), &Type::Int64),
            Some(Type::Decimal(21, 2))
        );
        assert_eq!(unify(&Type::Float32, &Type::Float32), Some(Type::Float32));
        assert_eq!(unify(&Type::Float32, &Type::Int64), Some(Type::Float64));
        assert_eq!(unify(&Type::TimestampTz, &Type::Timestamp), None);
        assert_eq!(unify(&usd, &Type::Int64), Some(usd.clone()));
        assert_eq!(unify(&usd, &eur), Some(usd.clone()));
        assert_eq!(unify(&Type::Int64, &Type::Float64), Some(Type::Float64));
        assert_eq!(unify(&Type::String, &Type::Int64), None);
        assert_eq!(
            unify_all([&Type::Unknown, &Type::String]),
            Ok(Some(Type::String))
        );
        assert_eq!(unify_all([&Type::Unknown]), Ok(None));
        assert!(unify_all([&Type::String, &Type::Bool]).is_err());
    }

    #[test]
    fn contract_compatibility() {
        assert!(contract_compatible(&Type::Float64, &Type::Int64));
        assert!(contract_compatible(&Type::Decimal(10, 2), &Type::Int64));
        assert!(!contract_compatible(
            &Type::Decimal(10, 2),
            &Type::Decimal(38, 2)
        ));
        assert!(!contract_compatible(
            &Type::Money(Box::new("USD".into())),
            &Type::Int64
        ));
        assert!(!contract_compatible(&Type::Int64, &Type::Unknown));
    }
}
