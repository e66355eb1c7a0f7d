//! Instants (`timestamptz`) and wall-clock times (`timestamp`) converted
//! into each other, the same whatever the session's time zone: the SQL of
//! `at_time_zone`, `to_utc`, `from_utc` and of casts between the two.

use super::dialect::{unsupported, Dialect, Unsupported};
use crate::types::Type;

impl Dialect {
    /// The wall-clock time (a strata `timestamp`) of the instant `x` in
    /// the time zone `zone` (SQL of a string).
    pub fn at_zone(self, x: &str, zone: &str) -> Result<String, Unsupported> {
        let ts = self.type_name(&Type::Timestamp)?;
        Ok(match self {
            Dialect::Postgres => format!("({x} AT TIME ZONE {zone})"),
            // Time zones are ICU's, which strata's embedded DuckDB is
            // built without (its TIMESTAMPTZ is UTC: `to_utc` works).
            Dialect::DuckDb => {
                return unsupported(
                    self,
                    "at_time_zone() (strata's DuckDB has no time zone database; to_utc(t) works)",
                )
            }
            Dialect::BigQuery => format!("TIMESTAMP(DATETIME({x}, {zone}))"),
            Dialect::Snowflake => format!("CAST(CONVERT_TIMEZONE({zone}, {x}) AS {ts})"),
            // A TIMESTAMP is shown in the session's zone: its wall-clock
            // time there, moved to `zone`, read back in the session's zone.
            Dialect::Spark => format!(
                "CAST(CONVERT_TIMEZONE(CURRENT_TIMEZONE(), {zone}, CAST({x} AS TIMESTAMP_NTZ)) AS {ts})"
            ),
        })
    }

    /// The wall-clock time of the instant `x` in UTC.
    pub fn to_utc(self, x: &str) -> Result<String, Unsupported> {
        match self {
            // Without ICU (strata's embedded DuckDB) DuckDB's TIMESTAMPTZ
            // casts are UTC's.
            Dialect::DuckDb => self.cast(x, &Type::Timestamp),
            _ => self.at_zone(x, &self.string("UTC")),
        }
    }

    /// The instant at which UTC's clocks show the wall-clock time `t`.
    pub fn from_utc(self, t: &str) -> Result<String, Unsupported> {
        let tz = self.type_name(&Type::TimestampTz)?;
        Ok(match self {
            Dialect::Postgres => format!("({t} AT TIME ZONE 'UTC')"),
            Dialect::DuckDb => format!("CAST({t} AS {tz})"),
            Dialect::BigQuery => format!("TIMESTAMP(DATETIME({t}), 'UTC')"),
            Dialect::Snowflake => format!(
                "TIMESTAMP_TZ_FROM_PARTS(YEAR({t}), MONTH({t}), DAY({t}), HOUR({t}), MINUTE({t}), SECOND({t}), DATE_PART(NANOSECOND, {t}), 'UTC')"
            ),
            Dialect::Spark => format!(
                "CAST(CONVERT_TIMEZONE('UTC', CURRENT_TIMEZONE(), CAST({t} AS TIMESTAMP_NTZ)) AS {tz})"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_never_read_the_session_zone_where_the_dialect_names_one() {
        assert!(Dialect::DuckDb.at_zone("x", "'UTC'").is_err());
        for d in Dialect::ALL {
            assert!(d.to_utc("x").is_ok());
            assert!(d.from_utc("t").is_ok());
            if d == Dialect::DuckDb {
                continue;
            }
            let local = d.at_zone("x", "'Europe/Madrid'");
            assert!(
                local
                    .as_deref()
                    .is_ok_and(|l| l.contains("'Europe/Madrid'")),
                "{local:?}"
            );
        }
        assert_eq!(
            Dialect::Postgres.to_utc("x").as_deref(),
            Ok("(x AT TIME ZONE 'UTC')")
        );
    }
}
