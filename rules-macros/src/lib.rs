//! Rule macro.
