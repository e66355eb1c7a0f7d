//! `strata rules` (being written).
