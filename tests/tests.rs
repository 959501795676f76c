//! One integration test binary, a module per area.

mod taxonomy_examples;
