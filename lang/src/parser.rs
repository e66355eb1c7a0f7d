//! Parser (being written).
