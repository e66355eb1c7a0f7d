//! `strata build` (being written).
