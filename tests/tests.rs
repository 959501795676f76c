//! One integration test binary, a module per area.

mod action_cli;
mod action_guard;
mod action_profiles;
mod action_run;
mod action_sqlite;
mod cli;
mod differential;
mod gate;
mod guards;
mod hooks;
mod labels;
mod malicious;
mod oracle;
mod own_corpus;
mod peers;
mod profile_cli;
mod profiles;
mod properties;
mod protocols;
mod readme_examples;
mod reference_doc;
mod self_protect;
mod spec_examples;
mod spec_options;
mod taxonomy_examples;
mod util;
