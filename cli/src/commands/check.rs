//! `strata check` (being written).
