//! `strata fmt` (being written).
