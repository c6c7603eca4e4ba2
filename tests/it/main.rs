//! The one integration test binary (ripgrep's habit): every module is a topic.

mod generate;
mod shared;

mod cli_compact;
mod conversations;
mod counts;
mod properties;
mod renders;
mod seed;
