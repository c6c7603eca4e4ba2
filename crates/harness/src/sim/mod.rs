//! The simulated world a scenario runs in: the scripted model that plays it, the server in front
//! of it that counts, bills and enforces the window, and the behaviour profiles of the summarizer and the model.

pub mod cache;
pub mod profile;
pub mod provider;
pub mod scripted;
