//! The simulated world a scenario runs in: the scripted model that plays it, the server in front
//! of it that counts, bills and enforces the window, and the scripted summaries' retention.

pub mod cache;
pub mod provider;
pub mod retention;
pub mod scripted;
