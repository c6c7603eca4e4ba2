//! The one integration test binary (ripgrep's habit): every module is a topic.

mod generate;
mod shared;

mod counts;
mod properties;
mod seed;
