//! The one integration test binary (ripgrep's habit): every module is a topic.

mod cmd;
mod fixtures;
mod generate;

mod behaviour;
mod bill;
mod cli_compact;
mod cli_gate;
mod cli_replay;
mod cli_sweep;
mod conversations;
mod counts;
mod import;
mod import_sessions;
mod layers;
mod new_user;
mod plots;
mod probes;
mod properties;
mod reference_listing;
mod render;
mod renders;
mod report_browser;
mod rough_edges;
mod scenario_files;
mod scenarios;
mod serve;
mod serve_formats;
mod serve_stream;
mod verdicts;
mod wire;
mod wire_properties;
