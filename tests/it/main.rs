//! The one integration test binary (ripgrep's habit): every module is a topic.

mod shared;

mod counts;
mod seed;
