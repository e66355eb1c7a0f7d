//! The clock a run's models read (`current_date()`, `current_timestamp()`):
//! the run's start in UTC, or the time `--now` gives; a replay and a
//! backfill read the one their run recorded.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use strata_lang::sql::Clock;

/// How a clock is written: UTC, to the microsecond.
const FORMAT: &str = "%Y-%m-%d %H:%M:%S%.6f";

/// The current time.
pub fn now() -> Clock {
    of(Utc::now().naive_utc())
}

/// `--now`: a date (`2026-12-07`, midnight) or a date and time
/// (`2026-12-07T10:30:00Z`, `2026-12-07 10:30:00+01:00`; UTC when it
/// names no offset).
pub fn parse(text: &str) -> Result<Clock, String> {
    let t = text.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(of(dt.with_timezone(&Utc).naive_utc()));
    }
    for f in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(n) = NaiveDateTime::parse_from_str(t, f) {
            return Ok(of(n));
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return Ok(of(d.and_time(NaiveTime::MIN)));
    }
    Err(format!(
        "expected a date (2026-12-07) or a date and time (2026-12-07T10:30:00Z), got '{text}'"
    ))
}

fn of(t: NaiveDateTime) -> Clock {
    Clock::new(t.format(FORMAT).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_in_utc() {
        let at = |t: &str| parse(t).map(|c| c.timestamp().to_string());
        assert_eq!(
            at("2026-12-07").as_deref(),
            Ok("2026-12-07 00:00:00.000000")
        );
        assert_eq!(
            at("2026-12-07T10:30:00Z").as_deref(),
            Ok("2026-12-07 10:30:00.000000")
        );
        assert_eq!(
            at("2026-12-07T00:30:00+01:00").as_deref(),
            Ok("2026-12-06 23:30:00.000000")
        );
        assert_eq!(
            at(" 2024-02-29 23:59:59.5 ").as_deref(),
            Ok("2024-02-29 23:59:59.500000")
        );
        assert!(at("2023-02-29").is_err());
        assert!(matches!(at("yesterday"), Err(e) if e.contains("'yesterday'")));
        assert_eq!(now().timestamp().len(), "2026-12-07 00:00:00.000000".len());
    }
}
