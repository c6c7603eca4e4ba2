//! The real bill's parts, as settings: what tokens cost ([`price`], from the table shipped in
//! `prices.toml`), the prompt cache a provider runs ([`cache_mode`]), and a request as a prefix
//! cache sees it ([`segments`]).

pub mod cache_mode;
pub mod price;
pub mod segments;
