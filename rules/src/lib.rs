//! The rule registry (being written).
