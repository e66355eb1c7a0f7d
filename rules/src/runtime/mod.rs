//! Codes the materializer reports when data breaks a promise.

pub mod pin_error;
