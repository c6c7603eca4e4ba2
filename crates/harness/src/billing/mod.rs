//! The real bill's parts, as settings: what tokens cost ([`price`], from the table shipped in
//! `prices.toml`), the prompt cache a provider runs ([`cache_mode`]), and a request as a prefix
//! cache sees it ([`segments`]); what can be wrong with a price or a cache mode ([`PriceError`],
//! [`CacheError`]).

pub mod cache_mode;
mod error;
pub mod price;
pub mod segments;
#[cfg(test)]
mod tests;

pub use error::{CacheError, PriceError};
