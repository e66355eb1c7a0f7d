//! `strata explain` (being written).
