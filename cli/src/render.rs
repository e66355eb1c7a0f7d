//! Rendering diagnostics (being written).
