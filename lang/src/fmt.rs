//! Formatter (being written).
