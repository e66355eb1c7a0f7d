//! Lexer (being written).
