//! Grouping and aggregation.

pub mod e050_group_output_not_aggregate;
pub mod e056_aggregate_outside_group;
